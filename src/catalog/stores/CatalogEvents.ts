import { Context, Effect, Layer, PubSub, Queue, Ref, Schema, type Scope, Stream } from "effect"
import { AgentState } from "../core/visibility.js"

/** The catalog was built for a tool set it had not seen (or after a registry change). */
export const CatalogRebuilt = Schema.TaggedStruct("CatalogRebuilt", {
  toolSetKey: Schema.String,
  tools: Schema.Number,
  categories: Schema.Number,
  tokens: Schema.Number
})

/** Tool definitions differ from the previous build (a rewritten description is a red flag). */
export const DefinitionsChanged = Schema.TaggedStruct("DefinitionsChanged", {
  added: Schema.Array(Schema.String),
  removed: Schema.Array(Schema.String),
  changed: Schema.Array(Schema.String)
})

/** A load made tools visible to an agent. */
export const ToolsLoaded = Schema.TaggedStruct("ToolsLoaded", {
  agentId: Schema.String,
  targets: Schema.Array(Schema.String),
  added: Schema.Array(Schema.String)
})

/** An unload hid tools from an agent. */
export const ToolsUnloaded = Schema.TaggedStruct("ToolsUnloaded", {
  agentId: Schema.String,
  targets: Schema.Array(Schema.String),
  removed: Schema.Array(Schema.String)
})

/** An agent's loaded state changed (and was handed to the state provider). */
export const AgentStateChanged = Schema.TaggedStruct("AgentStateChanged", {
  agentId: Schema.String,
  state: AgentState
})

/** A direct call of a hidden tool loaded it on the spot. */
export const ToolAutoLoaded = Schema.TaggedStruct("ToolAutoLoaded", {
  agentId: Schema.String,
  name: Schema.String
})

/** The pinned, high-risk or exemption settings changed. */
export const SettingsChanged = Schema.TaggedStruct("SettingsChanged", {
  keys: Schema.Array(Schema.String)
})

/** A tool's edited metadata changed. */
export const MetadataChanged = Schema.TaggedStruct("MetadataChanged", {
  name: Schema.String
})

/** Something went wrong that did not stop the catalog: a corrupt file kept aside, a failed write. */
export const CatalogWarning = Schema.TaggedStruct("CatalogWarning", {
  kind: Schema.Literal("corrupt-file", "write-failed", "read-failed", "state-provider-failed"),
  /** The file concerned, or the state provider's name. */
  subject: Schema.String,
  message: Schema.String
})

/** A warning of the catalog: what happened and to which file or provider. */
export type CatalogWarning = typeof CatalogWarning.Type

/** Every event of the catalog, serializable across the host boundary. */
export const CatalogEvent = Schema.Union(
  CatalogRebuilt,
  DefinitionsChanged,
  ToolsLoaded,
  ToolsUnloaded,
  AgentStateChanged,
  ToolAutoLoaded,
  SettingsChanged,
  MetadataChanged,
  CatalogWarning
)

/** Every event of the catalog. */
export type CatalogEvent = typeof CatalogEvent.Type

/**
 * The catalog's event hub. Warnings are also kept as diagnostics, so one that happened
 * before anyone subscribed (a corrupt state file read at start) is not lost.
 */
export class CatalogEvents extends Context.Tag("tool-map/CatalogEvents")<CatalogEvents, {
  readonly publish: (event: CatalogEvent) => Effect.Effect<void>
  /** Records a warning as a diagnostic and publishes it. */
  readonly warn: (warning: Omit<CatalogWarning, "_tag">) => Effect.Effect<void>
  /** A subscription that receives every event published from now on. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<CatalogEvent>, never, Scope.Scope>
  /** The events published from when the stream starts. */
  readonly stream: Stream.Stream<CatalogEvent>
  /** Every warning so far, oldest first. */
  readonly diagnostics: Effect.Effect<ReadonlyArray<CatalogWarning>>
}>() {
  static readonly layer = Layer.scoped(
    this,
    Effect.gen(function*() {
      const hub = yield* Effect.acquireRelease(PubSub.unbounded<CatalogEvent>(), PubSub.shutdown)
      const warnings = yield* Ref.make<ReadonlyArray<CatalogWarning>>([])
      const publish = (event: CatalogEvent) => PubSub.publish(hub, event).pipe(Effect.asVoid)
      return {
        publish,
        warn: (warning) => {
          const event = CatalogWarning.make(warning)
          return Ref.update(warnings, (all) => [...all, event]).pipe(Effect.zipRight(publish(event)))
        },
        subscribe: PubSub.subscribe(hub),
        stream: Stream.fromPubSub(hub),
        diagnostics: Ref.get(warnings)
      }
    })
  )
}
