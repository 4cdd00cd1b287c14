import { Schema } from "effect"
import { Argv } from "./untrusted.js"

/** The agent hosts whose configuration tool-map reads (SPEC section 4). */
export const AgentHostName = Schema.Literal("claude-code", "codex", "cursor", "gemini", "opencode")
export type AgentHostName = typeof AgentHostName.Type

/** Every host, in the order the reports and renderings list them. */
export const AGENT_HOSTS: ReadonlyArray<AgentHostName> = ["claude-code", "codex", "cursor", "gemini", "opencode"]

/** Display names of the hosts. */
export const AGENT_HOST_TITLES: Readonly<Record<AgentHostName, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  cursor: "Cursor",
  gemini: "Gemini CLI",
  opencode: "opencode"
}

/** What an item is. */
export const AgentItemKind = Schema.Literal("agent", "skill", "command", "mcpServer", "plugin", "instructions")
export type AgentItemKind = typeof AgentItemKind.Type

/** Where an item is configured, in the host's own terms; `builtin`: it comes with the installed host (Claude Code's own agents and skills). */
export const AgentItemScope = Schema.Literal("user", "project", "local", "managed", "plugin", "builtin")
export type AgentItemScope = typeof AgentItemScope.Type

/** Where an agent definition comes from: a plain directory, a plugin's `agents/`, or deeper in a plugin. */
export const AgentSource = Schema.Literal("local", "plugin-root", "plugin-nested")
export type AgentSource = typeof AgentSource.Type

/** The fields every item carries. */
const itemFields = {
  host: AgentHostName,
  scope: AgentItemScope,
  name: Schema.String,
  /** Unique within the inventory: host, kind, scope, defining file and (for entries of a shared file) the entry key. */
  id: Schema.String,
  /** The file (or plugin directory) that defines the item. */
  path: Schema.String,
  /** Whether the host loads it, leaving name conflicts aside (a disabled plugin, `enabled = false`, an ignored file). */
  enabled: Schema.Boolean,
  /** Why `enabled` is false, in a short sentence; null when enabled. */
  disabledReason: Schema.NullOr(Schema.String),
  /** The id of the item that wins over this one under the host's own precedence, or null. */
  shadowedBy: Schema.NullOr(Schema.String),
  /**
   * SHA-256 (hex) of the defining file; for an entry of a shared config file (an MCP server, a
   * plugin), of the entry's normalized public fields (never of env or header values).
   */
  sha256: Schema.NullOr(Schema.String),
  /** Modification time of the defining file, ISO 8601 UTC, or null when unknown. */
  mtime: Schema.NullOr(Schema.String),
  /** `name@marketplace` of the plugin (or extension) that ships the item, else null. */
  plugin: Schema.NullOr(Schema.String),
  /**
   * The ids of other hosts' items of the same kind defined by the same file (a skill in
   * `~/.claude/skills` is Claude Code's and opencode's), each with its own state under its
   * host's rules; absent when no other host loads the file.
   */
  sameFileAs: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /**
   * The always-on ledger (issue 14, see `ledger.ts`): estimated o200k tokens the item puts into
   * every session of its host (0 when the host does not load it), null when unknown (an MCP
   * server's tool schemas). Absent in bundles written before it was recorded.
   */
  alwaysOnTokens: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
  /** Estimated o200k tokens of using the item (its body), null when unknown; absent in older bundles. */
  onInvokeTokens: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
  /**
   * Claude Code: the lengths of the item's line in the session's skill listing, full and name-only
   * (`ledger.ts`, `skillListing`), when the host lists it; what switching a plugin off saves is
   * worked out from them. Absent otherwise and in older bundles.
   */
  listingLine: Schema.optionalWith(Schema.Struct({ full: Schema.Number, nameOnly: Schema.Number }), { exact: true })
}

/** A subagent definition. */
export class AgentItem extends Schema.Class<AgentItem>("AgentItem")({
  kind: Schema.Literal("agent"),
  ...itemFields,
  description: Schema.NullOr(Schema.String),
  /** The `tools` allowlist as written; null when absent (the agent inherits every tool). */
  tools: Schema.NullOr(Argv),
  disallowedTools: Argv,
  model: Schema.NullOr(Schema.String),
  background: Schema.Boolean,
  maxTurns: Schema.NullOr(Schema.Number),
  /** MCP server names the agent declares (inline definitions by their key), or null when none. */
  mcpServers: Schema.NullOr(Argv),
  source: AgentSource
}) {}

