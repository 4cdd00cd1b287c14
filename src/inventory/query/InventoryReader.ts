import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import { Bundle } from "../bundle/Bundle.js"
import { BundleWriter, type PendingRepair } from "../bundle/BundleWriter.js"
import { BundleReadError } from "../bundle/errors.js"
import type { HistoryFile } from "../bundle/history.js"
import { type BundlePaths, historyPath, previousDigestPath } from "../bundle/location.js"
import type { Inventory } from "../domain/inventory.js"
import { FirstScan } from "./FirstScan.js"
import type { WhichAnswer } from "../domain/which.js"
import type { WhichIndex } from "../bundle/whichIndex.js"

/**
 * What a read found: the inventory, an interrupted commit it could not repair (it cannot write
 * there, or `--from`), and where the history and the older digest file of the same generation may be.
 */
interface LoadedInventory {
  readonly inventory: Inventory
  readonly pendingRepair: Option.Option<PendingRepair>
  readonly previousFiles: ReadonlyArray<string>
  readonly historyFiles: ReadonlyArray<string>
}

/**
 * The repair pending for the bundle `from` names (or the default one), as a reader that does
 * not write finds it: what `query stale` reports. Nothing is pending where `load` could repair.
 */
export const pendingRepairOf = (from: Option.Option<string>): Effect.Effect<Option.Option<PendingRepair>, never, Bundle | BundleWriter> =>
  Effect.gen(function* () {
    const bundle = yield* Bundle
    const writer = yield* BundleWriter
    const candidates = yield* Option.match(from, {
      onNone: () => Effect.map(bundle.locate(Option.none()), (paths) => [paths]),
      onSome: bundle.locateFrom
    })
    for (const paths of candidates) {
      const view = yield* writer.readView(paths)
      if (Option.isSome(view.pending)) return view.pending
    }
    return Option.none<PendingRepair>()
  }).pipe(Effect.orElseSucceed(() => Option.none<PendingRepair>()))

/**
 * The which index of the bundle at `paths` (the default one), read as {@link InventoryReader}
 * `load` reads the bundle (an interrupted commit repaired first): what `query which NAME` answers
 * from. None when the index cannot vouch for tools.json, or anything but a plain read stands in
 * the way (no bundle, a pending repair, a failure); then `whichTool` of `load`'s inventory answers.
 */
export const defaultWhichIndex = (paths: BundlePaths): Effect.Effect<Option.Option<WhichIndex>, never, Bundle | BundleWriter> =>
  Effect.gen(function* () {
    const repair = yield* (yield* BundleWriter).recover(paths)
    if (repair.action === "busy") return Option.none<WhichIndex>()
    return yield* (yield* Bundle).whichIndex(paths)
  }).pipe(Effect.orElseSucceed(() => Option.none<WhichIndex>()))

/** What `query which NAME` answers from `index`, when it has the answer (see {@link defaultWhichIndex}). */
export const whichFromIndex = (index: Option.Option<WhichIndex>, name: string): Option.Option<WhichAnswer> =>
  Option.map(Option.flatMap(index, (found) => found.lookup(name)), (copies): WhichAnswer => ({ name, ...copies }))

