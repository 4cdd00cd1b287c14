/**
 * A file that holds MCP servers under `mcpServers`: Claude Code's project `.mcp.json` and
 * `managed-mcp.json`, Cursor's `mcp.json` (user and project). The entries are read by the
 * entry shape of the host's dialect (`mcpEntry.ts`).
 */
import { Schema } from "effect"
import { NamedMap, optional } from "./decode.js"

/** `{ "mcpServers": { name: entry } }`. */
export const McpServersFile = Schema.Struct({
  mcpServers: optional(NamedMap(Schema.Unknown))
})
export type McpServersFile = typeof McpServersFile.Type
