import { Effect, Either, Layer } from "effect"
import * as NodeFs from "node:fs"
import {
  DEFAULT_INSPECT_CONCURRENCY,
  type DirEntry,
  type EntryKind,
  type FileStat,
  type FsFault,
  type FsOp,
  fromPathBytes,
  hasEscapedBytes,
  type Inspected,
  type InspectRequest,
  toPathBytes,
  type UserIdentity,
  withFaults,
  WalkerFs,
  WalkerFsError,
  type WalkerFsShape
} from "./WalkerFs.js"
import { withoutStackTraces } from "../inventory/domain/stackTraces.js"

/**
 * The `WalkerFs` port over `node:fs`: batches of stats in chunks of synchronous calls that
 * switch to a bounded pool of asynchronous ones on slow storage, names read as strings and
 * re-read as bytes only when they are not UTF-8 (see the lossless form in `WalkerFs`).
 */

/**
 * A failure met by the live port, built without Schema validation (the fields are typed) and
 * without a stack trace: misses are the common case (a PATH lookup of the probe names misses
 * most of them) and the trace, which nobody reads, costs more than the stat itself.
 */
const walkerFsError = (op: FsOp, path: string, code: string): WalkerFsError =>
  withoutStackTraces(() => new WalkerFsError({ op, path, code }, true))

/** The argument for a `node:fs` call: the string itself unless it holds escaped bytes. */
const nodePath = (text: string): string | Buffer => hasEscapedBytes(text) ? toPathBytes(text) : text

const fsError = (op: FsOp, path: string, cause: NodeJS.ErrnoException | null | undefined) =>
  walkerFsError(op, path, cause?.code ?? "EIO")

const kindOfDirent = (entry: NodeFs.Dirent<string | Buffer>): EntryKind =>
  entry.isFile()
    ? "file"
    : entry.isDirectory()
    ? "directory"
    : entry.isSymbolicLink()
    ? "symlink"
    : entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()
    ? "other"
    : "unknown"

const toFileStat = (stats: NodeFs.Stats): FileStat => ({
  kind: stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other",
  dev: stats.dev,
  ino: stats.ino,
  mode: stats.mode,
  uid: stats.uid,
  gid: stats.gid,
  size: stats.size,
  mtimeMs: stats.mtimeMs
})

const currentUser = (): UserIdentity | null =>
  typeof process.geteuid === "function" && typeof process.getegid === "function"
    ? { uid: process.geteuid(), gid: process.getegid(), groups: process.getgroups?.() ?? [] }
    : null

/**
 * The batch over node:fs callbacks: at most `concurrency` calls in flight, no Effect or Promise
 * per file. Wins where each call waits on a device or the network.
 */
const inspectAllAsync = (concurrency: number): WalkerFsShape["inspectAll"] => (requests) =>
  Effect.async<ReadonlyArray<Either.Either<Inspected, WalkerFsError>>>((resume) => {
    const total = requests.length
    const results = new Array<Either.Either<Inspected, WalkerFsError>>(total)
    let next = 0
    let inFlight = 0
    let done = 0
    let cancelled = false
    const finish = (index: number, result: Either.Either<Inspected, WalkerFsError>) => {
      results[index] = result
      done += 1
      inFlight -= 1
      if (cancelled) return
      if (done === total) resume(Effect.succeed(results))
      else launch()
    }
    const start = (index: number) => {
      const request = requests[index]!
      const path = nodePath(request.path)
      NodeFs.stat(path, (statError, stats) => {
        if (statError !== null) return finish(index, Either.left(fsError("stat", request.path, statError)))
        const stat = toFileStat(stats)
        if (!request.realpath) return finish(index, Either.right({ stat, realPath: null }))
        NodeFs.realpath.native(path, { encoding: "buffer" }, (realError, real) => {
          finish(
            index,
            realError !== null
              ? Either.left(fsError("realpath", request.path, realError))
              : Either.right({ stat, realPath: fromPathBytes(real) })
          )
        })
      })
    }
    const launch = () => {
      while (!cancelled && next < total && inFlight < concurrency) {
        const index = next
        next += 1
        inFlight += 1
        start(index)
      }
    }
    if (total === 0) return resume(Effect.succeed(results))
    launch()
    return Effect.sync(() => {
      cancelled = true
    })
  })

const errnoCode = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : "EIO"

/** One stat (and realpath) with the synchronous calls; a thrown errno becomes a Left. */
const inspectNodeSync = (request: InspectRequest): Either.Either<Inspected, WalkerFsError> => {
  const path = nodePath(request.path)
  const stats = Either.try({
    try: () => NodeFs.statSync(path, { throwIfNoEntry: false }),
    catch: (cause) => walkerFsError("stat", request.path, errnoCode(cause))
  })
  if (Either.isLeft(stats)) return Either.left(stats.left)
  if (stats.right === undefined) return Either.left(walkerFsError("stat", request.path, "ENOENT"))
  const stat = toFileStat(stats.right)
  if (!request.realpath) return Either.right({ stat, realPath: null })
  return Either.try({
    try: (): Inspected => ({ stat, realPath: fromPathBytes(NodeFs.realpathSync.native(path, { encoding: "buffer" })) }),
    catch: (cause) => walkerFsError("realpath", request.path, errnoCode(cause))
  })
}

/** Lets timers and I/O of the host run between two chunks of synchronous calls. */
const yieldToEventLoop = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** How the live port runs a batch. */
export type InspectStrategy = "auto" | "sync" | "async"

