import { AGENT_HOSTS, type AgentHostItem, type AgentHostName, type AgentHostsInventory, isEffective } from "../domain/agentHosts.js"
import { describeListingModel, LEDGER_ESTIMATES, type ListingLine, skillListing, userSkillBudget } from "../domain/ledger.js"
import { cleanText } from "../domain/untrusted.js"

/** How `query context` groups the ledger. */
export const LEDGER_GROUPINGS = ["item", "plugin", "source", "host"] as const
export type LedgerGrouping = (typeof LEDGER_GROUPINGS)[number]

/** One item of the ledger: an item the host loads, and its two figures (null: unknown). */
export interface LedgerItemRow {
  readonly host: AgentHostName
  readonly kind: AgentHostItem["kind"]
  readonly name: string
  readonly scope: AgentHostItem["scope"]
  readonly plugin: string | null
  readonly alwaysOnTokens: number | null
  readonly onInvokeTokens: number | null
  readonly id: string
  /** The file (or plugin folder) that defines it. */
  readonly path: string
  /** A Claude Code plugin with context-adding `SessionStart` hooks: {@link SESSION_START_NOTE} (issue 28, point 2). */
  readonly note?: string
}

/** What the ledger says of a plugin whose `SessionStart` hooks add to the context: tool-map never runs them. */
export const SESSION_START_NOTE = "adds context at session start (not counted)"

/** The same, when the hooks' scripts name some of the plugin's text files: those are counted. */
export const SESSION_START_PARTLY_NOTE = "adds context at session start (counted: the plugin files its hook scripts name; not: what they print besides)"

/** A group of the ledger (a plugin, a source, a host): the sums of its items' known figures. */
export interface LedgerGroupRow {
  readonly host: AgentHostName
  /** The plugin (`name@marketplace`, or "(no plugin)"), the source (scope), or the host. */
  readonly group: string
  readonly items: number
  readonly alwaysOnTokens: number
  readonly onInvokeTokens: number
  /** Items whose always-on cost is unknown (MCP servers without a tool snapshot, items of an older bundle). */
  readonly unknown: number
  /**
   * A Claude Code plugin: what switching it off saves in a session's first request. It differs
   * from `alwaysOnTokens` when the skill listing is over its budget: without the plugin's skills
   * the others get their descriptions back, so its skills save about nothing. Absent for other groups.
   */
  readonly offSavesTokens?: number
}

/** A host's totals. */
export interface LedgerTotal {
  readonly host: AgentHostName
  /** What the host's figures are: its own published projection, or tool-map's o200k estimate. */
  readonly estimate: string
  /**
   * Claude Code: the model the ledger assumed for the session (its skill listing's budget follows
   * from its context window), e.g. `claude-opus-5-5`; absent for other hosts and older bundles.
   */
  readonly model?: {
    readonly model: string
    readonly source: string
    readonly setting: string | null
    readonly contextWindow: number
    readonly skillListingBudget: number
  }
  readonly items: number
  readonly alwaysOnTokens: number
  readonly onInvokeTokens: number
  readonly unknown: number
  /**
   * Claude Code: its own agents and skills (of the version tool-map knows), listed in every
   * session before the user's: their projected tokens, not in `alwaysOnTokens` (issue 28, point 4).
   */
  readonly hostOwn?: { readonly version: string; readonly agents: ReadonlyArray<string>; readonly skills: ReadonlyArray<string>; readonly alwaysOnTokens: number }
  /** Claude Code: the plugins whose `SessionStart` hooks add context, not counted (absent when none). */
  readonly sessionStartContext?: ReadonlyArray<string>
}

/** The answer of `query context`. */
export interface ContextLedger {
  readonly by: LedgerGrouping
  readonly rows: ReadonlyArray<LedgerItemRow> | ReadonlyArray<LedgerGroupRow>
  readonly totals: ReadonlyArray<LedgerTotal>
}

