/**
 * The three entry tools an agent browses and loads the catalog with (`tools_ls`,
 * `tools_load`, `tools_unload`): their definitions as the model sees them, the decoding of
 * their arguments, and every text they answer with. Pure: the `ToolCatalog` service runs them.
 */
import { Schema } from "effect"
import { displayWidth, padEndDisplay } from "../../inventory/domain/displayWidth.js"
import { neutralize } from "../../inventory/domain/untrusted.js"
import type { AliasNode, Catalog, CatalogNode, SanitizeFlag, ToolDefinitionOf, ToolEntry } from "./model.js"
import { terms } from "./router/analyze.js"
import { fitText, MAX_NAME_WIDTH } from "./sanitize.js"
import { AGENT_WORDING, type Wording } from "./wording.js"
import { formatTokens } from "../../inventory/domain/tokens.js"
import type { VisibilityNote } from "./visibility.js"

/** The definition of one of these three entry tools. */
export type EntryToolDefinition = ToolDefinitionOf<"tools_ls" | "tools_load" | "tools_unload">

/** `tools_ls`: browse by path, or search under it. */
export const TOOLS_LS: EntryToolDefinition = {
  name: "tools_ls",
  description:
    "Browse loadable tools by path: /, /<category>, /<category>/<group>. * loaded, ! high-risk. query searches under path.",
  inputSchema: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "Path, group or tool name (default /)."
      },
      query: { type: "string" }
    },
    required: [],
    additionalProperties: false
  }
}

/** The `targets` argument of `tools_load` and `tools_unload`. */
const targetsProperty = (description: string) => ({ type: "array", items: { type: "string" }, description })

/** `tools_load`: make targets callable. */
export const TOOLS_LOAD: EntryToolDefinition = {
  name: "tools_load",
  description:
    "Make tools callable: a category, group or tool (path or name). Groups skip high-risk tools: load those singly.",
  inputSchema: {
    type: "object",
    properties: {
      targets: targetsProperty("Paths or names."),
      forSubagents: {
        type: "boolean",
        description: "Also for later subagents."
      }
    },
    required: ["targets"],
    additionalProperties: false
  }
}

/** `tools_unload`: hide targets again. */
export const TOOLS_UNLOAD: EntryToolDefinition = {
  name: "tools_unload",
  description:
    "Hide loaded tools again.",
  inputSchema: {
    type: "object",
    properties: {
      targets: targetsProperty("As in tools_load, or \"all\".")
    },
    required: ["targets"],
    additionalProperties: false
  }
}

/** The entry tools, in the order a host registers them. */
export const ENTRY_TOOL_DEFINITIONS: ReadonlyArray<EntryToolDefinition> = [TOOLS_LS, TOOLS_LOAD, TOOLS_UNLOAD]

/** Models sometimes send one target as a bare string: accept it as a list of one. */
const Targets = Schema.Union(
  Schema.Array(Schema.String),
  Schema.transform(Schema.String, Schema.Array(Schema.String), {
    strict: true,
    decode: (one) => [one],
    encode: (list) => list.join(",")
  })
)

/** Arguments of `tools_ls`. */
export const ToolsLsArgs = Schema.Struct({
  path: Schema.optional(Schema.String),
  query: Schema.optional(Schema.String)
})

/** Arguments of `tools_load`. */
export const ToolsLoadArgs = Schema.Struct({
  targets: Targets,
  forSubagents: Schema.optional(Schema.Boolean)
})

/** Arguments of `tools_unload`. */
export const ToolsUnloadArgs = Schema.Struct({
  targets: Targets
})

/** The arguments given to an entry tool do not fit its schema. */
export class EntryToolArgumentsError extends Schema.TaggedError<EntryToolArgumentsError>()("EntryToolArgumentsError", {
  tool: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `Invalid arguments for ${this.tool}: ${this.reason}`
  }
}

