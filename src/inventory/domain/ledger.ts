import { estimateTextTokens, estimateTokens } from "./tokens.js"
import type { AgentHostItem, AgentHostName } from "./agentHosts.js"

/**
 * The always-on ledger (issue 14): what an agent-host item puts into every session of its host
 * (`alwaysOnTokens`) and what using it costs (`onInvokeTokens`). The texts counted follow each
 * host's own rules, and so does the count where the host publishes one: Claude Code's figures are
 * its own projection (characters / 4, what `claude plugin details` prints without a connection to
 * its token-counting API), the other hosts' are o200k tokens from the catalog's estimator.
 * Claude Code's rules are read in its 2.1.332 bundle (the host wins over its docs):
 *
 * - `claude plugin details` counts, per skill, command and agent, the text
 *   `[name, description, when_to_use].filter(Boolean).join(" ")` as always-on and the body after
 *   the frontmatter, trimmed, as on-invoke. A skill's or command's name is
 *   `<plugin>:<name with every character outside [A-Za-z0-9_-] made "-">`; an agent's is its file
 *   name. The description is the `description` field (a number or boolean as its text), else the
 *   body's first non-empty line without its heading marks, cut to 100 characters (97 and "...").
 *   Offline (no count_tokens) it projects `round(chars / 4)` per component and per plugin.
 * - A session lists each agent as `- <agentType>: <whenToUse> (Tools: <tools>)` (`claudeAgentLine`):
 *   the ledger counts that line, not the `plugin details` text.
 * - A session lists the model-invocable skills (commands included) as `- <name>: <description>`
 *   (the description, then ` - <when_to_use>` when set, cut to 1,536 characters with "…"), one a
 *   line, within a budget that depends on the session's model (`claudeListingModel`:
 *   `floor(context window × characters a token × 0.01)`, 8,000 characters for a 200k model,
 *   30,000 for a 1M one; `SLASH_COMMAND_TOOL_CHAR_BUDGET` overrides it). Over the budget every skill is first listed by
 *   name only (the bundled skills always in full: `q3n`) and descriptions are given back while
 *   they fit, in the order of `K1e` (the skill's past use, `Dmo`, and remote flags; 0 on a
 *   machine without history, so listing order, which tool-map assumes): a skill left without its
 *   description costs its name line only.
 *
 * Other hosts publish no projection; their figures are o200k estimates of the text each puts in
 * its prompt. Gemini CLI's is read in its 0.61.0 bundle (`renderAgentSkills`,
 * `renderSubAgents`, `getActivateSkillDeclaration`): a skill is a
 * `<skill><name/><description/><location/></skill>` entry (location: its SKILL.md) and its name
 * once more in the activate_skill tool's enum and hint, an agent a
 * `<subagent><name/><description/></subagent>` entry. Codex, opencode and Cursor could not be
 * verified (Codex's own prompt says each skill entry holds a name, a description and the
 * location of its SKILL.md, but the line format was not found in its binary; opencode's
 * minified bundle was not traced; no Cursor package is at hand): a skill or agent costs its
 * `name: description` line there, an estimate. Everywhere a command (only ever invoked by the
 * user) costs nothing until it is used, an instructions file its whole text, a plugin nothing of
 * its own (its components are items).
 *
 * An MCP server costs the tool schemas it lists, known once the gateway has kept a snapshot of
 * them (`services/ToolSnapshots.ts`), else unknown (null): o200k tokens of each tool's
 * `{name, description, input_schema}` by the catalog's estimator, for every host (Claude Code's
 * `plugin details` does not count them: "tool schemas resolved at runtime"), the tools a host's
 * entry leaves out (`enabled_tools`/`includeTools`, `disabled_tools`/`excludeTools`) not counted.
 * A host that defers tool schemas (Claude Code's tool search) may send fewer: an estimate of what
 * the schemas cost when sent, not verified against the hosts.
 */

/** Claude Code 2.1.332: the session's skill-listing budget of a 200k model, in characters (`Cdn` of its bundle). */
export const CLAUDE_SKILL_LISTING_BUDGET = Math.floor(200_000 * 4 * 0.01)

/**
 * Claude Code 2.1.332's model registry (the `models:[…]` data of its bundle): each model id, its
 * `context.window`, and whether a `[1m]` suffix gives it 1,000,000 (`supports_1m_suffix` or a
 * `maximum_window` of 1e6).
 */
