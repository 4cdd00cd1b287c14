import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Logger, LogLevel, type Scope } from "effect"
import { execFileSync } from "node:child_process"
import * as NodePath from "node:path"
import { Fault, makeFaultyFileSystem } from "../../src/layers/FaultyFileSystem.js"
import {
  breakMarkerPath,
  FileLock,
  FileLocked,
  type FileLockOptions,
  lockPathOf,
  LockOwner,
  type LockOwnerShape
} from "../../src/services/FileLock.js"

/** Simulated processes: pids that are alive until killed. */
const makeProcesses = () => {
  const alive = new Set<number>()
  let next = 61_000
  return {
    spawn: (): number => {
      const pid = next++
      alive.add(pid)
      return pid
    },
    kill: (pid: number) => void alive.delete(pid),
    owner: (pid: number): LockOwnerShape => ({ pid, isAlive: (other) => Effect.sync(() => alive.has(other)) })
  }
}

const FAST: Partial<FileLockOptions> = { lockWait: "150 millis", lockRetryInterval: "5 millis", unreadableLockGrace: "10 seconds" }

const lockFor = (owner: LockOwnerShape, options: Partial<FileLockOptions> = FAST) =>
  FileLock.make(options).pipe(Effect.provideService(LockOwner, owner))

const onDisk = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Scope.Scope>) =>
  effect.pipe(Effect.provide(NodeFileSystem.layer), Logger.withMinimumLogLevel(LogLevel.Error))

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* fs.makeTempDirectoryScoped()
  return { fs, dir, lockPath: lockPathOf(NodePath.join(dir, "state.json")) }
})