/** A skill (`SKILL.md` in its own directory). */
export class SkillItem extends Schema.Class<SkillItem>("SkillItem")({
  kind: Schema.Literal("skill"),
  ...itemFields,
  description: Schema.NullOr(Schema.String),
  /** `allowed-tools` as written; null when absent. */
  allowedTools: Schema.NullOr(Argv),
  /** The skill directory ships code (a `scripts/` directory or script files). */
  hasScripts: Schema.Boolean
}) {}

/** A slash command, custom prompt or command file. */
export class CommandItem extends Schema.Class<CommandItem>("CommandItem")({
  kind: Schema.Literal("command"),
  ...itemFields,
  description: Schema.NullOr(Schema.String),
  argumentHint: Schema.NullOr(Schema.String),
  allowedTools: Schema.NullOr(Argv),
  model: Schema.NullOr(Schema.String)
}) {}

/** An MCP server entry. Env and header VALUES are never read into it: names only. */
export class McpServerItem extends Schema.Class<McpServerItem>("McpServerItem")({
  kind: Schema.Literal("mcpServer"),
  ...itemFields,
  /** `stdio`, `http`, `sse`, `ws`, or `unknown`. */
  transport: Schema.String,
  /** The executable of a stdio server (secret-looking text redacted). */
  command: Schema.NullOr(Schema.String),
  /** Its arguments (secret-looking values and values of secret-named flags redacted). */
  args: Argv,
  /** The URL of a remote server, without credentials or query values. */
  url: Schema.NullOr(Schema.String),
  /** Names of the environment variables it is given or reads. */
  envVars: Schema.Array(Schema.String),
  /**
   * The names among them it needs from the environment the host gives it (`${NAME}` without a
   * default, forwarded variables): unset, the server will not start as configured. Absent in
   * bundles written before it was recorded.
   */
  requiredEnvVars: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /** Names of the HTTP headers it is given. */
  headerNames: Schema.Array(Schema.String),
  /** Tool allowlist of the host for this server (`enabled_tools`, `includeTools`), or null for all. */
  enabledTools: Schema.NullOr(Schema.Array(Schema.String)),
  /** Tool denylist of the host for this server (`disabled_tools`, `excludeTools`). */
  disabledTools: Schema.Array(Schema.String),
  /** Gemini's `trust` (skip confirmations), null where the host has no such setting. */
  trust: Schema.NullOr(Schema.Boolean)
}) {}

/** An installed plugin (Claude Code) or extension (Gemini CLI). */
export class PluginItem extends Schema.Class<PluginItem>("PluginItem")({
  kind: Schema.Literal("plugin"),
  ...itemFields,
  marketplace: Schema.NullOr(Schema.String),
  version: Schema.NullOr(Schema.String),
  /**
   * Claude Code: how many `SessionStart` hooks of the plugin can add to the context (command and
   * http hooks: their output becomes context at every session start); absent when none (issue 28).
   * tool-map never runs them, so what they add is not counted.
   */
  sessionStartHooks: Schema.optionalWith(Schema.Number, { exact: true }),
  /**
   * Claude Code: characters of the plugin's text files that its `SessionStart` hooks' scripts name
   * (read, never run): the known part of what the hooks add; present with `sessionStartHooks`.
   */
  sessionStartKnownChars: Schema.optionalWith(Schema.Number, { exact: true })
}) {}

/** A memory / instructions file the host puts in context (CLAUDE.md, AGENTS.md, GEMINI.md, rules). */
export class InstructionsItem extends Schema.Class<InstructionsItem>("InstructionsItem")({
  kind: Schema.Literal("instructions"),
  ...itemFields,
  description: Schema.NullOr(Schema.String),
  size: Schema.Number
}) {}

/** One normalized item of an agent host. */
export const AgentHostItem = Schema.Union(AgentItem, SkillItem, CommandItem, McpServerItem, PluginItem, InstructionsItem)
export type AgentHostItem = typeof AgentHostItem.Type

