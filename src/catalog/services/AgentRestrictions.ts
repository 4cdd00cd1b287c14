import { Context, Effect, Layer, Option, Schema, Stream } from "effect"
import type { Catalog, ToolSchema } from "../core/model.js"
import {
  AgentState,
  allowList,
  appendOnly,
  deniedNames,
  emptyAgentState,
  handoffStateOf,
  isEmptyState
} from "../core/visibility.js"
import { CatalogSettings, type Exemption } from "../stores/CatalogSettings.js"
import { type AgentRecord, VisibilityStore } from "../stores/VisibilityStore.js"
import { AgentSessions, BuildScope } from "./AgentSessions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogRegistry } from "./CatalogRegistry.js"
import { type Agent, HostPort } from "./HostPort.js"

/** What one agent's allow-list is computed from. */
export interface AgentContext {
  readonly catalog: Catalog
  readonly hostTools: ReadonlyArray<ToolSchema>
  readonly pinned: ReadonlySet<string>
  readonly reserved: ReadonlySet<string>
  /** False for a name a visibility filter keeps out. */
  readonly keep: (name: string) => boolean
}

/** The allow-list an agent's state gives in a context, in the core's order. */
export const naturalAllow = (context: AgentContext, state: AgentState): ReadonlyArray<string> =>
  allowList({
    catalog: context.catalog,
    hostTools: context.hostTools.map((schema) => schema.name),
    pinned: context.pinned,
    reserved: context.reserved,
    state,
    keep: context.keep
  })

/** What giving an agent's record a new state changes, worked out from that record alone. */
export interface StateChange {
  /** The record with the new state and its allow-list's order (new names appended). */
  readonly record: AgentRecord
  /** Names newly in the allow-list, in its order. */
  readonly added: ReadonlyArray<string>
  /** Names no longer in it, in the order they had. */
  readonly removed: ReadonlyArray<string>
}

/**
 * `record` given `state` in a context. Pure, so a change runs it inside `VisibilityStore.modify`
 * on the record as stored now: what it reports added or removed is what this change did, not
 * what another process did meanwhile.
 */
export const changeState = (context: AgentContext, record: AgentRecord, state: AgentState): StateChange => {
  const before = appendOnly(record.order, naturalAllow(context, record.state))
  const order = appendOnly(record.order, naturalAllow(context, state))
  const beforeSet = new Set(before)
  const orderSet = new Set(order)
  return {
    record: { state, order },
    added: order.filter((name) => !beforeSet.has(name)),
    removed: before.filter((name) => !orderSet.has(name))
  }
}

// The fingerprint of "no restriction": no allow-list joins to it, as names hold no NUL.
const EXEMPT = "\u0000exempt"

/**
 * What each agent may see and handing it to the host: the agent's context (its catalog, the
 * pinned and reserved names, the filters), its ordered allow-list, and `sync`, which stores the
 * order and calls `HostPort.restrict` when the restriction changed. `attach`, `detach`,
 * `importState` and `refreshAll` run under the sessions' lock.
 */
export class AgentRestrictions extends Context.Tag("tool-map/AgentRestrictions")<AgentRestrictions, {
  readonly contextOf: (agent: Agent) => Effect.Effect<AgentContext>
  /** The agent's allow-list in its stable order (new names appended), exempt or not. */
  readonly orderedAllow: (agent: Agent, context: AgentContext) => Effect.Effect<ReadonlyArray<string>>
  /** The names the agent is restricted to; `None` when it is exempt. */
  readonly allowFor: (agent: Agent) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Of `allow`, the catalog names the host's final view hides anyway. */
  readonly deniedIn: (agent: Agent, context: AgentContext, allow: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  readonly exemptionOf: (agent: Agent) => Effect.Effect<Exemption>
  /** Stores the allow-list's order and hands the restriction to the host when it changed (call under the lock). */
  readonly sync: (agent: Agent, context: AgentContext) => Effect.Effect<void>
  /** Re-applies every known agent's restriction and brings the host's catalog up to date if it was built. */
  readonly refreshAll: Effect.Effect<void>
  /** Knows the agent, gives a new subagent its parent's handoffs, and returns once it is restricted. */
  readonly attach: (agent: Agent) => Effect.Effect<void>
  /** Forgets the agent: its session, restriction and build memo (its saved state stays with the provider). */
  readonly detach: (agentId: string) => Effect.Effect<void>
  /** Replaces an agent's loaded state and re-applies its restriction. */
  readonly importState: (agent: Agent, state: Partial<AgentState>) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))

  /** Attaches the agents alive now, then follows the host's lifecycle for as long as the scope lives. */
  static readonly followHost = Layer.scopedDiscard(
    Effect.gen(function*() {
      const port = yield* HostPort
      const restrictions = yield* AgentRestrictions
      yield* Effect.forEach(yield* port.agents, restrictions.attach, { discard: true })
      yield* port.lifecycle.pipe(
        Stream.runForEach((event) =>
          event._tag === "AgentStarted" ? restrictions.attach(event.agent) : restrictions.detach(event.agentId)
        ),
        Effect.forkScoped
      )
    })
  )
}

