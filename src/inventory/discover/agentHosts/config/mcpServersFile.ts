/**
 * A file that holds MCP servers under `mcpServers`: Claude Code's project `.mcp.json` and
 * `managed-mcp.json`, Cursor's `mcp.json` (user and project). The entries are read by the
 * entry shape of the host's dialect (`mcpEntry.ts`).
 */
import { Schema } from "effect"
import { decodedOrNull, NamedMap, optional } from "./decode.js"

/** `{ "mcpServers": { name: entry } }`. */
export const McpServersFile = Schema.Struct({
  mcpServers: optional(NamedMap(Schema.Unknown))
})
export type McpServersFile = typeof McpServersFile.Type

/** Where any host keeps MCP server entries in a config file: `mcpServers`, Codex's `mcp_servers`, opencode's `mcp`, `~/.claude.json`'s projects. */
const AnyLayout = Schema.Struct({
  mcpServers: optional(NamedMap(Schema.Unknown)),
  mcp_servers: optional(NamedMap(Schema.Unknown)),
  mcp: optional(NamedMap(Schema.Unknown)),
  projects: optional(NamedMap(Schema.Struct({ mcpServers: optional(NamedMap(Schema.Unknown)) })))
})

/** The top level of a config file as a map (a plugin's `.mcp.json` may hold its servers there). */
const TopLevel = NamedMap(Schema.Unknown)

/**
 * The entries a config file (`root`, parsed) may hold a server named `name` in, for every host's
 * layout: under `mcpServers`, `mcp_servers`, `mcp`, at the top level, then under each project of
 * `~/.claude.json`. The caller tells the one it means by its hash.
 */
export const mcpEntriesNamed = (file: string, root: unknown, name: string): ReadonlyArray<unknown> => {
  const top = decodedOrNull(TopLevel, file, root)
  const layout = decodedOrNull(AnyLayout, file, root)
  if (top === null || layout === null) return []
  const at = (map: Readonly<Record<string, unknown>> | undefined) => (map !== undefined && Object.hasOwn(map, name) ? [map[name]] : [])
  const projects = layout.projects ?? {}
  return [
    ...at(layout.mcpServers),
    ...at(layout.mcp_servers),
    ...at(layout.mcp),
    ...at(top),
    ...Object.keys(projects).flatMap((project) => at(projects[project]!.mcpServers))
  ]
}
