import { Context, Effect, Layer, Option } from "effect"
import { resolveTarget } from "../core/catalog.js"
import {
  renderLoad,
  renderLoadRefused,
  renderRescueRefusal,
  renderUnload,
  renderUnloadRefused,
  type RescueRefusal
} from "../core/entryTools.js"
import type { Wording } from "../core/wording.js"
import type { Catalog, Resolution, ToolEntry } from "../core/model.js"
import { formatTokens } from "../../inventory/domain/tokens.js"
import {
  type AgentState,
  applyLoad,
  applyUnload,
  isUnloadAll,
  type LoadPlan,
  planLoad,
  plannedNames,
  type VisibilityNote
} from "../core/visibility.js"
import { CatalogSettings } from "../stores/CatalogSettings.js"
import { type AgentRecord, VisibilityStore } from "../stores/VisibilityStore.js"
import { type AgentContext, AgentRestrictions, changeState, naturalAllow } from "./AgentRestrictions.js"
import { AgentSessions } from "./AgentSessions.js"
import { CatalogEvents } from "../stores/CatalogEvents.js"
import { CatalogRegistry, type LoadVetoed, type RiskGate } from "./CatalogRegistry.js"
import type { Agent } from "./HostPort.js"

/** Options of a load. */
export interface LoadOptions {
  /** Also hand the targets to subagents started afterwards. */
  readonly forSubagents?: boolean | undefined
  /**
   * The user asked for this load (a UI click): risk gates' `approve` is not asked. A gate must
   * still be registered for a high-risk tool.
   */
  readonly consented?: boolean | undefined
  /** The words of the answer's text: the agent's (default) or another front end's. */
  readonly wording?: Wording | undefined
}

/** How `unload` answers. */
export interface UnloadOptions {
  /** The words of the answer's text: the agent's (default) or another front end's. */
  readonly wording?: Wording | undefined
}

/** What a load did, with the text the model sees. */
export interface LoadResult {
  readonly text: string
  /** Names newly in the allow-list. */
  readonly added: ReadonlyArray<string>
  /** Of those, the ones the host hides anyway. */
  readonly denied: ReadonlyArray<string>
  readonly notes: ReadonlyArray<VisibilityNote>
  /** The veto, when a hook refused the load. */
  readonly refused: Option.Option<string>
}

/** What an unload did, with the text the model sees. */
export interface UnloadResult {
  readonly text: string
  readonly removed: ReadonlyArray<string>
  readonly notes: ReadonlyArray<VisibilityNote>
  readonly refused: Option.Option<string>
}

/** What the host does with a call of a tool, decided before dispatch. */
export type CallDecision =
  | { readonly _tag: "Proceed" }
  | { readonly _tag: "Deny"; readonly reason: string; readonly refusal: RescueRefusal }

/**
 * Loads and unloads for an agent: hooks first, then the load budget, then risk gates, then the state change, the
 * restriction handed to the host and the event; and the on-the-spot load of a hidden tool
 * called directly. Each runs under the sessions' lock.
 */