/** How one agent sees the catalog: what it can call, and what the host hides anyway. */
export interface AgentView {
  /** True when the agent can call the tool (always true for an unrestricted agent). */
  readonly visible: (name: string) => boolean
  /** Loaded here but hidden by another layer of the host. */
  readonly denied: ReadonlySet<string>
  /**
   * The host's tools that are always on (pinned) and so not in the catalog, in the host's
   * order: a listing names them once, so a tool given to the catalog never seems lost.
   */
  readonly pinned?: ReadonlyArray<string> | undefined
}

/**
 * Aligns rows into columns separated by two spaces; the last column is not padded, and a cell of
 * another column is cut to {@link MAX_NAME_WIDTH} with "…" (a 5,000-character tool name must not
 * widen every row).
 */
const columns = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = "  "): ReadonlyArray<string> => {
  // Measured as shown: a control or bidi character is shown as U+FFFD, one column wide.
  const fitted = rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : fitText(neutralize(cell), MAX_NAME_WIDTH))))
  const widths: Array<number> = []
  for (const row of fitted) {
    row.forEach((cell, index) => {
      if (index < row.length - 1) widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell))
    })
  }
  return fitted.map((row) =>
    indent + row.map((cell, index) => (index === row.length - 1 ? cell : padEndDisplay(cell, widths[index] ?? 0))).join("  ").trimEnd()
  )
}

/**
 * The lines of an answer as one text, each through `neutralize` (the one rule of
 * `inventory/domain/untrusted.ts`): tool, group and path names come from whoever registered the
 * tools, and a control, escape sequence, bidi control or lone surrogate in one must reach
 * neither a terminal nor a model as it is (a newline in a name cannot break a line either).
 */
const answer = (lines: ReadonlyArray<string>): string => lines.map(neutralize).join("\n")

const flagText = (flags: ReadonlyArray<SanitizeFlag>): string =>
  flags.length === 0 ? "" : `[description cleaned: ${flags.join(", ")}] `

const marks = (tool: ToolEntry, view: AgentView): string =>
  `${view.visible(tool.name) ? "*" : " "}${tool.highRisk ? "!" : " "}`

const toolRow = (tool: ToolEntry, view: AgentView, label: string): ReadonlyArray<string> => [
  marks(tool, view),
  label,
  formatTokens(tool.tokens),
  `${view.denied.has(tool.name) ? "[denied] " : ""}${flagText(tool.flags)}${tool.summary}`.trimEnd()
]

const tally = (tools: ReadonlyArray<ToolEntry>, view: AgentView) => {
  let loaded = 0
  let tokens = 0
  for (const tool of tools) {
    if (view.visible(tool.name)) loaded += 1
    tokens += tool.tokens
  }
  return { count: tools.length, loaded, tokens }
}

const countCells = (tools: ReadonlyArray<ToolEntry>, view: AgentView) => {
  const { count, loaded, tokens } = tally(tools, view)
  return [`${count} ${count === 1 ? "tool" : "tools"}`, `${loaded} loaded`, formatTokens(tokens)]
}

/** The header of the root listing: the legend of the marks. */
const rootHeader = (wording: Wording): string =>
  `/  categories. * = loaded (callable now), ! = high risk (load it on its own), [denied] = loaded but hidden by the host. ${wording.search} searches everything.`

/** How many pinned names a listing spells out. */
const PINNED_SHOWN = 20

/** The line naming pinned tools (always on, so not in the tree), if there are any. */
const pinnedLine = (names: ReadonlyArray<string>): ReadonlyArray<string> =>
  names.length === 0
    ? []
    : [`  pinned, always loaded: ${names.slice(0, PINNED_SHOWN).map((name) => fitText(name, MAX_NAME_WIDTH)).join(", ")}${
      names.length > PINNED_SHOWN ? ` … and ${names.length - PINNED_SHOWN} more` : ""
    }`]

/** The pinned names a query's words point to: those sharing a term with it. */
const pinnedMatching = (query: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (names.length === 0) return names
  const wanted = new Set(terms(query))
  return names.filter((name) => terms(name).some((term) => wanted.has(term)))
}

