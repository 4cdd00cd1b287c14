import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Effect, Either, Option, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"

/** A catalog state or settings file could not be read, written or moved aside. */
export class CatalogFileError extends Schema.TaggedError<CatalogFileError>()("CatalogFileError", {
  path: Schema.String,
  operation: Schema.Literal("read", "write", "quarantine"),
  reason: Schema.String
}) {
  get message() {
    return `Cannot ${this.operation} the catalog file ${this.path}: ${this.reason}`
  }
}

/** A JSON file that failed to parse or to validate, and where it was moved so nothing is lost. */
export interface CorruptFile {
  readonly path: string
  readonly keptAt: string
  readonly reason: string
}

/** What reading a Schema-validated JSON file found. */
export type JsonFileRead<A> =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Found"; readonly value: A }
  | { readonly _tag: "Corrupt"; readonly corrupt: CorruptFile }

const fileError = (path: string, operation: CatalogFileError["operation"]) => (error: PlatformError) =>
  new CatalogFileError({ path, operation, reason: error.message })

/**
 * Writes `content` to `path` so that a reader sees the complete old or the complete new file:
 * a temp file next to the target (never the OS temp dir: a rename across file systems fails),
 * fsync, rename, then fsync of the directory where the OS allows it.
 */
export const writeFileAtomic = Effect.fn("writeFileAtomic")(function*(path: string, content: string) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  const dir = paths.dirname(path)
  const temp = paths.join(dir, `.${paths.basename(path)}.tmp-${randomUUID()}`)
  const failed = fileError(path, "write")
  yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(failed))
  yield* Effect.scoped(
    Effect.gen(function*() {
      const file = yield* fs.open(temp, { flag: "w" })
      yield* file.writeAll(new TextEncoder().encode(content))
      yield* file.sync
    })
  ).pipe(
    Effect.zipRight(fs.rename(temp, path)),
    Effect.mapError(failed),
    Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore))
  )
  // A directory fsync makes the rename durable; Windows cannot open a directory for it.
  yield* Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (handle) => handle.sync)).pipe(Effect.ignore)
})

/** Writes a value as pretty JSON, encoded with its Schema, atomically. */
export const writeJsonAtomic = <A, I>(schema: Schema.Schema<A, I>, path: string, value: A) =>
  Schema.encode(schema)(value).pipe(
    Effect.mapError((error) => new CatalogFileError({ path, operation: "write", reason: ParseResult.TreeFormatter.formatErrorSync(error) })),
    Effect.flatMap((encoded) => writeFileAtomic(path, `${JSON.stringify(encoded, null, 2)}\n`))
  )

/** A file-name-safe timestamp (no `:`), so the kept copy is valid on every OS. */
const stamp = (millis: number) => new Date(millis).toISOString().replace(/[:.]/g, "-")

/**
 * Reads a JSON file validated by `schema`. A missing file is `Missing`; a file that does not
 * parse or validate is renamed to `<file>.corrupt-<timestamp>` and returned as `Corrupt`, so
 * the caller reports it and nothing is silently dropped.
 */
export const readJsonFile = <A, I>(
  schema: Schema.Schema<A, I>,
  path: string
): Effect.Effect<JsonFileRead<A>, CatalogFileError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(path).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.succeed(Option.none<string>())
    ),
    Effect.mapError(fileError(path, "read"))
  )
  if (Option.isNone(text)) return { _tag: "Missing" } as JsonFileRead<A>
  const decoded = Schema.decodeEither(Schema.parseJson(schema))(text.value)
  if (Either.isRight(decoded)) return { _tag: "Found", value: decoded.right } as JsonFileRead<A>
  const reason = ParseResult.TreeFormatter.formatErrorSync(decoded.left)
  const keptAt = `${path}.corrupt-${stamp(yield* Clock.currentTimeMillis)}`
  yield* fs.rename(path, keptAt).pipe(Effect.mapError(fileError(path, "quarantine")))
  return { _tag: "Corrupt", corrupt: { path, keptAt, reason } } as JsonFileRead<A>
  }).pipe(Effect.withSpan("readJsonFile", { attributes: { path } }))