export class CatalogLoads extends Context.Tag("tool-map/CatalogLoads")<CatalogLoads, {
  /** Loads targets (hooks, risk gates, persistence), answering with the text of `tools_load`. */
  readonly load: (agent: Agent, targets: ReadonlyArray<string>, options?: LoadOptions) => Effect.Effect<LoadResult>
  /** Unloads targets (hooks, persistence), answering with the text of `tools_unload`. */
  readonly unload: (agent: Agent, targets: ReadonlyArray<string>, options?: UnloadOptions) => Effect.Effect<UnloadResult>
  /** A hidden catalog tool called directly: loaded on the spot, or refused with the reason to show. */
  readonly beforeCall: (agent: Agent, name: string) => Effect.Effect<CallDecision>
}>() {
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

/** What a rescue found on the record as stored: the tool already visible, kept out by a filter, or loaded now. */
type Rescue = "Visible" | "Filtered" | "Loaded"

const planContext = (context: AgentContext) => ({
  pinned: context.pinned,
  reserved: context.reserved,
  resolvePlain: (target: string) => resolveTarget(context.catalog, target)
})

/** The reason of the first veto, if a hook vetoed. */
const runHooks = <R>(hooks: ReadonlyArray<{ readonly check: (request: R) => Effect.Effect<void, LoadVetoed> }>, request: R) =>
  Effect.forEach(hooks, (hook) => hook.check(request), { discard: true }).pipe(
    Effect.as(Option.none<string>()),
    Effect.catchTag("LoadVetoed", (veto) => Effect.succeed(Option.some(veto.reason)))
  )

/** A one-time approval's use a gate queued for the load's commit. */
interface QueuedSpend {
  readonly tool: ToolEntry
  readonly gate: string
  readonly spend: Effect.Effect<boolean>
}

/** Drops high-risk single tools no gate lets through, with a note for each; the spends the gates queued. */
const gateRisky = Effect.fn("CatalogLoads.gateRisky")(function*(
  riskGates: ReadonlyArray<RiskGate>,
  agent: Agent,
  plan: LoadPlan,
  consented: boolean
) {
  const tools: Array<ToolEntry> = []
  const notes: Array<VisibilityNote> = [...plan.notes]
  const spends: Array<QueuedSpend> = []
  for (const tool of plan.tools) {
    if (!tool.highRisk) {
      tools.push(tool)
      continue
    }
    if (riskGates.length === 0) {
      notes.push({ _tag: "NoRiskGate", tool: tool.name })
      continue
    }
    let refusedBy: string | undefined
    if (!consented) {
      for (const gate of riskGates) {
        const spendOnLoad = (spend: Effect.Effect<boolean>) => Effect.sync(() => void spends.push({ tool, gate: gate.name, spend }))
        if (gate.approve !== undefined && !(yield* gate.approve({ agent, tool, spendOnLoad }))) {
          refusedBy = gate.name
          break
        }
      }
    }
    if (refusedBy === undefined) tools.push(tool)
    else notes.push({ _tag: "NotApproved", tool: tool.name, gate: refusedBy })
  }
  return { plan: { ...plan, tools, notes } satisfies LoadPlan, spends }
})

/**
 * Runs the approvals' spends the gates queued, in order: a tool whose spend answers false (the
 * approval gone meanwhile: used by another load, denied, expired) is dropped, refused as not
 * approved. Run where the load commits, uninterruptibly with the change of the record.
 */
const spendApprovals = Effect.fn("CatalogLoads.spendApprovals")(function*(plan: LoadPlan, spends: ReadonlyArray<QueuedSpend>) {
  const refused = new Map<ToolEntry, string>()
  for (const queued of spends) {
    if (refused.has(queued.tool)) continue
    if (!(yield* queued.spend)) refused.set(queued.tool, queued.gate)
  }
  if (refused.size === 0) return plan
  return {
    ...plan,
    tools: plan.tools.filter((tool) => !refused.has(tool)),
    notes: [...plan.notes, ...[...refused].map(([tool, gate]): VisibilityNote => ({ _tag: "NotApproved", tool: tool.name, gate }))]
  } satisfies LoadPlan
})

/** A narrower target a refused load names: a group or a tool, and the tokens it would add. */
export interface NarrowerTarget {
  readonly target: string
  readonly tokens: number
}

/** A load that would take an agent's tool list over the load budget, with what fits instead. */
export interface OverBudget {
  /** Tokens of schemas the load would add. */
  readonly adding: number
  /** Tokens of the catalog tools the agent has now. */
  readonly loaded: number
  readonly budget: number
  /** The groups and tools of the load that fit in what is left of the budget, largest first. */
  readonly fits: ReadonlyArray<NarrowerTarget>
}

/** How many narrower targets a refusal names. */
export const NARROWER_SHOWN = 5

/**
 * Whether a load would take the agent's tool list over `budget` tokens of catalog tool schemas
 * (pinned, entry and host tools are not the catalog's and not counted): the tools it would add
 * (high-risk ones named singly included, before any gate) on top of the visible ones. A load that
 * adds nothing is never over. Pure.
 */
export const overBudget = (catalog: Catalog, visible: ReadonlyArray<string>, plan: LoadPlan, budget: number): Option.Option<OverBudget> => {
  const shown = new Set(visible)
  const tokensOf = (name: string) => catalog.byName.get(name)?.tokens ?? 0
  const loaded = visible.reduce((sum, name) => sum + tokensOf(name), 0)
  const adding = plannedNames(plan).filter((name) => !shown.has(name)).reduce((sum, name) => sum + tokensOf(name), 0)
  if (adding === 0 || loaded + adding <= budget) return Option.none()
  const room = budget - loaded
  const fits = new Map<string, number>()
  const tool = (entry: ToolEntry) => {
    if (!shown.has(entry.name) && entry.tokens <= room) fits.set(entry.name, entry.tokens)
  }
  for (const group of plan.groups) {
    const fresh = group.children.filter((child) => !child.highRisk && !shown.has(child.name))
    const tokens = fresh.reduce((sum, child) => sum + child.tokens, 0)
    if (tokens > 0 && tokens <= room) fits.set(group.path, tokens)
    else fresh.forEach(tool)
  }
  plan.tools.forEach(tool)
  const sorted = [...fits].map(([target, tokens]) => ({ target, tokens })).sort((a, b) =>
    b.tokens - a.tokens || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0)
  )
  return Option.some({ adding, loaded, budget, fits: sorted })
}