export const CLAUDE_MODELS: ReadonlyArray<{ readonly id: string; readonly window: number; readonly suffix1m: boolean }> = [
  { id: "claude-haiku-4-5", window: 200_000, suffix1m: true },
  { id: "claude-haiku-5-5", window: 1_000_000, suffix1m: false },
  { id: "claude-sonnet-4-0", window: 200_000, suffix1m: true },
  { id: "claude-sonnet-4-5", window: 200_000, suffix1m: true },
  { id: "claude-sonnet-4-6", window: 200_000, suffix1m: true },
  { id: "claude-sonnet-5", window: 1_000_000, suffix1m: false },
  { id: "claude-sonnet-5-5", window: 1_000_000, suffix1m: false },
  { id: "claude-opus-4-0", window: 200_000, suffix1m: true },
  { id: "claude-opus-4-1", window: 200_000, suffix1m: true },
  { id: "claude-opus-4-5", window: 200_000, suffix1m: true },
  { id: "claude-opus-4-6", window: 200_000, suffix1m: true },
  { id: "claude-opus-4-7", window: 1_000_000, suffix1m: true },
  { id: "claude-opus-4-8", window: 1_000_000, suffix1m: true },
  { id: "claude-opus-5", window: 1_000_000, suffix1m: true },
  { id: "claude-opus-5-5", window: 1_000_000, suffix1m: true },
  { id: "claude-fable-5", window: 1_000_000, suffix1m: false },
  { id: "claude-fable-5-1", window: 1_000_000, suffix1m: false },
  { id: "claude-fable-5-2", window: 1_000_000, suffix1m: false },
  { id: "claude-mythos-5", window: 1_000_000, suffix1m: false },
  { id: "claude-mythos-5-1", window: 1_000_000, suffix1m: false },
  { id: "claude-mythos-5-2", window: 1_000_000, suffix1m: false }
]

/**
 * Claude Code 2.1.332: the models whose listing budget counts 4 characters a token (`xB`, read by
 * `Hw`); every other model counts 3.
 */
const FOUR_CHARS_A_TOKEN = new Set([
  "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku", "claude-3-7-sonnet",
  "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6",
  "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"
])

/** The model the ledger assumed for Claude Code's skill listing, and the budget that follows. */
export interface ClaudeListingModel {
  /** The model id (`claude-opus-5-5`), or the setting as written when the registry does not know it. */
  readonly model: string
  /** What chose it: `ANTHROPIC_MODEL`, the settings file's path, or Claude Code's default. */
  readonly source: string
  /** The setting as written (`opus`), or null for the default. */
  readonly setting: string | null
  readonly contextWindow: number
  readonly charsPerToken: number
  /** The skill listing's budget, in characters. */
  readonly budget: number
  /** Set when `SLASH_COMMAND_TOOL_CHAR_BUDGET` fixed the budget. */
  readonly budgetVariable: boolean
  /** The host's own agents and skills (issue 28, point 4): their lines' characters, and what they take of the budget. */
  readonly builtins?: {
    readonly version: string
    readonly agents: ReadonlyArray<string>
    readonly skills: ReadonlyArray<string>
    readonly chars: number
    readonly budgetChars: number
  }
}

/** What the user's skills and commands have of the listing's budget: what the host's own items leave. */
export const userSkillBudget = (listing: ClaudeListingModel): number => listing.budget - (listing.builtins?.budgetChars ?? 0)

/**
 * Claude Code 2.1.332's main model of a session started without `--model` (`K9n`: the flag, then
 * `ANTHROPIC_MODEL`, then the merged settings' `model`; without any, `Ud()`'s default: `sonnet`
 * for an API key on the first-party API, `opus` for a claude.ai plan, which tool-map cannot know
 * offline: it assumes `sonnet`), its alias resolved (`KB`: `opus` → `ANTHROPIC_DEFAULT_OPUS_MODEL`
 * else `claude-opus-5-5` (`kn`: `opus55`); `sonnet` and `opusplan` → `ANTHROPIC_DEFAULT_SONNET_MODEL`
 * else `claude-sonnet-4-6` (`Od`: `sonnet46`); `haiku` → `ANTHROPIC_DEFAULT_HAIKU_MODEL` else
 * `claude-haiku-4-5` (`U_`: `haiku45`); `best` → as `opus` (`eB`, Fable only where the account
 * has it); a `[1m]` suffix asks for 1M), its context window (`Lm`: the registry's `context.window`,
 * 1,000,000 with a `[1m]` suffix the model supports; a model the registry does not know: 200,000,
 * `Ubs`), and the skill listing's budget (`Cdn(window, Hw(model))`:
 * `floor(window × charsPerToken × 0.01)`, the fraction `skillListingBudgetFraction` of the
 * settings when set, `SLASH_COMMAND_TOOL_CHAR_BUDGET` over all). Not modeled: a `--model` flag,
 * `availableModels` rules, third-party providers' model ids, `CLAUDE_CODE_MAX_CONTEXT_TOKENS`, and
 * the remote `tengu_typed_pebble` budget floor.
 */
