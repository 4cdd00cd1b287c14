import { Context, Effect, Layer, PubSub, Stream } from "effect"

/**
 * The new generations of the bundle this server wrote (`inventory_refresh`), for the
 * resources that show the bundle: each subscriber of the stream gets every generation
 * published after it subscribed.
 */
export class InventoryChanges extends Context.Tag("tool-map/mcp/InventoryChanges")<InventoryChanges, {
  /** Tells the subscribers that `generation` was committed. */
  readonly published: (generation: string) => Effect.Effect<void>
  /** The generations committed from now on. */
  readonly generations: Stream.Stream<string>
}>() {
  static readonly layer = Layer.scoped(
    this,
    Effect.gen(function* () {
      const hub = yield* Effect.acquireRelease(PubSub.unbounded<string>(), PubSub.shutdown)
      return InventoryChanges.of({
        published: (generation) => Effect.asVoid(PubSub.publish(hub, generation)),
        generations: Stream.fromPubSub(hub)
      })
    })
  )
}
