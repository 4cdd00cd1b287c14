import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Layer, Option, Ref, Schema, type Scope } from "effect"
import type { Catalog } from "../core/model.js"
import { encodeIndexSteps, INDEX_PREAMBLE_BYTES, indexDigest, indexHeadBytes, openIndex, type StoredIndex } from "../core/router/indexFile.js"
import type { RouterIndex } from "../core/router/invertedIndex.js"
import type { Needs } from "../core/router/rankIndex.js"
import { CatalogEvents } from "./CatalogEvents.js"
import { runStepsSliced } from "../../services/slicedSteps.js"
import { fileVersion, type FileRefused, openRegularFile, readExactlyAt } from "../../services/fileRead.js"
import { writeFileAtomic } from "./jsonFile.js"

/**
 * The largest router index file read from: about 32 MB at 50,000 tools, so this leaves room
 * for catalogs several times larger; a larger file is not read and the index is built.
 */
export const ROUTER_INDEX_MAX_BYTES = 512 * 1024 * 1024

/**
 * The index file could not give what a ranking asked for: it is gone, was replaced since its
 * head was read, or a block of it is damaged. The router builds the index instead.
 */
export class RouterIndexUnreadable extends Schema.TaggedError<RouterIndexUnreadable>()("RouterIndexUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The router index ${this.path} cannot be read: ${this.reason}`
  }
}

/**
 * The router's index kept in a file of the catalog's directory, so that a new process (a CLI
 * command) ranks without building it, reading only what its task needs. `load` reads the
 * file's head and gives its index only when it was built from exactly this catalog (its
 * tool-set key, then `indexDigest`: the tool order and what each document is built from) and
 * the head is whole; anything else, including a file that cannot be read, is `None` and the
 * router builds the index. `fetch` reads the postings and document terms a ranking needs from
 * the very file `load` read (positioned reads; each block checked); `save` writes atomically
 * and only when the file does not already hold this catalog's index; a failed write is a warning.
 */
export class RouterIndexStore extends Context.Tag("tool-map/RouterIndexStore")<RouterIndexStore, {
  /** The file's index for `catalog` (its head), if the file holds exactly that. */
  readonly load: (catalog: Catalog) => Effect.Effect<Option.Option<StoredIndex>>
  /**
   * The file `index` (one `load` gave) was read from, opened once for the scope: reads what each
   * `needs` names into the index. Fails when the file is gone or was replaced since.
   */
  readonly reader: (index: StoredIndex) => Effect.Effect<(needs: Needs) => Effect.Effect<void, RouterIndexUnreadable>, RouterIndexUnreadable, Scope.Scope>
  /** Reads what `needs` names into `index` (one `load` gave), from the same file (`reader` for one read). */
  readonly fetch: (index: StoredIndex, needs: Needs) => Effect.Effect<void, RouterIndexUnreadable>
  /** Keeps `index` (built from `catalog`) in the file, unless the file holds it already. */
  readonly save: (catalog: Catalog, index: RouterIndex) => Effect.Effect<void>
}>() {
  /** The store of `file`; `None` keeps nothing (every process builds its index). */
  static readonly layer = (file: Option.Option<string>): Layer.Layer<RouterIndexStore, never, FileSystem.FileSystem | Path.Path | CatalogEvents> =>
    Layer.effect(this, Option.match(file, { onNone: () => Effect.succeed(noRouterIndexStore), onSome: make }))
}

/** A store that keeps nothing. */
export const noRouterIndexStore: RouterIndexStore["Type"] = {
  load: () => Effect.succeedNone,
  reader: () => new RouterIndexUnreadable({ path: "", reason: "no index file is kept" }),
  fetch: () => new RouterIndexUnreadable({ path: "", reason: "no index file is kept" }),
  save: () => Effect.void
}