export const claudeListingModel = (input: {
  readonly env: Readonly<Record<string, string | undefined>>
  /** The highest-precedence settings file's `model`, with that file. */
  readonly settingsModel: { readonly value: string; readonly file: string } | null
  /** The highest-precedence settings file's `skillListingBudgetFraction`, when a positive number. */
  readonly budgetFraction?: number | null
}): ClaudeListingModel => {
  const fromEnv = input.env["ANTHROPIC_MODEL"]
  const chosen = fromEnv !== undefined && fromEnv.trim() !== ""
    ? { setting: fromEnv, source: "ANTHROPIC_MODEL" }
    : input.settingsModel !== null && input.settingsModel.value.trim() !== "" && input.settingsModel.value.trim().toLowerCase() !== "default"
    ? { setting: input.settingsModel.value, source: input.settingsModel.file }
    : { setting: null, source: "Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)" }
  const written = (chosen.setting ?? "sonnet").trim().toLowerCase()
  const wants1m = /\[1m\]$/.test(written)
  const bare = written.replace(/\[1m\]$/, "")
  const aliasVariable: Record<string, string> = {
    opus: "ANTHROPIC_DEFAULT_OPUS_MODEL",
    best: "ANTHROPIC_DEFAULT_OPUS_MODEL",
    sonnet: "ANTHROPIC_DEFAULT_SONNET_MODEL",
    opusplan: "ANTHROPIC_DEFAULT_SONNET_MODEL",
    haiku: "ANTHROPIC_DEFAULT_HAIKU_MODEL"
  }
  const aliasDefault: Record<string, string> = {
    opus: "claude-opus-5-5",
    best: "claude-opus-5-5",
    sonnet: "claude-sonnet-4-6",
    opusplan: "claude-sonnet-4-6",
    haiku: "claude-haiku-4-5"
  }
  const variable = Object.hasOwn(aliasVariable, bare) ? input.env[aliasVariable[bare]!] : undefined
  const resolved = Object.hasOwn(aliasDefault, bare)
    ? (variable !== undefined && variable.trim() !== "" ? variable.trim().toLowerCase() : aliasDefault[bare]!)
    : bare
  // A full id may carry a date or a provider prefix (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`).
  const id = resolved.slice(Math.max(0, resolved.lastIndexOf("/") + 1)).replace(/^(?:[a-z-]+\.)?anthropic\./, "")
  const known = [...CLAUDE_MODELS].sort((a, b) => b.id.length - a.id.length).find((entry) => id === entry.id || id.startsWith(`${entry.id}-`) || id.startsWith(`${entry.id}@`))
  const contextWindow = known === undefined ? 200_000 : wants1m && known.suffix1m ? 1_000_000 : known.window
  const charsPerToken = known !== undefined && FOUR_CHARS_A_TOKEN.has(known.id) ? 4 : 3
  const fraction = input.budgetFraction !== undefined && input.budgetFraction !== null && input.budgetFraction > 0 ? input.budgetFraction : 0.01
  const variableBudget = claudeSkillBudgetVariable(input.env[CLAUDE_SKILL_BUDGET_VARIABLE])
  return {
    model: known === undefined ? resolved : known.id,
    source: chosen.source,
    setting: chosen.setting,
    contextWindow,
    charsPerToken,
    budget: variableBudget ?? Math.max(1, Math.floor(contextWindow * charsPerToken * fraction)),
    budgetVariable: variableBudget !== null
  }
}

