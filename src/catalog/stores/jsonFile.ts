import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Duration, Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { createHash } from "node:crypto"
import { compileEncoder, type Encoder, UNDECIDED } from "../../platform/schemaFastPath.js"
import { FileLock, type FileLocked, type FileLockError, type FileLockOptions, lockPathOf, LockOwner } from "../../services/FileLock.js"
import { notJsonReason } from "../../inventory/domain/jsonText.js"
import { type FileRefused, openRegularFile, readRegularFile } from "../../services/fileRead.js"
import { writeFileAtomically } from "../../services/fileWrite.js"
import { nestsDeeperText, nestsDeeperThan } from "../core/nesting.js"
import { firstIssue } from "../core/schemasFile.js"

/** A catalog state or settings file could not be read, written or moved aside. */
export class CatalogFileError extends Schema.TaggedError<CatalogFileError>()("CatalogFileError", {
  path: Schema.String,
  operation: Schema.Literal("read", "write", "quarantine", "lock"),
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

const lockError = (path: string) => (error: FileLockError | FileLocked) =>
  new CatalogFileError({ path, operation: "lock", reason: error.message })

/**
 * How catalog files are locked: a writer holds a lock for a few milliseconds, but a dozen
 * processes may queue for it, so a taker waits longer than the bundle writer does.
 */
export const CATALOG_LOCK_OPTIONS: Partial<FileLockOptions> = { lockWait: Duration.seconds(10), lockRetryInterval: Duration.millis(10) }

/**
 * The lock of catalog files: the `FileLock` of the context when there is one, else one with
 * `CATALOG_LOCK_OPTIONS` for the context's `LockOwner` (tests simulate processes with it), else
 * for this process. The stores' layers thus need no lock service of their own.
 */
export const catalogFileLock: Effect.Effect<FileLock["Type"], never, FileSystem.FileSystem> = Effect.gen(function*() {
  const provided = yield* Effect.serviceOption(FileLock)
  if (Option.isSome(provided)) return provided.value
  const owner = Option.getOrElse(yield* Effect.serviceOption(LockOwner), () => LockOwner.live)
  return yield* FileLock.make(CATALOG_LOCK_OPTIONS).pipe(Effect.provideService(LockOwner, owner))
})

/**
 * Above this many characters a JSON file is written compact: indentation would add a third to
 * a large file that no one reads by eye, and cost time to write.
 */
export const COMPACT_THRESHOLD = 256 * 1024

/** The text of a JSON file: indented when small, compact above `COMPACT_THRESHOLD`, a final newline. */
export const jsonFileText = (encoded: unknown): string => {
  const compact = JSON.stringify(encoded)
  return compact.length > COMPACT_THRESHOLD ? `${compact}\n` : `${JSON.stringify(encoded, null, 2)}\n`
}

/**
 * {@link writeFileAtomically} (services/fileWrite.ts) failing with the catalog's own error: a
 * reader sees the complete old or the complete new file.
 */
export const writeFileAtomic = (
  path: string,
  content: string | Uint8Array,
  /** The file's mode (e.g. 0o600 for a file with secrets), set on the temp file before it is renamed: never readable by others, not even for a moment. */
  options: { readonly mode?: number | undefined } = {}
): Effect.Effect<void, CatalogFileError, FileSystem.FileSystem | Path.Path> =>
  writeFileAtomically(path, content, options).pipe(Effect.mapError(fileError(path, "write")))

const encoders = new WeakMap<SchemaAST.AST, Encoder>()

/** Encodes with the schema: its compiled encoder when it vouches for the value, else Effect's own (whose error stands). */
const encodeWith = <A, I>(schema: Schema.Schema<A, I>, path: string, value: A): Effect.Effect<I, CatalogFileError> =>
  Effect.suspend(() => {
    let encoder = encoders.get(schema.ast)
    if (encoder === undefined) encoders.set(schema.ast, encoder = compileEncoder(schema.ast))
    const fast = encoder(value)
    if (fast !== UNDECIDED) return Effect.succeed(fast as I)
    return Schema.encode(schema)(value).pipe(
      Effect.mapError((error) => new CatalogFileError({ path, operation: "write", reason: ParseResult.TreeFormatter.formatErrorSync(error) }))
    )
  })

/** Writes a value as JSON (`jsonFileText`), encoded with its Schema, atomically. */
export const writeJsonAtomic = <A, I>(schema: Schema.Schema<A, I>, path: string, value: A) =>
  Effect.flatMap(encodeWith(schema, path, value), (encoded) => writeFileAtomic(path, jsonFileText(encoded)))

/** Runs `body` holding the lock of the catalog file `path`. */
const underLock = <A, E, R>(path: string, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(catalogFileLock, (locks) =>
    Effect.scoped(Effect.zipRight(Effect.mapError(locks.acquire(lockPathOf(path)), lockError(path)), body)))

/** A file-name-safe timestamp (no `:`), so the kept copy is valid on every OS. */
const stamp = (millis: number) => new Date(millis).toISOString().replace(/[:.]/g, "-")

/**
 * The largest catalog state, settings, metadata, exemptions or definitions file read back: a
 * state file of 100,000 loaded tools is a few megabytes. Anything larger is taken as not valid.
 */
export const CATALOG_FILE_MAX_BYTES = 64 * 1024 * 1024

/**
 * The largest tool schemas file read (`--schemas`, its snapshot, the facts file): 50,000 tools
 * are about 33 MiB. A larger one is refused from its size alone, before any of it is read.
 */
export const SCHEMAS_FILE_MAX_BYTES = 256 * 1024 * 1024

/**
 * What a bounded read of a data file found: its content, or why it was refused without being
 * read whole (not a regular file, over its cap), which a reader takes as a file not valid.
 */
export type FileContent<T> = Either.Either<T, FileRefused>

/**
 * The content of the regular file `path` of at most `maxBytes` (`readRegularFile`), `None`
 * when it does not exist; a failed read is a `CatalogFileError`.
 */
export const readBounded = <T>(
  path: string,
  maxBytes: number,
  of: (bytes: Uint8Array) => T
): Effect.Effect<Option.Option<FileContent<T>>, CatalogFileError, FileSystem.FileSystem> =>
  readRegularFile(path, maxBytes).pipe(
    Effect.map(Option.map((bytes): FileContent<T> => Either.right(of(bytes)))),
    Effect.catchTag("FileRefused", (refused) => Effect.succeed(Option.some<FileContent<T>>(Either.left(refused)))),
    Effect.mapError((error) => new CatalogFileError({ path, operation: "read", reason: error.message }))
  )

/** The text of a catalog data file (see `readBounded`). */
const readText = (path: string) => readBounded(path, CATALOG_FILE_MAX_BYTES, textOf)

/** Content as `decode` reads it; a refused file is not valid, for the reason it was refused. */
const decodeContent = <T, A>(decode: (content: T) => Either.Either<A, string>) => (content: FileContent<T>): Either.Either<A, string> =>
  Either.isRight(content) ? decode(content.right) : Either.left(content.left.reason)

/** The same content: equal by `same`, or refused for the same reason. */
const sameContent = <T>(same: (a: T, b: T) => boolean) => (a: FileContent<T>, b: FileContent<T>): boolean =>
  Either.isRight(a) && Either.isRight(b) ? same(a.right, b.right) : Either.isLeft(a) && Either.isLeft(b) && a.left.reason === b.left.reason

/**
 * The JSON value of a text, or why it is not one: not JSON, or nested deeper than the cap
 * (`core/nesting.ts`; a deeper value would crash the schema's error formatter).
 */
const parseJsonText = (text: string): Either.Either<unknown, string> =>
  Either.flatMap(
    Either.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) => notJsonReason(error, text)
    }),
    (json) => (nestsDeeperThan(json) ? Either.left(`it ${nestsDeeperText()}`) : Either.right(json))
  )

