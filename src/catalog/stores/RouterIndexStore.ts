import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import type { Catalog } from "../core/model.js"
import { encodeIndex, INDEX_PREAMBLE_BYTES, indexDigest, indexHeadBytes, openIndex, type StoredIndex } from "../core/router/indexFile.js"
import type { RouterIndex } from "../core/router/invertedIndex.js"
import type { Needs } from "../core/router/rankIndex.js"
import { CatalogEvents } from "../services/CatalogEvents.js"
import { openRegularFile } from "../../services/fileRead.js"
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
  /** Reads what `needs` names into `index` (one `load` gave), from the same file. */
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
  fetch: () => new RouterIndexUnreadable({ path: "", reason: "no index file is kept" }),
  save: () => Effect.void
}

/** `length` bytes of `file` from `offset`; fails when the file ends before. */
const readAt = (file: FileSystem.File, offset: number, length: number) =>
  Effect.gen(function*() {
    // Its own buffer (offset 0): the index takes 4-byte views of it without a copy.
    const buffer = Buffer.allocUnsafeSlow(length)
    yield* file.seek(offset, "start")
    let filled = 0
    while (filled < length) {
      const read = Number(yield* file.read(buffer.subarray(filled)))
      if (read === 0) return Option.none<Uint8Array>()
      filled += read
    }
    return Option.some<Uint8Array>(buffer)
  })

/** What tells one version of the file from the next (each save renames a new file into place). */
const identityOf = (info: FileSystem.File.Info): string =>
  `${info.dev}:${Option.getOrElse(info.ino, () => -1)}:${info.size}:${Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => -1)}`

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
        const { file, size } = opened.value
        const info = yield* file.stat
        if (size < INDEX_PREAMBLE_BYTES) return Option.none<StoredIndex>()
        const preamble = yield* readAt(file, 0, INDEX_PREAMBLE_BYTES)
        const headBytes = Option.flatMap(preamble, (bytes) => indexHeadBytes(bytes, size))
        if (Option.isNone(headBytes)) return Option.none<StoredIndex>()
        const head = yield* readAt(file, 0, headBytes.value)
        const stored = Option.flatMap(head, (bytes) => openIndex(bytes, size, catalog))
        if (Option.isSome(stored)) sources.set(stored.value, identityOf(info))
        return stored
      })).pipe(
        // Missing, refused (a FIFO, too large) or unreadable: the index is built instead.
        Effect.orElseSucceed(() => Option.none<StoredIndex>()),
        Effect.provide(platform)
      )
      if (Option.isSome(index)) yield* Ref.set(held, Option.some(indexDigest(catalog)))
      return index
    })

    const fetch = Effect.fn("RouterIndexStore.fetch")(function*(index: StoredIndex, needs: Needs) {
      const unreadable = (reason: string) => new RouterIndexUnreadable({ path, reason })
      const source = sources.get(index)
      if (source === undefined) return yield* unreadable("the index was not read from this file")
      yield* Effect.scoped(Effect.gen(function*() {
        const opened = yield* openRegularFile(path, ROUTER_INDEX_MAX_BYTES)
        if (Option.isNone(opened)) return yield* unreadable("it is gone")
        const { file } = opened.value
        if (identityOf(yield* file.stat) !== source) return yield* unreadable("it was replaced since it was read")
        for (const range of index.rangesOf(needs)) {
          const bytes = yield* readAt(file, range.offset, range.length)
          if (Option.isNone(bytes)) return yield* unreadable("it ends before its postings do")
          if (!index.accept(range, bytes.value)) return yield* unreadable("a block of it is damaged")
        }
      })).pipe(
        Effect.catchIf((error) => error._tag !== "RouterIndexUnreadable", (error) => unreadable(error.message)),
        // The file does not hold this index (any more): the next save writes it.
        Effect.tapError(() => Ref.set(held, Option.none())),
        Effect.provide(platform)
      )
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

    return RouterIndexStore.of({ load, fetch, save })
  })