const itemRow = (item: AgentHostItem): LedgerItemRow => ({
  host: item.host,
  kind: item.kind,
  name: item.name,
  scope: item.scope,
  plugin: item.plugin,
  alwaysOnTokens: item.alwaysOnTokens ?? null,
  onInvokeTokens: item.onInvokeTokens ?? null,
  id: item.id,
  path: item.path,
  ...(item.kind === "plugin" && (item.sessionStartHooks ?? 0) > 0
    ? { note: (item.sessionStartKnownChars ?? 0) > 0 ? SESSION_START_PARTLY_NOTE : SESSION_START_NOTE }
    : {})
})

/** Largest known always-on first, unknown last; then by host order, name and id, so the order is stable. */
const byCost = (a: LedgerItemRow, b: LedgerItemRow): number =>
  (b.alwaysOnTokens ?? -1) - (a.alwaysOnTokens ?? -1) ||
  AGENT_HOSTS.indexOf(a.host) - AGENT_HOSTS.indexOf(b.host) ||
  (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const groupKey = (row: LedgerItemRow, by: Exclude<LedgerGrouping, "item">): string =>
  by === "plugin" ? row.plugin ?? "(no plugin)" : by === "source" ? row.scope : row.host

interface Sums {
  items: number
  alwaysOnTokens: number
  onInvokeTokens: number
  unknown: number
}

const add = (sums: Sums, row: LedgerItemRow): void => {
  sums.items += 1
  sums.alwaysOnTokens += row.alwaysOnTokens ?? 0
  sums.onInvokeTokens += row.onInvokeTokens ?? 0
  if (row.alwaysOnTokens === null) sums.unknown += 1
}

const empty = (): Sums => ({ items: 0, alwaysOnTokens: 0, onInvokeTokens: 0, unknown: 0 })

/**
 * The always-on ledger of the items the hosts load (enabled, not shadowed), optionally of one
 * host: by item (largest first), or summed by plugin, source (scope) or host; with each host's totals.
 */
export const contextLedger = (
  inventory: AgentHostsInventory,
  options: { readonly host?: AgentHostName | undefined; readonly by: LedgerGrouping }
): ContextLedger => {
  const rows = inventory.items
    .filter((item) => isEffective(item) && (options.host === undefined || item.host === options.host))
    .map(itemRow)
    .sort(byCost)
  const totals = new Map<AgentHostName, Sums>()
  for (const row of rows) {
    const sums = totals.get(row.host) ?? empty()
    add(sums, row)
    totals.set(row.host, sums)
  }
  const totalRows = AGENT_HOSTS.flatMap((host) => {
    const sums = totals.get(host)
    if (sums === undefined) return []
    const hooked = rows.filter((row) => row.host === host && row.note !== undefined).map((row) => cleanText(row.plugin ?? row.name)).sort()
    const hooks = hooked.length === 0
      ? {}
      : { sessionStartContext: hooked, note: `; ${hooked.join(", ")}: SessionStart hooks that add context at session start (tool-map does not run hooks: only the plugin files their scripts name are counted)` }
    const report = inventory.hosts.find((entry) => entry.host === host)?.listing
    // The setting and the file naming it come from the user's files: cleaned before any output.
    const listing = report === undefined ? undefined : { ...report, setting: report.setting === null ? null : cleanText(report.setting), source: cleanText(report.source) }
    // The installed Claude Code's own items are rows (scope `builtin`) when tool-map knows its version; else assumed, beside the total.
    const ownRows = rows.filter((row) => row.host === host && row.scope === "builtin")
    const own = ownRows.length > 0 ? undefined : report?.builtins
    const hostOwn = own === undefined ? undefined : { version: own.version, agents: own.agents, skills: own.skills, alwaysOnTokens: Math.round(own.chars / 4) }
    const ownNote = hostOwn !== undefined
      ? `; Claude Code's own items (no installed version found: ${hostOwn.version}'s assumed, ${hostOwn.agents.length} built-in agents, ${hostOwn.skills.length} skills) add ~${hostOwn.alwaysOnTokens} tok, not in the total`
      : ownRows.length > 0
      ? `; Claude Code's own items (${report?.builtins?.version ?? "?"}: ${ownRows.filter((row) => row.kind === "agent").length} built-in agents, ${ownRows.filter((row) => row.kind === "skill").length} skills) are rows of scope builtin`
      : ""
    const extra = {
      ...(hostOwn === undefined ? {} : { hostOwn }),
      ...(hooks.sessionStartContext === undefined ? {} : { sessionStartContext: hooks.sessionStartContext })
    }
    if (listing === undefined) return [{ host, estimate: `${LEDGER_ESTIMATES[host]}${hooks.note ?? ""}`, ...sums, ...extra }]
    return [{
      host,
      estimate: `${LEDGER_ESTIMATES[host]}; model assumed: ${describeListingModel(listing)}${ownNote}${hooks.note ?? ""}`,
      model: { model: listing.model, source: listing.source, setting: listing.setting, contextWindow: listing.contextWindow, skillListingBudget: listing.budget },
      ...sums,
      ...extra
    }]
  })
  if (options.by === "item") return { by: "item", rows, totals: totalRows }
  const by = options.by
  const groups = new Map<string, { readonly host: AgentHostName; readonly group: string; readonly sums: Sums }>()
  for (const row of rows) {
    const group = groupKey(row, by)
    const key = `${row.host}\u0000${group}`
    const entry = groups.get(key) ?? { host: row.host, group, sums: empty() }
    add(entry.sums, row)
    groups.set(key, entry)
  }
  const offSaves = by === "plugin" ? claudeOffSaves(inventory) : new Map<string, number>()
  const groupRows: ReadonlyArray<LedgerGroupRow> = [...groups.values()]
    .map((entry) => {
      const saves = entry.host === "claude-code" ? offSaves.get(entry.group) : undefined
      return { host: entry.host, group: entry.group, ...entry.sums, ...(saves === undefined ? {} : { offSavesTokens: saves }) }
    })
    .sort((a, b) =>
      b.alwaysOnTokens - a.alwaysOnTokens || AGENT_HOSTS.indexOf(a.host) - AGENT_HOSTS.indexOf(b.host) || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))
  return { by, rows: groupRows, totals: totalRows }
}

