/**
 * The catalog builder: builds the catalog tree lazily, on the first request for a tool set,
 * and keeps the last few builds so agents with the same tools share one.
 *
 * The cache key is the tool set plus the build options:
 * - tool set: `toolSetKey`, the SHA-256 of the sorted definition hashes of the tools
 *   (deduplicated by name, first wins, as the build does). Any change of a definition
 *   changes it; the order tools are given in does not. Hashes are kept per schema object
 *   (schemas are immutable values), so the key of a known tool set costs a lookup per tool.
 * - options: classifier ids and priorities in order, annotation layers, category
 *   definitions, the high-risk list, the description cap. A classifier's code is not part of
 *   the key: one that changes its answers under the same id must be followed by
 *   `invalidate` (or get a new id).
 * The service emits no events: `CatalogBuilds` does, from `getWithStatus`'s `rebuilt`.
 */
import { createHash } from "node:crypto"
import { Context, Effect, Layer, Ref } from "effect"
import { type BuildOptions, buildCatalog, factsOf, toolSetKey } from "../core/catalog.js"
import { canonicalJson } from "../core/definitions.js"
import type { AnnotationSet, Catalog, ToolMeta, ToolSchema } from "../core/model.js"
import { OVERRIDE_PRIORITY } from "../core/model.js"
import { forEachSliced, yieldIfDue } from "../../services/eventLoop.js"

/** Cache counters, for tests and diagnostics. */
export interface CatalogCacheStats {
  readonly hits: number
  readonly builds: number
  readonly size: number
  readonly capacity: number
}

/** A catalog and whether this request built it. */
export interface CatalogLookup {
  readonly catalog: Catalog
  readonly rebuilt: boolean
  readonly key: string
}

/** How many distinct builds the live layer keeps. */
export const DEFAULT_CACHE_CAPACITY = 16

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const annotationSetJson = (set: AnnotationSet): string => {
  const list: Array<readonly [string, ToolMeta]> = Array.isArray(set)
    ? set.map((a) => [typeof a.match === "string" ? `=${a.match}` : `~${a.match.source}/${a.match.flags}`, a.meta])
    : set instanceof Map
    ? [...set].map(([name, meta]) => [`=${name}`, meta])
    : Object.entries(set as Readonly<Record<string, ToolMeta>>).map(([name, meta]) => [`=${name}`, meta])
  return canonicalJson(list)
}

/** The cache key of build options (see the module comment). */
export const optionsKey = (options: BuildOptions): string =>
  canonicalJson({
    classifiers: (options.classifiers ?? []).map((c) => `${c.id}@${c.priority ?? 0}`),
    annotations: OVERRIDE_PRIORITY.map((layer) => {
      const set = options.annotations?.[layer]
      return set === undefined ? null : annotationSetJson(set)
    }),
    categories: options.categories ?? [],
    highRisk: [...(options.highRisk ?? [])].sort(compare),
    maxDescriptionLength: options.maxDescriptionLength ?? null,
    builtinPlacement: options.builtinPlacement !== false
  })

interface Cache {
  /** Most recently used last: a hit moves its entry to the end, the oldest goes first. */
  readonly entries: ReadonlyArray<readonly [string, Catalog]>
  readonly hits: number
  readonly builds: number
}

const emptyCache: Cache = { entries: [], hits: 0, builds: 0 }

const make = (capacity: number) =>
  Effect.gen(function*() {
    const cache = yield* Ref.make(emptyCache)

    const getWithStatus = Effect.fn("CatalogBuilder.getWithStatus")(function*(
      tools: ReadonlyArray<ToolSchema>,
      options: BuildOptions = {}
    ) {
      // The definitions' facts are most of a large build, and the tool-set key needs them all:
      // computed first, in slices (SIGTERM is seen between them); known facts are only looked up.
      yield* forEachSliced(tools, factsOf)
      const setKey = toolSetKey(tools)
      const key = `${setKey}:${createHash("sha256").update(optionsKey(options)).digest("hex")}`
      const cached = yield* Ref.modify(cache, (current): readonly [Catalog | undefined, Cache] => {
        const entry = current.entries.find(([candidate]) => candidate === key)
        if (entry === undefined) return [undefined, current]
        const entries = [...current.entries.filter((other) => other !== entry), entry]
        return [entry[1], { ...current, entries, hits: current.hits + 1 }]
      })
      yield* Effect.annotateCurrentSpan({ tools: tools.length, cached: cached !== undefined })
      if (cached !== undefined) return { catalog: cached, rebuilt: false, key } satisfies CatalogLookup
      const catalog = buildCatalog(tools, options, setKey)
      yield* yieldIfDue
      yield* Ref.update(cache, (current) => ({
        ...current,
        entries: [...current.entries.filter(([candidate]) => candidate !== key), [key, catalog] as const].slice(-capacity),
        builds: current.builds + 1
      }))
      return { catalog, rebuilt: true, key } satisfies CatalogLookup
    })

    const get = Effect.fn("CatalogBuilder.get")(function*(tools: ReadonlyArray<ToolSchema>, options?: BuildOptions) {
      const lookup = yield* getWithStatus(tools, options)
      return lookup.catalog
    })

    return CatalogBuilder.of({
      get,
      getWithStatus,
      invalidate: Ref.update(cache, (current) => ({ ...current, entries: [] })).pipe(
        Effect.withSpan("CatalogBuilder.invalidate")
      ),
      stats: Effect.map(Ref.get(cache), (current) => ({
        hits: current.hits,
        builds: current.builds,
        size: current.entries.length,
        capacity
      }))
    })
  })

/** Builds catalogs on demand and caches them per distinct tool set and options. */
export class CatalogBuilder extends Context.Tag("tool-map/CatalogBuilder")<CatalogBuilder, {
  /** The catalog of these tools, built now or taken from the cache. */
  readonly get: (tools: ReadonlyArray<ToolSchema>, options?: BuildOptions) => Effect.Effect<Catalog>
  /** As `get`, saying whether this call built it (`CatalogBuilds` publishes its rebuild event then). */
  readonly getWithStatus: (
    tools: ReadonlyArray<ToolSchema>,
    options?: BuildOptions
  ) => Effect.Effect<CatalogLookup>
  /** Drops every cached build (after a classifier changed its rules under the same id). */
  readonly invalidate: Effect.Effect<void>
  /** Cache counters. */
  readonly stats: Effect.Effect<CatalogCacheStats>
}>() {
  /** The live service, keeping `DEFAULT_CACHE_CAPACITY` builds. */
  static readonly layer = Layer.effect(this, make(DEFAULT_CACHE_CAPACITY))
  /** The service keeping at most `capacity` builds (at least one). */
  static readonly layerWithCapacity = (capacity: number) => Layer.effect(this, make(Math.max(1, Math.floor(capacity))))
}

