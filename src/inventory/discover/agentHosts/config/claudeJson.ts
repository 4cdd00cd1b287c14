/**
 * `~/.claude.json`, Claude Code's state file (large: it is also its history): only the keys
 * tool-map reads, the user's MCP servers and the project entries; a project's own keys are
 * decoded for the one project the working directory selects ({@link ClaudeProjectEntry}).
 */
import { Schema } from "effect"
import { NamedMap, optional, StringList } from "./decode.js"

/** The keys of `~/.claude.json` tool-map reads. */
export const ClaudeJson = Schema.Struct({
  /** User-scope servers: name → entry (entries are read by the MCP entry shapes). */
  mcpServers: optional(NamedMap(Schema.Unknown)),
  /** Project folder → its entry, decoded only for the project in use. */
  projects: optional(NamedMap(Schema.Unknown))
})
export type ClaudeJson = typeof ClaudeJson.Type

/** One entry of `projects` in `~/.claude.json`: its local-scope servers and switches. */
export const ClaudeProjectEntry = Schema.Struct({
  mcpServers: optional(NamedMap(Schema.Unknown)),
  disabledMcpjsonServers: optional(StringList),
  disabledMcpServers: optional(StringList)
})
export type ClaudeProjectEntry = typeof ClaudeProjectEntry.Type
