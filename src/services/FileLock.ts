/**
 * The one lock of files tool-map writes that other tool-map processes may write too: the
 * bundle (BundleWriter) and the catalog's state, settings, metadata and exemption files.
 *
 * A lock is a file created exclusively next to what it guards, holding its writer's pid, a
 * nonce, when it was taken, and where (pid scope) and when (start ticks) the writer started.
 * A lock is stale when its writer is gone: a dead pid, or a pid now held by a process started
 * at another time; a lock written under another pid scope (another host or container sharing
 * the directory) when it is older than `foreignLockMaxAge`; a lock file that names no pid
 * after `unreadableLockGrace` (tool-map links a lock into place with its content, so only an
 * earlier version, or a file system without hard links, leaves one empty); a dangling
 * symbolic link at once. A stale lock is broken through a break marker named after
 * its holder, so two processes breaking it at once never remove a lock taken meanwhile. The
 * release removes the lock only while it still holds this taker's nonce.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Context, Duration, Effect, Either, Layer, Option, Schedule, Schema, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as NodePath from "node:path"
import { readRegularFile } from "./fileRead.js"
import { pidScope, processStartTicks } from "./processIdentity.js"

/** A lock holds a pid, a nonce and two times: anything larger is not a lock tool-map wrote. */
const LOCK_MAX_BYTES = 4096

/** The identity written into lock files and the test of whether a lock holder still runs. */
export interface LockOwnerShape {
  readonly pid: number
  /**
   * Where this owner's pids mean something (host and PID namespace): a lock written under
   * another scope is not judged by its pid. Absent: every lock is taken as this scope's.
   */
  readonly scope?: string
  /** This owner's start time (clock ticks since boot), to tell a reused pid from the writer. */
  readonly startTicks?: number | null
  /** Whether `pid` still names the lock's writer, which started at `startTicks` when known. */
  readonly isAlive: (pid: number, startTicks: number | null) => Effect.Effect<boolean>
}

let ownIdentity: { readonly scope: string; readonly startTicks: number | null } | undefined
/** This process's scope and start time, read on the first lock taken, not when the module loads for every command. */
const thisProcess = () => (ownIdentity ??= { scope: pidScope(), startTicks: processStartTicks(process.pid) })

/** Who takes a lock, injected so that tests can simulate several processes and dead ones. */
export class LockOwner extends Context.Tag("tool-map/LockOwner")<LockOwner, LockOwnerShape>() {
  /**
   * This process. A pid is alive unless signalling it fails with ESRCH, or (Linux) the process
   * it names now started at another time than the lock's writer: the pid was reused.
   */
  static readonly live: LockOwnerShape = {
    pid: process.pid,
    get scope() {
      return thisProcess().scope
    },
    get startTicks() {
      return thisProcess().startTicks
    },
    isAlive: (pid, startTicks) =>
      Effect.sync(() => {
        const signalled = Either.try({ try: () => process.kill(pid, 0), catch: (error) => error as NodeJS.ErrnoException })
        if (Either.isLeft(signalled) && signalled.left.code !== "EPERM") return false
        const current = startTicks === null ? null : processStartTicks(pid)
        return current === null || current === startTicks
      })
  }
  static readonly layer = Layer.succeed(this, LockOwner.live)
}

/** Timing of a lock. */
export interface FileLockOptions {
  /** How long a taker waits for a lock held by a live process before `FileLocked`. */
  readonly lockWait: Duration.DurationInput
  /** The pause between two attempts to take a held lock. */
  readonly lockRetryInterval: Duration.DurationInput
  /**
   * How long a lock file that names no pid (left by an earlier version, or on a file system
   * without hard links, by a writer killed between creating and writing it) is left alone
   * before it is treated as stale.
   */
  readonly unreadableLockGrace: Duration.DurationInput
  /**
   * How old a lock written under another pid scope (another host or container sharing the
   * directory) must be before it is treated as stale: its pid cannot be checked from here, and
   * a writer holds a lock for well under a second.
   */
  readonly foreignLockMaxAge: Duration.DurationInput
  /**
   * Whether a taker, once it holds the lock, removes the temp files beside it that takers
   * killed before removing them left (those whose writer is gone). Off where a repair under
   * the lock removes them already (the bundle's).
   */
  readonly removeStaleTemps: boolean
}

