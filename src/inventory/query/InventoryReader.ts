import { Context, Effect, Layer, Option } from "effect"
import { Bundle } from "../bundle/Bundle.js"
import { BundleWriter } from "../bundle/BundleWriter.js"
import { BundleReadError } from "../bundle/errors.js"
import type { Inventory } from "../domain/inventory.js"
import { FirstScan } from "./FirstScan.js"

/** Reads the cached bundle for the query front ends. */
export class InventoryReader extends Context.Tag("tool-map/InventoryReader")<InventoryReader, {
  /**
   * The inventory of the bundle at `from` (a redirected `path/inv.md`) or at the default data
   * directory; when no bundle exists yet, one scan runs first. Never rescans otherwise. A
   * failure that is not the bundle's own content carries its typed `cause` (a bad `from`,
   * a failed repair, the first scan's lock or write error).
   */
  readonly load: (from: Option.Option<string>) => Effect.Effect<Inventory, BundleReadError>
}>() {
  /** Over {@link Bundle}, the writer's recovery and the {@link FirstScan} port. */
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function* () {
      const bundle = yield* Bundle
      const writer = yield* BundleWriter
      const firstScan = yield* FirstScan

      const load = Effect.fn("InventoryReader.load")(function* (from: Option.Option<string>) {
        const paths = yield* bundle.locate(from).pipe(
          Effect.mapError((error) => new BundleReadError({ path: error.path, reason: error.reason, cause: error }))
        )
        // An interrupted commit is finished or undone first: a query never reads a torn bundle.
        yield* writer.recover(paths).pipe(
          Effect.mapError((error) => new BundleReadError({ path: paths.json, reason: error.message, cause: error }))
        )
        const found = yield* bundle.read(paths)
        if (Option.isSome(found)) return found.value
        yield* firstScan.run(from).pipe(
          Effect.mapError((error) =>
            new BundleReadError({ path: paths.json, reason: `no bundle existed and the first scan failed: ${error.message}`, cause: error }))
        )
        const scanned = yield* bundle.read(paths)
        if (Option.isNone(scanned)) return yield* new BundleReadError({ path: paths.json, reason: "the first scan wrote no tools.json" })
        return scanned.value
      })
      return InventoryReader.of({ load })
    })
  )
}