/**
 * What switching each Claude Code plugin off saves, by plugin: its items' figures, the share of
 * its skills in the skill listing replaced by how much shorter the listing gets without them
 * (`skillListing` over the lines of the loaded items, in the bundle's order). Empty when the
 * bundle holds no listing model (another host, an older bundle).
 */
const claudeOffSaves = (inventory: AgentHostsInventory): ReadonlyMap<string, number> => {
  const listing = inventory.hosts.find((entry) => entry.host === "claude-code")?.listing
  if (listing === undefined) return new Map()
  const budget = userSkillBudget(listing)
  const loaded = inventory.items.filter((item) => item.host === "claude-code" && isEffective(item))
  const listed = loaded.filter((item): item is AgentHostItem & { readonly listingLine: ListingLine } => item.listingLine !== undefined)
  const all = skillListing(listed.map((item) => item.listingLine), budget).chars
  const saves = new Map<string, number>()
  for (const plugin of new Set(loaded.flatMap((item) => (item.plugin === null ? [] : [item.plugin])))) {
    const own = loaded.filter((item) => item.plugin === plugin)
    const items = own.reduce((sum, item) => sum + (item.listingLine === undefined ? item.alwaysOnTokens ?? 0 : 0), 0)
    const without = skillListing(listed.filter((item) => item.plugin !== plugin).map((item) => item.listingLine), budget).chars
    saves.set(plugin, items + Math.round((all - without) / 4))
  }
  return saves
}

/** A host's always-on total and its largest items, for the summary; none when the host loads nothing. */
export const hostLedgerLine = (
  inventory: AgentHostsInventory,
  host: AgentHostName
): { readonly total: number; readonly unknown: number; readonly largest: ReadonlyArray<LedgerItemRow> } | null => {
  const ledger = contextLedger(inventory, { host, by: "item" })
  const total = ledger.totals[0]
  if (total === undefined) return null
  const rows = ledger.rows as ReadonlyArray<LedgerItemRow>
  return { total: total.alwaysOnTokens, unknown: total.unknown, largest: rows.filter((row) => (row.alwaysOnTokens ?? 0) > 0).slice(0, 3) }
}
