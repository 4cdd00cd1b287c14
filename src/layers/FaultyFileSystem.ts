import { FileSystem } from "@effect/platform"
import { type PlatformError, SystemError, type SystemErrorReason } from "@effect/platform/Error"
import { Context, Effect, Layer, Sink, Stream } from "effect"

/**
 * What happens at the armed call `at` (1-based, counted from the last `reset`):
 * - `Fail`: call `at` fails without touching the disk; with `persistent`, every later call too.
 * - `Crash`: a SIGKILL model. From call `at` on the disk is frozen: no call, finalizers
 *   included, touches it again. `before`: call `at` never happens; `after`: it happens but
 *   the process dies before it sees the result; `torn`: a write lands half its bytes (other
 *   methods behave as `before`).
 * - `Hook`: call `at` first runs `before` (e.g. waits on a latch, or never returns so that a
 *   test can interrupt the fiber there), then proceeds normally.
 */
export type Fault =
  | {
    readonly _tag: "Fail"
    readonly at: number
    readonly persistent: boolean
    /** An errno code carried as the error's cause (`EPERM`, `ENOSPC`…), for code-driven fallbacks. */
    readonly code?: string
  }
  | { readonly _tag: "Crash"; readonly at: number; readonly when: "before" | "after" | "torn" }
  | { readonly _tag: "Hook"; readonly at: number; readonly before: Effect.Effect<void> }

/** Constructors of the faults. */
export const Fault = {
  /** Call `at` fails; the calls after it succeed. */
  once: (at: number, code?: string): Fault =>
    code === undefined ? { _tag: "Fail", at, persistent: false } : { _tag: "Fail", at, persistent: false, code },
  /** Call `at` and every later call fail. */
  persistent: (at: number, code?: string): Fault =>
    code === undefined ? { _tag: "Fail", at, persistent: true } : { _tag: "Fail", at, persistent: true, code },
  /** The process "dies" at call `at`: the disk is frozen from then on. */
  crash: (at: number, when: "before" | "after" | "torn" = "before"): Fault => ({ _tag: "Crash", at, when }),
  /** Call `at` runs `before` first. */
  hook: (at: number, before: Effect.Effect<void>): Fault => ({ _tag: "Hook", at, before })
} as const

/** One call seen by the faulty file system, for mapping a call number to a step. */
export interface FsCall {
  readonly index: number
  readonly method: string
  readonly path: string
}

/** Controls and observes a faulty file system. */
export interface FaultController {
  /** How many calls were made since the last `reset`. */
  readonly calls: Effect.Effect<number>
  /** Every call since the last `reset`, in order. */
  readonly log: Effect.Effect<ReadonlyArray<FsCall>>
  /** Arms faults (replacing the armed ones); each `at` counts from the last `reset`. */
  readonly arm: (...faults: ReadonlyArray<Fault>) => Effect.Effect<void>
  /** Zeroes the count, clears the log, disarms and unfreezes. */
  readonly reset: Effect.Effect<void>
  /** Whether a `Crash` froze the disk. */
  readonly frozen: Effect.Effect<boolean>
}

interface State {
  count: number
  log: Array<FsCall>
  faults: ReadonlyArray<Fault>
  frozen: boolean
}

const REASON_BY_CODE: Readonly<Record<string, SystemErrorReason>> = {
  ENOENT: "NotFound",
  EACCES: "PermissionDenied",
  EPERM: "PermissionDenied",
  EEXIST: "AlreadyExists",
  EISDIR: "BadResource",
  ENOTDIR: "BadResource",
  EBUSY: "Busy"
}

const injectedError = (method: string, path: string, index: number, why: string, code?: string): PlatformError => {
  const description = `injected fault at call #${index}: ${why}`
  return new SystemError({
    reason: code === undefined ? "Unknown" : REASON_BY_CODE[code] ?? "Unknown",
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    description,
    ...(code === undefined ? {} : { cause: Object.assign(new Error(`${code}: ${description}`), { code }) })
  })
}

/**
 * Wraps `underlying` so that every call (of a FileSystem method, or of a File opened through
 * it) is counted when it runs and may be failed, frozen or delayed by the armed faults (the
 * first that applies to a call wins).
 */
