/**
 * The catalog as a host sees it, in one service. `ToolCatalog` is a façade: each method hands
 * over to one of the small services behind it —
 * - `CatalogRegistry`: what plugins registered (classifiers, annotations, categories, filters,
 *   resolvers, risk gates, hooks);
 * - `AgentSessions`: the known agents, their applied restrictions and build memos, and the lock;
 * - `CatalogBuilds`: each scope's cached build, with the rebuild and definition-change events;
 * - `AgentRestrictions`: allow-lists and handing them to the host (attach, detach, refresh);
 * - `CatalogLoads`: loads, unloads and the on-the-spot load of a hidden tool;
 * - `CatalogViews` and `EntryTools`: the `tools_ls` text, search, tokens, the entry tools;
 * - `Router`: `tools_find`, `tools_route`, `skills_find`, `skills_route` (ranked retrieval);
 * - `CatalogConfig`: settings and metadata snapshots and edits;
 * - `ManifestWriter`: the manifest file, kept in step with the host's build (`settled` writes it now).
 */
import { Context, Effect, Layer, Option, type Queue, type Scope, type Stream } from "effect"
import { resolveTarget } from "../core/catalog.js"
import type { EntryToolArgumentsError, EntryToolDefinition } from "../core/entryTools.js"
import type { RouterToolDefinition } from "../core/router/routerTools.js"
import type {
  Annotation,
  Catalog,
  CategoryDefinition,
  Classifier,
  Resolution,
  Resolver,
  ToolMeta
} from "../core/model.js"
import type { AgentState } from "../core/visibility.js"
import type { Exemption, SettingsPatch } from "../stores/CatalogSettings.js"
import { type StateProvider, VisibilityStore } from "../stores/VisibilityStore.js"
import { AgentRestrictions } from "./AgentRestrictions.js"
import { AgentSessions } from "./AgentSessions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogConfig, type CatalogConfigShape } from "./CatalogConfig.js"
import { type CatalogEvent, CatalogEvents, type CatalogWarning } from "../stores/CatalogEvents.js"
import { type CallDecision, CatalogLoads, type LoadOptions, type LoadResult, type UnloadOptions, type UnloadResult } from "./CatalogLoads.js"
import {
  type BeforeLoadHook,
  type BeforeUnloadHook,
  CatalogRegistry,
  type Extensions,
  extensionsOf,
  type RiskGate,
  type VisibilityFilter
} from "./CatalogRegistry.js"
import { CatalogViews, type FindHit, type ListRequest } from "./CatalogViews.js"
import { EntryTools, type UnknownEntryTool } from "./EntryTools.js"
import type { Agent } from "./HostPort.js"

export { type Agent, type AgentLifecycle, HostPort } from "./HostPort.js"
export type { ConfigSnapshot, ToolMetaSnapshot } from "./CatalogConfig.js"
export type { CallDecision, LoadOptions, LoadResult, UnloadOptions, UnloadResult } from "./CatalogLoads.js"
export {
  type BeforeLoadHook,
  type BeforeUnloadHook,
  type Extensions,
  type LoadRequest,
  LoadVetoed,
  type RiskGate,
  type VisibilityFilter
} from "./CatalogRegistry.js"
export type { FindHit, ListRequest } from "./CatalogViews.js"
export { UnknownEntryTool } from "./EntryTools.js"

/**
 * The catalog as a host sees it: registries for placement, visibility and risk; per-agent
 * loads and unloads with the texts the model gets; the entry tools; settings and metadata
 * edits; and the events. A registration holds until its scope closes and re-applies every
 * known agent's restriction, when made and when undone. Loads, unloads, attaches and
 * registrations' re-applying run one at a time (`AgentSessions.exclusive`), so a hook, gate or
 * filter must not load or register from inside its own call.
 */