/** Why a load over the budget was refused (the text after "Load refused: "). */
export const overBudgetReason = (over: OverBudget): string => {
  const head = `it would add ${formatTokens(over.adding)} of tool schemas to the ${formatTokens(over.loaded)} loaded, over the load budget of ${
    formatTokens(over.budget)
  } (the catalog setting loadBudget).`
  if (over.fits.length === 0) {
    return `${head} Nothing it names fits in the ${formatTokens(Math.max(0, over.budget - over.loaded))} left: unload something first.`
  }
  const shown = over.fits.slice(0, NARROWER_SHOWN).map((fit) => `${fit.target} (${formatTokens(fit.tokens)})`)
  const more = over.fits.length - shown.length
  return `${head} Narrower targets that fit in the ${formatTokens(over.budget - over.loaded)} left, largest first: ${shown.join(", ")}${
    more > 0 ? `, and ${more} more` : ""
  }.`
}

const make = Effect.gen(function*() {
  const restrictions = yield* AgentRestrictions
  const registry = yield* CatalogRegistry
  const sessions = yield* AgentSessions
  const store = yield* VisibilityStore
  const events = yield* CatalogEvents
  const settings = yield* CatalogSettings

  const load = Effect.fn("CatalogLoads.load")(function*(
    agent: Agent,
    targets: ReadonlyArray<string>,
    options: LoadOptions = {}
  ) {
    const context = yield* restrictions.contextOf(agent)
    const registries = yield* registry.current
    const resolutions = targets.map((target) => resolveTarget(context.catalog, target, registries.resolvers))
    const planned = planLoad(resolutions, planContext(context))
    const veto = yield* runHooks(registries.beforeLoad, { agent, targets, names: plannedNames(planned), rescue: false })
    if (Option.isSome(veto)) {
      return { text: renderLoadRefused(veto.value), added: [], denied: [], notes: [], refused: veto } satisfies LoadResult
    }
    // Before the risk gates: nobody is asked to approve a tool of a load that is refused anyway.
    const loadBudget = yield* settings.loadBudget
    const over = overBudget(context.catalog, naturalAllow(context, (yield* store.get(agent.id)).state), planned, loadBudget)
    if (Option.isSome(over)) {
      const reason = overBudgetReason(over.value)
      return { text: renderLoadRefused(reason), added: [], denied: [], notes: [], refused: Option.some(reason) } satisfies LoadResult
    }
    const gated = yield* gateRisky(registries.riskGates, agent, planned, options.consented === true)
    // No question can stop the load past the gates: the approvals are spent here, with the change
    // of the record, uninterruptibly (a cancel either comes before and spends nothing, or after).
    const { added, plan } = yield* Effect.uninterruptible(Effect.gen(function*() {
      const plan = yield* spendApprovals(gated.plan, gated.spends)
      // What this load added, judged on the record it changed (as stored now, under the lock):
      // loads other processes made meanwhile are theirs to report.
      const added = yield* store.modify(agent.id, (record) => {
        const change = changeState(context, record, applyLoad(record.state, plan, options.forSubagents === true))
        return Effect.succeed([change.added, change.record] as const)
      })
      return { added, plan }
    }))
    yield* restrictions.sync(agent, context)
    yield* events.publish({ _tag: "ToolsLoaded", agentId: agent.id, targets: [...targets], added })
    // In `added`'s order already: the denied names are `added` filtered.
    const denied = yield* restrictions.deniedIn(agent, context, added)
    const deniedSet = new Set(denied)
    const callable = added.filter((name) => !deniedSet.has(name))
    const tokens = callable.reduce((sum, name) => sum + (context.catalog.byName.get(name)?.tokens ?? 0), 0)
    return {
      text: renderLoad({ callable, denied, tokens, notes: plan.notes }, options.wording),
      added,
      denied,
      notes: plan.notes,
      refused: Option.none()
    } satisfies LoadResult
  }, sessions.exclusive)

  const unload = Effect.fn("CatalogLoads.unload")(function*(
    agent: Agent,
    targets: ReadonlyArray<string>,
    options: UnloadOptions = {}
  ) {
    const context = yield* restrictions.contextOf(agent)
    const registries = yield* registry.current
    const veto = yield* runHooks(registries.beforeUnload, { agent, targets })
    if (Option.isSome(veto)) {
      return { text: renderUnloadRefused(veto.value), removed: [], notes: [], refused: veto } satisfies UnloadResult
    }
    const resolutions = targets.map((target): Resolution =>
      isUnloadAll(target)
        ? { kind: "unknown", target, suggestions: [] }
        : resolveTarget(context.catalog, target, registries.resolvers)
    )
    const { notes, removed } = yield* store.modify(agent.id, (record) => {
      const result = applyUnload(record.state, resolutions, planContext(context))
      const change = changeState(context, record, result.state)
      return Effect.succeed([{ notes: result.notes, removed: change.removed }, change.record] as const)
    })
    yield* restrictions.sync(agent, context)
    yield* events.publish({ _tag: "ToolsUnloaded", agentId: agent.id, targets: [...targets], removed })
    return { text: renderUnload(removed, notes, options.wording), removed, notes, refused: Option.none() } satisfies UnloadResult
  }, sessions.exclusive)

  const beforeCall = Effect.fn("CatalogLoads.beforeCall")(function*(agent: Agent, name: string) {
    const proceed: CallDecision = { _tag: "Proceed" }
    if ((yield* restrictions.exemptionOf(agent)).exempt) return proceed
    const context = yield* restrictions.contextOf(agent)
    const tool = context.catalog.byName.get(name)
    // Only catalog tools are ours: pinned, entry and reserved tools, and tools the host hides
    // for its own reasons, are not rescued here.
    if (tool === undefined) return proceed
    const visible = (state: AgentState) => naturalAllow(context, state).includes(name)
    if (visible((yield* store.get(agent.id)).state)) return proceed
    const deny = (refusal: RescueRefusal): CallDecision => ({ _tag: "Deny", reason: renderRescueRefusal(refusal), refusal })
    if (tool.highRisk) return deny({ _tag: "HighRisk", name })
    const hooks = (yield* registry.current).beforeLoad
    const veto = yield* runHooks(hooks, { agent, targets: [name], names: [name], rescue: true })
    if (Option.isSome(veto)) return deny({ _tag: "Vetoed", name, reason: veto.value })
    const plan: LoadPlan = { groups: [], tools: [tool], notes: [] }
    const outcome = yield* store.modify(agent.id, (record): Effect.Effect<readonly [Rescue, AgentRecord]> => {
      // Another process may have loaded it since this one last read the record.
      if (visible(record.state)) return Effect.succeed(["Visible", record])
      const next = applyLoad(record.state, plan, false)
      // A filter keeps it out: leave the record as it was, so a tool the session cannot see is
      // not recorded (and persisted) as loaded.
      if (!visible(next)) return Effect.succeed(["Filtered", record])
      return Effect.succeed(["Loaded", changeState(context, record, next).record])
    })
    if (outcome === "Filtered") return deny({ _tag: "Filtered", name })
    yield* restrictions.sync(agent, context)
    if (outcome === "Loaded") yield* events.publish({ _tag: "ToolAutoLoaded", agentId: agent.id, name })
    return proceed
  }, sessions.exclusive)

  return CatalogLoads.of({ load, unload, beforeCall })
})
