/**
 * opencode's config file (`opencode.json`/`opencode.jsonc`/`config.json`, JSON with comments;
 * 1.18.33): only the keys tool-map reads. Agents and commands keep their entries as written
 * (their hash is of the entry's values as the file holds them) and are read by
 * {@link OpencodeAgent} and {@link OpencodeCommand}.
 */
import { Schema } from "effect"
import { NamedMap, optional, StringList } from "./decode.js"

/** The keys of an opencode config file tool-map reads. */
export const OpencodeConfig = Schema.Struct({
  mcp: optional(NamedMap(Schema.Unknown)),
  agent: optional(NamedMap(Schema.Unknown)),
  command: optional(NamedMap(Schema.Unknown)),
  skills: optional(Schema.Struct({ paths: optional(StringList) }))
})
export type OpencodeConfig = typeof OpencodeConfig.Type

/** An agent of `agent` in the config. */
export const OpencodeAgent = Schema.Struct({
  description: optional(Schema.String),
  model: optional(Schema.String),
  prompt: optional(Schema.String),
  /** Tool name → on/off; only `false` switches a tool off. */
  tools: optional(NamedMap(Schema.Unknown)),
  disable: optional(Schema.Boolean)
})
export type OpencodeAgent = typeof OpencodeAgent.Type

/** A command of `command` in the config. */
export const OpencodeCommand = Schema.Struct({
  description: optional(Schema.String),
  model: optional(Schema.String),
  template: optional(Schema.String)
})
export type OpencodeCommand = typeof OpencodeCommand.Type

/** An agent's keys as written, whatever their type: its hash changes when one does. */
export const OpencodeAgentWritten = Schema.Struct({
  description: optional(Schema.Unknown),
  model: optional(Schema.Unknown),
  tools: optional(Schema.Unknown),
  mode: optional(Schema.Unknown)
})

/** A command's keys as written, whatever their type: its hash changes when one does. */
export const OpencodeCommandWritten = Schema.Struct({
  description: optional(Schema.Unknown),
  model: optional(Schema.Unknown),
  agent: optional(Schema.Unknown)
})
