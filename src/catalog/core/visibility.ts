/**
 * Per-agent visibility as pure data: the loaded state of an agent, what a load or an unload
 * does to it, and the allow-list the host restricts the agent to.
 *
 * allow-list = entry tools ∪ host-reserved names ∪ pinned ∪ loaded ∪ the tools of loaded
 * groups (high-risk tools excepted) − excluded, narrowed by the visibility filters. Groups
 * are kept by path (`/category/group`): a group name such as `misc` sits in many categories,
 * and a loaded group picks up every tool it gains later.
 */
import { Schema } from "effect"
import type { Catalog, GroupNode, Resolution, ToolEntry, ToolSchema } from "./model.js"
import { ROUTER_TOOLS } from "./router/routerTools.js"

/** The tools through which an agent browses, finds and loads the catalog: always visible. */
export const ENTRY_TOOLS: ReadonlyArray<string> = ["tools_ls", "tools_load", "tools_unload", ...ROUTER_TOOLS]

/**
 * Always-on tools of a generic coding-agent host: the everyday file, shell, search, planning
 * and delegation tools, under both the snake_case names most hosts use and Claude Code's
 * names. Names the host does not have are ignored; config `pinned` adds, `unpin` removes.
 */
export const DEFAULT_PINNED: ReadonlyArray<string> = [
  "bash", "shell", "read", "read_file", "write", "write_file", "edit", "multi_edit", "apply_patch",
  "glob", "grep", "ls", "list_directory", "web_fetch", "web_search", "todo_write", "todo_read",
  "ask_user", "ask_user_question", "exit_plan_mode", "task", "subagent", "skill",
  "Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "WebFetch", "WebSearch",
  "TodoWrite", "Task", "Skill", "ExitPlanMode", "AskUserQuestion", "NotebookEdit"
]

/** The always-on names in force: {@link DEFAULT_PINNED} and the settings' `pinned`, less `unpin`; the entry tools always. */
export const pinnedInForce = (settings: { readonly pinned: ReadonlyArray<string>; readonly unpin: ReadonlyArray<string> }): ReadonlySet<string> => {
  const set = new Set([...DEFAULT_PINNED, ...settings.pinned])
  for (const name of settings.unpin) set.delete(name)
  for (const name of ENTRY_TOOLS) set.add(name)
  return set
}

/**
 * The tools a catalog is built from: the host's, less the pinned and the host-reserved names
 * (visible without the catalog, so never listed, found or loaded through it). The host's own
 * list, uncopied, when it leaves none out.
 */
export const catalogTools = (schemas: ReadonlyArray<ToolSchema>, pinned: ReadonlySet<string>, reserved: ReadonlySet<string>): ReadonlyArray<ToolSchema> => {
  const kept = (schema: ToolSchema) => !pinned.has(schema.name) && !reserved.has(schema.name)
  return schemas.every(kept) ? schemas : schemas.filter(kept)
}

/**
 * The loaded state of one agent. Each list keeps insertion order and holds a name once.
 * `groups` and `handoffGroups` hold group paths (`/category/group`).
 */
export const AgentState = Schema.Struct({
  loaded: Schema.Array(Schema.String),
  groups: Schema.Array(Schema.String),
  excluded: Schema.Array(Schema.String),
  handoffGroups: Schema.Array(Schema.String),
  handoffTools: Schema.Array(Schema.String)
})

/** The loaded state of one agent. */
export type AgentState = typeof AgentState.Type

/** Nothing loaded. */
export const emptyAgentState: AgentState = { loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] }

/** True when nothing is loaded, subscribed, excluded or handed off. */
export const isEmptyState = (state: AgentState): boolean =>
  state.loaded.length + state.groups.length + state.excluded.length + state.handoffGroups.length +
      state.handoffTools.length === 0

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a === b || (a.length === b.length && a.every((name, index) => b[index] === name))

/** True when two states hold the same names in the same order. */
export const sameState = (a: AgentState, b: AgentState): boolean =>
  a === b || (sameList(a.loaded, b.loaded) && sameList(a.groups, b.groups) && sameList(a.excluded, b.excluded) &&
    sameList(a.handoffGroups, b.handoffGroups) && sameList(a.handoffTools, b.handoffTools))

/** True when two allow-lists hold the same names in the same order. */
export const sameOrder = sameList

const add = (list: ReadonlyArray<string>, names: Iterable<string>): ReadonlyArray<string> => {
  const seen = new Set(list)
  const out = [...list]
  for (const name of names) {
    if (!seen.has(name)) {
      seen.add(name)
      out.push(name)
    }
  }
  return out.length === list.length ? list : out
}

const remove = (list: ReadonlyArray<string>, names: Iterable<string>): ReadonlyArray<string> => {
  const drop = new Set(names)
  if (drop.size === 0) return list
  const out = list.filter((name) => !drop.has(name))
  return out.length === list.length ? list : out
}

