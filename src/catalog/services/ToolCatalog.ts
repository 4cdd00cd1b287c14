import type { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Layer, Option, type Queue, Ref, Schema, type Scope, Stream } from "effect"
import { resolveTarget, searchCatalog } from "../core/catalog.js"
import { mergeMeta } from "../core/classify.js"
import { definitionHashes, diffDefinitions, isEmptyDiff } from "../core/definitions.js"
import {
  ENTRY_TOOL_DEFINITIONS,
  type EntryToolDefinition,
  EntryToolArgumentsError,
  renderListing,
  renderLoad,
  renderLoadRefused,
  renderMissingPath,
  renderRescueRefusal,
  renderSearch,
  renderUnload,
  renderUnloadRefused,
  type RescueRefusal,
  SEARCH_LIMIT,
  ToolsLoadArgs,
  ToolsLsArgs,
  ToolsUnloadArgs
} from "../core/entryTools.js"
import { writeManifest } from "../core/manifest.js"
import type {
  Annotation,
  Catalog,
  CategoryDefinition,
  Classifier,
  Resolution,
  Resolver,
  ToolEntry,
  ToolMeta,
  ToolSchema
} from "../core/model.js"
import { type CatalogEvent, CatalogEvents, type CatalogWarning } from "./CatalogEvents.js"
import type { CatalogFileError } from "../stores/jsonFile.js"
import { estimateTokens } from "../core/tokens.js"
import {
  type AgentState,
  AgentState as AgentStateSchema,
  allowList,
  appendOnly,
  applyLoad,
  applyUnload,
  DEFAULT_PINNED,
  deniedNames,
  emptyAgentState,
  ENTRY_TOOLS,
  handoffStateOf,
  isEmptyState,
  isUnloadAll,
  type LoadPlan,
  planLoad,
  plannedNames,
  type VisibilityNote
} from "../core/visibility.js"
import { Catalog as CatalogBuilder } from "./CatalogBuilder.js"
import { CatalogSettings, type Exemption, type SettingsPatch } from "../stores/CatalogSettings.js"
import { type StateProvider, VisibilityStore } from "../stores/VisibilityStore.js"

/** An agent of the host: a main session or a subagent. */
export interface Agent {
  readonly id: string
  /** The session it belongs to, for per-session exemptions (the agent id when absent). */
  readonly sessionId?: string | undefined
  /** The model route its requests use, for per-route exemptions (e.g. `claude-code`). */
  readonly provider?: string | undefined
  /** The agent that started it, when it is a subagent: it inherits the parent's handoffs. */
  readonly parentId?: string | undefined
}

/** An agent started or stopped. */
export type AgentLifecycle =
  | { readonly _tag: "AgentStarted"; readonly agent: Agent }
  | { readonly _tag: "AgentStopped"; readonly agentId: string }

/**
 * What the host implements so tool-map can manage its agents' tools: the tool schemas, how
 * to restrict an agent, what the agent finally sees, and the agents' lifecycle.
 */
export class HostPort extends Context.Tag("tool-map/HostPort")<HostPort, {
  /** The host's name, for messages. */
  readonly name: string
  /** Names that are transports of the host, not capabilities: never listed, loaded or restricted. */
  readonly reserved: ReadonlyArray<string>
  /** Every tool the agent could be given, before any restriction; with `None`, every tool of the host. */
  readonly tools: (agent: Option.Option<Agent>) => Effect.Effect<ReadonlyArray<ToolSchema>>
  /** Restricts the agent to `allow` (in that order), or lifts the restriction with `None`. */
  readonly restrict: (agent: Agent, allow: Option.Option<ReadonlyArray<string>>) => Effect.Effect<void>
  /** The names the agent finally sees after every layer of the host; `None` when it cannot tell. */
  readonly view: (agent: Agent) => Effect.Effect<Option.Option<ReadonlySet<string>>>
  /** Agents alive now. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** Agent starts and stops, followed for as long as the catalog lives. */
  readonly lifecycle: Stream.Stream<AgentLifecycle>
}>() {}

/** Undoes a registration. */
export type Disposer = Effect.Effect<void>

/** Narrows what agents may see; `keep` returning false keeps a name out of the allow-list. */
export interface VisibilityFilter {
  readonly name: string
  readonly keep: (input: {
    readonly agent: Agent
    readonly name: string
    /** The catalog entry, or undefined for a pinned tool (pinned tools are not in the catalog). */
    readonly tool: ToolEntry | undefined
  }) => boolean
}

/**
 * Declares that something confirms high-risk loads: while at least one gate is registered a
 * high-risk tool can be loaded on its own. With `approve`, the gate is asked for each such
 * load an agent makes through `tools_load`.
 */
export interface RiskGate {
  readonly name: string
  readonly approve?: ((request: { readonly agent: Agent; readonly tool: ToolEntry }) => Effect.Effect<boolean>) | undefined
}

/** A hook vetoed a load or an unload. */
export class LoadVetoed extends Schema.TaggedError<LoadVetoed>()("LoadVetoed", {
  hook: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `${this.hook} refused: ${this.reason}`
  }
}

/** What a before-load hook is shown. */
export interface LoadRequest {
  readonly agent: Agent
  readonly targets: ReadonlyArray<string>
  /** The tools the load would make visible. */
  readonly names: ReadonlyArray<string>
  /** True for the on-the-spot load of a directly called hidden tool. */
  readonly rescue: boolean
}