/** The defaults: wait up to 2 s for a live holder. */
export const defaultFileLockOptions: FileLockOptions = {
  lockWait: Duration.seconds(2),
  lockRetryInterval: Duration.millis(25),
  unreadableLockGrace: Duration.seconds(1),
  foreignLockMaxAge: Duration.minutes(1),
  removeStaleTemps: true
}

/** The lock file (or a break marker) could not be created, read or removed. */
export class FileLockError extends Schema.TaggedError<FileLockError>()("FileLockError", {
  path: Schema.String,
  operation: Schema.Literal("create", "read", "remove"),
  reason: Schema.String,
  /** The errno code (`EACCES`, `EROFS` …) when the system gave one. */
  code: Schema.NullOr(Schema.String)
}) {
  get message() {
    return `Cannot ${this.operation} the lock file ${this.path}: ${this.reason}`
  }
}

/** Another live process holds the lock. */
export class FileLocked extends Schema.TaggedError<FileLocked>()("FileLocked", {
  path: Schema.String,
  /** The holder's pid, or null when the lock file does not (yet) name one. */
  pid: Schema.NullOr(Schema.Number),
  /** When the holder took the lock (ISO 8601), when known. */
  since: Schema.NullOr(Schema.String)
}) {
  get message() {
    const holder = this.pid === null ? "another tool-map process" : `another tool-map process (pid ${this.pid})`
    return `${this.path} is held by ${holder}. Wait for it to finish and retry; if no such process is running, delete ${this.path}.`
  }
}

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string
  readonly nonce: string
  /** True when a stale lock was broken on the way. */
  readonly brokeStale: boolean
}

/** The break marker of a stale lock, named after its holder: `<lock>.<holder id>.break`. */
export const breakMarkerPath = (lockPath: string, holderId: string): string => `${lockPath}.${holderId}.break`

/**
 * The temp file a lock (or break marker) is written to before it is linked into place:
 * `<lock>.<nonce>.tmp`. A taker killed between the two leaves it behind.
 */
export const lockTempPath = (lockPath: string, nonce: string): string => `${lockPath}.${nonce}.tmp`

/** The errno codes of a file system where a hard link is impossible (FAT, some network mounts). */
export const NO_HARD_LINKS: ReadonlySet<string> = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "EMLINK", "ENOSYS"])

/** The errno code of a platform error (`ENOENT` …), when the system gave one. */
export const errnoCode = (error: PlatformError): string | null => {
  if (error._tag !== "SystemError") return null
  const cause: unknown = error.cause
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") return cause.code
  return null
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exceeded",
  ENOTDIR: "a component of the path is not a directory",
  EEXIST: "it already exists",
  EISDIR: "it is a directory",
  ENOENT: "it does not exist",
  EIO: "an input/output error occurred",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links"
}

/** A platform error in words: "permission denied (EACCES)", else the error's own message. */
export const describePlatformError = (error: PlatformError): string => {
  const code = errnoCode(error)
  const text = code === null ? undefined : ERRNO_TEXT[code]
  return text === undefined || code === null ? error.message : `${text} (${code})`
}

const LockContent = Schema.Struct({
  pid: Schema.Int.pipe(Schema.positive()),
  nonce: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/)),
  createdAt: Schema.String,
  // Absent in locks of earlier versions, which are judged as this scope's.
  scope: Schema.optional(Schema.String),
  startTicks: Schema.optional(Schema.NullOr(Schema.Int))
})
const decodeLockContent = Schema.decodeUnknownOption(Schema.parseJson(LockContent))