const make = Effect.gen(function*() {
  const port = yield* HostPort
  const builds = yield* CatalogBuilds
  const registry = yield* CatalogRegistry
  const sessions = yield* AgentSessions
  const store = yield* VisibilityStore
  const settings = yield* CatalogSettings

  const contextOf = Effect.fn("AgentRestrictions.contextOf")(function*(agent: Agent) {
    const { catalog, pinned, schemas } = yield* builds.get(Option.some(agent))
    const { filters } = yield* registry.current
    const keep = (name: string) => filters.every((filter) => filter.keep({ agent, name, tool: catalog.byName.get(name) }))
    return { catalog, hostTools: schemas, pinned, reserved: builds.reserved, keep } satisfies AgentContext
  })

  const exemptionOf = (agent: Agent) =>
    settings.exemptionOf(agent.provider, agent.sessionId ?? agent.id).pipe(Effect.withSpan("AgentRestrictions.exemptionOf"))

  const orderedAllow = Effect.fn("AgentRestrictions.orderedAllow")(function*(agent: Agent, context: AgentContext) {
    const record = yield* store.get(agent.id)
    return appendOnly(record.order, naturalAllow(context, record.state))
  })

  const sync = Effect.fn("AgentRestrictions.sync")(function*(agent: Agent, context: AgentContext) {
    yield* sessions.remember(agent)
    const exemption = yield* exemptionOf(agent)
    const order = yield* store.modify(agent.id, (record) => {
      const next = appendOnly(record.order, naturalAllow(context, record.state))
      return Effect.succeed([next, { ...record, order: next }] as const)
    })
    const allow = exemption.exempt ? Option.none<ReadonlyArray<string>>() : Option.some(order)
    const fingerprint = Option.match(allow, { onNone: () => EXEMPT, onSome: (names) => names.join("\n") })
    if (Option.contains(yield* sessions.applied(agent.id), fingerprint)) return
    yield* port.restrict(agent, allow)
    yield* sessions.restricted(agent.id, fingerprint)
  })

  const syncFresh = (agent: Agent) => Effect.flatMap(contextOf(agent), (context) => sync(agent, context))

  const refreshAll = Effect.gen(function*() {
    for (const agent of yield* sessions.agents) yield* syncFresh(agent)
    if (yield* builds.wasBuilt(BuildScope.Host())) yield* builds.get(Option.none())
  }).pipe(sessions.exclusive, Effect.withSpan("AgentRestrictions.refreshAll"))

  const attach = Effect.fn("AgentRestrictions.attach")(function*(agent: Agent) {
    const isNew = yield* sessions.remember(agent)
    const parent = isNew && agent.parentId !== undefined ? yield* sessions.get(agent.parentId) : Option.none<Agent>()
    if (Option.isNone(parent)) return yield* syncFresh(agent)
    const context = yield* contextOf(agent)
    const handed = handoffStateOf((yield* store.get(parent.value.id)).state)
    // Only an agent with nothing loaded takes the handoff, judged on its record as stored now:
    // a load another process made for it meanwhile is kept, not overwritten.
    if (!isEmptyState(handed)) {
      yield* store.modify(agent.id, (record) =>
        Effect.succeed([undefined, isEmptyState(record.state) ? changeState(context, record, handed).record : record] as const))
    }
    yield* sync(agent, context)
  }, sessions.exclusive)

  const detach = Effect.fn("AgentRestrictions.detach")(function*(agentId: string) {
    yield* store.forget(agentId)
    yield* sessions.detach(agentId)
  }, sessions.exclusive)

  const importState = Effect.fn("AgentRestrictions.importState")(function*(agent: Agent, state: Partial<AgentState>) {
    const next = Schema.decodeSync(AgentState)({ ...emptyAgentState, ...state })
    const context = yield* contextOf(agent)
    yield* store.modify(agent.id, (record) => Effect.succeed([undefined, changeState(context, record, next).record] as const))
    yield* sync(agent, context)
  }, sessions.exclusive)

  const allowFor = Effect.fn("AgentRestrictions.allowFor")(function*(agent: Agent) {
    if ((yield* exemptionOf(agent)).exempt) return Option.none<ReadonlyArray<string>>()
    return Option.some(yield* orderedAllow(agent, yield* contextOf(agent)))
  })

  const deniedIn = Effect.fn("AgentRestrictions.deniedIn")(function*(
    agent: Agent,
    context: AgentContext,
    allow: ReadonlyArray<string>
  ) {
    const view = yield* port.view(agent)
    return Option.match(view, {
      onNone: (): ReadonlyArray<string> => [],
      onSome: (names) => deniedNames(allow, context.catalog, names)
    })
  })

  return AgentRestrictions.of({
    contextOf,
    orderedAllow,
    allowFor,
    deniedIn,
    exemptionOf,
    sync,
    refreshAll,
    attach,
    detach,
    importState
  })
})