/** Runs before every load and may veto it by failing with `LoadVetoed`. */
export interface BeforeLoadHook {
  readonly name: string
  readonly check: (request: LoadRequest) => Effect.Effect<void, LoadVetoed>
}

/** Runs before every unload and may veto it by failing with `LoadVetoed`. */
export interface BeforeUnloadHook {
  readonly name: string
  readonly check: (request: { readonly agent: Agent; readonly targets: ReadonlyArray<string> }) => Effect.Effect<void, LoadVetoed>
}

/** Options of a load. */
export interface LoadOptions {
  /** Also hand the targets to subagents started afterwards. */
  readonly forSubagents?: boolean | undefined
  /**
   * The user asked for this load (a UI click): risk gates' `approve` is not asked. A gate must
   * still be registered for a high-risk tool.
   */
  readonly consented?: boolean | undefined
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

/** One search hit as data, for UIs: the catalog entry's public facts. */
export type FindHit = Pick<ToolEntry, "name" | "shortName" | "path" | "category" | "group" | "summary" | "tokens" | "highRisk">

/** The configuration as one object, for UIs. */
export interface ConfigSnapshot {
  /** The always-on set in force: defaults + extra − unpinned, entry tools included. */
  readonly pinned: ReadonlyArray<string>
  readonly entryTools: ReadonlyArray<string>
  readonly defaults: ReadonlyArray<string>
  readonly extraPinned: ReadonlyArray<string>
  readonly unpinned: ReadonlyArray<string>
  readonly highRisk: ReadonlyArray<string>
  readonly reserved: ReadonlyArray<string>
  readonly exemptProviders: ReadonlyArray<string>
  readonly exemptSessions: ReadonlyArray<string>
  /** True when the exemption file exists and wins over config. */
  readonly exemptFromFile: boolean
  /** True when the settings file holds at least one key. */
  readonly hasSettings: boolean
  readonly files: {
    readonly settings: string | null
    readonly metadata: string | null
    readonly exemptions: string | null
    readonly manifest: string | null
  }
}

/** One tool's metadata and the layers behind it, for UIs. */
export interface ToolMetaSnapshot {
  readonly name: string
  /** False when the tool is not in the catalog (not registered, pinned or reserved). */
  readonly found: boolean
  /** What the catalog uses. */
  readonly effective: ToolMeta
  /** The user's edits. */
  readonly edited: ToolMeta
  /** Package declarations and runtime annotations, without the edits. */
  readonly declared: ToolMeta
  readonly path: string
  readonly category: string
  readonly group: string
  readonly summary: string
  readonly highRisk: boolean
}

/** The registered extension points, for UIs. */
export interface Extensions {
  readonly classifiers: ReadonlyArray<{ readonly id: string; readonly priority: number }>
  readonly annotations: ReadonlyArray<{ readonly layer: "package" | "runtime"; readonly source: string; readonly match: string }>
  readonly categories: ReadonlyArray<string>
  readonly filters: ReadonlyArray<string>
  readonly resolvers: ReadonlyArray<string>
  readonly riskGates: ReadonlyArray<string>
  readonly beforeLoad: ReadonlyArray<string>
  readonly beforeUnload: ReadonlyArray<string>
  readonly stateProviders: ReadonlyArray<string>
}

/** An entry tool was called by a name that is not one. */
export class UnknownEntryTool extends Schema.TaggedError<UnknownEntryTool>()("UnknownEntryTool", {
  name: Schema.String
}) {
  get message() {
    return `${this.name} is not an entry tool of the catalog (tools_ls, tools_load, tools_unload)`
  }
}

/** Where the catalog writes besides the stores. */
export interface ToolCatalogOptions {
  /** Host-reserved names on top of the port's. */
  readonly reserved?: ReadonlyArray<string> | undefined
  /** The manifest file, rewritten after every rebuild of the whole catalog; `None` turns it off. */
  readonly manifestFile: Option.Option<string>
}

/**
 * The catalog as a host sees it: registries for placement, visibility and risk; per-agent
 * loads and unloads with the texts the model gets; the entry tools; settings and metadata
 * edits; and the events. Every registration returns its disposer and re-applies every known
 * agent's restriction (loads and registrations run one at a time, so a hook must not register
 * or load from inside its own check).
 */
export class ToolCatalog extends Context.Tag("tool-map/ToolCatalog")<ToolCatalog, {
  readonly registerClassifier: (classifier: Classifier) => Effect.Effect<Disposer>
  /** Adds an annotation; `package` declarations sit under `runtime` ones, user edits over both. */
  readonly annotate: (annotation: Annotation, layer?: "package" | "runtime") => Effect.Effect<Disposer>
  readonly defineCategory: (definition: CategoryDefinition) => Effect.Effect<Disposer>
  readonly registerVisibilityFilter: (filter: VisibilityFilter) => Effect.Effect<Disposer>
  /** Owns a target prefix (`cap:`) in the entry tools. */
  readonly registerTargetResolver: (resolver: Resolver) => Effect.Effect<Disposer>
  readonly registerRiskGate: (gate: RiskGate) => Effect.Effect<Disposer>
  readonly registerBeforeLoad: (hook: BeforeLoadHook) => Effect.Effect<Disposer>
  readonly registerBeforeUnload: (hook: BeforeUnloadHook) => Effect.Effect<Disposer>
  /** Lets loaded state outlive the process; the newest provider is in force. */
  readonly registerStateProvider: (provider: StateProvider) => Effect.Effect<Disposer>
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
  readonly unload: (agent: Agent, targets: ReadonlyArray<string>) => Effect.Effect<UnloadResult>
  /** The text of `tools_ls`. */
  readonly list: (agent: Agent, request: { readonly path?: string | undefined; readonly query?: string | undefined }) => Effect.Effect<string>
  /**
   * Decides a call before dispatch: a hidden catalog tool is loaded on the spot, or refused
   * with the reason to show (high risk, a veto, a filter that keeps it out).
   */
  readonly beforeCall: (agent: Agent, name: string) => Effect.Effect<CallDecision>
  /** The entry tools' definitions, for the host to register. */
  readonly entryTools: ReadonlyArray<EntryToolDefinition>
  /** Runs an entry tool for an agent with the model's raw arguments. */
  readonly callEntryTool: (
    agent: Agent,
    name: string,
    args: unknown
  ) => Effect.Effect<string, EntryToolArgumentsError | UnknownEntryTool>
  /** An agent started: restore its state (or its parent's handoffs) and restrict it. */
  readonly attach: (agent: Agent) => Effect.Effect<void>
  /** An agent stopped: drop it from memory (its state stays persisted). */
  readonly detach: (agentId: string) => Effect.Effect<void>
  /** Agents known to the catalog, each with its parent. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** Ranked search as data. */
  readonly find: (query: string, path?: string, agent?: Agent) => Effect.Effect<ReadonlyArray<FindHit>>
  /** Estimated schema tokens the agent is sent: its allow-list, or every tool when exempt. */
  readonly wireTokens: (agent: Agent) => Effect.Effect<number>
  readonly config: Effect.Effect<ConfigSnapshot>
  /** Stores edited settings (they win over config) and applies them at once. */
  readonly updateConfig: (patch: SettingsPatch) => Effect.Effect<ConfigSnapshot, CatalogFileError>
  /** Re-reads the settings, metadata and exemption files after an external edit. */
  readonly reloadConfig: Effect.Effect<ConfigSnapshot, CatalogFileError>
  readonly setExemptSession: (sessionId: string, exempt: boolean) => Effect.Effect<ConfigSnapshot, CatalogFileError>
  readonly toolMeta: (name: string) => Effect.Effect<ToolMetaSnapshot>
  /** Edits a tool's metadata (wins over every declaration) and moves it at once. */
  readonly updateToolMeta: (name: string, meta: ToolMeta) => Effect.Effect<ToolMetaSnapshot, CatalogFileError>
  readonly clearToolMeta: (name: string) => Effect.Effect<ToolMetaSnapshot, CatalogFileError>
  /** Events from the moment the stream starts. */
  readonly events: Stream.Stream<CatalogEvent>
  /** A subscription to every event from now on. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<CatalogEvent>, never, Scope.Scope>
  /** Every warning so far (corrupt files kept aside, failed writes). */
  readonly diagnostics: Effect.Effect<ReadonlyArray<CatalogWarning>>
}>() {
  /** The catalog over the port, the stores and the event hub. */
  static readonly layer = (options: ToolCatalogOptions) => Layer.scoped(this, make(options))
}

/** Registers in a scope: the registration is undone when the scope closes. */
export const registerScoped = <E, R>(registration: Effect.Effect<Disposer, E, R>) =>
  Effect.acquireRelease(registration, (dispose) => dispose).pipe(Effect.asVoid)

interface Registries {
  readonly classifiers: ReadonlyArray<Classifier>
  readonly annotations: ReadonlyArray<{ readonly layer: "package" | "runtime"; readonly annotation: Annotation }>
  readonly categories: ReadonlyArray<CategoryDefinition>
  readonly filters: ReadonlyArray<VisibilityFilter>
  readonly resolvers: ReadonlyArray<Resolver>
  readonly riskGates: ReadonlyArray<RiskGate>
  readonly beforeLoad: ReadonlyArray<BeforeLoadHook>
  readonly beforeUnload: ReadonlyArray<BeforeUnloadHook>
}

const emptyRegistries: Registries = {
  classifiers: [],
  annotations: [],
  categories: [],
  filters: [],
  resolvers: [],
  riskGates: [],
  beforeLoad: [],
  beforeUnload: []
}

/** What one agent's allow-list is computed from. */
interface AgentContext {
  readonly catalog: Catalog
  readonly hostTools: ReadonlyArray<ToolSchema>
  readonly pinned: ReadonlySet<string>
  readonly reserved: ReadonlySet<string>
  readonly keep: (name: string) => boolean
}

/** What a build depends on, compared by identity (the lists are immutable) or as text. */
interface BuildInputs {
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly pinned: string
  readonly registries: Registries
  readonly metadata: Readonly<Record<string, ToolMeta>>
  readonly highRisk: string
}

const sameInputs = (a: BuildInputs, b: BuildInputs): boolean =>
  a.schemas === b.schemas && a.pinned === b.pinned && a.registries === b.registries && a.metadata === b.metadata &&
  a.highRisk === b.highRisk

interface BuiltCatalog {
  readonly catalog: Catalog
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly pinned: ReadonlySet<string>
}

const ALL_AGENTS = "\u0000all"

const make = Effect.fn("ToolCatalog.make")(function*(options: ToolCatalogOptions) {
  const port = yield* HostPort
  const store = yield* VisibilityStore
  const settings = yield* CatalogSettings
  const events = yield* CatalogEvents
  const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
  const builder = yield* CatalogBuilder
  const registries = yield* Ref.make(emptyRegistries)
  // Per agent (or the whole host): the cache key of its last build and its definition hashes,
  // to tell a rebuild from a cache hit and report what changed between two builds.
  const lastBuild = new Map<string, string>()
  const lastHashes = new Map<string, ReadonlyMap<string, string>>()
  const lastInputs = new Map<string, { readonly inputs: BuildInputs; readonly catalog: Catalog }>()
  const known = new Map<string, Agent>()
  const applied = new Map<string, string>()
  const lock = yield* Effect.makeSemaphore(1)
  const serialized = lock.withPermits(1)

  const register = <A>(select: (r: Registries) => ReadonlyArray<A>, set: (r: Registries, list: ReadonlyArray<A>) => Registries) =>
  (item: A): Effect.Effect<Disposer> =>
    Effect.gen(function*() {
      yield* Ref.update(registries, (r) => set(r, [...select(r), item]))
      yield* changed
      return Ref.update(registries, (r) => set(r, select(r).filter((candidate) => candidate !== item))).pipe(
        Effect.zipRight(changed)
      )
    })

  const pinnedSet = Effect.map(settings.settings, (current) => {
    const set = new Set([...DEFAULT_PINNED, ...current.pinned])
    for (const name of current.unpin) set.delete(name)
    for (const name of ENTRY_TOOLS) set.add(name)
    return set
  })

  const reservedSet = new Set([...port.reserved, ...(options.reserved ?? [])])

  const buildFor = (key: string, schemas: ReadonlyArray<ToolSchema>, pinned: ReadonlySet<string>): Effect.Effect<Catalog> =>
    Effect.gen(function*() {
      const current = yield* Ref.get(registries)
      const metadata = yield* settings.metadata
      const highRisk = (yield* settings.settings).highRisk
      const inputs: BuildInputs = {
        schemas,
        pinned: [...pinned].join("\n"),
        registries: current,
        metadata,
        highRisk: highRisk.join("\n")
      }
      // The builder keys its cache by hashing every definition; when the host hands over the
      // very same schema list and nothing else changed, the last catalog is still right.
      const memo = lastInputs.get(key)
      if (memo !== undefined && sameInputs(memo.inputs, inputs)) return memo.catalog
      const managed = schemas.filter((schema) => !pinned.has(schema.name) && !reservedSet.has(schema.name))
      const lookup = yield* builder.getWithStatus(managed, {
        classifiers: current.classifiers,
        annotations: {
          package: current.annotations.filter((entry) => entry.layer === "package").map((entry) => entry.annotation),
          runtime: current.annotations.filter((entry) => entry.layer === "runtime").map((entry) => entry.annotation),
          user: metadata
        },
        categories: current.categories,
        highRisk
      })
      const catalog = lookup.catalog
      lastInputs.set(key, { inputs, catalog })
      if (lastBuild.get(key) === lookup.key) return catalog
      lastBuild.set(key, lookup.key)
      const hashes = definitionHashes(catalog.tools)
      const previous = lastHashes.get(key)
      lastHashes.set(key, hashes)
      if (lookup.rebuilt) {
        yield* events.publish({
          _tag: "CatalogRebuilt",
          toolSetKey: catalog.toolSetKey,
          tools: catalog.tools.length,
          categories: catalog.categories.size,
          tokens: catalog.totalTokens
        })
      }
      if (previous !== undefined) {
        const diff = diffDefinitions(previous, hashes)
        if (!isEmptyDiff(diff)) yield* events.publish({ _tag: "DefinitionsChanged", ...diff })
      }
      if (Option.isSome(options.manifestFile)) {
        if (key === ALL_AGENTS) {
          const path = options.manifestFile.value
          const now = new Date(yield* Clock.currentTimeMillis).toISOString()
          yield* writeManifest(path, catalog, now).pipe(
            Effect.provide(platform),
            Effect.catchAll((error) => events.warn({ kind: "write-failed", subject: path, message: error.message }))
          )
        } else {
          // The manifest is the whole host's index: bring it up to date too.
          yield* catalogOf(Option.none())
        }
      }
      return catalog
    })

  const catalogOf = (agent: Option.Option<Agent>): Effect.Effect<BuiltCatalog> =>
    Effect.gen(function*() {
      const schemas = yield* port.tools(agent)
      const pinned = yield* pinnedSet
      const key = Option.match(agent, { onNone: () => ALL_AGENTS, onSome: (a) => a.id })
      return { catalog: yield* buildFor(key, schemas, pinned), schemas, pinned }
    })

  const contextOf = (agent: Agent) =>
    Effect.gen(function*() {
      const { catalog, pinned, schemas } = yield* catalogOf(Option.some(agent))
      const { filters } = yield* Ref.get(registries)
      const keep = (name: string) => filters.every((filter) => filter.keep({ agent, name, tool: catalog.byName.get(name) }))
      return { catalog, hostTools: schemas, pinned, reserved: reservedSet, keep } satisfies AgentContext
    })

  const naturalAllow = (context: AgentContext, state: AgentState) =>
    allowList({
      catalog: context.catalog,
      hostTools: context.hostTools.map((schema) => schema.name),
      pinned: context.pinned,
      reserved: context.reserved,
      state,
      keep: context.keep
    })

  const exemptionOf = (agent: Agent) => settings.exemptionOf(agent.provider, agent.sessionId ?? agent.id)

  /** The ordered allow-list, exempt or not. */
  const orderedAllow = (agent: Agent, context: AgentContext) =>
    Effect.map(store.get(agent.id), (record) => appendOnly(record.order, naturalAllow(context, record.state)))

  /** Stores the order of the allow-list and hands the restriction to the host when it changed. */
  const syncWith = (agent: Agent, context: AgentContext) =>
    Effect.gen(function*() {
      known.set(agent.id, agent)
      const exemption = yield* exemptionOf(agent)
      const order = yield* store.modify(agent.id, (record) => {
        const next = appendOnly(record.order, naturalAllow(context, record.state))
        return Effect.succeed([next, { ...record, order: next }] as const)
      })
      const allow = exemption.exempt ? Option.none<ReadonlyArray<string>>() : Option.some(order)
      const fingerprint = Option.match(allow, { onNone: () => "\u0000exempt", onSome: (names) => names.join("\n") })
      if (applied.get(agent.id) === fingerprint) return
      applied.set(agent.id, fingerprint)
      yield* port.restrict(agent, allow)
    })

  const sync = (agent: Agent) => Effect.flatMap(contextOf(agent), (context) => syncWith(agent, context))

  const refreshAll = Effect.gen(function*() {
    for (const agent of [...known.values()]) yield* sync(agent)
    if (Option.isSome(options.manifestFile)) yield* catalogOf(Option.none())
  })

  const changed: Effect.Effect<void> = serialized(refreshAll)

  const deniedWith = (agent: Agent, context: AgentContext, allow: ReadonlyArray<string>) =>
    Effect.map(port.view(agent), Option.match({
      onNone: () => [] as ReadonlyArray<string>,
      onSome: (view) => deniedNames(allow, context.catalog, view)
    }))

  const allowFor = (agent: Agent) =>
    Effect.gen(function*() {
      if ((yield* exemptionOf(agent)).exempt) return Option.none<ReadonlyArray<string>>()
      return Option.some(yield* orderedAllow(agent, yield* contextOf(agent)))
    })

  const resolverList = Effect.map(Ref.get(registries), (r) => r.resolvers)

  const planContext = (context: AgentContext) => ({
    pinned: context.pinned,
    reserved: context.reserved,
    resolvePlain: (target: string) => resolveTarget(context.catalog, target)
  })

  const runHooks = <R>(hooks: ReadonlyArray<{ readonly check: (request: R) => Effect.Effect<void, LoadVetoed> }>, request: R) =>
    Effect.forEach(hooks, (hook) => hook.check(request), { discard: true }).pipe(
      Effect.as(Option.none<string>()),
      Effect.catchTag("LoadVetoed", (veto) => Effect.succeed(Option.some(veto.reason)))
    )

  /** Drops high-risk single tools no gate lets through, with a note for each. */
  const gateRisky = (agent: Agent, plan: LoadPlan, consented: boolean) =>
    Effect.gen(function*() {
      const { riskGates } = yield* Ref.get(registries)
      const tools: Array<ToolEntry> = []
      const notes: Array<VisibilityNote> = [...plan.notes]
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
            if (gate.approve !== undefined && !(yield* gate.approve({ agent, tool }))) {
              refusedBy = gate.name
              break
            }
          }
        }
        if (refusedBy === undefined) tools.push(tool)
        else notes.push({ _tag: "NotApproved", tool: tool.name, gate: refusedBy })
      }
      return { ...plan, tools, notes } satisfies LoadPlan
    })

  const loadLocked = (agent: Agent, targets: ReadonlyArray<string>, loadOptions: LoadOptions) =>
    Effect.gen(function*() {
      const context = yield* contextOf(agent)
      const resolvers = yield* resolverList
      const resolutions = targets.map((target) => resolveTarget(context.catalog, target, resolvers))
      const planned = planLoad(resolutions, planContext(context))
      const hooks = (yield* Ref.get(registries)).beforeLoad
      const veto = yield* runHooks(hooks, { agent, targets, names: plannedNames(planned), rescue: false })
      if (Option.isSome(veto)) {
        return { text: renderLoadRefused(veto.value), added: [], denied: [], notes: [], refused: veto } satisfies LoadResult
      }
      const plan = yield* gateRisky(agent, planned, loadOptions.consented === true)
      const before = new Set(yield* orderedAllow(agent, context))
      yield* store.modify(agent.id, (record) =>
        Effect.succeed([undefined, { ...record, state: applyLoad(record.state, plan, loadOptions.forSubagents === true) }] as const))
      yield* syncWith(agent, context)
      const after = yield* orderedAllow(agent, context)
      const added = after.filter((name) => !before.has(name))
      yield* events.publish({ _tag: "ToolsLoaded", agentId: agent.id, targets: [...targets], added })
      const deniedSet = new Set(yield* deniedWith(agent, context, added))
      const denied = added.filter((name) => deniedSet.has(name))
      const callable = added.filter((name) => !deniedSet.has(name))
      const tokens = callable.reduce((sum, name) => sum + (context.catalog.byName.get(name)?.tokens ?? 0), 0)
      return {
        text: renderLoad({ callable, denied, tokens, notes: plan.notes }),
        added,
        denied,
        notes: plan.notes,
        refused: Option.none()
      } satisfies LoadResult
    })

  const unloadLocked = (agent: Agent, targets: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const context = yield* contextOf(agent)
      const hooks = (yield* Ref.get(registries)).beforeUnload
      const veto = yield* runHooks(hooks, { agent, targets })
      if (Option.isSome(veto)) {
        return { text: renderUnloadRefused(veto.value), removed: [], notes: [], refused: veto } satisfies UnloadResult
      }
      const resolvers = yield* resolverList
      const resolutions = targets.map((target): Resolution =>
        isUnloadAll(target)
          ? { kind: "unknown", target, suggestions: [] }
          : resolveTarget(context.catalog, target, resolvers)
      )
      const before = yield* orderedAllow(agent, context)
      const notes = yield* store.modify(agent.id, (record) => {
        const result = applyUnload(record.state, resolutions, planContext(context))
        return Effect.succeed([result.notes, { ...record, state: result.state }] as const)
      })
      yield* syncWith(agent, context)
      const after = new Set(yield* orderedAllow(agent, context))
      const removed = before.filter((name) => !after.has(name))
      yield* events.publish({ _tag: "ToolsUnloaded", agentId: agent.id, targets: [...targets], removed })
      return { text: renderUnload(removed, notes), removed, notes, refused: Option.none() } satisfies UnloadResult
    })

  const beforeCallLocked = (agent: Agent, name: string) =>
    Effect.gen(function*() {
      const proceed: CallDecision = { _tag: "Proceed" }
      if ((yield* exemptionOf(agent)).exempt) return proceed
      const context = yield* contextOf(agent)
      const tool = context.catalog.byName.get(name)
      // Only catalog tools are ours: pinned, entry and reserved tools, and tools the host hides
      // for its own reasons, are not rescued here.
      if (tool === undefined) return proceed
      const before = yield* orderedAllow(agent, context)
      if (before.includes(name)) return proceed
      const deny = (refusal: RescueRefusal): CallDecision => ({ _tag: "Deny", reason: renderRescueRefusal(refusal), refusal })
      if (tool.highRisk) return deny({ _tag: "HighRisk", name })
      const hooks = (yield* Ref.get(registries)).beforeLoad
      const veto = yield* runHooks(hooks, { agent, targets: [name], names: [name], rescue: true })
      if (Option.isSome(veto)) return deny({ _tag: "Vetoed", name, reason: veto.value })
      const plan: LoadPlan = { groups: [], tools: [tool], notes: [] }
      const previous = (yield* store.get(agent.id)).state
      const next = applyLoad(previous, plan, false)
      if (!naturalAllow(context, next).includes(name)) {
        // A filter keeps it out: leave the state as it was, so a tool the session cannot see
        // is not recorded (and persisted) as loaded.
        return deny({ _tag: "Filtered", name })
      }
      yield* store.modify(agent.id, (record) => Effect.succeed([undefined, { ...record, state: next }] as const))
      yield* syncWith(agent, context)
      yield* events.publish({ _tag: "ToolAutoLoaded", agentId: agent.id, name })
      return proceed
    })

  const listText = (agent: Agent, request: { readonly path?: string | undefined; readonly query?: string | undefined }) =>
    Effect.gen(function*() {
      const context = yield* contextOf(agent)
      const resolvers = yield* resolverList
      const exempt = (yield* exemptionOf(agent)).exempt
      const allow = yield* orderedAllow(agent, context)
      const allowSet = new Set(allow)
      const denied = new Set(yield* deniedWith(agent, context, allow))
      const view = { visible: (name: string) => exempt || allowSet.has(name), denied }
      const target = request.path === undefined || request.path.trim() === "" ? "/" : request.path
      const resolution = resolveTarget(context.catalog, target, resolvers)
      const query = request.query?.trim() ?? ""
      if (resolution.kind === "unknown") return renderMissingPath(resolution.target, resolution.suggestions)
      if (query !== "") {
        const under = resolution.kind === "resolver" ? undefined : resolution.node
        if (resolution.kind === "resolver") {
          // A resolver names tools, not a node: rank the whole tree and keep its tools.
          const names = new Set(resolution.tools.map((tool) => tool.name))
          const all = searchCatalog(context.catalog, query).tools.filter((tool) => names.has(tool.name))
          return renderSearch(query, all.slice(0, SEARCH_LIMIT), all.length, view)
        }
        const result = searchCatalog(context.catalog, query, { under, limit: SEARCH_LIMIT })
        return renderSearch(query, result.tools, result.total, view)
      }
      if (resolution.kind === "resolver") {
        return renderSearch(resolution.target, resolution.tools.slice(0, SEARCH_LIMIT), resolution.tools.length, view)
      }
      return renderListing(context.catalog, resolution.node, view)
    })

  const attachLocked = (agent: Agent) =>
    Effect.gen(function*() {
      const wasKnown = known.has(agent.id)
      known.set(agent.id, agent)
      if (!wasKnown && agent.parentId !== undefined) {
        const parent = known.get(agent.parentId)
        const record = yield* store.get(agent.id)
        if (parent !== undefined && isEmptyState(record.state)) {
          const handed = handoffStateOf((yield* store.get(parent.id)).state)
          if (!isEmptyState(handed)) {
            yield* store.modify(agent.id, (current) => Effect.succeed([undefined, { ...current, state: handed }] as const))
          }
        }
      }
      yield* sync(agent)
    })

  const configSnapshot = Effect.gen(function*() {
    const current = yield* settings.settings
    const stored = yield* settings.storedSettings
    const exemptions = yield* settings.exemptions
    const orNull = (file: Option.Option<string>) => Option.getOrNull(file)
    return {
      pinned: [...(yield* pinnedSet)],
      entryTools: [...ENTRY_TOOLS],
      defaults: [...DEFAULT_PINNED],
      extraPinned: [...current.pinned],
      unpinned: [...current.unpin],
      highRisk: [...current.highRisk],
      reserved: [...reservedSet],
      exemptProviders: [...exemptions.providers],
      exemptSessions: [...exemptions.sessions],
      exemptFromFile: exemptions.fromFile,
      hasSettings: Object.values(stored).some((value) => value !== undefined),
      files: {
        settings: orNull(settings.files.settings),
        metadata: orNull(settings.files.metadata),
        exemptions: orNull(settings.files.exemptions),
        manifest: orNull(options.manifestFile)
      }
    } satisfies ConfigSnapshot
  })

  const toolMetaSnapshot = (name: string) =>
    Effect.gen(function*() {
      const { catalog } = yield* catalogOf(Option.none())
      const current = yield* Ref.get(registries)
      const declared = mergeMeta({
        package: current.annotations.filter((entry) => entry.layer === "package").map((entry) => entry.annotation),
        runtime: current.annotations.filter((entry) => entry.layer === "runtime").map((entry) => entry.annotation)
      }, name)
      const edited = (yield* settings.metadata)[name] ?? {}
      const entry = catalog.byName.get(name)
      return {
        name,
        found: entry !== undefined,
        effective: entry?.meta ?? { ...declared, ...edited },
        edited,
        declared,
        path: entry?.path ?? "",
        category: entry?.category ?? "",
        group: entry?.group ?? "",
        summary: entry?.summary ?? "",
        highRisk: entry?.highRisk ?? false
      } satisfies ToolMetaSnapshot
    })

  const settingsChanged = (keys: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      yield* changed
      yield* events.publish({ _tag: "SettingsChanged", keys: [...keys] })
      return yield* configSnapshot
    })

  const metadataChanged = (name: string) =>
    Effect.gen(function*() {
      yield* changed
      yield* events.publish({ _tag: "MetadataChanged", name })
      return yield* toolMetaSnapshot(name)
    })

  const decodeArgs = <A, I>(tool: string, schema: Schema.Schema<A, I>, args: unknown) =>
    Schema.decodeUnknown(schema)(args ?? {}).pipe(
      Effect.mapError((error) => new EntryToolArgumentsError({ tool, reason: error.message }))
    )

  const load = (agent: Agent, targets: ReadonlyArray<string>, loadOptions: LoadOptions = {}) =>
    serialized(loadLocked(agent, targets, loadOptions)).pipe(Effect.withSpan("ToolCatalog.load"))
  const unload = (agent: Agent, targets: ReadonlyArray<string>) =>
    serialized(unloadLocked(agent, targets)).pipe(Effect.withSpan("ToolCatalog.unload"))

  // Agents alive when the catalog starts, then their lifecycle for as long as it lives.
  for (const agent of yield* port.agents) yield* serialized(attachLocked(agent))
  yield* port.lifecycle.pipe(
    Stream.runForEach((event) =>
      event._tag === "AgentStarted"
        ? serialized(attachLocked(event.agent))
        : serialized(Effect.zipRight(store.forget(event.agentId), Effect.sync(() => {
          known.delete(event.agentId)
          applied.delete(event.agentId)
        })))
    ),
    Effect.forkScoped
  )

  return ToolCatalog.of({
    registerClassifier: register((r) => r.classifiers, (r, classifiers) => ({ ...r, classifiers })),
    annotate: (annotation, layer = "runtime") =>
      register((r) => r.annotations, (r, annotations) => ({ ...r, annotations }))({ layer, annotation }),
    defineCategory: register((r) => r.categories, (r, categories) => ({ ...r, categories })),
    registerVisibilityFilter: register((r) => r.filters, (r, filters) => ({ ...r, filters })),
    registerTargetResolver: register((r) => r.resolvers, (r, resolvers) => ({ ...r, resolvers })),
    registerRiskGate: register((r) => r.riskGates, (r, riskGates) => ({ ...r, riskGates })),
    registerBeforeLoad: register((r) => r.beforeLoad, (r, beforeLoad) => ({ ...r, beforeLoad })),
    registerBeforeUnload: register((r) => r.beforeUnload, (r, beforeUnload) => ({ ...r, beforeUnload })),
    registerStateProvider: (provider) => store.registerStateProvider(provider),
    riskGates: Effect.map(Ref.get(registries), (r) => r.riskGates.map((gate) => gate.name)),
    extensions: Effect.gen(function*() {
      const r = yield* Ref.get(registries)
      return {
        classifiers: r.classifiers.map((c) => ({ id: c.id, priority: c.priority ?? 0 })),
        annotations: r.annotations.map((entry) => ({
          layer: entry.layer,
          source: entry.annotation.source ?? "",
          match: String(entry.annotation.match)
        })),
        categories: r.categories.map((c) => c.name),
        filters: r.filters.map((f) => f.name),
        resolvers: r.resolvers.map((resolver) => resolver.prefix),
        riskGates: r.riskGates.map((g) => g.name),
        beforeLoad: r.beforeLoad.map((h) => h.name),
        beforeUnload: r.beforeUnload.map((h) => h.name),
        stateProviders: yield* store.stateProviders
      } satisfies Extensions
    }),
    refresh: changed,
    invalidate: Effect.zipRight(Effect.zipRight(builder.invalidate, Effect.sync(() => lastInputs.clear())), changed),
    get: (agent) => Effect.map(catalogOf(Option.fromNullable(agent)), (built) => built.catalog),
    resolve: (target, agent) =>
      Effect.gen(function*() {
        const { catalog } = yield* catalogOf(Option.fromNullable(agent))
        return resolveTarget(catalog, target, yield* resolverList)
      }),
    stateOf: (agent) => Effect.map(store.get(agent.id), (record) => record.state),
    importState: (agent, state) =>
      serialized(
        Effect.gen(function*() {
          const next = Schema.decodeSync(AgentStateSchema)({ ...emptyAgentState, ...state })
          yield* store.modify(agent.id, (record) => Effect.succeed([undefined, { ...record, state: next }] as const))
          yield* sync(agent)
        })
      ),
    allowFor,
    deniedFor: (agent) =>
      Effect.gen(function*() {
        const allow = yield* allowFor(agent)
        if (Option.isNone(allow)) return []
        return yield* deniedWith(agent, yield* contextOf(agent), allow.value)
      }),
    exemptionOf,
    load,
    unload,
    list: (agent, request) => listText(agent, request).pipe(Effect.withSpan("ToolCatalog.list")),
    beforeCall: (agent, name) => serialized(beforeCallLocked(agent, name)).pipe(Effect.withSpan("ToolCatalog.beforeCall")),
    entryTools: ENTRY_TOOL_DEFINITIONS,
    callEntryTool: (agent, name, args) => {
      switch (name) {
        case "tools_ls":
          return Effect.flatMap(decodeArgs(name, ToolsLsArgs, args), (decoded) => listText(agent, decoded))
        case "tools_load":
          return Effect.flatMap(
            decodeArgs(name, ToolsLoadArgs, args),
            (decoded) => Effect.map(load(agent, decoded.targets, { forSubagents: decoded.forSubagents }), (r) => r.text)
          )
        case "tools_unload":
          return Effect.flatMap(
            decodeArgs(name, ToolsUnloadArgs, args),
            (decoded) => Effect.map(unload(agent, decoded.targets), (r) => r.text)
          )
        default:
          return Effect.fail(new UnknownEntryTool({ name }))
      }
    },
    attach: (agent) => serialized(attachLocked(agent)),
    detach: (agentId) =>
      serialized(Effect.zipRight(store.forget(agentId), Effect.sync(() => {
        known.delete(agentId)
        applied.delete(agentId)
      }))),
    agents: Effect.sync(() => [...known.values()]),
    find: (query, path = "/", agent) =>
      Effect.gen(function*() {
        const { catalog } = yield* catalogOf(Option.fromNullable(agent))
        const resolution = resolveTarget(catalog, path, yield* resolverList)
        if (resolution.kind === "unknown") return []
        const under = resolution.kind === "resolver" ? undefined : resolution.node
        return searchCatalog(catalog, query, { under, limit: 200 }).tools.map((tool) => ({
          name: tool.name,
          shortName: tool.shortName,
          path: tool.path,
          category: tool.category,
          group: tool.group,
          summary: tool.summary,
          tokens: tool.tokens,
          highRisk: tool.highRisk
        }))
      }),
    wireTokens: (agent) =>
      Effect.gen(function*() {
        const context = yield* contextOf(agent)
        const exempt = (yield* exemptionOf(agent)).exempt
        const allow = new Set(yield* orderedAllow(agent, context))
        const entry = new Map(ENTRY_TOOL_DEFINITIONS.map((definition) => [definition.name as string, definition]))
        let tokens = 0
        for (const schema of context.hostTools) {
          if (!exempt && !allow.has(schema.name)) continue
          tokens += context.catalog.byName.get(schema.name)?.tokens ?? estimateTokens(schema)
          entry.delete(schema.name)
        }
        // Entry tools the host does not list among its tools are still sent.
        for (const definition of entry.values()) tokens += estimateTokens(definition)
        return tokens
      }),
    config: configSnapshot,
    updateConfig: (patch) =>
      Effect.flatMap(settings.updateSettings(patch), () =>
        settingsChanged(Object.keys(patch).filter((key) => patch[key as keyof SettingsPatch] !== undefined))),
    reloadConfig: Effect.flatMap(settings.reload, () => settingsChanged(["pinned", "unpin", "highRisk", "exemptions"])),
    setExemptSession: (sessionId, exempt) =>
      Effect.flatMap(settings.setExemptSession(sessionId, exempt), () => settingsChanged(["exemptSessions"])),
    toolMeta: toolMetaSnapshot,
    updateToolMeta: (name, meta) => Effect.flatMap(settings.setMeta(name, meta), () => metadataChanged(name)),
    clearToolMeta: (name) => Effect.flatMap(settings.clearMeta(name), () => metadataChanged(name)),
    events: events.stream,
    subscribe: events.subscribe,
    diagnostics: events.diagnostics
  })
})