/** Who holds a lock file (or a break marker), as read from it. */
interface Holder {
  /** The nonce, `ino<inode>` for a file without readable content, `symlink` for a symbolic link. */
  readonly id: string
  readonly pid: number | null
  readonly createdAt: string | null
  readonly mtimeMs: number | null
  readonly scope: string | null
  readonly startTicks: number | null
}

const isNotFound = (error: PlatformError) => error._tag === "SystemError" && error.reason === "NotFound"
const isAlreadyExists = (error: PlatformError) => error._tag === "SystemError" && error.reason === "AlreadyExists"

const encoder = new TextEncoder()
const newNonce = () => randomBytes(9).toString("base64url")

const makeFileLock = (options: FileLockOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const owner = yield* LockOwner

    const fail = (operation: FileLockError["operation"], path: string) => (error: PlatformError) =>
      new FileLockError({ path, operation, reason: describePlatformError(error), code: errnoCode(error) })

    const removeIfPresent = (path: string) => fs.remove(path, { force: true }).pipe(Effect.mapError(fail("remove", path)))

    /** A lock whose content is not a holder tool-map writes (torn, foreign, not a regular file): judged by its age. */
    const unknownHolder = (path: string) =>
      Effect.map(fs.stat(path), (info) =>
        Option.some<Holder>({
          id: `ino${Option.getOrElse(info.ino, () => 0)}`,
          pid: null,
          createdAt: null,
          mtimeMs: Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => 0),
          scope: null,
          startTicks: null
        }))

    // Not found by its target: gone, or a dangling symbolic link, which no writer makes and
    // which would otherwise be "held" forever: stale at once.
    const goneOrDangling = (path: string) =>
      fs.readLink(path).pipe(
        Effect.as(Option.some<Holder>({ id: "symlink", pid: null, createdAt: null, mtimeMs: 0, scope: null, startTicks: null })),
        Effect.catchAll(() => Effect.succeedNone)
      )

    const readHolder = (path: string): Effect.Effect<Option.Option<Holder>, FileLockError> =>
      readRegularFile(path, LOCK_MAX_BYTES).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.flatMap(Option.match({
          onNone: () => goneOrDangling(path),
          onSome: (bytes) =>
            Option.match(decodeLockContent(new TextDecoder().decode(bytes)), {
              onSome: (lock) =>
                Effect.succeedSome<Holder>({
                  id: lock.nonce,
                  pid: lock.pid,
                  createdAt: lock.createdAt,
                  mtimeMs: null,
                  scope: lock.scope ?? null,
                  startTicks: lock.startTicks ?? null
                }),
              onNone: () => unknownHolder(path)
            })
        })),
        // Not a regular file, or too large: no lock tool-map wrote.
        Effect.catchTag("FileRefused", () => unknownHolder(path)),
        Effect.catchIf(isNotFound, () => goneOrDangling(path)),
        Effect.mapError(fail("read", path))
      )

    const isStale = (holder: Holder) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (holder.pid === null) return now - (holder.mtimeMs ?? 0) > Duration.toMillis(options.unreadableLockGrace)
        if (holder.scope !== null && owner.scope !== undefined && holder.scope !== owner.scope) {
          const created = holder.createdAt === null ? Number.NaN : Date.parse(holder.createdAt)
          return Number.isNaN(created) || now - created > Duration.toMillis(options.foreignLockMaxAge)
        }
        if (holder.pid === owner.pid) {
          // Our own pid: this very process, unless the lock's writer started at another time.
          return holder.startTicks !== null && owner.startTicks != null && holder.startTicks !== owner.startTicks
        }
        return !(yield* owner.isAlive(holder.pid, holder.startTicks))
      })

    /** Creates `path` by opening it exclusively, then writing `content`: a gap in which it is empty. */
    const openExclusive = (path: string, content: string) =>
      Effect.scoped(
        Effect.gen(function*() {
          const file = yield* fs.open(path, { flag: "wx" })
          yield* file.writeAll(encoder.encode(content)).pipe(
            Effect.tapError(() => Effect.ignore(fs.remove(path, { force: true })))
          )
        })
      )

    /**
     * Creates `path` exclusively, already holding `content`: written to a temp file next to it,
     * then hard-linked into place, so the file never exists empty (a writer stopped between
     * creating and writing a lock would lose it to a taker that breaks nameless locks). False
     * when `path` already exists, or when a repair removed the temp file meanwhile. Where hard
     * links are impossible, an exclusive open and a write.
     */
    const createExclusive = (path: string, content: string) => {
      const temp = lockTempPath(path, newNonce())
      return Effect.acquireUseRelease(
        fs.writeFile(temp, encoder.encode(content), { flag: "wx" }),
        () =>
          fs.link(temp, path).pipe(
            Effect.as(true),
            Effect.catchIf((error) => isAlreadyExists(error) || isNotFound(error), () => Effect.succeed(false)),
            Effect.catchIf((error) => NO_HARD_LINKS.has(errnoCode(error) ?? ""), () => Effect.as(openExclusive(path, content), true))
          ),
        () => Effect.ignore(fs.remove(temp, { force: true }))
      ).pipe(
        Effect.catchIf(isAlreadyExists, () => Effect.succeed(false)),
        Effect.mapError(fail("create", path))
      )
    }

    const lockContent = (nonce: string, now: number) =>
      JSON.stringify({
        pid: owner.pid,
        nonce,
        createdAt: new Date(now).toISOString(),
        ...(owner.scope === undefined ? {} : { scope: owner.scope, startTicks: owner.startTicks ?? null })
      })

    /**
     * Breaks a stale lock. Only the process that creates the break marker named after the stale
     * holder may remove it, and only after reading that the lock is still that holder's: two
     * processes breaking the same stale lock at once can never remove a lock taken meanwhile.
     * False when another live process is breaking it right now.
     */
    const breakStale = (lockPath: string, stale: Holder) => {
      const markerPath = breakMarkerPath(lockPath, stale.id)
      return Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* Effect.acquireUseRelease(
          createExclusive(markerPath, lockContent(newNonce(), now)),
          (claimed) =>
            claimed
              ? Effect.gen(function*() {
                const current = yield* readHolder(lockPath)
                if (Option.isSome(current) && current.value.id === stale.id) yield* removeIfPresent(lockPath)
                return true
              })
              : Effect.gen(function*() {
                const breaker = yield* readHolder(markerPath)
                if (Option.isNone(breaker)) return true
                if (!(yield* isStale(breaker.value))) return false
                yield* removeIfPresent(markerPath)
                return true
              }),
          (claimed) => (claimed ? Effect.ignore(fs.remove(markerPath, { force: true })) : Effect.void)
        )
      })
    }

    /**
     * Removes the temp files of this lock (and of its break markers) that takers killed between
     * writing and removing them left beside it, one per killed taker: those whose writer is gone
     * by the rule of a stale lock. A live taker's temp file stays. Best effort: a failure leaves
     * them to the next taker.
     */
    const removeStaleTemps = (lockPath: string) => {
      const dir = NodePath.dirname(lockPath)
      const lockName = NodePath.basename(lockPath).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      const temp = new RegExp(`^${lockName}\\.(?:[A-Za-z0-9_-]{1,128}\\.break\\.)?[A-Za-z0-9_-]{1,128}\\.tmp$`)
      return fs.readDirectory(dir).pipe(
        Effect.flatMap((names) =>
          Effect.forEach(names.filter((name) => temp.test(name)), (name) => {
            const path = NodePath.join(dir, name)
            return Effect.flatMap(readHolder(path), (holder) =>
              Option.isSome(holder) && holder.value.id !== "symlink"
                ? Effect.flatMap(isStale(holder.value), (stale) => (stale ? removeIfPresent(path) : Effect.void))
                : Effect.void)
          }, { discard: true })
        ),
        Effect.ignore
      )
    }

    /** Takes the lock, waiting up to `lockWait` for a live holder and breaking a stale one. */
    const take = Effect.fn("FileLock.take")(function*(lockPath: string) {
      const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(options.lockWait)
      let brokeStale = false
      while (true) {
        const now = yield* Clock.currentTimeMillis
        const nonce = newNonce()
        if (yield* createExclusive(lockPath, lockContent(nonce, now))) {
          if (options.removeStaleTemps) yield* removeStaleTemps(lockPath)
          return { path: lockPath, nonce, brokeStale } satisfies HeldLock
        }
        const holder = yield* readHolder(lockPath)
        // None: released between the two calls; take it at once, unless the deadline is past.
        if (Option.isSome(holder) && (yield* isStale(holder.value)) && (yield* breakStale(lockPath, holder.value))) {
          brokeStale = true
          continue
        }
        if ((yield* Clock.currentTimeMillis) >= deadline) {
          return yield* Option.match(holder, {
            onNone: () => new FileLocked({ path: lockPath, pid: null, since: null }),
            onSome: (held) => new FileLocked({ path: lockPath, pid: held.pid, since: held.createdAt })
          })
        }
        if (Option.isNone(holder)) continue
        // The lock's acquisition is uninterruptible; the wait between attempts need not be.
        yield* Effect.interruptible(Effect.sleep(options.lockRetryInterval))
      }
    })

    /** Removes the lock, only while it is still ours: a lock broken as stale and taken by another is theirs. */
    const release = (held: HeldLock) =>
      readHolder(held.path).pipe(
        Effect.flatMap((holder) =>
          Option.isSome(holder) && holder.value.id === held.nonce ? removeIfPresent(held.path) : Effect.void
        ),
        Effect.retry(Schedule.recurs(2)),
        Effect.catchAll((error) =>
          Effect.logWarning(`tool-map could not release the lock ${held.path}: ${error.reason}; the next run breaks it.`)
        )
      )

    const acquire = (lockPath: string) => Effect.acquireRelease(take(lockPath), release)

    return FileLock.of({
      acquire,
      withLock: (lockPath, effect) => Effect.scoped(Effect.zipRight(acquire(lockPath), effect))
    })
  })