const decodeText = <A, I>(schema: Schema.Schema<A, I>, text: string): Either.Either<A, string> =>
  Either.flatMap(
    parseJsonText(text),
    (json) => Either.mapLeft(Schema.decodeUnknownEither(schema)(json), firstIssue)
  )

/** Renames a corrupt file to `<file>.corrupt-<timestamp>`; the caller holds its lock. */
const quarantine = (path: string, reason: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const keptAt = `${path}.corrupt-${stamp(yield* Clock.currentTimeMillis)}`
    yield* fs.rename(path, keptAt).pipe(Effect.mapError(fileError(path, "quarantine")))
    return { path, keptAt, reason } satisfies CorruptFile
  })

/** A file's bytes and their SHA-256 (hex), which names the text they hold. */
export interface HashedBytes {
  readonly bytes: Uint8Array
  readonly sha256: string
}

/** The bytes of a tool schemas file and their hash (see `readBounded`). */
const readHashedBytes = (path: string) => readBounded(path, SCHEMAS_FILE_MAX_BYTES, hashedBytes)

/**
 * Bytes with their SHA-256: it names their text, and hashing them needs no encoded copy of it
 * (for a text this module wrote, the hash of its bytes is the hash of the text as UTF-8).
 */
export const hashedBytes = (bytes: Uint8Array): HashedBytes => ({ bytes, sha256: createHash("sha256").update(bytes).digest("hex") })