export class ToolCatalog extends Context.Tag("tool-map/ToolCatalog")<ToolCatalog, CatalogConfigShape & {
  readonly registerClassifier: (classifier: Classifier) => Effect.Effect<void, never, Scope.Scope>
  /** Adds an annotation; `package` declarations sit under `runtime` ones, user edits over both. */
  readonly annotate: (annotation: Annotation, layer?: "package" | "runtime") => Effect.Effect<void, never, Scope.Scope>
  readonly defineCategory: (definition: CategoryDefinition) => Effect.Effect<void, never, Scope.Scope>
  readonly registerVisibilityFilter: (filter: VisibilityFilter) => Effect.Effect<void, never, Scope.Scope>
  /** Owns a target prefix (`cap:`) in the entry tools. */
  readonly registerTargetResolver: (resolver: Resolver) => Effect.Effect<void, never, Scope.Scope>
  readonly registerRiskGate: (gate: RiskGate) => Effect.Effect<void, never, Scope.Scope>
  readonly registerBeforeLoad: (hook: BeforeLoadHook) => Effect.Effect<void, never, Scope.Scope>
  readonly registerBeforeUnload: (hook: BeforeUnloadHook) => Effect.Effect<void, never, Scope.Scope>
  /** Lets loaded state outlive the process; the newest provider is in force. */
  readonly registerStateProvider: (provider: StateProvider) => Effect.Effect<void, never, Scope.Scope>
  readonly riskGates: Effect.Effect<ReadonlyArray<string>>
  readonly extensions: Effect.Effect<Extensions>
  /**
   * Re-applies every known agent's restriction: call it after the host's tool set changed, so
   * loaded groups pick up their new tools (builds are cached per tool set, so this is cheap).
   */
  readonly refresh: Effect.Effect<void>
  /** Drops every cached build, then refreshes (after a classifier changed its rules in place). */
  readonly invalidate: Effect.Effect<void>
  /** The catalog one agent sees, or the whole host's with no agent. */
  readonly get: (agent?: Agent) => Effect.Effect<Catalog>
  readonly resolve: (target: string, agent?: Agent) => Effect.Effect<Resolution>
  readonly stateOf: (agent: Agent) => Effect.Effect<AgentState>
  /** Replaces an agent's loaded state (e.g. restored by a host's own persistence). */
  readonly importState: (agent: Agent, state: Partial<AgentState>) => Effect.Effect<void>
  /** The names the agent is restricted to, in their stable order; `None` when it is exempt. */
  readonly allowFor: (agent: Agent) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Loaded (or pinned catalog) tools the host's final view hides anyway. */
  readonly deniedFor: (agent: Agent) => Effect.Effect<ReadonlyArray<string>>
  readonly exemptionOf: (agent: Agent) => Effect.Effect<Exemption>
  /** Loads targets through the same path as `tools_load` (hooks, risk gates, persistence). */
  readonly load: (agent: Agent, targets: ReadonlyArray<string>, options?: LoadOptions) => Effect.Effect<LoadResult>
  readonly unload: (agent: Agent, targets: ReadonlyArray<string>, options?: UnloadOptions) => Effect.Effect<UnloadResult>
  /** The text of `tools_ls`. */
  readonly list: (agent: Agent, request: ListRequest) => Effect.Effect<string>
  /**
   * Decides a call before dispatch: a hidden catalog tool is loaded on the spot, or refused
   * with the reason to show (high risk, a veto, a filter that keeps it out).
   */
  readonly beforeCall: (agent: Agent, name: string) => Effect.Effect<CallDecision>
  /** The entry tools' definitions, for the host to register. */
  readonly entryTools: ReadonlyArray<EntryToolDefinition | RouterToolDefinition>
  /** Runs an entry tool for an agent with the model's raw arguments. */
  readonly callEntryTool: (
    agent: Agent,
    name: string,
    args: unknown
  ) => Effect.Effect<string, EntryToolArgumentsError | UnknownEntryTool>
  /**
   * An agent started: restore its state (or its parent's handoffs) and restrict it. Returns once
   * the host holds the agent's restriction; attaching an agent already attached (by the
   * `HostPort.lifecycle` stream, say) only re-applies it.
   */
  readonly attach: (agent: Agent) => Effect.Effect<void>
  /**
   * Returns once the agent is attached and restricted, at once if it already is: a host that
   * reports agents through `HostPort.lifecycle` waits on this instead of polling `agents`. It
   * waits for as long as no such agent comes; a host that may never start it adds a timeout.
   */
  readonly ready: (agentId: string) => Effect.Effect<void>
  /** An agent stopped: drop everything kept about it in memory (its state stays persisted). */
  readonly detach: (agentId: string) => Effect.Effect<void>
  /** Agents known to the catalog, each with its parent, in the order they came. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** Ranked search as data. */
  readonly find: (query: string, path?: string, agent?: Agent) => Effect.Effect<ReadonlyArray<FindHit>>
  /** Estimated schema tokens the agent is sent: its allow-list, or every tool when exempt. */
  readonly wireTokens: (agent: Agent) => Effect.Effect<number>
  /** Events from the moment the stream starts. */
  readonly events: Stream.Stream<CatalogEvent>
  /** A subscription to every event from now on. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<CatalogEvent>, never, Scope.Scope>
  /** Every warning so far (corrupt files kept aside, failed writes). */
  readonly diagnostics: Effect.Effect<ReadonlyArray<CatalogWarning>>
}>() {
  /** The façade over the catalog's services (composed by `HostLayer`). */
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

const make = Effect.gen(function*() {
  const registry = yield* CatalogRegistry
  const sessions = yield* AgentSessions
  const builds = yield* CatalogBuilds
  const restrictions = yield* AgentRestrictions
  const loads = yield* CatalogLoads
  const views = yield* CatalogViews
  const entry = yield* EntryTools
  const config = yield* CatalogConfig
  const store = yield* VisibilityStore
  const events = yield* CatalogEvents

  /** Holds the registration for the scope, re-applying every restriction now and once it is undone. */
  const reapplied = (registration: Effect.Effect<void, never, Scope.Scope>) =>
    Effect.gen(function*() {
      // Added before the registration, so on close it runs after the registration is undone.
      yield* Effect.addFinalizer(() => restrictions.refreshAll)
      yield* registration
      yield* restrictions.refreshAll
    })

  const catalogOf = (agent: Agent | undefined) => builds.get(Option.fromNullable(agent))

  return ToolCatalog.of({
    registerClassifier: Effect.fn("ToolCatalog.registerClassifier")(function*(classifier: Classifier) {
      yield* reapplied(registry.register("classifiers", classifier))
    }),
    annotate: Effect.fn("ToolCatalog.annotate")(function*(annotation: Annotation, layer: "package" | "runtime" = "runtime") {
      yield* reapplied(registry.register("annotations", { layer, annotation }))
    }),
    defineCategory: Effect.fn("ToolCatalog.defineCategory")(function*(definition: CategoryDefinition) {
      yield* reapplied(registry.register("categories", definition))
    }),
    registerVisibilityFilter: Effect.fn("ToolCatalog.registerVisibilityFilter")(function*(filter: VisibilityFilter) {
      yield* reapplied(registry.register("filters", filter))
    }),
    registerTargetResolver: Effect.fn("ToolCatalog.registerTargetResolver")(function*(resolver: Resolver) {
      yield* reapplied(registry.register("resolvers", resolver))
    }),
    registerRiskGate: Effect.fn("ToolCatalog.registerRiskGate")(function*(gate: RiskGate) {
      yield* reapplied(registry.register("riskGates", gate))
    }),
    registerBeforeLoad: Effect.fn("ToolCatalog.registerBeforeLoad")(function*(hook: BeforeLoadHook) {
      yield* reapplied(registry.register("beforeLoad", hook))
    }),
    registerBeforeUnload: Effect.fn("ToolCatalog.registerBeforeUnload")(function*(hook: BeforeUnloadHook) {
      yield* reapplied(registry.register("beforeUnload", hook))
    }),
    registerStateProvider: Effect.fn("ToolCatalog.registerStateProvider")(function*(provider: StateProvider) {
      yield* Effect.acquireRelease(store.registerStateProvider(provider), (unregister) => unregister)
    }),
    riskGates: Effect.map(registry.current, (r) => r.riskGates.map((gate) => gate.name)).pipe(
      Effect.withSpan("ToolCatalog.riskGates")
    ),
    extensions: Effect.zipWith(registry.current, store.stateProviders, extensionsOf).pipe(
      Effect.withSpan("ToolCatalog.extensions")
    ),
    refresh: restrictions.refreshAll.pipe(Effect.withSpan("ToolCatalog.refresh")),
    invalidate: Effect.zipRight(builds.invalidate, restrictions.refreshAll).pipe(Effect.withSpan("ToolCatalog.invalidate")),
    get: Effect.fn("ToolCatalog.get")(function*(agent?: Agent) {
      return (yield* catalogOf(agent)).catalog
    }),
    resolve: Effect.fn("ToolCatalog.resolve")(function*(target: string, agent?: Agent) {
      const { catalog } = yield* catalogOf(agent)
      return resolveTarget(catalog, target, (yield* registry.current).resolvers)
    }),
    stateOf: Effect.fn("ToolCatalog.stateOf")(function*(agent: Agent) {
      return (yield* store.get(agent.id)).state
    }),
    importState: Effect.fn("ToolCatalog.importState")(function*(agent: Agent, state: Partial<AgentState>) {
      yield* restrictions.importState(agent, state)
    }),
    allowFor: Effect.fn("ToolCatalog.allowFor")(function*(agent: Agent) {
      return yield* restrictions.allowFor(agent)
    }),
    deniedFor: Effect.fn("ToolCatalog.deniedFor")(function*(agent: Agent) {
      if ((yield* restrictions.exemptionOf(agent)).exempt) return []
      // One context for the allow-list and the denial check: a second would build the agent's catalog again.
      const context = yield* restrictions.contextOf(agent)
      return yield* restrictions.deniedIn(agent, context, yield* restrictions.orderedAllow(agent, context))
    }),
    exemptionOf: Effect.fn("ToolCatalog.exemptionOf")(function*(agent: Agent) {
      return yield* restrictions.exemptionOf(agent)
    }),
    load: Effect.fn("ToolCatalog.load")(function*(agent: Agent, targets: ReadonlyArray<string>, options?: LoadOptions) {
      return yield* loads.load(agent, targets, options)
    }),
    unload: Effect.fn("ToolCatalog.unload")(function*(agent: Agent, targets: ReadonlyArray<string>, options?: UnloadOptions) {
      return yield* loads.unload(agent, targets, options)
    }),
    list: Effect.fn("ToolCatalog.list")(function*(agent: Agent, request: ListRequest) {
      return yield* views.list(agent, request)
    }),
    beforeCall: Effect.fn("ToolCatalog.beforeCall")(function*(agent: Agent, name: string) {
      return yield* loads.beforeCall(agent, name)
    }),
    entryTools: entry.definitions,
    callEntryTool: Effect.fn("ToolCatalog.callEntryTool")(function*(agent: Agent, name: string, args: unknown) {
      return yield* entry.call(agent, name, args)
    }),
    attach: Effect.fn("ToolCatalog.attach")(function*(agent: Agent) {
      yield* restrictions.attach(agent)
    }),
    ready: Effect.fn("ToolCatalog.ready")(function*(agentId: string) {
      yield* sessions.ready(agentId)
    }),
    detach: Effect.fn("ToolCatalog.detach")(function*(agentId: string) {
      yield* restrictions.detach(agentId)
    }),
    agents: sessions.agents.pipe(Effect.withSpan("ToolCatalog.agents")),
    find: Effect.fn("ToolCatalog.find")(function*(query: string, path = "/", agent?: Agent) {
      return yield* views.find(query, path, Option.fromNullable(agent))
    }),
    wireTokens: Effect.fn("ToolCatalog.wireTokens")(function*(agent: Agent) {
      return yield* views.wireTokens(agent)
    }),
    config: config.config.pipe(Effect.withSpan("ToolCatalog.config")),
    updateConfig: Effect.fn("ToolCatalog.updateConfig")(function*(patch: SettingsPatch) {
      return yield* config.updateConfig(patch)
    }),
    reloadConfig: config.reloadConfig.pipe(Effect.withSpan("ToolCatalog.reloadConfig")),
    setExemptSession: Effect.fn("ToolCatalog.setExemptSession")(function*(sessionId: string, exempt: boolean) {
      return yield* config.setExemptSession(sessionId, exempt)
    }),
    toolMeta: Effect.fn("ToolCatalog.toolMeta")(function*(name: string) {
      return yield* config.toolMeta(name)
    }),
    updateToolMeta: Effect.fn("ToolCatalog.updateToolMeta")(function*(name: string, meta: ToolMeta) {
      return yield* config.updateToolMeta(name, meta)
    }),
    clearToolMeta: Effect.fn("ToolCatalog.clearToolMeta")(function*(name: string) {
      return yield* config.clearToolMeta(name)
    }),
    events: events.stream,
    subscribe: events.subscribe,
    diagnostics: events.diagnostics
  })
})
