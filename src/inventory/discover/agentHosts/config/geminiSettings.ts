/**
 * Gemini CLI's config files (0.61.0): `settings.json` of the system, the workspace and the user
 * (JSON with comments), an extension's `gemini-extension.json`, `trustedFolders.json`, and a
 * custom command's TOML. Only the keys tool-map reads.
 */
import { Schema } from "effect"
import { NamedMap, optional, orEmptyWhenNot, StringList } from "./decode.js"

/**
 * A context file name or a list of them. Another value (but `null`, which is no value) still
 * takes the key's place and reads as no name (so the default, GEMINI.md).
 */
export const GeminiContextFileName = orEmptyWhenNot(
  Schema.Union(Schema.String, StringList),
  (value) => value === null || typeof value === "string" || Array.isArray(value),
  []
)
export type GeminiContextFileName = typeof GeminiContextFileName.Type

/** The keys of a Gemini CLI settings file tool-map reads (the current names and the legacy ones). */
export const GeminiSettings = Schema.Struct({
  mcpServers: optional(NamedMap(Schema.Unknown)),
  mcp: optional(Schema.Struct({ allowed: optional(StringList), excluded: optional(StringList) })),
  allowMCPServers: optional(StringList),
  excludeMCPServers: optional(StringList),
  skills: optional(Schema.Struct({ disabled: optional(StringList) })),
  context: optional(Schema.Struct({ fileName: optional(GeminiContextFileName) })),
  contextFileName: optional(GeminiContextFileName),
  security: optional(Schema.Struct({ folderTrust: optional(Schema.Struct({ enabled: optional(Schema.Boolean) })) }))
})
export type GeminiSettings = typeof GeminiSettings.Type

/** An extension's `gemini-extension.json`. */
export const GeminiExtension = Schema.Struct({
  name: optional(Schema.String),
  version: optional(Schema.String),
  mcpServers: optional(NamedMap(Schema.Unknown)),
  contextFileName: optional(GeminiContextFileName)
})
export type GeminiExtension = typeof GeminiExtension.Type

/** The trust levels of `trustedFolders.json`. */
export const GeminiTrustLevel = Schema.Literal("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
export type GeminiTrustLevel = typeof GeminiTrustLevel.Type

/** `trustedFolders.json`: folder → level. Levels are checked by the trust rule (one bad level stops the host). */
export const GeminiTrustedFolders = NamedMap(Schema.Unknown)
export type GeminiTrustedFolders = typeof GeminiTrustedFolders.Type

/** A custom command (`commands/**.toml`); one without a `prompt` string is skipped by the host. */
export const GeminiCommand = Schema.Struct({
  prompt: optional(Schema.String),
  description: optional(Schema.String)
})
export type GeminiCommand = typeof GeminiCommand.Type