/** How many bytes `hashOfFile` reads at a time. */
const HASH_CHUNK = 1 << 20

/**
 * The SHA-256 (hex) of the bytes of a regular file of at most `maxBytes`, read a chunk at a
 * time into one buffer (a file of tens of megabytes is never held whole); `None` when the file
 * does not exist. A file refused (see `openRegularFile`) fails as a read error.
 */
export const hashOfFile = (path: string, maxBytes: number): Effect.Effect<Option.Option<string>, CatalogFileError, FileSystem.FileSystem> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* openRegularFile(path, maxBytes)
    if (Option.isNone(opened)) return Option.none<string>()
    const { file } = opened.value
    const hash = createHash("sha256")
    const buffer = new Uint8Array(HASH_CHUNK)
    let total = 0
    for (let size = Number(yield* file.read(buffer)); size > 0; size = Number(yield* file.read(buffer))) {
      total += size
      if (total > maxBytes) return yield* new CatalogFileError({ path, operation: "read", reason: `it grew over the ${maxBytes}-byte cap while it was read` })
      hash.update(buffer.subarray(0, size))
    }
    return Option.some(hash.digest("hex"))
  })).pipe(
    Effect.catchTags({
      FileRefused: (refused) => Effect.fail(new CatalogFileError({ path, operation: "read", reason: refused.reason })),
      BadArgument: (error) => Effect.fail(fileError(path, "read")(error)),
      SystemError: (error) => Effect.fail(fileError(path, "read")(error))
    })
  )

/** The text of bytes, UTF-8 as `readFileString` decodes it. */
export const textOf = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)

/**
 * `readJsonFile` for a decoder of the file's bytes and their hash (to know a text it met
 * before, and to decode only a text it did not).
 */
export const readHashedJsonFileWith = <A>(
  decode: (file: HashedBytes) => Either.Either<A, string>,
  path: string
): Effect.Effect<JsonFileRead<A>, CatalogFileError, FileSystem.FileSystem> =>
  readDecoded(
    readHashedBytes,
    sameContent<HashedBytes>((a, b) => a.sha256 === b.sha256 && a.bytes.length === b.bytes.length),
    decodeContent(decode),
    path
  )

/**
 * Reads a file through `read` and `decode` (its value, or why it is not valid). A missing
 * file is `Missing`; a file that does not decode is renamed to `<file>.corrupt-<timestamp>`
 * and returned as `Corrupt`, so the caller reports it and nothing is silently dropped. Only a
 * corrupt file takes the lock: it is moved aside only while it is still the text that was
 * found corrupt (`same`), never a file a writer has replaced meanwhile.
 */
const readDecoded = <T, A>(
  read: (path: string) => Effect.Effect<Option.Option<T>, CatalogFileError, FileSystem.FileSystem>,
  same: (a: T, b: T) => boolean,
  decode: (content: T) => Either.Either<A, string>,
  path: string
): Effect.Effect<JsonFileRead<A>, CatalogFileError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const text = yield* read(path)
    if (Option.isNone(text)) return { _tag: "Missing" } as JsonFileRead<A>
    const decoded = decode(text.value)
    if (Either.isRight(decoded)) return { _tag: "Found", value: decoded.right } as JsonFileRead<A>
    return yield* underLock(
      path,
      Effect.gen(function*() {
        const again = yield* read(path)
        if (Option.isNone(again)) return { _tag: "Missing" } as JsonFileRead<A>
        const redecoded = same(again.value, text.value) ? decoded : decode(again.value)
        if (Either.isRight(redecoded)) return { _tag: "Found", value: redecoded.right } as JsonFileRead<A>
        return { _tag: "Corrupt", corrupt: yield* quarantine(path, redecoded.left) } as JsonFileRead<A>
      })
    )
  }).pipe(Effect.withSpan("readJsonFile", { attributes: { path } }))

