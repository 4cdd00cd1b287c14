/**
 * Atomic file writes: a reader sees the complete old or the complete new file, and temp files
 * that killed writers left are cleaned up by the next write of the same target. Shared by the
 * catalog's JSON files (catalog/stores/jsonFile.ts) and the gateway's tool snapshots.
 */
import { FileSystem, Path } from "@effect/platform"
import { Clock, Duration, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { LockOwner } from "./FileLock.js"

// A temp file of a writer that is gone (killed before it renamed or removed it) is removed by
// the next write of the same target once it is this old: its pid says the writer is dead, but
// a pid of another PID namespace sharing the directory would say so too, and no writer keeps
// its temp file for a minute. A temp of an earlier version names no pid: an hour.
const DEAD_TEMP_AGE = Duration.minutes(1)
const UNOWNED_TEMP_AGE = Duration.hours(1)

/** The temp file names of `base`'s writers: `.<base>.tmp-<pid>-<uuid>` (earlier: `.<base>.tmp-<uuid>`). */
const tempPrefix = (base: string) => `.${base}.tmp-`

/**
 * Removes the temp files beside `path` that writers killed mid-write left (a 50,000-tool router
 * index leaves 30 MB each): those of a dead pid older than a minute, those naming no pid older
 * than an hour. A failure only leaves them for the next write.
 */
const removeDeadTemps = (dir: string, base: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const paths = yield* Path.Path
    const owner = LockOwner.live
    const now = yield* Clock.currentTimeMillis
    const prefix = tempPrefix(base)
    for (const name of yield* fs.readDirectory(dir)) {
      if (!name.startsWith(prefix)) continue
      const pid = /^(\d+)-/.exec(name.slice(prefix.length))?.[1]
      if (pid !== undefined && (Number(pid) === owner.pid || (yield* owner.isAlive(Number(pid), null)))) continue
      const file = paths.join(dir, name)
      const modified = Option.getOrElse((yield* fs.stat(file)).mtime, () => new Date(now)).getTime()
      const age = Duration.toMillis(pid === undefined ? UNOWNED_TEMP_AGE : DEAD_TEMP_AGE)
      if (now - modified >= age) yield* fs.remove(file)
    }
  }).pipe(Effect.ignore)

// The targets this process has swept: temps are left by writers killed before this process
// began (or by rare kills since), so one sweep a target a process is enough, and the writes that
// follow (a gateway's snapshots, an agent's state on every load) do not list the directory again.
const swept = new Set<string>()

/**
 * Writes `content` to `path` so that a reader sees the complete old or the complete new file:
 * a temp file next to the target (never the OS temp dir: a rename across file systems fails),
 * fsync, rename, then fsync of the directory where the OS allows it. Temp files that killed
 * writers of the same target left are removed (`removeDeadTemps`, on the first write of the
 * target in this process). Fails with the platform's
 * error; the target keeps its old content then, and no temp file of this write stays.
 */
export const writeFileAtomically = Effect.fn("writeFileAtomically")(function*(
  path: string,
  content: string | Uint8Array,
  /** The file's mode (e.g. 0o600 for a file with secrets), set on the temp file before it is renamed: never readable by others, not even for a moment. */
  options: { readonly mode?: number | undefined } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  const dir = paths.dirname(path)
  const temp = paths.join(dir, `${tempPrefix(paths.basename(path))}${process.pid}-${randomUUID()}`)
  yield* fs.makeDirectory(dir, { recursive: true })
  yield* Effect.scoped(
    Effect.gen(function*() {
      const file = yield* fs.open(temp, { flag: "w", ...(options.mode === undefined ? {} : { mode: options.mode }) })
      // The umask may have taken bits the mode asked for.
      if (options.mode !== undefined) yield* fs.chmod(temp, options.mode)
      yield* file.writeAll(typeof content === "string" ? new TextEncoder().encode(content) : content)
      yield* file.sync
    })
  ).pipe(
    Effect.zipRight(fs.rename(temp, path)),
    // Failed or interrupted (SIGTERM between two calls): the target keeps its old content, no temp file stays.
    Effect.onError(() => fs.remove(temp).pipe(Effect.ignore))
  )
  // A directory fsync makes the rename durable; Windows cannot open a directory for it.
  yield* Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (handle) => handle.sync)).pipe(Effect.ignore)
  if (!swept.has(path)) {
    swept.add(path)
    yield* removeDeadTemps(dir, paths.basename(path))
  }
})