/** What the ledger says of the model it assumed, e.g. `claude-opus-5-5 (1,000,000-token context, "opus" in /u/.claude/settings.json): skill listing within 30,000 characters`. */
export const describeListingModel = (listing: ClaudeListingModel): string =>
  `${listing.model} (${listing.contextWindow.toLocaleString("en-US")}-token context, ${
    listing.setting === null ? listing.source : `${JSON.stringify(listing.setting)} in ${listing.source}`
  }): skill listing within ${listing.budget.toLocaleString("en-US")} characters${listing.budgetVariable ? ` (${CLAUDE_SKILL_BUDGET_VARIABLE})` : ""}`

/** Claude Code 2.1.332: the longest description a skill-listing line keeps (`skillListingMaxDescChars`). */
export const CLAUDE_SKILL_LISTING_MAX_DESCRIPTION = 1536

/** Claude Code 2.1.332: the longest description taken from a body's first line (`Ize`). */
const CLAUDE_BODY_DESCRIPTION_MAX = 100

/** Claude Code 2.1.332's projection of a text offline (`dgd` → `Wl(" ".repeat(chars), 4)`): characters / 4, rounded. */
export const claudeProjection = (text: string): number => Math.round(text.length / 4)

/** How each host's figures are counted: its own published rule, else the catalog's o200k estimate. */
export const tokenCounterOf = (host: AgentHostName): ((text: string) => number) => (host === "claude-code" ? claudeProjection : estimateTextTokens)

/** The estimate behind each host's figures, named in every ledger. */
const MCP_ESTIMATE = "MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one"
const unverified = (host: string) =>
  `o200k tokens, tool-map's estimate (the catalog's estimator) of a "name: description" line per skill and agent, ${host}'s own listing format not verified; ${MCP_ESTIMATE}`

export const LEDGER_ESTIMATES: Readonly<Record<AgentHostName, string>> = {
  "claude-code": `Claude Code's own projection: characters / 4 of the texts it counts (claude plugin details, 2.1.332, offline); ${MCP_ESTIMATE}`,
  codex: unverified("Codex"),
  cursor: unverified("Cursor"),
  gemini: `o200k tokens, tool-map's estimate (the catalog's estimator) of Gemini CLI's own prompt entries (0.61.0: <skill> and <subagent> entries); ${MCP_ESTIMATE}`,
  opencode: unverified("opencode")
}

/** The environment variable with which Claude Code's skill-listing budget is set in characters. */
export const CLAUDE_SKILL_BUDGET_VARIABLE = "SLASH_COMMAND_TOOL_CHAR_BUDGET"

/** What a reader hands on about an item's cost, before the host's listing budget is applied. */
export interface CostDraft {
  /** The text the host puts into every session for the item ("" when nothing). */
  readonly alwaysOn: string
  /** The tokens of what using the item costs (its body), or null when unknown. */
  readonly onInvokeTokens: number | null
  /**
   * Claude Code's skill listing: the length of the item's full line and of its name-only line,
   * for the budget; absent when the item is not in that listing.
   */
  readonly listing?: { readonly full: number; readonly nameOnly: number; readonly nameOnlyText: string }
  /** Always-on tokens counted already (an MCP server's tool schemas): `alwaysOn` is then not counted. */
  readonly measuredTokens?: number
}

/** The two ledger figures of an item, and a Claude Code skill listing line's lengths. */
export interface ItemCost {
  readonly alwaysOnTokens: number | null
  readonly onInvokeTokens: number | null
  readonly listingLine?: ListingLine
}

/** A frontmatter value as Claude Code takes a description: a trimmed string, a number or boolean as text. */
export const claudeDescriptionField = (value: unknown): string | null => {
  if (typeof value === "string") return value.trim() === "" ? null : value.trim()
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  return null
}

/** Claude Code's description from a body: its first non-empty line, heading marks dropped, cut to 100 characters. */
export const claudeBodyDescription = (body: string, fallback: string): string => {
  for (const raw of body.split("\n")) {
    const line = raw.trim()
    if (line === "") continue
    const text = /^#+\s+(\S.*)$/.exec(line)?.[1] ?? line
    return text.length > CLAUDE_BODY_DESCRIPTION_MAX ? `${text.substring(0, CLAUDE_BODY_DESCRIPTION_MAX - 3)}...` : text
  }
  return fallback
}

/** The name Claude Code gives a plugin's skill or command: `<plugin>:<name>`, the name's odd characters made "-". */
export const claudeSkillName = (name: string, pluginName: string | null): string =>
  pluginName === null ? name : `${pluginName}:${name.replace(/[^a-zA-Z0-9_-]/g, "-")}`

