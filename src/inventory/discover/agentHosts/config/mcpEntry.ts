/**
 * An MCP server entry of a host's config, per dialect: Claude Code and Cursor (`command`,
 * `args`, `env`, `url`, `type`, `headers`, `disabled`), Gemini CLI (`httpUrl`, `includeTools`,
 * `excludeTools`, `trust`), Codex (`env_vars`, `http_headers`, `env_http_headers`,
 * `bearer_token_env_var`, `enabled_tools`, `disabled_tools`, `enabled`) and opencode (`type`
 * local/remote, `command` as a list, `environment`, `enabled`). A key of the wrong type is
 * ignored; an entry that is not an object is read as one with no keys. Env and header maps keep
 * their values as written: only their names and `${NAME}` references are ever looked at, and the
 * values go to the started server alone.
 */
import { Schema } from "effect"
import { decodeEntry, NamedMap, optional, StringList } from "./decode.js"

/** The config dialects of MCP server entries. */
export type McpDialect = "claude" | "cursor" | "codex" | "gemini" | "opencode"

/** A map of names to values as written (env, headers); see {@link stringValues}. */
const ValueMap = NamedMap(Schema.Unknown)

const common = {
  command: optional(Schema.String),
  args: optional(StringList),
  env: optional(ValueMap),
  url: optional(Schema.String),
  cwd: optional(Schema.String)
}

/** Claude Code's and Cursor's entry. */
export const ClaudeMcpEntry = Schema.Struct({ ...common, type: optional(Schema.String), headers: optional(ValueMap), disabled: optional(Schema.Boolean) })
export type ClaudeMcpEntry = typeof ClaudeMcpEntry.Type

/** Gemini CLI's entry. */
export const GeminiMcpEntry = Schema.Struct({
  ...common,
  httpUrl: optional(Schema.String),
  headers: optional(ValueMap),
  includeTools: optional(StringList),
  excludeTools: optional(StringList),
  trust: optional(Schema.Boolean)
})
export type GeminiMcpEntry = typeof GeminiMcpEntry.Type

/** Codex's entry (`[mcp_servers.<name>]`). */
export const CodexMcpEntry = Schema.Struct({
  ...common,
  env_vars: optional(StringList),
  http_headers: optional(ValueMap),
  /** Header name → the NAME of the variable that holds its value. */
  env_http_headers: optional(ValueMap),
  bearer_token_env_var: optional(Schema.String),
  enabled_tools: optional(StringList),
  disabled_tools: optional(StringList),
  enabled: optional(Schema.Boolean)
})
export type CodexMcpEntry = typeof CodexMcpEntry.Type

/** opencode's entry (`mcp.<name>`): its command is the whole command line. */
export const OpencodeMcpEntry = Schema.Struct({
  type: optional(Schema.String),
  command: optional(Schema.Union(StringList, Schema.String)),
  /** Not opencode's: the gateway starts a one-word `command` with the `args` an entry copied from another host may have. */
  args: optional(StringList),
  url: optional(Schema.String),
  environment: optional(ValueMap),
  headers: optional(ValueMap),
  enabled: optional(Schema.Boolean),
  cwd: optional(Schema.String)
})
export type OpencodeMcpEntry = typeof OpencodeMcpEntry.Type

/** Every key of every dialect, for code that reads an entry of any dialect (each dialect's entry is one). */
export type McpEntryKeys = Partial<Omit<ClaudeMcpEntry & GeminiMcpEntry & CodexMcpEntry & OpencodeMcpEntry, "command">> & {
  readonly command?: string | ReadonlyArray<string>
}

/** An entry decoded in its dialect. */
export type McpEntry =
  | { readonly dialect: "claude" | "cursor"; readonly entry: ClaudeMcpEntry }
  | { readonly dialect: "gemini"; readonly entry: GeminiMcpEntry }
  | { readonly dialect: "codex"; readonly entry: CodexMcpEntry }
  | { readonly dialect: "opencode"; readonly entry: OpencodeMcpEntry }

const decoders = {
  claude: decodeEntry(ClaudeMcpEntry, {}),
  gemini: decodeEntry(GeminiMcpEntry, {}),
  codex: decodeEntry(CodexMcpEntry, {}),
  opencode: decodeEntry(OpencodeMcpEntry, {})
}

/** An entry as written in a host's config, decoded in `dialect` (misfitting keys left out). */
export const decodeMcpEntry = (raw: unknown, dialect: McpDialect): McpEntry => {
  switch (dialect) {
    case "claude":
    case "cursor":
      return { dialect, entry: decoders.claude(raw) }
    case "gemini":
      return { dialect, entry: decoders.gemini(raw) }
    case "codex":
      return { dialect, entry: decoders.codex(raw) }
    case "opencode":
      return { dialect, entry: decoders.opencode(raw) }
  }
}

/** The string values of a map as written (other values are not passed on by the hosts). */
export const stringValues = (map: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<string> =>
  map === undefined ? [] : Object.values(map).filter((value): value is string => typeof value === "string")

/** The entries of a map whose values are strings. */
export const stringEntries = (map: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<readonly [string, string]> =>
  map === undefined ? [] : Object.keys(map).flatMap((key) => {
    const value = map[key]
    return typeof value === "string" ? [[key, value] as const] : []
  })