/** Reads a JSON file validated by `schema` (a corrupt file's reason is the schema's error); see `readDecoded`. */
export const readJsonFile = <A, I>(
  schema: Schema.Schema<A, I>,
  path: string
): Effect.Effect<JsonFileRead<A>, CatalogFileError, FileSystem.FileSystem> =>
  readDecoded(readText, sameContent<string>((a, b) => a === b), decodeContent((text: string) => decodeText(schema, text)), path)

/** What `modifyJsonFile` did. */
export interface JsonFileModified<A, B> {
  /** What the change returned. */
  readonly result: B
  /** The file's value now: the one written, else the one found. */
  readonly value: Option.Option<A>
  /** True when the file was written. */
  readonly written: boolean
  /** A corrupt file found on the way, moved aside (the change then saw no value). */
  readonly corrupt: Option.Option<CorruptFile>
}

/**
 * A read-modify-write of a JSON file that loses no concurrent update: under the file's lock
 * (`.<name>.lock` next to it), the file is read again from disk, `change` is applied to what
 * it holds now (`None`: no file), and its next value, if any, is written atomically. A change
 * that leaves the file as it is (`None`) writes nothing and takes no lock: it is first tried
 * on an unlocked read, and run again under the lock only when it would write and the file
 * changed in between, so `change` must not have effects besides its result. A corrupt file
 * is moved aside as `<file>.corrupt-<timestamp>` (under the lock) and the change sees none.
 */
export const modifyJsonFile = <A, I, B, E, R>(
  schema: Schema.Schema<A, I>,
  path: string,
  change: (current: Option.Option<A>) => Effect.Effect<readonly [B, Option.Option<A>], E, R>
): Effect.Effect<JsonFileModified<A, B>, E | CatalogFileError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const decode = decodeContent((content: string) => decodeText(schema, content))
    const same = sameContent<string>((a, b) => a === b)
    const text = yield* readText(path)
    const decoded = Option.map(text, decode)
    let tried: { readonly current: Option.Option<A>; readonly outcome: readonly [B, Option.Option<A>] } | undefined
    if (Option.isNone(decoded) || Either.isRight(decoded.value)) {
      const current = Option.map(decoded, Either.getOrThrow)
      const outcome = yield* change(current)
      if (Option.isNone(outcome[1])) return { result: outcome[0], value: current, written: false, corrupt: Option.none() }
      tried = { current, outcome }
    }
    const fs = yield* FileSystem.FileSystem
    const paths = yield* Path.Path
    yield* fs.makeDirectory(paths.dirname(path), { recursive: true }).pipe(Effect.mapError(fileError(path, "write")))
    return yield* underLock(
      path,
      Effect.gen(function*() {
        const again = yield* readText(path)
        const unchanged = Option.isNone(again) ? Option.isNone(text) : Option.isSome(text) && same(text.value, again.value)
        let current: Option.Option<A>
        let corrupt = Option.none<CorruptFile>()
        let outcome: readonly [B, Option.Option<A>]
        if (unchanged && tried !== undefined) {
          current = tried.current
          outcome = tried.outcome
        } else {
          const found = Option.map(again, decode)
          if (Option.isSome(found) && Either.isLeft(found.value)) {
            corrupt = Option.some(yield* quarantine(path, found.value.left))
            current = Option.none()
          } else {
            current = Option.map(found, Either.getOrThrow)
          }
          outcome = yield* change(current)
        }
        const [result, next] = outcome
        if (Option.isNone(next)) return { result, value: current, written: false, corrupt }
        yield* writeJsonAtomic(schema, path, next.value)
        return { result, value: next, written: true, corrupt }
      })
    )
  }).pipe(Effect.withSpan("modifyJsonFile", { attributes: { path } }))