/**
 * Whether Claude Code 2.1.332 puts a skill or command in the session's listing (`rve` of its
 * bundle): not with `disable-model-invocation` (`LDr`/`De`: true, or 1, "true", "yes", "on"); a plugin's skill or
 * command (`source: "plugin"`, `loadedFrom` "plugin" or unset) only with a `description` of its
 * own in the frontmatter (`hasUserSpecifiedDescription`: `GIe(description) !== null`) or a
 * `when_to_use`; the user's and project's skills and commands (`loadedFrom` "skills",
 * "commands_DEPRECATED") always. A plugin command without frontmatter is therefore not listed.
 */
export const claudeModelInvocable = (input: {
  readonly description: unknown
  readonly whenToUse: unknown
  readonly fromPlugin?: boolean
  readonly disableModelInvocation?: unknown
}): boolean => {
  const flag = input.disableModelInvocation
  const disabled = flag === true || ((typeof flag === "string" || typeof flag === "number") && ["1", "true", "yes", "on"].includes(String(flag).trim().toLowerCase()))
  if (disabled) return false
  if (input.fromPlugin !== true) return true
  return claudeDescriptionField(input.description) !== null || (input.whenToUse !== undefined && input.whenToUse !== null && String(input.whenToUse) !== "")
}

/**
 * A `tools`/`disallowedTools` field as Claude Code 2.1.332 reads it (`bgn`/`yvt`): null when
 * absent, every tool (`*`) as "all", else the names: a string or the strings of a list, each
 * split at the commas outside parentheses (tool-map's reading of the bundle's `Qf`, whose body
 * was not traced), trimmed, empty ones dropped.
 */
const claudeToolList = (value: unknown): ReadonlyArray<string> | "all" | null => {
  if (value === undefined || value === null) return null
  if (value === "" || value === false || value === 0) return []
  const strings = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : []
  const names = strings.flatMap((text) => {
    const parts: Array<string> = []
    let depth = 0
    let current = ""
    for (const char of text) {
      if (char === "(") depth += 1
      if (char === ")") depth = Math.max(0, depth - 1)
      if (char === "," && depth === 0) {
        parts.push(current)
        current = ""
      } else current += char
    }
    parts.push(current)
    return parts.map((part) => part.trim()).filter((part) => part !== "")
  })
  return names.includes("*") ? "all" : names
}

/**
 * The line Claude Code 2.1.332 lists an agent by in every session (`Y_s` of its bundle):
 * `- <agentType>: <whenToUse> (Tools: <tools>)`, the tools as `wKi` writes them: the `tools` less
 * the `disallowedTools` joined with ", " ("None" when nothing is left), `All tools except <…>`
 * with only `disallowedTools`, `All tools` without either (or with `*`). A user's or project's
 * agent's whenToUse is its `description` with each `\n` written as a line break (`aUn`); a
 * plugin's is its `description`, else `when_to_use`, else `when-to-use`, else
 * `Agent from <plugin> plugin` (the plugin agent loader), its agentType `<plugin>:<name>`.
 */
export const claudeAgentLine = (input: {
  readonly listedName: string
  readonly pluginName: string | null
  readonly description: unknown
  readonly whenToUse: unknown
  readonly whenToUseDash?: unknown
  readonly tools: unknown
  readonly disallowedTools: unknown
}): string => {
  const whenToUse = input.pluginName === null
    ? (typeof input.description === "string" ? input.description : String(input.description ?? "")).replaceAll("\\n", "\n")
    : claudeDescriptionField(input.description) ?? claudeDescriptionField(input.whenToUse) ?? claudeDescriptionField(input.whenToUseDash) ?? `Agent from ${input.pluginName} plugin`
  const tools = claudeToolList(input.tools)
  const disallowed = claudeToolList(input.disallowedTools)
  const allowed = tools === "all" ? null : tools
  const denied = disallowed === "all" || disallowed === null ? [] : disallowed
  const text = allowed !== null && allowed.length > 0 && denied.length > 0
    ? (allowed.filter((tool) => !denied.includes(tool)).join(", ") || "None")
    : allowed !== null && allowed.length > 0
    ? allowed.join(", ")
    : denied.length > 0
    ? `All tools except ${denied.join(", ")}`
    : "All tools"
  return `- ${input.listedName}: ${whenToUse} (Tools: ${text})`
}