/** Requests per chunk of synchronous calls; the event loop runs between chunks. */
const SYNC_CHUNK = 256
/** A single call slower than this waits on a device or the network, not on the page cache. */
const SLOW_CALL_MS = 1
/** Slow calls in one chunk that make `auto` switch to the asynchronous pool. */
const SLOW_CALLS_TO_SWITCH = 8

/**
 * A batch in chunks of synchronous calls (several times faster than the thread pool for
 * metadata in the page cache), yielding to the event loop between chunks. Under `auto`, a chunk
 * in which at least a quarter (and at least SLOW_CALLS_TO_SWITCH) of the calls each took over
 * SLOW_CALL_MS, as on a network file system, sends the rest of the batch and every later batch
 * to the bounded asynchronous pool; a few slow calls from CPU contention do not.
 */
export const adaptiveInspectAll = (options: {
  readonly strategy: InspectStrategy
  readonly inspectSync: (request: InspectRequest) => Either.Either<Inspected, WalkerFsError>
  readonly inspectAsync: WalkerFsShape["inspectAll"]
  readonly chunk?: number
}): WalkerFsShape["inspectAll"] => {
  const { inspectAsync, inspectSync, strategy } = options
  const chunk = Math.max(1, options.chunk ?? SYNC_CHUNK)
  let slow = strategy === "async"
  return (requests) =>
    Effect.gen(function*() {
      if (slow) return yield* inspectAsync(requests)
      const results: Array<Either.Either<Inspected, WalkerFsError>> = []
      for (let start = 0; start < requests.length; start += chunk) {
        if (start > 0) yield* yieldToEventLoop
        const end = Math.min(requests.length, start + chunk)
        let slowCalls = 0
        for (let index = start; index < end; index++) {
          const started = performance.now()
          results.push(inspectSync(requests[index]!))
          if (performance.now() - started > SLOW_CALL_MS) slowCalls += 1
        }
        if (strategy === "auto" && slowCalls >= Math.max(SLOW_CALLS_TO_SWITCH, (end - start) / 4)) {
          slow = true
          if (end === requests.length) return results
          return [...results, ...yield* inspectAsync(requests.slice(end))]
        }
      }
      return results
    })
}

/** The live port over `node:fs`. */
export const makeNodeWalkerFs = (
  options: { readonly concurrency?: number; readonly strategy?: InspectStrategy } = {}
): WalkerFsShape => {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_INSPECT_CONCURRENCY)
  return {
    user: currentUser(),
    readDirectory: (path) =>
      Effect.async<ReadonlyArray<DirEntry>, WalkerFsError>((resume) => {
        const fail = (error: NodeJS.ErrnoException) => resume(Effect.fail(fsError("readDirectory", path, error)))
        // Names as strings are cheaper; Node turns bytes that are not UTF-8 into U+FFFD, and only
        // then is the directory read again as bytes.
        NodeFs.readdir(nodePath(path), { withFileTypes: true }, (error, entries) => {
          if (error !== null) return fail(error)
          if (!entries.some((entry) => entry.name.includes("\uFFFD"))) {
            return resume(Effect.succeed(entries.map((entry): DirEntry => ({
              name: entry.name,
              kind: kindOfDirent(entry),
              utf8: true
            }))))
          }
          NodeFs.readdir(nodePath(path), { withFileTypes: true, encoding: "buffer" }, (again, raw) => {
            if (again !== null) return fail(again)
            resume(Effect.succeed(raw.map((entry): DirEntry => {
              const name = fromPathBytes(entry.name)
              return { name, kind: kindOfDirent(entry), utf8: !hasEscapedBytes(name) }
            })))
          })
        })
      }),
    stat: (path) =>
      Effect.async<FileStat, WalkerFsError>((resume) => {
        NodeFs.stat(nodePath(path), (error, stats) =>
          resume(error !== null ? Effect.fail(fsError("stat", path, error)) : Effect.succeed(toFileStat(stats))))
      }),
    realpath: (path) =>
      Effect.async<string, WalkerFsError>((resume) => {
        NodeFs.realpath.native(nodePath(path), { encoding: "buffer" }, (error, real) =>
          resume(error !== null ? Effect.fail(fsError("realpath", path, error)) : Effect.succeed(fromPathBytes(real))))
      }),
    readlink: (path) =>
      Effect.async<string, WalkerFsError>((resume) => {
        NodeFs.readlink(nodePath(path), { encoding: "buffer" }, (error, target) =>
          resume(error !== null ? Effect.fail(fsError("readlink", path, error)) : Effect.succeed(fromPathBytes(target))))
      }),
    inspectAll: adaptiveInspectAll({
      strategy: options.strategy ?? "auto",
      inspectSync: inspectNodeSync,
      inspectAsync: inspectAllAsync(concurrency)
    })
  }
}

/** The port over `node:fs` (batches under the `auto` strategy). */
export const layer: Layer.Layer<WalkerFs> = Layer.sync(WalkerFs, () => makeNodeWalkerFs())

/** The port over `node:fs` with a chosen batch strategy (`auto` by default) and concurrency. */
export const layerWith = (
  options: { readonly concurrency?: number; readonly strategy?: InspectStrategy }
): Layer.Layer<WalkerFs> => Layer.sync(WalkerFs, () => makeNodeWalkerFs(options))

/** The port over `node:fs`, with faults injected at the given paths. */
export const layerWithFaults = (faults: ReadonlyArray<FsFault>): Layer.Layer<WalkerFs> =>
  Layer.sync(WalkerFs, () => withFaults(makeNodeWalkerFs(), faults))
