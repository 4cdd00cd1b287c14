import { Context, Effect, Layer, Ref, Schema, type Scope } from "effect"
import type { Annotation, CategoryDefinition, Classifier, Resolver, ToolEntry } from "../core/model.js"
import type { Agent } from "./HostPort.js"

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
  readonly approve?:
    | ((request: {
      readonly agent: Agent
      readonly tool: ToolEntry
      /**
       * Queues `spend` (a one-time approval's use) to run when the load commits: under the lock,
       * after every gate, uninterruptibly, before the record changes. The tool is loaded only
       * when it answers true (else refused as not approved), so a load that stops before it
       * (a question, a cancel) spends nothing and two loads never share one approval.
       */
      readonly spendOnLoad: (spend: Effect.Effect<boolean>) => Effect.Effect<void>
    }) => Effect.Effect<boolean>)
    | undefined
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

/** An annotation and the layer it sits in: `package` declarations under `runtime` ones. */
export interface LayeredAnnotation {
  readonly layer: "package" | "runtime"
  readonly annotation: Annotation
}

/** Everything registered, in registration order. A new value after every change (builds compare it by identity). */
export interface Registries {
  readonly classifiers: ReadonlyArray<Classifier>
  readonly annotations: ReadonlyArray<LayeredAnnotation>
  readonly categories: ReadonlyArray<CategoryDefinition>
  readonly filters: ReadonlyArray<VisibilityFilter>
  readonly resolvers: ReadonlyArray<Resolver>
  readonly riskGates: ReadonlyArray<RiskGate>
  readonly beforeLoad: ReadonlyArray<BeforeLoadHook>
  readonly beforeUnload: ReadonlyArray<BeforeUnloadHook>
}

/** The registered extension points by name, for UIs. */
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

/** The annotations of one layer, in registration order. */
export const annotationsIn = (registries: Registries, layer: LayeredAnnotation["layer"]): ReadonlyArray<Annotation> =>
  registries.annotations.filter((entry) => entry.layer === layer).map((entry) => entry.annotation)

/** The extension points by name (the state providers are the visibility store's). */
export const extensionsOf = (registries: Registries, stateProviders: ReadonlyArray<string>): Extensions => ({
  classifiers: registries.classifiers.map((c) => ({ id: c.id, priority: c.priority ?? 0 })),
  annotations: registries.annotations.map((entry) => ({
    layer: entry.layer,
    source: entry.annotation.source ?? "",
    match: String(entry.annotation.match)
  })),
  categories: registries.categories.map((c) => c.name),
  filters: registries.filters.map((f) => f.name),
  resolvers: registries.resolvers.map((resolver) => resolver.prefix),
  riskGates: registries.riskGates.map((g) => g.name),
  beforeLoad: registries.beforeLoad.map((h) => h.name),
  beforeUnload: registries.beforeUnload.map((h) => h.name),
  stateProviders
})

/** Every list of the registries whose items are registered one by one. */
type RegistryKey = keyof Registries

/** Without the last occurrence of `item`: one registration undone, another of the same value kept. */
const withoutLast = <A>(list: ReadonlyArray<A>, item: A): ReadonlyArray<A> => {
  const index = list.lastIndexOf(item)
  return index < 0 ? list : [...list.slice(0, index), ...list.slice(index + 1)]
}

/**
 * What plugins registered for placement, visibility and risk. Each registration holds for as
 * long as its scope: closing the scope undoes it. The registry only keeps the lists; re-applying
 * the agents' restrictions after a change is `ToolCatalog`'s.
 */
export class CatalogRegistry extends Context.Tag("tool-map/CatalogRegistry")<CatalogRegistry, {
  /** Everything registered now. */
  readonly current: Effect.Effect<Registries>
  /** Registers one item in one list until the scope closes. */
  readonly register: <K extends RegistryKey>(
    key: K,
    item: Registries[K][number]
  ) => Effect.Effect<void, never, Scope.Scope>
}>() {
  /** An empty registry. */
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function*() {
      const registries = yield* Ref.make(emptyRegistries)
      const update = <K extends RegistryKey>(key: K, f: (list: Registries[K]) => Registries[K]) =>
        Ref.update(registries, (current): Registries => ({ ...current, [key]: f(current[key]) }))
      // A generic method: `Effect.fn` would erase `K`, so the span is named by hand.
      const register = <K extends RegistryKey>(key: K, item: Registries[K][number]) =>
        Effect.acquireRelease(
          update(key, (list) => [...list, item] as Registries[K]),
          () => update(key, (list) => withoutLast<Registries[K][number]>(list, item) as Registries[K])
        ).pipe(Effect.withSpan("CatalogRegistry.register", { attributes: { key } }))
      return CatalogRegistry.of({ current: Ref.get(registries), register })
    })
  )
}
