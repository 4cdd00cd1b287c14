import {
  AgentItem,
  type AgentHostItem,
  CommandItem,
  InstructionsItem,
  McpServerItem,
  PluginItem,
  SkillItem
} from "../../domain/agentHosts.js"
import { applyCosts, type CostDraft } from "../../domain/ledger.js"

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** The constructor input of any item kind. */
export type ItemProps =
  | ConstructorParameters<typeof AgentItem>[0]
  | ConstructorParameters<typeof SkillItem>[0]
  | ConstructorParameters<typeof CommandItem>[0]
  | ConstructorParameters<typeof McpServerItem>[0]
  | ConstructorParameters<typeof PluginItem>[0]
  | ConstructorParameters<typeof InstructionsItem>[0]

/** An item before precedence is applied: everything but `id`, `shadowedBy` and `sameFileAs`. */
export type DraftFields = DistributiveOmit<ItemProps, "id" | "shadowedBy" | "sameFileAs">

/**
 * An item found by a host reader, with its place in the host's precedence: items of the same
 * `namespace` compete for one name and the lowest `rank` that is enabled wins. A null
 * namespace never competes (instructions files that all load, ignored entries).
 */
export interface ItemDraft {
  readonly fields: DraftFields
  /** What the item costs in its host's sessions, before the host's listing budget (see `ledger.ts`). */
  readonly cost?: CostDraft
  /**
   * An MCP server's: the key its tool snapshot is kept under (`mcpLaunch.ts`), null when the
   * gateway would not start it. A function, as it expands the entry with the environment.
   */
  readonly snapshotKey?: () => string | null
  /** The key of the defining file's entry when several items share one file (an MCP server name). */
  readonly entry: string | null
  readonly namespace: string | null
  readonly rank: number
}

/** The id of an item: host, kind, scope, defining file and entry key. */
export const itemId = (fields: DraftFields, entry: string | null): string =>
  `${fields.host}:${fields.kind}:${fields.scope}:${fields.path}${entry === null ? "" : `#${entry}`}`

/**
 * Applies precedence: in each namespace the first enabled draft by rank (then by discovery
 * order) wins and every other draft of that namespace is `shadowedBy` it. Ids are made unique.
 * With Claude Code's `skillBudget` (characters), each item gets its ledger figures too. All the
 * drafts are of one host.
 */
export const resolvePrecedence = (drafts: ReadonlyArray<ItemDraft>, skillBudget?: number): ReadonlyArray<AgentHostItem> => {
  const seen = new Map<string, number>()
  const ids = drafts.map((draft) => {
    const base = itemId(draft.fields, draft.entry)
    const count = (seen.get(base) ?? 0) + 1
    seen.set(base, count)
    return count === 1 ? base : `${base}~${count}`
  })
  const groups = new Map<string, Array<number>>()
  drafts.forEach((draft, index) => {
    if (draft.namespace === null) return
    const group = groups.get(draft.namespace)
    if (group === undefined) groups.set(draft.namespace, [index])
    else group.push(index)
  })
  const shadowedBy = new Array<string | null>(drafts.length).fill(null)
  for (const group of groups.values()) {
    if (group.length < 2) continue
    const ordered = [...group].sort((a, b) => drafts[a]!.rank - drafts[b]!.rank || a - b)
    const winner = ordered.find((index) => drafts[index]!.fields.enabled)
    if (winner === undefined) continue
    for (const index of ordered) if (index !== winner) shadowedBy[index] = ids[winner]!
  }
  // The ledger figures (issue 14), when a budget is given: they depend on which items the host loads.
  const host = drafts[0]?.fields.host
  const costs = skillBudget === undefined || host === undefined
    ? undefined
    : applyCosts(host, drafts.map((draft, index) => ({ kind: draft.fields.kind, effective: draft.fields.enabled && shadowedBy[index] === null, cost: draft.cost })), skillBudget)
  // Object.assign, not a spread: the drafts' fields come in many shapes, and V8 copies those by a
  // spread on its slow path (about ten times the time, measured over 5,000 items).
  return drafts.map((draft, index) => makeItem(Object.assign({}, draft.fields, { id: ids[index]!, shadowedBy: shadowedBy[index] ?? null }, costs?.[index]) as ItemProps))
}

/**
 * Links the items of several hosts that one file defines (same kind, same path, no entry key):
 * each gets the ids of the others in `sameFileAs`. Items of one host only are left as they are.
 */
export const linkSameFiles = (items: ReadonlyArray<AgentHostItem>): ReadonlyArray<AgentHostItem> => {
  const byFile = new Map<string, Array<number>>()
  items.forEach((item, index) => {
    if (item.id !== `${item.host}:${item.kind}:${item.scope}:${item.path}`) return
    const key = `${item.kind}\u0000${item.path}`
    const group = byFile.get(key)
    if (group === undefined) byFile.set(key, [index])
    else group.push(index)
  })
  const links = new Map<number, ReadonlyArray<string>>()
  for (const group of byFile.values()) {
    if (group.length < 2) continue
    for (const index of group) {
      const others = group.filter((other) => items[other]!.host !== items[index]!.host).map((other) => items[other]!.id)
      if (others.length > 0) links.set(index, others)
    }
  }
  if (links.size === 0) return items
  return items.map((item, index) => {
    const others = links.get(index)
    return others === undefined ? item : makeItem(Object.assign({}, item, { sameFileAs: others }) as ItemProps)
  })
}

/** An item of its kind's class. Validation is skipped: the readers build every field from checked values, and 20k items matter. */
export const makeItem = (props: ItemProps): AgentHostItem => {
  switch (props.kind) {
    case "agent":
      return new AgentItem(props, true)
    case "skill":
      return new SkillItem(props, true)
    case "command":
      return new CommandItem(props, true)
    case "mcpServer":
      return new McpServerItem(props, true)
    case "plugin":
      return new PluginItem(props, true)
    case "instructions":
      return new InstructionsItem(props, true)
  }
}
