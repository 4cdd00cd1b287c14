/**
 * Codex's TOML files (0.171.0): `config.toml` of `$CODEX_HOME` and of a trusted project's
 * `.codex/`, and a custom agent's `agents/*.toml`. Only the keys tool-map reads.
 */
import { Schema } from "effect"
import { NamedMap, optional } from "./decode.js"

/** The keys of a Codex `config.toml` tool-map reads. */
export const CodexConfig = Schema.Struct({
  /** Server name → entry (entries are read by the MCP entry shapes). */
  mcp_servers: optional(NamedMap(Schema.Unknown)),
  /** Project folder → its settings; `trust_level = "trusted"` lets the project's own config load. */
  projects: optional(NamedMap(Schema.Struct({ trust_level: optional(Schema.String) })))
})
export type CodexConfig = typeof CodexConfig.Type

/** A custom agent (`agents/<name>.toml`). */
export const CodexAgent = Schema.Struct({
  name: optional(Schema.String),
  description: optional(Schema.String),
  model: optional(Schema.String),
  mcp_servers: optional(NamedMap(Schema.Unknown))
})
export type CodexAgent = typeof CodexAgent.Type