const make = (path: string) =>
  Effect.gen(function*() {
    const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const events = yield* CatalogEvents
    // The digest of the catalog the file is known to hold (read or written by this process).
    const held = yield* Ref.make(Option.none<string>())
    // The version of the file each index read from it came from.
    const sources = new WeakMap<StoredIndex, string>()

    const load = Effect.fn("RouterIndexStore.load")(function*(catalog: Catalog) {
      const index = yield* Effect.scoped(Effect.gen(function*() {
        const opened = yield* openRegularFile(path, ROUTER_INDEX_MAX_BYTES)
        if (Option.isNone(opened)) return Option.none<StoredIndex>()
        const { file, info, size } = opened.value
        const preamble = new Uint8Array(INDEX_PREAMBLE_BYTES)
        if (!(yield* readExactlyAt(file, 0, preamble))) return Option.none<StoredIndex>()
        const headBytes = indexHeadBytes(preamble, size)
        if (Option.isNone(headBytes)) return Option.none<StoredIndex>()
        // Its own buffer (offset 0): the index takes 4-byte views of it without a copy.
        const head = Buffer.allocUnsafeSlow(headBytes.value)
        head.set(preamble)
        if (!(yield* readExactlyAt(file, INDEX_PREAMBLE_BYTES, head.subarray(INDEX_PREAMBLE_BYTES)))) return Option.none<StoredIndex>()
        const stored = openIndex(head, size, catalog)
        if (Option.isSome(stored)) sources.set(stored.value, fileVersion(info))
        return stored
      })).pipe(
        // Missing, refused (a FIFO, too large) or unreadable: the index is built instead.
        Effect.orElseSucceed(() => Option.none<StoredIndex>()),
        Effect.provide(platform)
      )
      if (Option.isSome(index)) yield* Ref.set(held, Option.some(indexDigest(catalog)))
      return index
    })

    const reader = (index: StoredIndex) => {
      const unreadable = (reason: string) => new RouterIndexUnreadable({ path, reason })
      // The file does not hold this index (any more): the next save writes it.
      const failed = <A, R extends FileSystem.FileSystem | Scope.Scope>(effect: Effect.Effect<A, RouterIndexUnreadable | FileRefused | PlatformError, R>) =>
        effect.pipe(
          Effect.catchIf((error) => error._tag !== "RouterIndexUnreadable", (error) => unreadable(error.message)),
          Effect.tapError(() => Ref.set(held, Option.none())),
          Effect.provide(platform)
        )
      return failed(Effect.gen(function*() {
        const source = sources.get(index)
        if (source === undefined) return yield* unreadable("the index was not read from this file")
        const opened = yield* openRegularFile(path, ROUTER_INDEX_MAX_BYTES)
        if (Option.isNone(opened)) return yield* unreadable("it is gone")
        const { file, info } = opened.value
        if (fileVersion(info) !== source) return yield* unreadable("it was replaced since it was read")
        return (needs: Needs) =>
          failed(Effect.gen(function*() {
            for (const range of index.rangesOf(needs)) {
              // Its own buffer (offset 0): the index takes 4-byte views of it without a copy.
              const bytes = Buffer.allocUnsafeSlow(range.length)
              if (!(yield* readExactlyAt(file, range.offset, bytes))) return yield* unreadable("it ends before its postings do")
              if (!index.accept(range, bytes)) return yield* unreadable("a block of it is damaged")
            }
          }))
      }))
    }

    const fetch = Effect.fn("RouterIndexStore.fetch")(function*(index: StoredIndex, needs: Needs) {
      yield* Effect.scoped(Effect.flatMap(reader(index), (read) => read(needs)))
    })

    const save = Effect.fn("RouterIndexStore.save")(function*(catalog: Catalog, index: RouterIndex) {
      const digest = indexDigest(catalog)
      if (Option.contains(yield* Ref.get(held), digest)) return
      const bytes = yield* runStepsSliced(encodeIndexSteps(index, catalog.toolSetKey, digest))
      yield* writeFileAtomic(path, bytes).pipe(
        Effect.zipRight(Ref.set(held, Option.some(digest))),
        Effect.catchAll((error) => events.warn({ kind: "write-failed", subject: path, message: error.message })),
        Effect.provide(platform)
      )
    })

    return RouterIndexStore.of({ load, reader, fetch, save })
  })
