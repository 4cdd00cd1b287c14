import { Context, Effect, Layer, Option, Ref, type Stream, SubscriptionRef } from "effect"
import { catalogDefinitionHashes, diffDefinitions, isEmptyDiff } from "../core/definitions.js"
import type { Catalog, ToolSchema } from "../core/model.js"
import { catalogTools, pinnedInForce } from "../core/visibility.js"
import { CatalogSettings } from "../stores/CatalogSettings.js"
import { AgentSessions, type BuildInputs, type BuildMemo, BuildScope, sameInputs } from "./AgentSessions.js"
import { CatalogBuilder } from "./CatalogBuilder.js"
import { CatalogEvents } from "../stores/CatalogEvents.js"
import { annotationsIn, CatalogRegistry } from "./CatalogRegistry.js"
import { type Agent, HostPort } from "./HostPort.js"

/** A scope's catalog and what it was built from. */
export interface ScopeBuild {
  readonly catalog: Catalog
  /** Every tool the host gives the scope, pinned and reserved ones included. */
  readonly schemas: ReadonlyArray<ToolSchema>
  /** The always-on names in force: defaults + extra − unpinned, entry tools included. */
  readonly pinned: ReadonlySet<string>
  /** The builder's cache key of the catalog (tool set and build options). */
  readonly buildKey: string
}

/** What the builds are configured with. */
export interface CatalogBuildsOptions {
  /** Host-reserved names on top of the port's. */
  readonly reserved?: ReadonlyArray<string> | undefined
}

/**
 * The catalog of a scope (the whole host or one agent), over the host's tools, the
 * registries, the settings and the edited metadata. A scope asking again with the very same
 * inputs gets its last catalog without hashing anything; otherwise the cached `CatalogBuilder`
 * answers. When a scope's build changes it publishes `CatalogRebuilt` (when the builder built
 * it) and `DefinitionsChanged` (when definitions differ from the scope's previous build, once
 * for all the scopes making the same change), and bumps `revision`.
 */
export class CatalogBuilds extends Context.Tag("tool-map/CatalogBuilds")<CatalogBuilds, {
  /** The host-reserved names: never listed, loaded or restricted. */
  readonly reserved: ReadonlySet<string>
  /** The always-on names in force. */
  readonly pinned: Effect.Effect<ReadonlySet<string>>
  /** The catalog one agent sees, or the whole host's with `None`. */
  readonly get: (agent: Option.Option<Agent>) => Effect.Effect<ScopeBuild>
  /** True when the scope was built before (a refresh brings such scopes up to date). */
  readonly wasBuilt: (scope: BuildScope) => Effect.Effect<boolean>
  /** Drops every cached build (after a classifier changed its rules in place). */
  readonly invalidate: Effect.Effect<void>
  /** How many times a scope's build changed so far. */
  readonly revision: Effect.Effect<number>
  /** `revision` now and after every change. */
  readonly revisions: Stream.Stream<number>
}>() {
  /** The builds over the port, the builder, the registry, the settings and the sessions' memos. */
  static readonly layer = (options: CatalogBuildsOptions = {}) => Layer.effect(this, make(options))
}

const make = Effect.fn("CatalogBuilds.make")(function*(options: CatalogBuildsOptions) {
  const port = yield* HostPort
  const builder = yield* CatalogBuilder
  const registry = yield* CatalogRegistry
  const settings = yield* CatalogSettings
  const sessions = yield* AgentSessions
  const events = yield* CatalogEvents
  const revision = yield* SubscriptionRef.make(0)
  // The last tool-set change reported: every scope that moves from one set to the same next
  // one would report the same diff, so it is published once.
  const reported = yield* Ref.make(Option.none<string>())
  const reserved: ReadonlySet<string> = new Set([...port.reserved, ...(options.reserved ?? [])])

  const pinned = Effect.map(settings.settings, pinnedInForce)

  const build = Effect.fn("CatalogBuilds.build")(function*(
    scope: BuildScope,
    schemas: ReadonlyArray<ToolSchema>,
    pinnedNames: ReadonlySet<string>
  ) {
    const registries = yield* registry.current
    const metadata = yield* settings.metadata
    const highRisk = (yield* settings.settings).highRisk
    const inputs: BuildInputs = {
      schemas,
      pinned: [...pinnedNames].join("\n"),
      registries,
      metadata,
      highRisk: highRisk.join("\n")
    }
    // The builder keys its cache by hashing every definition; when the host hands over the
    // very same schema list and nothing else changed, the last catalog is still right.
    const previous = yield* sessions.memo(scope)
    if (Option.isSome(previous) && Option.exists(previous.value.inputs, (last) => sameInputs(last, inputs))) {
      return previous.value
    }
    // Nothing left out: the host's own list (whose tool-set key a caller may have primed), uncopied.
    const managed = catalogTools(schemas, pinnedNames, reserved)
    const lookup = yield* builder.getWithStatus(managed, {
      classifiers: registries.classifiers,
      annotations: {
        package: annotationsIn(registries, "package"),
        runtime: annotationsIn(registries, "runtime"),
        user: metadata
      },
      categories: registries.categories,
      highRisk
    })
    if (Option.isSome(previous) && previous.value.buildKey === lookup.key) {
      const memo: BuildMemo = { ...previous.value, inputs: Option.some(inputs), catalog: lookup.catalog }
      yield* sessions.setMemo(scope, memo)
      return memo
    }
    const memo: BuildMemo = {
      inputs: Option.some(inputs),
      catalog: lookup.catalog,
      buildKey: lookup.key,
      hashes: catalogDefinitionHashes(lookup.catalog)
    }
    yield* sessions.setMemo(scope, memo)
    if (lookup.rebuilt) {
      yield* events.publish({
        _tag: "CatalogRebuilt",
        toolSetKey: memo.catalog.toolSetKey,
        tools: memo.catalog.tools.length,
        categories: memo.catalog.categories.size,
        tokens: memo.catalog.totalTokens
      })
    }
    if (Option.isSome(previous)) {
      const diff = diffDefinitions(previous.value.hashes, memo.hashes)
      const change = `${previous.value.catalog.toolSetKey}>${memo.catalog.toolSetKey}`
      const fresh = yield* Ref.modify(reported, (last) => [!Option.contains(last, change), Option.some(change)])
      if (!isEmptyDiff(diff) && fresh) yield* events.publish({ _tag: "DefinitionsChanged", ...diff })
    }
    yield* SubscriptionRef.update(revision, (n) => n + 1)
    return memo
  })

  const get = Effect.fn("CatalogBuilds.get")(function*(agent: Option.Option<Agent>) {
    const schemas = yield* port.tools(agent)
    const pinnedNames = yield* pinned
    const scope = Option.match(agent, {
      onNone: () => BuildScope.Host(),
      onSome: (a) => BuildScope.Agent({ id: a.id })
    })
    const memo = yield* build(scope, schemas, pinnedNames)
    return { catalog: memo.catalog, schemas, pinned: pinnedNames, buildKey: memo.buildKey } satisfies ScopeBuild
  })

  return CatalogBuilds.of({
    reserved,
    pinned,
    get,
    wasBuilt: (scope) => Effect.map(sessions.memo(scope), Option.isSome),
    invalidate: Effect.zipRight(builder.invalidate, sessions.forgetInputs).pipe(Effect.withSpan("CatalogBuilds.invalidate")),
    revision: SubscriptionRef.get(revision),
    revisions: revision.changes
  })
})