/** What reading a host location found. */
export const AgentHostRootStatus = Schema.Literal(
  "ok",
  "missing",
  "unreadable",
  "not-a-directory",
  "not-a-file",
  "too-large",
  "invalid",
  "inactive"
)
export type AgentHostRootStatus = typeof AgentHostRootStatus.Type

/** A file or directory a host reads, and the outcome of reading it. */
export class AgentHostRoot extends Schema.Class<AgentHostRoot>("AgentHostRoot")({
  path: Schema.String,
  /** What the host reads there (e.g. "user agents", "installed plugins"). */
  role: Schema.String,
  status: AgentHostRootStatus,
  /** Why the status is not ok (an errno reason or a short sentence), else null. */
  reason: Schema.NullOr(Schema.String)
}) {}

/** Item counts of one host: every item, and those the host will really load. */
export class AgentHostCounts extends Schema.Class<AgentHostCounts>("AgentHostCounts")({
  agents: Schema.Number,
  skills: Schema.Number,
  commands: Schema.Number,
  mcpServers: Schema.Number,
  plugins: Schema.Number,
  instructions: Schema.Number,
  /** Items enabled and not shadowed. */
  effective: Schema.Number,
  diagnostics: Schema.Number
}) {}

/** One host: whether any of its locations exists, what was read, and the counts. */
/** Claude Code: the model the ledger assumed for a session, and the skill-listing budget that follows (issue 28). */
export class ListingModel extends Schema.Class<ListingModel>("ListingModel")({
  model: Schema.String,
  source: Schema.String,
  setting: Schema.NullOr(Schema.String),
  contextWindow: Schema.Number,
  charsPerToken: Schema.Number,
  budget: Schema.Number,
  budgetVariable: Schema.Boolean,
  /** The host's own agents and skills of its version (issue 28, point 4), when tool-map knows them. */
  builtins: Schema.optionalWith(Schema.Struct({
    version: Schema.String,
    agents: Schema.Array(Schema.String),
    skills: Schema.Array(Schema.String),
    chars: Schema.Number,
    budgetChars: Schema.Number
  }), { exact: true })
}) {}

export class AgentHostReport extends Schema.Class<AgentHostReport>("AgentHostReport")({
  host: AgentHostName,
  /** True when at least one location of the host exists. */
  detected: Schema.Boolean,
  roots: Schema.Array(AgentHostRoot),
  counts: AgentHostCounts,
  /** Claude Code: the model its ledger assumed (absent for other hosts and older bundles). */
  listing: Schema.optionalWith(ListingModel, { exact: true })
}) {}

/** A per-file problem (same shape as `Diagnostic` of tools.json). Never holds file contents. */
export class AgentHostDiagnostic extends Schema.Class<AgentHostDiagnostic>("AgentHostDiagnostic")({
  source: Schema.String,
  path: Schema.NullOr(Schema.String),
  line: Schema.NullOr(Schema.Number),
  message: Schema.String
}) {}

/** Agent-host inventory (SPEC section 4), embedded in tools.json as `agentHosts`. */
export class AgentHostsInventory extends Schema.Class<AgentHostsInventory>("AgentHostsInventory")({
  hosts: Schema.Array(AgentHostReport),
  items: Schema.Array(AgentHostItem),
  diagnostics: Schema.Array(AgentHostDiagnostic)
}) {
  static readonly empty = new AgentHostsInventory({ hosts: [], items: [], diagnostics: [] })
}

/** True when the host will really load the item: enabled and not shadowed by another. */
export const isEffective = (item: AgentHostItem): boolean => item.enabled && item.shadowedBy === null

/** The hosts that load the file of an item: its own, then those of its {@link AgentHostItem} `sameFileAs` ids. */
export const loadedBy = (item: AgentHostItem, byId: ReadonlyMap<string, AgentHostItem>): ReadonlyArray<AgentHostName> => {
  const hosts = new Set<AgentHostName>([item.host])
  for (const id of item.sameFileAs ?? []) {
    const other = byId.get(id)
    if (other !== undefined) hosts.add(other.host)
  }
  return AGENT_HOSTS.filter((host) => hosts.has(host))
}