/** Takes and releases lock files, for this FileSystem and LockOwner. */
export class FileLock extends Context.Tag("tool-map/FileLock")<FileLock, {
  /**
   * Takes the lock file at `lockPath` (its directory must exist), waiting up to `lockWait`
   * for a live holder and breaking a stale one; released when the scope closes, whatever the
   * exit. Taking it is uninterruptible, so a lock file never leaks.
   */
  readonly acquire: (lockPath: string) => Effect.Effect<HeldLock, FileLockError | FileLocked, Scope.Scope>
  /** Runs `effect` while holding the lock at `lockPath`. */
  readonly withLock: <A, E, R>(
    lockPath: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | FileLockError | FileLocked, Exclude<R, Scope.Scope>>
}>() {
  /** Locks with the given timing, for this FileSystem and LockOwner. */
  static readonly make = (options: Partial<FileLockOptions> = {}) => makeFileLock({ ...defaultFileLockOptions, ...options })
  /** Locks with the given timing over the platform FileSystem and the provided LockOwner. */
  static readonly layerWith = (options: Partial<FileLockOptions> = {}) => Layer.effect(FileLock, FileLock.make(options))
  /** The live locks: they name this process. */
  static readonly layer = FileLock.layerWith().pipe(Layer.provide(LockOwner.layer))
}

/** The lock file guarding `file`: `.<name>.lock` next to it. */
export const lockPathOf = (file: string): string => NodePath.join(NodePath.dirname(file), `.${NodePath.basename(file)}.lock`)