/** The path of the group a tool lives in. */
export const groupPathOf = (tool: ToolEntry): string => `/${tool.category}/${tool.group}`

/** The state a subagent starts with: what its parent handed off. */
export const handoffStateOf = (parent: AgentState): AgentState => ({
  ...emptyAgentState,
  loaded: parent.handoffTools,
  groups: parent.handoffGroups
})

/** Everything `allowList` needs to know about one agent. */
export interface AllowInput {
  readonly catalog: Catalog
  /** The names of the tools the host has for the agent, in the host's order. */
  readonly hostTools: ReadonlyArray<string>
  /** Pinned names, entry tools included. */
  readonly pinned: ReadonlySet<string>
  /** Host-reserved names: never listed or loaded, and never restricted away. */
  readonly reserved: ReadonlySet<string>
  readonly state: AgentState
  /** The registered visibility filters combined: false keeps a name out. */
  readonly keep: (name: string) => boolean
}

/**
 * The allow-list in its natural order: entry tools, then the host's reserved and pinned
 * tools in host order, then loaded tools and the tools of loaded groups in load order.
 * Entry tools and reserved names are never filtered.
 */
export const allowList = (input: AllowInput): ReadonlyArray<string> => {
  const { catalog, hostTools, keep, pinned, reserved, state } = input
  const out: Array<string> = []
  const seen = new Set<string>()
  const push = (name: string) => {
    if (!seen.has(name)) {
      seen.add(name)
      out.push(name)
    }
  }
  for (const name of ENTRY_TOOLS) push(name)
  for (const name of hostTools) {
    if (reserved.has(name) || (pinned.has(name) && keep(name))) push(name)
  }
  const excluded = new Set(state.excluded)
  const visible = (tool: ToolEntry) => !excluded.has(tool.name) && keep(tool.name)
  for (const name of state.loaded) {
    const tool = catalog.byName.get(name)
    if (tool !== undefined && visible(tool)) push(name)
  }
  for (const path of state.groups) {
    const node = catalog.byPath.get(path)
    if (node === undefined || node.kind !== "group") continue
    for (const tool of node.children) if (!tool.highRisk && visible(tool)) push(tool.name)
  }
  return out
}

/**
 * Orders `next` so that every entry of `previous` still in it keeps its place and the rest
 * are appended: a load only appends, so a host's prompt cache over the tool list survives.
 */
export const appendOnly = (previous: ReadonlyArray<string>, next: ReadonlyArray<string>): ReadonlyArray<string> => {
  const nextSet = new Set(next)
  const kept = previous.filter((name) => nextSet.has(name))
  const keptSet = new Set(kept)
  return [...kept, ...next.filter((name) => !keptSet.has(name))]
}

/** Names in the allow-list that the catalog manages but the host's final view does not show. */
export const deniedNames = (
  allow: ReadonlyArray<string>,
  catalog: Catalog,
  view: ReadonlySet<string>
): ReadonlyArray<string> => allow.filter((name) => catalog.byName.has(name) && !view.has(name))

/** Why part of a load or unload did not happen (rendered by the entry tools). */
export type VisibilityNote =
  | { readonly _tag: "WholeTree"; readonly target: string }
  | { readonly _tag: "NotFound"; readonly target: string; readonly suggestions: ReadonlyArray<string> }
  | { readonly _tag: "AlwaysOn"; readonly target: string }
  | { readonly _tag: "Reserved"; readonly target: string }
  | { readonly _tag: "RiskyLeftOut"; readonly group: string; readonly tools: ReadonlyArray<string> }
  | { readonly _tag: "NoRiskGate"; readonly tool: string }
  | { readonly _tag: "NotApproved"; readonly tool: string; readonly gate: string }

/** What a load will subscribe to: group paths and single tools, before any risk check. */
export interface LoadPlan {
  readonly groups: ReadonlyArray<GroupNode>
  /** Single tools (named directly or through an alias), high-risk ones included. */
  readonly tools: ReadonlyArray<ToolEntry>
  readonly notes: ReadonlyArray<VisibilityNote>
}

/** The parts of the settings a plan needs to tell names apart. */
export interface PlanContext {
  readonly pinned: ReadonlySet<string>
  readonly reserved: ReadonlySet<string>
  /** Resolves an ordinary target (a resolver's output) without the resolvers. */
  readonly resolvePlain: (target: string) => Resolution
}

/** What a load or an unload does with the groups and tools a target names, and its notes. */
interface TargetVisitor {
  readonly groups: (groups: ReadonlyArray<GroupNode>) => void
  readonly tools: (tools: ReadonlyArray<ToolEntry>) => void
  readonly notes: Array<VisibilityNote>
}

/**
 * Hands what one resolved target names to `visitor`, or notes why it names nothing loadable.
 * A resolver's targets are resolved once more, never a second time.
 */