/** What a Claude Code skill, command or agent file costs, by the host's rules (see the module comment). */
export const claudeCodeCost = (input: {
  readonly kind: "skill" | "command" | "agent"
  /** The listed name (a plugin's skill already `<plugin>:<name>`). */
  readonly name: string
  readonly description: unknown
  readonly whenToUse: unknown
  readonly body: string
  /** True for a plugin's skill, command or agent. */
  readonly fromPlugin?: boolean
  /** The `disable-model-invocation` field as written. */
  readonly disableModelInvocation?: unknown
  /** An agent: the name the session lists it by (a plugin's `<plugin>:<name>`), its plugin's name, and its `tools` and `disallowedTools` fields as written. */
  readonly agent?: { readonly listedName: string; readonly pluginName: string | null; readonly tools: unknown; readonly disallowedTools: unknown; readonly whenToUseDash?: unknown }
}): CostDraft => {
  const description = claudeDescriptionField(input.description) ?? claudeBodyDescription(input.body, "Skill")
  const whenToUse = input.whenToUse === undefined || input.whenToUse === null ? "" : String(input.whenToUse)
  const alwaysOn = [input.name, description, whenToUse].filter((part) => part !== "").join(" ")
  const onInvokeTokens = claudeProjection(input.body.trim())
  if (input.kind === "agent") return { alwaysOn: input.agent === undefined ? alwaysOn : claudeAgentLine({ ...input.agent, description: input.description, whenToUse: input.whenToUse }), onInvokeTokens }
  if (!claudeModelInvocable(input)) return { alwaysOn: "", onInvokeTokens }
  const listed = whenToUse === "" ? description : `${description} - ${whenToUse}`
  const shown = listed.length > CLAUDE_SKILL_LISTING_MAX_DESCRIPTION ? `${listed.slice(0, CLAUDE_SKILL_LISTING_MAX_DESCRIPTION - 1)}…` : listed
  const nameOnlyText = `- ${input.name}`
  return { alwaysOn, onInvokeTokens, listing: { full: `${nameOnlyText}: ${shown}`.length, nameOnly: nameOnlyText.length, nameOnlyText } }
}

/** Gemini CLI 0.61.0's prompt entry of a skill (with its name in activate_skill's enum and hint) or of an agent. */
const geminiEntry = (kind: "skill" | "agent", name: string, description: string | null, location: string): string =>
  kind === "skill"
    ? `  <skill>\n    <name>${name}</name>\n    <description>${description ?? ""}</description>\n    <location>${location}</location>\n  </skill>\n'${name}', "${name}",`
    : `  <subagent>\n    <name>${name}</name>\n    <description>${description ?? ""}</description>\n  </subagent>\n`

/**
 * What a skill, agent or command of another host costs: Gemini CLI's prompt entry, elsewhere its
 * `name: description` line (commands: nothing until used). `location` is the defining file (Gemini CLI lists it).
 */
export const listedCost = (
  host: AgentHostName,
  kind: "skill" | "command" | "agent",
  name: string,
  description: string | null,
  body: string,
  location = ""
): CostDraft => ({
  alwaysOn: kind === "command"
    ? ""
    : host === "gemini"
      ? geminiEntry(kind, name, description, location)
      : description === null ? name : `${name}: ${description}`,
  onInvokeTokens: tokenCounterOf(host)(body.trim())
})

/** A tool of an MCP server's snapshot, as far as the ledger reads it. */
export interface ListedTool {
  readonly name: string
  readonly description?: unknown
  readonly inputSchema: unknown
}

/**
 * An MCP server whose tool list is known: the estimated o200k tokens of the schemas of the tools
 * its entry lets through (all, or `enabledTools`, less `disabledTools`); using a tool costs its
 * result, unknown.
 */
export const mcpSchemaCost = (
  tools: ReadonlyArray<ListedTool>,
  enabledTools: ReadonlyArray<string> | null,
  disabledTools: ReadonlyArray<string>
): CostDraft => {
  let measuredTokens = 0
  for (const tool of tools) {
    if ((enabledTools !== null && !enabledTools.includes(tool.name)) || disabledTools.includes(tool.name)) continue
    measuredTokens += estimateTokens({ name: tool.name, description: typeof tool.description === "string" ? tool.description : "", inputSchema: tool.inputSchema })
  }
  return { alwaysOn: "", onInvokeTokens: null, measuredTokens }
}