/** Reads the cached bundle for the query front ends. */
export class InventoryReader extends Context.Tag("tool-map/InventoryReader")<InventoryReader, {
  /**
   * The inventory of the bundle named by `from` (any of its three files, `inv.md`, `inv.json`
   * or `inv.summary.md`) or of the default data directory. `from` only reads: no repair, no
   * scan, and a missing bundle is an error naming the path. In the default data directory a
   * pending repair is done first, and when no bundle exists yet one scan runs; a directory the
   * reader cannot write to is read as the repair would leave it, and the pending repair is
   * logged as a warning. A failure that is not the bundle's own content carries its typed `cause`.
   */
  readonly load: (from: Option.Option<string>) => Effect.Effect<Inventory, BundleReadError>
  /**
   * {@link load}, with the bundle's history (`query changes`): its history file, or for a bundle
   * written before tool-map kept one, its own digest and the one its digest file kept. A history
   * file that is not one is an error; one of another generation is not this bundle's.
   */
  readonly loadWithHistory: (from: Option.Option<string>) => Effect.Effect<{ readonly inventory: Inventory; readonly history: HistoryFile }, BundleReadError>
}>() {
  /** Over {@link Bundle}, the writer's recovery and the {@link FirstScan} port. */
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function* () {
      const bundle = yield* Bundle
      const writer = yield* BundleWriter
      const firstScan = yield* FirstScan
      const fs = yield* FileSystem.FileSystem

      /** The consistent generation's inventory, found without writing, and the pending repair. */
      const readOnly = (paths: BundlePaths, failed: (reason: string) => BundleReadError) =>
        Effect.gen(function* () {
          const view = yield* writer.readView(paths).pipe(Effect.mapError((error) => failed(error.message)))
          for (const json of view.json) {
            const found = yield* bundle.read({ ...paths, json })
            if (Option.isSome(found)) return Option.some({ inventory: found.value, pendingRepair: view.pending, previousFiles: view.previous, historyFiles: view.history })
          }
          return Option.none<LoadedInventory>()
        })

      const readFrom = (file: string) =>
        Effect.gen(function* () {
          const candidates = yield* bundle.locateFrom(file).pipe(
            Effect.mapError((error) => new BundleReadError({ path: file, reason: error.reason, cause: error }))
          )
          for (const paths of candidates) {
            const found = yield* readOnly(paths, (reason) => new BundleReadError({ path: paths.json, reason }))
            if (Option.isSome(found)) return found.value
          }
          const jsons = candidates.map((paths) => paths.json)
          return yield* new BundleReadError({
            path: file,
            reason: `there is no tool-map bundle there (${jsons.join(" or ")} does not exist). --from only reads a bundle; write one with \`tool-map scan ${candidates[0]!.markdown}\``
          })
        })

      const readDefault = Effect.gen(function* () {
        const paths = yield* bundle.locate(Option.none()).pipe(
          Effect.mapError((error) => new BundleReadError({ path: error.path, reason: error.reason, cause: error }))
        )
        const failed = (reason: string, cause?: BundleReadError["cause"]) =>
          new BundleReadError(cause === undefined ? { path: paths.json, reason } : { path: paths.json, reason, cause })
        // An interrupted commit is finished or undone first: a query never reads a torn bundle.
        // Where the lock cannot be taken (a read-only directory), the repair's outcome is read.
        const repaired = yield* writer.recover(paths).pipe(
          Effect.as(true),
          Effect.catchIf((error) => error.step === "lock", () => Effect.succeed(false)),
          Effect.mapError((error) => failed(error.message, error))
        )
        if (!repaired) {
          const found = yield* readOnly(paths, (reason) => failed(reason))
          if (Option.isSome(found)) return found.value
        }
        const previousFiles = [previousDigestPath(paths)]
        const historyFiles = [historyPath(paths)]
        const found = yield* bundle.read(paths)
        if (Option.isSome(found)) return { inventory: found.value, pendingRepair: Option.none(), previousFiles, historyFiles }
        yield* firstScan.run(Option.none()).pipe(
          Effect.mapError((error) => failed(`no bundle existed and the first scan failed: ${error.message}`, error))
        )
        const scanned = yield* bundle.read(paths)
        if (Option.isNone(scanned)) return yield* failed("the first scan wrote no tools.json")
        return { inventory: scanned.value, pendingRepair: Option.none(), previousFiles, historyFiles }
      })

      const loaded = (from: Option.Option<string>) =>
        Effect.tap(
          Option.match(from, { onNone: () => readDefault, onSome: readFrom }),
          (found) => Option.isSome(found.pendingRepair) ? Effect.logWarning(`tool-map: ${found.pendingRepair.value.message}`) : Effect.void
        )

      const load = Effect.fn("InventoryReader.load")(function* (from: Option.Option<string>) {
        return (yield* loaded(from)).inventory
      })

      const loadWithHistory = Effect.fn("InventoryReader.loadWithHistory")(function* (from: Option.Option<string>) {
        const { inventory, previousFiles, historyFiles } = yield* loaded(from)
        // Loaded here, not at every start: the everyday commands never read the history.
        const [{ historyFromLegacy, readHistory }, { readPreviousDigest }, { digestOf }] = yield* Effect.promise(() =>
          Promise.all([import("../bundle/history.js"), import("../bundle/previousDigest.js"), import("../domain/drift.js")])
        )
        const kept = yield* readHistory(historyFiles, inventory.generation).pipe(Effect.provideService(FileSystem.FileSystem, fs))
        if (Option.isSome(kept)) return { inventory, history: kept.value }
        // A bundle written before the history: its digest file, or before that, tools.json, keeps the one before.
        const previous = yield* readPreviousDigest(previousFiles, inventory.generation).pipe(Effect.provideService(FileSystem.FileSystem, fs))
        const legacy = Option.orElse(previous, () => Option.fromNullable(inventory.previous))
        return { inventory, history: historyFromLegacy(digestOf(inventory), legacy) }
      })
      return InventoryReader.of({ load, loadWithHistory })
    })
  )
}