const visitTarget = (resolution: Resolution, context: PlanContext, visitor: TargetVisitor, nested = false): void => {
  switch (resolution.kind) {
    case "root":
      visitor.notes.push({ _tag: "WholeTree", target: resolution.target })
      return
    case "unknown": {
      const name = resolution.target.trim()
      if (context.reserved.has(name)) visitor.notes.push({ _tag: "Reserved", target: name })
      else if (context.pinned.has(name)) visitor.notes.push({ _tag: "AlwaysOn", target: name })
      else visitor.notes.push({ _tag: "NotFound", target: resolution.target, suggestions: resolution.suggestions })
      return
    }
    case "category":
      visitor.groups(resolution.node.children)
      return
    case "group":
      visitor.groups(resolution.nodes)
      return
    case "alias":
    case "tool":
      visitor.tools(resolution.tools)
      return
    case "resolver":
      if (!nested) for (const target of resolution.targets) visitTarget(context.resolvePlain(target), context, visitor, true)
      return
  }
}

/** Turns resolved targets into a load plan. */
export const planLoad = (resolutions: ReadonlyArray<Resolution>, context: PlanContext): LoadPlan => {
  const groups = new Map<string, GroupNode>()
  const tools = new Map<string, ToolEntry>()
  const notes: Array<VisibilityNote> = []
  const visitor: TargetVisitor = {
    groups: (nodes) => {
      for (const group of nodes) groups.set(group.path, group)
    },
    tools: (entries) => {
      for (const tool of entries) tools.set(tool.name, tool)
    },
    notes
  }
  for (const resolution of resolutions) visitTarget(resolution, context, visitor)
  for (const group of groups.values()) {
    const risky = group.children.filter((tool) => tool.highRisk)
    if (risky.length > 0) notes.push({ _tag: "RiskyLeftOut", group: group.path, tools: risky.map((tool) => tool.shortName) })
  }
  return { groups: [...groups.values()], tools: [...tools.values()], notes }
}

/** The names a plan would make visible (high-risk tools of groups left out). */
export const plannedNames = (plan: LoadPlan): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const group of plan.groups) for (const tool of group.children) if (!tool.highRisk) names.add(tool.name)
  for (const tool of plan.tools) names.add(tool.name)
  return [...names]
}

/** Applies a plan whose single tools have passed the risk checks. */
export const applyLoad = (state: AgentState, plan: LoadPlan, forSubagents: boolean): AgentState => {
  const groupPaths = plan.groups.map((group) => group.path)
  const toolNames = plan.tools.map((tool) => tool.name)
  const cleared = [...plan.groups.flatMap((group) => group.children.map((tool) => tool.name)), ...toolNames]
  return {
    loaded: add(state.loaded, toolNames),
    groups: add(state.groups, groupPaths),
    excluded: remove(state.excluded, cleared),
    handoffGroups: forSubagents ? add(state.handoffGroups, groupPaths) : state.handoffGroups,
    handoffTools: forSubagents ? add(state.handoffTools, toolNames) : state.handoffTools
  }
}

/** True when a target of `tools_unload` means "everything". */
export const isUnloadAll = (target: string): boolean => target.trim().toLowerCase() === "all"

/**
 * Applies an unload. A single tool whose group stays loaded is excluded, so it really goes;
 * `all` returns to the always-on set.
 */
export const applyUnload = (
  state: AgentState,
  resolutions: ReadonlyArray<Resolution>,
  context: PlanContext
): { readonly state: AgentState; readonly notes: ReadonlyArray<VisibilityNote> } => {
  let next = state
  const notes: Array<VisibilityNote> = []
  const dropGroups = (groups: ReadonlyArray<GroupNode>) => {
    const paths = groups.map((group) => group.path)
    const names = groups.flatMap((group) => group.children.map((tool) => tool.name))
    next = {
      ...next,
      groups: remove(next.groups, paths),
      handoffGroups: remove(next.handoffGroups, paths),
      loaded: remove(next.loaded, names),
      handoffTools: remove(next.handoffTools, names),
      // An exclusion only means something inside a loaded group.
      excluded: remove(next.excluded, names)
    }
  }
  const dropTools = (tools: ReadonlyArray<ToolEntry>) => {
    const names = tools.map((tool) => tool.name)
    const groups = new Set(next.groups)
    next = {
      ...next,
      loaded: remove(next.loaded, names),
      handoffTools: remove(next.handoffTools, names),
      excluded: add(next.excluded, tools.filter((tool) => groups.has(groupPathOf(tool))).map((tool) => tool.name))
    }
  }
  const visitor: TargetVisitor = { groups: dropGroups, tools: dropTools, notes }
  for (const resolution of resolutions) {
    if (isUnloadAll(resolution.target)) next = emptyAgentState
    else visitTarget(resolution, context, visitor)
  }
  return { state: next, notes }
}
