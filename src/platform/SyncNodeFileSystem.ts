import { Error as PlatformError, FileSystem } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Layer, Option } from "effect"
import * as NodeFs from "node:fs"
import { yieldIfDue } from "../services/eventLoop.js"

// Node's FileSystem with the calls tool-map makes (metadata, small files, the bundle commit)
// done synchronously. On local disks each of these is a few microseconds in the kernel, while
// the asynchronous form costs a thread-pool round trip and a wake-up of the event loop per call
// (~0.5–1 ms under load): a commit is some forty calls, a `--if-stale` check a hundred stats.
// Results and errors are those of @effect/platform-node, field for field; every other method
// (watch, streams, temp files…) is @effect/platform-node's own.

/** The reason @effect/platform-node gives a failed call's errno code. */
const errnoReason = (code: string | undefined): PlatformError.SystemErrorReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

/** Node's argument checks, which throw before any call (the platform's BadArgument). */
const ARGUMENT_ERRORS = new Set(["ERR_INVALID_ARG_TYPE", "ERR_INVALID_ARG_VALUE", "ERR_OUT_OF_RANGE", "ERR_INVALID_URL"])

/** An error the asynchronous call would have passed to its callback: a system call's or Node's own (ERR_FS_FILE_TOO_LARGE). */
const isCallError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string" &&
  !ARGUMENT_ERRORS.has((error as NodeJS.ErrnoException).code ?? "")

/**
 * A thrown error as @effect/platform-node reports it: a SystemError for what its callback would
 * have received (built with its fields in place; they are valid by construction), a
 * BadArgument for an argument Node refused up front.
 */
const platformError = (method: string, pathOrDescriptor: string | number) => (error: unknown): PlatformError.PlatformError =>
  isCallError(error)
    ? new PlatformError.SystemError(
      {
        reason: errnoReason(error.code),
        module: "FileSystem",
        method,
        description: error.message,
        syscall: error.syscall,
        pathOrDescriptor,
        cause: error
      },
      true
    )
    : new PlatformError.BadArgument({ module: "FileSystem", method, cause: error })

/** A synchronous call, after a checkpoint: a run made only of such calls still lets the event loop see SIGTERM. */
const call = <A>(method: string, pathOrDescriptor: string | number, run: () => A) =>
  Effect.zipRight(yieldIfDue, Effect.try({ try: run, catch: platformError(method, pathOrDescriptor) }))