describe("FileLock", () => {
  it("names the lock of a file after it, next to it", () => {
    expect(lockPathOf("/data/catalog/state/a.json")).toBe("/data/catalog/state/.a.json.lock")
    expect(breakMarkerPath("/data/.a.json.lock", "n1")).toBe("/data/.a.json.lock.n1.break")
  })

  it.scopedLive("writes its holder into the lock file and removes it on release", () =>
    onDisk(Effect.gen(function*() {
      const { dir, fs, lockPath } = yield* setup
      const processes = makeProcesses()
      const pid = processes.spawn()
      const locks = yield* lockFor(processes.owner(pid))
      const content = yield* Effect.scoped(Effect.gen(function*() {
        const held = yield* locks.acquire(lockPath)
        expect(held.brokeStale).toBe(false)
        return JSON.parse(yield* fs.readFileString(lockPath))
      }))
      expect(Object.keys(content).sort()).toEqual(["createdAt", "nonce", "pid"])
      expect(content.pid).toBe(pid)
      expect(yield* fs.readDirectory(dir)).toEqual([])
    })))

  it.scopedLive("a second taker waits for a live holder, then fails with FileLocked naming it", () =>
    onDisk(Effect.gen(function*() {
      const { fs, lockPath } = yield* setup
      const processes = makeProcesses()
      const first = processes.spawn()
      const a = yield* lockFor(processes.owner(first))
      const b = yield* lockFor(processes.owner(processes.spawn()))
      yield* a.acquire(lockPath)
      const since = JSON.parse(yield* fs.readFileString(lockPath)).createdAt as string
      const error = yield* Effect.flip(b.withLock(lockPath, Effect.void))
      expect(error).toEqual(new FileLocked({ path: lockPath, pid: first, since }))
    })))

  it.scopedLive("takers are served one at a time: a waiter gets the lock once the holder releases it", () =>
    onDisk(Effect.gen(function*() {
      const { lockPath } = yield* setup
      const processes = makeProcesses()
      const a = yield* lockFor(processes.owner(processes.spawn()), { ...FAST, lockWait: "5 seconds" })
      const b = yield* lockFor(processes.owner(processes.spawn()), { ...FAST, lockWait: "5 seconds" })
      const events: Array<string> = []
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(a.withLock(
        lockPath,
        Effect.gen(function*() {
          events.push("a in")
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(release)
          events.push("a out")
        })
      ))
      yield* Deferred.await(held)
      const second = yield* Effect.fork(b.withLock(lockPath, Effect.sync(() => void events.push("b in"))))
      yield* Effect.sleep("50 millis")
      expect(events).toEqual(["a in"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(events).toEqual(["a in", "a out", "b in"])
    })))

  it.scopedLive("breaks the lock of a dead holder at once and says so", () =>
    onDisk(Effect.gen(function*() {
      const { dir, fs, lockPath } = yield* setup
      const processes = makeProcesses()
      const dead = processes.spawn()
      const a = yield* lockFor(processes.owner(dead))
      // The holder dies holding the lock: its scope is never closed.
      yield* Effect.forkDaemon(Effect.scoped(Effect.zipRight(a.acquire(lockPath), Effect.never)))
      yield* Effect.sleep("20 millis")
      processes.kill(dead)
      const b = yield* lockFor(processes.owner(processes.spawn()))
      const held = yield* Effect.scoped(b.acquire(lockPath))
      expect(held.brokeStale).toBe(true)
      expect(yield* fs.readDirectory(dir)).toEqual([])
    })))

  it.scopedLive("a dangling symbolic link at the lock is stale at once, whatever the grace", () =>
    onDisk(Effect.gen(function*() {
      const { dir, fs, lockPath } = yield* setup
      yield* fs.symlink(NodePath.join(dir, "nowhere"), lockPath)
      const processes = makeProcesses()
      const locks = yield* lockFor(processes.owner(processes.spawn()))
      expect((yield* Effect.scoped(locks.acquire(lockPath))).brokeStale).toBe(true)
      expect(yield* fs.readDirectory(dir)).toEqual([])
    })))

  it.scopedLive("a lock file that names no pid is held for the grace period, then broken", () =>
    onDisk(Effect.gen(function*() {
      const { fs, lockPath } = yield* setup
      yield* fs.writeFileString(lockPath, "")
      const processes = makeProcesses()
      const patient = yield* lockFor(processes.owner(processes.spawn()))
      expect(yield* Effect.flip(patient.withLock(lockPath, Effect.void))).toEqual(
        new FileLocked({ path: lockPath, pid: null, since: null })
      )
      const hasty = yield* lockFor(processes.owner(processes.spawn()), { ...FAST, unreadableLockGrace: 0 })
      expect((yield* Effect.scoped(hasty.acquire(lockPath))).brokeStale).toBe(true)
    })))

  it.scopedLive("a FIFO at the lock is never opened: judged by its age like a lock that names no pid", () =>
    onDisk(Effect.gen(function*() {
      const { lockPath } = yield* setup
      execFileSync("mkfifo", [lockPath])
      const processes = makeProcesses()
      const patient = yield* lockFor(processes.owner(processes.spawn()))
      expect(yield* Effect.flip(patient.withLock(lockPath, Effect.void))).toEqual(
        new FileLocked({ path: lockPath, pid: null, since: null })
      )
      const hasty = yield* lockFor(processes.owner(processes.spawn()), { ...FAST, unreadableLockGrace: 0 })
      expect((yield* Effect.scoped(hasty.acquire(lockPath))).brokeStale).toBe(true)
    })))

  it.scopedLive("a lock of another pid scope is judged by its age, not its pid", () =>
    onDisk(Effect.gen(function*() {
      const { fs, lockPath } = yield* setup
      const owner: LockOwnerShape = { pid: 5, scope: "here/pid:[1]", startTicks: 1, isAlive: () => Effect.succeed(false) }
      const locks = yield* lockFor(owner, { ...FAST, foreignLockMaxAge: "1 minute" })
      const recent = new Date().toISOString()
      yield* fs.writeFileString(lockPath, JSON.stringify({ pid: 7, nonce: "foreign", createdAt: recent, scope: "elsewhere/pid:[2]", startTicks: 9 }))
      expect(yield* Effect.flip(locks.withLock(lockPath, Effect.void))).toEqual(new FileLocked({ path: lockPath, pid: 7, since: recent }))
      yield* fs.writeFileString(
        lockPath,
        JSON.stringify({ pid: 7, nonce: "foreign", createdAt: "2024-01-01T00:00:00.000Z", scope: "elsewhere/pid:[2]", startTicks: 9 })
      )
      expect((yield* Effect.scoped(locks.acquire(lockPath))).brokeStale).toBe(true)
    })))

  it.scopedLive("a release leaves alone a lock that was broken and taken by another meanwhile", () =>
    onDisk(Effect.gen(function*() {
      const { fs, lockPath } = yield* setup
      const processes = makeProcesses()
      const a = yield* lockFor(processes.owner(processes.spawn()))
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        yield* a.acquire(lockPath)
        // Someone judged the lock stale and took it: it is theirs now.
        yield* fs.writeFileString(lockPath, JSON.stringify({ pid: 99, nonce: "theirs", createdAt: "2024-01-01T00:00:00.000Z" }))
      })))
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(JSON.parse(yield* fs.readFileString(lockPath)).nonce).toBe("theirs")
    })))

  it.scopedLive("a taker stopped at any step of taking the lock never loses it: the lock file never exists without its holder", () =>
    onDisk(Effect.gen(function*() {
      const { dir, fs, lockPath } = yield* setup
      const processes = makeProcesses()
      // A dry run counts the file-system calls of one acquisition.
      const counted = makeFaultyFileSystem(fs)
      const dryRun = yield* lockFor(processes.owner(processes.spawn())).pipe(Effect.provideService(FileSystem.FileSystem, counted.fs))
      const calls = yield* Effect.scoped(Effect.zipRight(dryRun.acquire(lockPath), counted.controller.calls))
      expect(calls).toBeGreaterThan(0)
      const outcomes: Array<string> = []
      for (let at = 1; at <= calls; at++) {
        // Taker A is stopped (SIGSTOP) before its call `at`; taker B, which breaks a lock that names
        // no pid at once, tries meanwhile. Whoever gets the lock, the other must not.
        const stopped = yield* Deferred.make<void>()
        const reached = yield* Deferred.make<void>()
        const faulty = makeFaultyFileSystem(fs, Fault.hook(at, Effect.zipRight(Deferred.succeed(reached, undefined), Deferred.await(stopped))))
        const a = processes.spawn()
        const takerA = yield* lockFor(processes.owner(a)).pipe(Effect.provideService(FileSystem.FileSystem, faulty.fs))
        const b = processes.spawn()
        const takerB = yield* lockFor(processes.owner(b), { ...FAST, lockWait: 0, unreadableLockGrace: 0 })
        const aHeld = yield* Deferred.make<void>()
        const aDone = yield* Deferred.make<void>()
        const fiberA = yield* Effect.fork(Effect.either(takerA.withLock(lockPath, Effect.zipRight(Deferred.succeed(aHeld, undefined), Deferred.await(aDone)))))
        yield* Deferred.await(reached)
        const resultB = yield* Effect.either(Effect.scoped(Effect.gen(function*() {
          yield* takerB.acquire(lockPath)
          // B holds the lock: A, resumed, must not get it.
          yield* Deferred.succeed(stopped, undefined)
          const outcome = yield* Effect.raceFirst(
            Effect.as(Deferred.await(aHeld), "both held"),
            Effect.map(Fiber.join(fiberA), (resultA) =>
              Either.isLeft(resultA) && resultA.left._tag === "FileLocked" && resultA.left.pid === b ? "B held, A refused" : "A failed")
          )
          yield* Deferred.succeed(aDone, undefined)
          yield* Fiber.join(fiberA)
          return outcome
        })))
        if (Either.isRight(resultB)) {
          outcomes.push(resultB.right)
          continue
        }
        expect(resultB.left).toEqual(new FileLocked({ path: lockPath, pid: a, since: resultB.left._tag === "FileLocked" ? resultB.left.since : null }))
        yield* Deferred.succeed(stopped, undefined)
        yield* Deferred.await(aHeld)
        yield* Deferred.succeed(aDone, undefined)
        outcomes.push(Either.isRight(yield* Fiber.join(fiberA)) ? "A held, B refused" : "A failed")
      }
      // Before the lock is linked into place B takes it; from then on it names A (the calls after
      // the link: the temp file's removal, the listing for killed takers' temp files).
      expect(calls).toBe(4)
      expect(outcomes).toEqual(["B held, A refused", "B held, A refused", "A held, B refused", "A held, B refused"])
      expect(yield* fs.readDirectory(dir)).toEqual([])
    })))
})