/**
 * A Claude Code plugin's `SessionStart` hooks: the known part of what they add to every session,
 * the characters of the plugin's text files their scripts name (`claudeHooks.ts`), by the host's
 * projection; what the scripts print around them is not known without running them.
 */
export const sessionStartCost = (knownChars: number): CostDraft => ({ alwaysOn: "", onInvokeTokens: 0, measuredTokens: Math.round(knownChars / 4) })

/** An instructions file: its whole text in every session. */
export const instructionsCost = (text: string): CostDraft => ({ alwaysOn: text, onInvokeTokens: 0 })

/** `SLASH_COMMAND_TOOL_CHAR_BUDGET` when it is a positive integer, else null. */
const claudeSkillBudgetVariable = (variable: string | undefined): number | null => {
  const parsed = variable === undefined ? Number.NaN : Number.parseInt(variable, 10)
  return Number.isInteger(parsed) && parsed > 0 ? parsed : null
}

/** The Claude Code skill-listing budget of an environment: the variable when it is a positive integer, else a 200k model's. */
export const claudeSkillBudget = (variable: string | undefined): number => claudeSkillBudgetVariable(variable) ?? CLAUDE_SKILL_LISTING_BUDGET

/** What the budget pass needs of an item: its kind and whether the host loads it (enabled, not shadowed). */
export interface CostedEntry {
  readonly kind: AgentHostItem["kind"]
  readonly effective: boolean
  readonly cost: CostDraft | undefined
}

/** A line of Claude Code's skill listing: the length of its full text and of its name-only text. */
export interface ListingLine {
  readonly full: number
  readonly nameOnly: number
}

/**
 * Claude Code's skill listing of `lines` (in listing order) within `budget` characters: the lines
 * cut to their name (over the budget every line is first listed by name, and descriptions are
 * given back in order while they fit), and the listing's characters, newlines between lines included.
 */
export const skillListing = (lines: ReadonlyArray<ListingLine>, budget: number): { readonly cut: ReadonlySet<number>; readonly chars: number } => {
  const separators = Math.max(0, lines.length - 1)
  const full = lines.reduce((sum, line) => sum + line.full, 0) + separators
  const cut = new Set<number>()
  if (full <= budget) return { cut, chars: full }
  const names = lines.reduce((sum, line) => sum + line.nameOnly, 0) + separators
  let left = budget - names
  lines.forEach((line, index) => {
    const extra = line.full - line.nameOnly
    if (extra <= left) left -= extra
    else cut.add(index)
  })
  return { cut, chars: budget - left }
}

/**
 * The ledger figures of a host's items, in their order. An item without a cost draft costs
 * nothing of its own (a plugin) or is unknown (an MCP server). Only items the host loads cost
 * anything always-on; Claude Code's listing budget is applied over its loaded skills and
 * commands in their order, and each listed item keeps its line's lengths (`listingLine`) so
 * that what switching a plugin off saves can be worked out from the bundle.
 */
export const applyCosts = (host: AgentHostName, entries: ReadonlyArray<CostedEntry>, skillBudget: number): ReadonlyArray<ItemCost> => {
  const count = tokenCounterOf(host)
  const listed = host !== "claude-code"
    ? []
    : entries.flatMap((entry, index) => {
      const listing = entry.cost?.listing
      return listing !== undefined && entry.effective ? [{ index, line: { full: listing.full, nameOnly: listing.nameOnly } }] : []
    })
  const { cut } = skillListing(listed.map((entry) => entry.line), skillBudget)
  const nameOnly = new Set(listed.flatMap((entry, position) => (cut.has(position) ? [entry.index] : [])))
  const lineOf = new Map(listed.map((entry) => [entry.index, entry.line]))
  return entries.map((entry, index) => {
    const cost = entry.cost
    if (cost === undefined) return { alwaysOnTokens: entry.kind === "mcpServer" ? null : 0, onInvokeTokens: entry.kind === "mcpServer" ? null : 0 }
    const text = nameOnly.has(index) && cost.listing !== undefined ? cost.listing.nameOnlyText : cost.alwaysOn
    const line = lineOf.get(index)
    return { alwaysOnTokens: entry.effective ? (cost.measuredTokens ?? count(text)) : 0, onInvokeTokens: cost.onInvokeTokens, ...(line === undefined ? {} : { listingLine: line }) }
  })
}