const aliasTools = (alias: AliasNode) => alias.children

/** The listing of one node, as `tools_ls` answers without a query. */
export const renderListing = (catalog: Catalog, node: CatalogNode, view: AgentView, wording: Wording = AGENT_WORDING): string => {
  switch (node.kind) {
    case "root": {
      const rows = [...catalog.categories.values()]
        .filter((category) => category.toolCount > 0)
        .map((category) => [
          `${category.name}/`,
          ...countCells(category.children.flatMap((group) => group.children), view),
          category.description
        ])
      for (const alias of catalog.aliases.values()) {
        rows.push([`${alias.name}/`, ...countCells(aliasTools(alias), view), `(alias) ${alias.description}`])
      }
      return answer([
        rootHeader(wording),
        ...(rows.length === 0 ? ["  (no tools to load)"] : columns(rows)),
        ...pinnedLine(view.pinned ?? [])
      ])
    }
    case "category":
      return answer([
        `${node.path}/  ${node.description}`,
        ...columns(node.children.map((group) => [`${group.name}/`, ...countCells(group.children, view)]))
      ]).trimEnd()
    case "group":
      return answer([`${node.path}/`, ...columns(node.children.map((tool) => toolRow(tool, view, tool.path.slice(node.path.length + 1))))])
    case "alias":
      return answer([
        `${node.path}/  (alias) ${node.description}`,
        ...columns(node.children.map((tool) => toolRow(tool, view, tool.path))),
        ...(node.missing.length > 0 ? [`  not in this catalog: ${node.missing.join(", ")}`] : [])
      ])
    case "tool": {
      const facts = [
        `schema ${formatTokens(node.tokens)}`,
        ...(node.highRisk ? ["high risk: load it on its own"] : []),
        ...(view.visible(node.name) ? ["loaded"] : []),
        ...(view.denied.has(node.name) ? ["denied by the host: not callable"] : [])
      ]
      return answer([
        node.path,
        `  name: ${node.name}`,
        `  ${node.summary}`,
        `  ${facts.join(" · ")}`,
        ...(node.highRisk && node.riskEvidence.length > 0 ? [`  risk: ${node.riskEvidence.join("; ")}`] : []),
        ...(node.flags.length > 0 ? [`  description cleaned: ${node.flags.join(", ")}`] : [])
      ])
    }
  }
}

/** How many search hits `tools_ls` shows. */
export const SEARCH_LIMIT = 40

/** The answer of `tools_ls` with a query: ranked hits with their paths. */
export const renderSearch = (
  query: string,
  hits: ReadonlyArray<ToolEntry>,
  total: number,
  view: AgentView
): string => {
  const pinned = pinnedLine(pinnedMatching(query, view.pinned ?? []))
  if (total === 0) return answer([`No tools match "${query}".`, ...pinned])
  const shown = hits.slice(0, SEARCH_LIMIT)
  return answer([
    `${total} ${total === 1 ? "match" : "matches"} for "${query}", best first (load by path or full name):`,
    ...columns(shown.map((tool) => toolRow(tool, view, tool.path))),
    ...(total > shown.length ? [`  … ${total - shown.length} more; narrow the query or the path`] : []),
    ...pinned
  ])
}

/** The answer of `tools_ls` for a path that names nothing. */
export const renderMissingPath = (target: string, suggestions: ReadonlyArray<string>, wording: Wording = AGENT_WORDING): string =>
  answer([
    `No such path: ${target}. Browse from ${wording.browse}; ${wording.search} searches everything.`,
    ...(suggestions.length > 0 ? [`Did you mean: ${suggestions.join(", ")}?`] : [])
  ])

/** One note of a load or an unload, as a line (neutralized as every answer is). */
export const renderNote = (note: VisibilityNote, action: "load" | "unload", wording: Wording = AGENT_WORDING): string =>
  neutralize(noteText(note, action, wording))

