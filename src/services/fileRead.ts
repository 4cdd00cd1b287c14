import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Schema, type Scope } from "effect"

/** At most `cap` bytes from the start of an open file, reading again after a short read. */
export const readUpTo = (file: FileSystem.File, cap: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total < cap) {
      const chunk = yield* file.readAlloc(cap - total)
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    return Buffer.concat(chunks)
  })

/**
 * A data file was refused before it was read whole: it is not a regular file (a FIFO would
 * block the read forever, `/dev/zero` never ends), or it holds more than the reader's cap.
 */
export class FileRefused extends Schema.TaggedError<FileRefused>()("FileRefused", {
  path: Schema.String,
  /** Why, as a reader's status: not a regular file, or over the cap. */
  refusal: Schema.Literal("not-a-file", "too-large"),
  reason: Schema.String
}) {
  get message() {
    return `${this.path} was not read: ${this.reason}`
  }
}

const TYPE_NAMES: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "file",
  Directory: "directory",
  SymbolicLink: "symbolic link",
  BlockDevice: "block device",
  CharacterDevice: "character device",
  FIFO: "fifo",
  Socket: "socket",
  Unknown: "unknown type"
}

const notRegular = (path: string, type: FileSystem.File.Type) =>
  new FileRefused({ path, refusal: "not-a-file", reason: `it is not a regular file (${TYPE_NAMES[type]})` })

const tooLarge = (path: string, size: bigint | number, maxBytes: number) =>
  new FileRefused({ path, refusal: "too-large", reason: `it is ${size} bytes, over the ${maxBytes}-byte cap` })

/** The refusal of a file that grew past `maxBytes` while it was read (its size is not known). */
const grewTooLarge = (path: string, maxBytes: number) =>
  new FileRefused({ path, refusal: "too-large", reason: `it grew over the ${maxBytes}-byte cap while it was read` })

const isNotFound = (error: PlatformError) => error._tag === "SystemError" && error.reason === "NotFound"

/** How a bounded read is made. */
export interface ReadOptions {
  /**
   * The caller has just stat'ed `path` and found a regular file within the cap (a reader that
   * probes every path anyway): the stat before the open is not made again. The open descriptor
   * is still checked.
   */
  readonly statedAsRegular?: boolean
}

/** An open regular file, its size and what the open descriptor says of it. */
export interface RegularFile {
  readonly file: FileSystem.File
  readonly size: number
  readonly info: FileSystem.File.Info
}

/**
 * What tells one version of a file from the next at one path (a writer that renames a new file
 * into place changes the inode; one that writes in place, the size or the modification time).
 */
export const fileVersion = (info: FileSystem.File.Info): string =>
  `${info.dev}:${Option.getOrElse(info.ino, () => -1)}:${info.size}:${Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => -1)}`

/** Reads from the file's position into `buffer` until it is full or the file ends: how many bytes it read. */
export const readInto = (file: FileSystem.File, buffer: Uint8Array) =>
  Effect.gen(function*() {
    let filled = 0
    while (filled < buffer.length) {
      const read = Number(yield* file.read(buffer.subarray(filled)))
      if (read === 0) break
      filled += read
    }
    return filled
  })

/** Fills `buffer` with the file's bytes from `offset`; false when the file ends before. */
export const readExactlyAt = (file: FileSystem.File, offset: number, buffer: Uint8Array) =>
  Effect.flatMap(file.seek(offset, "start"), () => Effect.map(readInto(file, buffer), (filled) => filled === buffer.length))

/**
 * Opens `path` for reading when it is a regular file of at most `maxBytes` (a symbolic link is
 * followed), `None` when it does not exist. The type and size are checked on the path before
 * the open (opening a FIFO blocks until a writer comes) and again on the open descriptor (the
 * path may have been swapped in between). The file closes with the scope.
 */
export const openRegularFile = (
  path: string,
  maxBytes: number,
  options: ReadOptions = {}
): Effect.Effect<Option.Option<RegularFile>, FileRefused | PlatformError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (options.statedAsRegular !== true) {
      const before = yield* fs.stat(path).pipe(
        Effect.map(Option.some),
        Effect.catchIf(isNotFound, () => Effect.succeedNone)
      )
      if (Option.isNone(before)) return Option.none<RegularFile>()
      if (before.value.type !== "File") return yield* notRegular(path, before.value.type)
      if (before.value.size > BigInt(maxBytes)) return yield* tooLarge(path, before.value.size, maxBytes)
    }
    const file = yield* fs.open(path, { flag: "r" }).pipe(Effect.catchIf(isNotFound, () => Effect.succeed(undefined)))
    if (file === undefined) return Option.none<RegularFile>()
    const after = yield* file.stat
    if (after.type !== "File") return yield* notRegular(path, after.type)
    if (after.size > BigInt(maxBytes)) return yield* tooLarge(path, after.size, maxBytes)
    return Option.some<RegularFile>({ file, size: Number(after.size), info: after })
  })

/**
 * The bytes of the regular file `path` if it holds at most `maxBytes`, `None` when it does not
 * exist; anything else is refused ({@link FileRefused}) without reading it whole (see
 * {@link openRegularFile}). The one bounded read of the data files tool-map reads back.
 */
export const readRegularFile = (
  path: string,
  maxBytes: number,
  options: ReadOptions = {}
): Effect.Effect<Option.Option<Uint8Array>, FileRefused | PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* openRegularFile(path, maxBytes, options)
    if (Option.isNone(opened)) return Option.none<Uint8Array>()
    const { file, size } = opened.value
    // Filled in place (no copy of a large file): the size the descriptor gave, plus a byte to
    // see a file that grew since.
    const buffer = Buffer.allocUnsafeSlow(Math.min(size, maxBytes) + 1)
    const filled = yield* readInto(file, buffer)
    if (filled <= size) return Option.some(buffer.subarray(0, filled))
    const rest = yield* readUpTo(file, maxBytes + 1 - filled)
    if (filled + rest.length > maxBytes) return yield* grewTooLarge(path, maxBytes)
    return Option.some<Uint8Array>(Buffer.concat([buffer, rest]))
  }))

/**
 * The first `bytes` bytes of the regular file `path` (of any size), `None` when it does not
 * exist: a FIFO or a device there is refused before it is opened, as in {@link openRegularFile}.
 */
export const readHead = (
  path: string,
  bytes: number
): Effect.Effect<Option.Option<Uint8Array>, FileRefused | PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(Effect.flatMap(openRegularFile(path, Number.MAX_SAFE_INTEGER), Option.match({
    onNone: () => Effect.succeedNone,
    onSome: (opened) => Effect.map(readUpTo(opened.file, bytes), Option.some)
  })))