/** `FileSystem.File.Info` of Node's stats, field for field as @effect/platform-node builds it. */
const fileInfo = (stats: NodeFs.Stats): FileSystem.File.Info => ({
  type: stats.isFile()
    ? "File"
    : stats.isDirectory()
    ? "Directory"
    : stats.isSymbolicLink()
    ? "SymbolicLink"
    : stats.isBlockDevice()
    ? "BlockDevice"
    : stats.isCharacterDevice()
    ? "CharacterDevice"
    : stats.isFIFO()
    ? "FIFO"
    : stats.isSocket()
    ? "Socket"
    : "Unknown",
  mtime: Option.fromNullable(stats.mtime),
  atime: Option.fromNullable(stats.atime),
  birthtime: Option.fromNullable(stats.birthtime),
  dev: stats.dev,
  rdev: Option.fromNullable(stats.rdev),
  ino: Option.fromNullable(stats.ino),
  mode: stats.mode,
  nlink: Option.fromNullable(stats.nlink),
  uid: Option.fromNullable(stats.uid),
  gid: Option.fromNullable(stats.gid),
  size: FileSystem.Size(stats.size),
  blksize: Option.map(Option.fromNullable(stats.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stats.blocks)
})

/** An open file whose calls are synchronous; the position is tracked as @effect/platform-node's is. */
class SyncFile implements FileSystem.File {
  readonly [FileSystem.FileTypeId]: FileSystem.FileTypeId = FileSystem.FileTypeId
  private position = 0n
  // As @effect/platform-node's: the position moves under one permit (a writeAll loop yields).
  private readonly permit = Effect.unsafeMakeSemaphore(1).withPermits(1)
  constructor(readonly fd: FileSystem.File.Descriptor, private readonly append: boolean) {}

  get stat() {
    return Effect.map(call("stat", this.fd, () => NodeFs.fstatSync(this.fd)), fileInfo)
  }
  get sync() {
    return call("sync", this.fd, () => NodeFs.fsyncSync(this.fd))
  }
  seek(offset: FileSystem.SizeInput, from: FileSystem.SeekMode) {
    return this.permit(Effect.sync(() => {
      const size = FileSystem.Size(offset)
      if (from === "start") this.position = size
      else if (from === "current") this.position = this.position + size
    }))
  }
  read(buffer: Uint8Array) {
    return this.permit(Effect.map(call("read", this.fd, () => NodeFs.readSync(this.fd, buffer, 0, buffer.length, this.position)), (read) => {
      this.position = this.position + BigInt(read)
      return FileSystem.Size(read)
    }))
  }
  readAlloc(size: FileSystem.SizeInput) {
    const length = Number(size)
    return this.permit(Effect.map(call("readAlloc", this.fd, () => {
      const buffer = Buffer.allocUnsafeSlow(length)
      return { buffer, read: NodeFs.readSync(this.fd, buffer, 0, length, this.position) }
    }), ({ buffer, read }) => {
      if (read === 0) return Option.none<Uint8Array>()
      this.position = this.position + BigInt(read)
      if (read === length) return Option.some<Uint8Array>(buffer)
      const exact = Buffer.allocUnsafeSlow(read)
      buffer.copy(exact, 0, 0, read)
      return Option.some<Uint8Array>(exact)
    }))
  }
  truncate(length?: FileSystem.SizeInput) {
    return this.permit(Effect.map(call("truncate", this.fd, () => NodeFs.ftruncateSync(this.fd, length === undefined ? undefined : Number(length))), () => {
      const kept = BigInt(length ?? 0)
      if (!this.append && this.position > kept) this.position = kept
    }))
  }
  write(buffer: Uint8Array) {
    return this.permit(Effect.map(this.writeAt("write", buffer), (written) => FileSystem.Size(written)))
  }
  writeAll(buffer: Uint8Array): Effect.Effect<void, PlatformError.PlatformError> {
    return this.permit(this.writeAllChunks(buffer))
  }
  private writeAllChunks(buffer: Uint8Array): Effect.Effect<void, PlatformError.PlatformError> {
    return Effect.flatMap(this.writeAt("writeAll", buffer), (written) => {
      if (written === 0) {
        return Effect.fail(new PlatformError.SystemError({
          module: "FileSystem",
          method: "writeAll",
          reason: "WriteZero",
          pathOrDescriptor: this.fd,
          description: "write returned 0 bytes written"
        }))
      }
      return written < buffer.length ? this.writeAllChunks(buffer.subarray(written)) : Effect.void
    })
  }
  private writeAt(method: string, buffer: Uint8Array) {
    return Effect.map(
      call(method, this.fd, () => NodeFs.writeSync(this.fd, buffer, 0, buffer.length, this.append ? null : Number(this.position))),
      (written) => {
        if (!this.append) this.position = this.position + BigInt(written)
        return written
      }
    )
  }
}

/** The FileSystems this layer made: only theirs are known to make their calls synchronously. */
const SYNCHRONOUS = new WeakSet<FileSystem.FileSystem>()

/**
 * True when `fs` is this layer's own (not a copy or wrapper of it): each of its calls completes
 * before it returns, so running several at once gains nothing and costs a fiber each.
 */
export const isSynchronous = (fs: FileSystem.FileSystem): boolean => SYNCHRONOUS.has(fs)

/** A regular file read whole: its bytes, and its modification time (the open descriptor's). */
export interface PlainFile {
  readonly bytes: Uint8Array
  readonly mtime: Date
}

/**
 * The bounded read of a regular file (services/fileRead.ts) as one plain call: open (see
 * PLAIN_OPEN), fstat, read, close, with the same checks (a regular file by the open descriptor,
 * within `maxBytes` before and after the read). Undefined whenever anything is not plain
 * (missing, not a regular file, over the cap, grown, an error) or `fs` is not this layer's: the
 * caller then takes the checked path, which says what and why. Used where thousands of small
 * files are read (agent homes), where that path costs ~30 effects a file; the caller yields to
 * the event loop between its steps (services/eventLoop.ts).
 */
export const readPlainFileNow = (fs: FileSystem.FileSystem, path: string, maxBytes: number): PlainFile | undefined => {
  if (!SYNCHRONOUS.has(fs)) return undefined
  // Node's calls report errors only by throwing; any of them sends the file to the checked path.
  try {
    return plainRead(path, maxBytes)
  } catch {
    return undefined
  }
}

/**
 * Open flags that never wait: a FIFO opens without a writer, a terminal does not become the
 * controlling one. Undefined where the platform lacks them (Windows).
 */
const NEVER_WAIT = NodeFs.constants.O_NONBLOCK !== undefined ? NodeFs.constants.O_RDONLY | NodeFs.constants.O_NONBLOCK | (NodeFs.constants.O_NOCTTY ?? 0) : undefined

/**
 * Those flags and O_NOFOLLOW, which make opening anything but a regular file harmless, so that
 * no stat of the path is needed first: a link fails (ELOOP; a link is stat'ed and opened as
 * before), and the descriptor's fstat then refuses all but a regular file. The cost, accepted: a
 * FIFO or device node that sits itself in a folder of items (not a link to one, and a device
 * node takes root to make) is opened and closed before it is refused, which lets a writer
 * blocked on the FIFO's other end go on.
 */
const PLAIN_OPEN = NEVER_WAIT !== undefined && NodeFs.constants.O_NOFOLLOW !== undefined ? NEVER_WAIT | NodeFs.constants.O_NOFOLLOW : undefined

/** The descriptor of `path` opened for {@link plainRead}, or undefined when the stat before the open already says it is not a plain file. */
const openPlain = (path: string, maxBytes: number): number | undefined => {
  if (PLAIN_OPEN !== undefined) {
    try {
      return NodeFs.openSync(path, PLAIN_OPEN)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error
    }
  }
  // A link (or a platform without those flags): the path is stat'ed before the open, and the open
  // still never waits, should the link have been turned to a FIFO since.
  const before = NodeFs.statSync(path, { throwIfNoEntry: false })
  if (before === undefined || !before.isFile() || before.size > maxBytes) return undefined
  return NodeFs.openSync(path, NEVER_WAIT ?? "r")
}

const plainRead = (path: string, maxBytes: number): PlainFile | undefined => {
  const fd = openPlain(path, maxBytes)
  if (fd === undefined) return undefined
  try {
    const info = NodeFs.fstatSync(fd)
    if (!info.isFile() || info.size > maxBytes) return undefined
    // One byte more than the descriptor's size, to see a file that grew since. Small files share
    // Node's pool (a slice, not an allocation each).
    const buffer = Buffer.allocUnsafe(info.size + 1)
    let filled = 0
    while (filled < buffer.length) {
      const read = NodeFs.readSync(fd, buffer, filled, buffer.length - filled, filled)
      filled += read
      // Done at the end (0), or once the size is in: no second call to hear 0. A file that grew
      // fills the spare byte and is refused below.
      if (read === 0 || filled >= info.size) break
    }
    return filled > info.size ? undefined : { bytes: buffer.subarray(0, filled), mtime: info.mtime }
  } finally {
    NodeFs.closeSync(fd)
  }
}

const syncCalls = (fs: FileSystem.FileSystem): FileSystem.FileSystem => {
  const readFile = (path: string): Effect.Effect<Uint8Array, PlatformError.PlatformError> => call("readFile", path, () => NodeFs.readFileSync(path))
  const synchronous = FileSystem.FileSystem.of({
    ...fs,
    stat: (path) => Effect.map(call("stat", path, () => NodeFs.statSync(path)), fileInfo),
    exists: (path) =>
      call("access", path, () => NodeFs.accessSync(path)).pipe(
        Effect.as(true),
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeed(false))
      ),
    readDirectory: (path, options) =>
      call("readDirectory", path, () => NodeFs.readdirSync(path, { encoding: "utf8", recursive: options?.recursive ?? false })),
    readFile,
    readFileString: (path, encoding) =>
      Effect.flatMap(readFile(path), (bytes) =>
        Effect.try({
          try: () => new TextDecoder(encoding).decode(bytes),
          catch: (cause) => new PlatformError.BadArgument({ module: "FileSystem", method: "readFileString", description: "invalid encoding", cause })
        })),
    realPath: (path) => call("realPath", path, () => NodeFs.realpathSync(path)),
    rename: (oldPath, newPath) => call("rename", oldPath, () => NodeFs.renameSync(oldPath, newPath)),
    remove: (path, options) =>
      call("remove", path, () => NodeFs.rmSync(path, { recursive: options?.recursive ?? false, force: options?.force ?? false })),
    // Like @effect/platform-node's, it succeeds with what Node returns (the first dir created).
    makeDirectory: (path, options) =>
      call("makeDirectory", path, () => NodeFs.mkdirSync(path, { recursive: options?.recursive ?? false, mode: options?.mode })),
    link: (existingPath, newPath) => call("link", existingPath, () => NodeFs.linkSync(existingPath, newPath)),
    copyFile: (fromPath, toPath) => call("copyFile", fromPath, () => NodeFs.copyFileSync(fromPath, toPath)),
    open: (path, options) =>
      Effect.map(
        Effect.acquireRelease(
          call("open", path, () => NodeFs.openSync(path, options?.flag ?? "r", options?.mode)),
          (fd) => Effect.orDie(call("open", path, () => NodeFs.closeSync(fd)))
        ),
        (fd) => new SyncFile(FileSystem.FileDescriptor(fd), options?.flag?.startsWith("a") ?? false)
      )
  })
  SYNCHRONOUS.add(synchronous)
  return synchronous
}

/** The live FileSystem of the CLI and the embedding layers. */
export const SyncNodeFileSystemLayer: Layer.Layer<FileSystem.FileSystem> = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, syncCalls)
).pipe(Layer.provide(NodeFileSystem.layer))
