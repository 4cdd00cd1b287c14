import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer, Option, Ref } from "effect"
import type { Catalog } from "../core/model.js"
import { decodeIndex, encodeIndex, indexDigest } from "../core/router/indexFile.js"
import type { RouterIndex } from "../core/router/invertedIndex.js"
import { CatalogEvents } from "../services/CatalogEvents.js"
import { readRegularFile } from "../../services/fileRead.js"
import { writeFileAtomic } from "./jsonFile.js"

/**
 * The largest router index file read back: about 35 MB at 50,000 tools, so this leaves room
 * for catalogs several times larger; a larger file is not read and the index is built.
 */
export const ROUTER_INDEX_MAX_BYTES = 512 * 1024 * 1024

/**
 * The router's index kept in a file of the catalog's directory, so that a new process (a CLI
 * command) ranks without building it. `load` gives the file's index only when it was built
 * from exactly this catalog (its tool-set key, then `indexDigest`: the tool order and what
 * each document is built from) and is whole; anything else, including a file that cannot be read,
 * is `None` and the router builds the index. `save` writes atomically and only when the file
 * does not already hold this catalog's index; a failed write is a warning.
 */
export class RouterIndexStore extends Context.Tag("tool-map/RouterIndexStore")<RouterIndexStore, {
  /** The file's index for `catalog`, if the file holds exactly that. */
  readonly load: (catalog: Catalog) => Effect.Effect<Option.Option<RouterIndex>>
  /** Keeps `index` (built from `catalog`) in the file, unless the file holds it already. */
  readonly save: (catalog: Catalog, index: RouterIndex) => Effect.Effect<void>
}>() {
  /** The store of `file`; `None` keeps nothing (every process builds its index). */
  static readonly layer = (file: Option.Option<string>): Layer.Layer<RouterIndexStore, never, FileSystem.FileSystem | Path.Path | CatalogEvents> =>
    Layer.effect(this, Option.match(file, { onNone: () => Effect.succeed(noRouterIndexStore), onSome: make }))
}

/** A store that keeps nothing. */
export const noRouterIndexStore: RouterIndexStore["Type"] = { load: () => Effect.succeedNone, save: () => Effect.void }

const make = (path: string) =>
  Effect.gen(function*() {
    const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const events = yield* CatalogEvents
    // The digest of the catalog the file is known to hold (read or written by this process).
    const held = yield* Ref.make(Option.none<string>())

    const load = Effect.fn("RouterIndexStore.load")(function*(catalog: Catalog) {
      const index = yield* readRegularFile(path, ROUTER_INDEX_MAX_BYTES).pipe(
        Effect.map(Option.flatMap((bytes) => decodeIndex(bytes, catalog))),
        // Missing, refused (a FIFO, too large) or unreadable: the index is built instead.
        Effect.orElseSucceed(() => Option.none<RouterIndex>()),
        Effect.provide(platform)
      )
      if (Option.isSome(index)) yield* Ref.set(held, Option.some(indexDigest(catalog)))
      return index
    })

    const save = Effect.fn("RouterIndexStore.save")(function*(catalog: Catalog, index: RouterIndex) {
      const digest = indexDigest(catalog)
      if (Option.contains(yield* Ref.get(held), digest)) return
      yield* writeFileAtomic(path, encodeIndex(index, catalog.toolSetKey, digest)).pipe(
        Effect.zipRight(Ref.set(held, Option.some(digest))),
        Effect.catchAll((error) => events.warn({ kind: "write-failed", subject: path, message: error.message })),
        Effect.provide(platform)
      )
    })

    return RouterIndexStore.of({ load, save })
  })