export const makeFaultyFileSystem = (
  underlying: FileSystem.FileSystem,
  ...initial: ReadonlyArray<Fault>
): { readonly fs: FileSystem.FileSystem; readonly controller: FaultController } => {
  const state: State = { count: 0, log: [], faults: initial, frozen: false }

  const gate = <A, R>(
    method: string,
    path: string,
    run: Effect.Effect<A, PlatformError, R>,
    torn?: Effect.Effect<unknown, PlatformError, R>
  ): Effect.Effect<A, PlatformError, R> =>
    Effect.suspend(() => {
      const index = ++state.count
      state.log.push({ index, method, path })
      if (state.frozen) return Effect.fail(injectedError(method, path, index, "the process is dead"))
      const fault = state.faults.find((fault) =>
        fault.at === index || (fault._tag === "Fail" && fault.persistent && fault.at < index)
      )
      if (fault === undefined) return run
      switch (fault._tag) {
        case "Fail":
          return Effect.fail(
            injectedError(method, path, index, fault.persistent ? "persistent failure" : "one failure", fault.code)
          )
        case "Crash": {
          state.frozen = true
          const dead = Effect.fail(injectedError(method, path, index, `crash (${fault.when})`))
          if (fault.when === "after") return Effect.zipRight(Effect.exit(run), dead)
          if (fault.when === "torn" && torn !== undefined) return Effect.zipRight(Effect.exit(torn), dead)
          return dead
        }
        case "Hook":
          return Effect.zipRight(fault.before, run)
      }
    })

  const half = (bytes: Uint8Array) => bytes.subarray(0, Math.floor(bytes.length / 2))

  const wrapFile = (file: FileSystem.File, path: string): FileSystem.File => ({
    [FileSystem.FileTypeId]: FileSystem.FileTypeId,
    fd: file.fd,
    stat: gate("File.stat", path, file.stat),
    seek: (offset, from) => file.seek(offset, from),
    sync: gate("File.sync", path, file.sync),
    read: (buffer) => gate("File.read", path, file.read(buffer)),
    readAlloc: (size) => gate("File.readAlloc", path, file.readAlloc(size)),
    truncate: (length) => gate("File.truncate", path, file.truncate(length)),
    write: (buffer) => gate("File.write", path, file.write(buffer), file.write(half(buffer))),
    writeAll: (buffer) => gate("File.writeAll", path, file.writeAll(buffer), file.writeAll(half(buffer)))
  })

  const fs: FileSystem.FileSystem = {
    access: (path, options) => gate("access", path, underlying.access(path, options)),
    copy: (from, to, options) => gate("copy", from, underlying.copy(from, to, options)),
    copyFile: (from, to) => gate("copyFile", from, underlying.copyFile(from, to)),
    chmod: (path, mode) => gate("chmod", path, underlying.chmod(path, mode)),
    chown: (path, uid, gid) => gate("chown", path, underlying.chown(path, uid, gid)),
    exists: (path) => gate("exists", path, underlying.exists(path)),
    link: (from, to) => gate("link", from, underlying.link(from, to)),
    makeDirectory: (path, options) => gate("makeDirectory", path, underlying.makeDirectory(path, options)),
    makeTempDirectory: (options) =>
      gate("makeTempDirectory", options?.directory ?? "", underlying.makeTempDirectory(options)),
    makeTempDirectoryScoped: (options) =>
      gate("makeTempDirectoryScoped", options?.directory ?? "", underlying.makeTempDirectoryScoped(options)),
    makeTempFile: (options) => gate("makeTempFile", options?.directory ?? "", underlying.makeTempFile(options)),
    makeTempFileScoped: (options) =>
      gate("makeTempFileScoped", options?.directory ?? "", underlying.makeTempFileScoped(options)),
    open: (path, options) =>
      gate("open", path, Effect.map(underlying.open(path, options), (file) => wrapFile(file, path))),
    readDirectory: (path, options) => gate("readDirectory", path, underlying.readDirectory(path, options)),
    readFile: (path) => gate("readFile", path, underlying.readFile(path)),
    readFileString: (path, encoding) => gate("readFileString", path, underlying.readFileString(path, encoding)),
    readLink: (path) => gate("readLink", path, underlying.readLink(path)),
    realPath: (path) => gate("realPath", path, underlying.realPath(path)),
    remove: (path, options) => gate("remove", path, underlying.remove(path, options)),
    rename: (from, to) => gate("rename", from, underlying.rename(from, to)),
    sink: (path, options) =>
      Sink.unwrap(gate("sink", path, Effect.sync(() => underlying.sink(path, options)))),
    stat: (path) => gate("stat", path, underlying.stat(path)),
    stream: (path, options) => Stream.unwrap(gate("stream", path, Effect.sync(() => underlying.stream(path, options)))),
    symlink: (from, to) => gate("symlink", to, underlying.symlink(from, to)),
    truncate: (path, length) => gate("truncate", path, underlying.truncate(path, length)),
    utimes: (path, atime, mtime) => gate("utimes", path, underlying.utimes(path, atime, mtime)),
    watch: (path, options) => Stream.unwrap(gate("watch", path, Effect.sync(() => underlying.watch(path, options)))),
    writeFile: (path, data, options) =>
      gate("writeFile", path, underlying.writeFile(path, data, options), underlying.writeFile(path, half(data), options)),
    writeFileString: (path, data, options) =>
      gate(
        "writeFileString",
        path,
        underlying.writeFileString(path, data, options),
        underlying.writeFile(path, half(new TextEncoder().encode(data)), options)
      )
  }

  const controller: FaultController = {
    calls: Effect.sync(() => state.count),
    log: Effect.sync(() => [...state.log]),
    arm: (...faults) => Effect.sync(() => {
      state.faults = faults
    }),
    reset: Effect.sync(() => {
      state.count = 0
      state.log = []
      state.faults = []
      state.frozen = false
    }),
    frozen: Effect.sync(() => state.frozen)
  }
  return { fs, controller }
}

/**
 * A FileSystem that wraps the one in the context and fails, freezes or delays its N-th call.
 * The layer provides both the faulty `FileSystem` and this controller.
 */
export class FaultyFileSystem extends Context.Tag("tool-map/FaultyFileSystem")<FaultyFileSystem, FaultController>() {
  /** Wraps the FileSystem from the context; the `initial` faults are armed from the first call. */
  static readonly layer = (
    ...initial: ReadonlyArray<Fault>
  ): Layer.Layer<FileSystem.FileSystem | FaultyFileSystem, never, FileSystem.FileSystem> =>
    Layer.effectContext(
      Effect.map(FileSystem.FileSystem, (underlying) => {
        const { controller, fs } = makeFaultyFileSystem(underlying, ...initial)
        return Context.make(FileSystem.FileSystem, fs).pipe(Context.add(FaultyFileSystem, controller))
      })
    )
}