const noteText = (note: VisibilityNote, action: "load" | "unload", wording: Wording): string => {
  switch (note._tag) {
    case "WholeTree":
      return `skipped ${note.target}: the whole tree cannot be ${action}ed at once; pick a category or a group`
    case "NotFound":
      return `skipped ${note.target}: not found (${wording.search} searches everything)${
        note.suggestions.length > 0 ? `; did you mean ${note.suggestions.join(", ")}?` : ""
      }`
    case "AlwaysOn":
      return action === "load"
        ? `skipped ${note.target}: always on already`
        : `skipped ${note.target}: always on, it cannot be unloaded`
    case "Reserved":
      return `skipped ${note.target}: provided by the host itself, not by the catalog`
    case "RiskyLeftOut":
      return `${note.group}: high-risk tools left out (${note.tools.join(", ")}); load them one by one`
    case "NoRiskGate":
      return `${note.tool} is high risk and no risk gate is registered to confirm it; not loaded`
    case "NotApproved":
      return `${note.tool} is high risk and the risk gate ${note.gate} did not approve it; not loaded`
  }
}

/** What a load did, for `renderLoad`. */
export interface LoadOutcome {
  /** Names newly in the allow-list and callable. */
  readonly callable: ReadonlyArray<string>
  /** Names newly in the allow-list but hidden by the host. */
  readonly denied: ReadonlyArray<string>
  /** Schema tokens of the callable names. */
  readonly tokens: number
  readonly notes: ReadonlyArray<VisibilityNote>
}

/** The answer of `tools_load`. */
export const renderLoad = (outcome: LoadOutcome, wording: Wording = AGENT_WORDING): string =>
  answer([
    outcome.callable.length > 0
      ? `Loaded ${outcome.callable.length} tool(s), ${formatTokens(outcome.tokens)}; ${wording.callable}:`
      : "Nothing new loaded.",
    ...outcome.callable.map((name) => `  ${name}`),
    ...(outcome.denied.length > 0
      ? [`Hidden by the host, not callable even though loaded: ${outcome.denied.join(", ")}`]
      : []),
    ...outcome.notes.map((note) => renderNote(note, "load", wording))
  ])

/** The answer of `tools_load` when a before-load hook vetoed it. */
export const renderLoadRefused = (reason: string): string => answer([`Load refused: ${reason}`])

/** The answer of `tools_unload` when a before-unload hook vetoed it. */
export const renderUnloadRefused = (reason: string): string => answer([`Unload refused: ${reason}`])

/** The answer of `tools_unload`. */
export const renderUnload = (
  removed: ReadonlyArray<string>,
  notes: ReadonlyArray<VisibilityNote>,
  wording: Wording = AGENT_WORDING
): string =>
  answer([
    removed.length > 0 ? `Unloaded ${removed.length} tool(s):` : "Nothing was unloaded.",
    ...removed.map((name) => `  ${name}`),
    ...notes.map((note) => renderNote(note, "unload", wording))
  ])

/** Why a direct call of a hidden tool was refused. */
export type RescueRefusal =
  | { readonly _tag: "HighRisk"; readonly name: string }
  | { readonly _tag: "Vetoed"; readonly name: string; readonly reason: string }
  | { readonly _tag: "Filtered"; readonly name: string }

/** The answer a host gives instead of running a hidden tool it may not load on the spot. */
export const renderRescueRefusal = (refusal: RescueRefusal): string => answer([rescueRefusalText(refusal)])

const rescueRefusalText = (refusal: RescueRefusal): string => {
  switch (refusal._tag) {
    case "HighRisk":
      return `"${refusal.name}" is high risk and is not loaded. Load it first with tools_load(["${refusal.name}"]), which asks for approval.`
    case "Vetoed":
      return `Load of "${refusal.name}" refused: ${refusal.reason}`
    case "Filtered":
      return `"${refusal.name}" is not available in this session. Use tools_ls to see what is.`
  }
}
