import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { BundleReadError } from "../bundle/errors.js"
import { Inventory } from "../domain/inventory.js"
import { compileDecoder, type Decoder, UNDECIDED } from "../../platform/schemaFastPath.js"
import { BundleWriter } from "../bundle/BundleWriter.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { readBundleJson, resolveBundlePaths, ScanProgram } from "../ScanProgram.js"

/** Reads the cached bundle for the query front ends. */
export class InventoryStore extends Context.Tag("tool-map/InventoryStore")<InventoryStore, {
  /**
   * The inventory of the bundle at `from` (a redirected `path/inv.md`) or at the default data
   * directory; when no bundle exists yet, one scan runs first. Never rescans otherwise.
   */
  readonly load: (from: Option.Option<string>) => Effect.Effect<Inventory, BundleReadError>
}>() {
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const host = yield* MachineEnvironment
      const writer = yield* BundleWriter
      const scanner = yield* ScanProgram
      // Both decoders are built on first use: a scan never needs them.
      let decodeWithEffect: ((parsed: unknown) => Effect.Effect<Inventory, unknown>) | undefined
      let decodeQuickly: Decoder | undefined
      /** The fast path of {@link compileDecoder}; none when it cannot vouch for the parsed bundle. */
      const quickDecode = (parsed: unknown): Option.Option<Inventory> =>
        Option.flatMap(Option.liftThrowable(() => (decodeQuickly ??= compileDecoder(Inventory.ast))(parsed))(), (value) =>
          value === UNDECIDED ? Option.none() : Option.some(value as Inventory))

      const load = Effect.fn("InventoryStore.load")(function* (from: Option.Option<string>) {
        const paths = yield* resolveBundlePaths(host, from).pipe(
          Effect.mapError((error) => new BundleReadError({ path: error.path, reason: error.reason }))
        )
        const failed = (reason: string) => new BundleReadError({ path: paths.json, reason })
        yield* writer.recover(paths).pipe(Effect.mapError((error) => failed(error.message)))
        const read = readBundleJson(fs, paths.json).pipe(Effect.mapError(failed))
        let found = yield* read
        if (Option.isNone(found)) {
          yield* scanner.run({ target: from, ifStale: false, probes: true, progress: true }).pipe(
            Effect.mapError((error) => failed(`no bundle existed and the first scan failed: ${error.message}`))
          )
          found = yield* read
        }
        if (Option.isNone(found)) return yield* failed("the first scan wrote no tools.json")
        const text = found.value
        const invalid = failed(
          "it is not a valid tool-map bundle (corrupt or from an incompatible version); run `tool-map scan --force` to rebuild it"
        )
        // Parsed once: the fast decoder and, when it cannot vouch, Effect's decoder share it.
        const parsed = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: () => invalid })
        const quick = quickDecode(parsed)
        if (Option.isSome(quick)) return quick.value
        decodeWithEffect ??= Schema.decodeUnknown(Inventory)
        return yield* decodeWithEffect(parsed).pipe(Effect.mapError(() => invalid))
      })
      return { load }
    })
  )
}
