/**
 * The temp file a lock is written to before it is linked into place (`<lock>.<nonce>.tmp`) is
 * left behind by a taker killed between writing and removing it: one more per killed command
 * (issue 27, point 16, found beside the catalog's state files). The next taker removes those
 * whose writer is gone, by the rule that judges a lock: a dead pid, or no readable writer and
 * older than the grace.
 */
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, LogLevel, type Scope } from "effect"
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import { FileLock, type FileLockOptions, lockPathOf, lockTempPath, LockOwner, type LockOwnerShape } from "../../src/services/FileLock.js"

const FAST: Partial<FileLockOptions> = { lockWait: "150 millis", lockRetryInterval: "5 millis", unreadableLockGrace: "10 seconds" }

const onDisk = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Scope.Scope>) =>
  effect.pipe(Effect.provide(NodeFileSystem.layer), Logger.withMinimumLogLevel(LogLevel.Error))

const content = (pid: number, nonce: string) => JSON.stringify({ pid, nonce, createdAt: "2026-12-07T00:00:00.000Z" })

describe("FileLock's temp files", () => {
  it.scopedLive("a taker removes the temp files of killed takers of its lock, and keeps those of live ones and of other locks", () =>
    onDisk(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const lockPath = lockPathOf(NodePath.join(dir, "a.json"))
      const alive = new Set([70_001, 70_002])
      const owner = (pid: number): LockOwnerShape => ({ pid, isAlive: (other) => Effect.sync(() => alive.has(other)) })
      const dead = 70_003
      yield* fs.writeFileString(lockTempPath(lockPath, "killedTaker1"), content(dead, "killedTaker1"))
      yield* fs.writeFileString(lockTempPath(lockPath, "killedTaker2"), content(dead, "killedTaker2"))
      yield* fs.writeFileString(lockTempPath(`${lockPath}.someHolder.break`, "killedBreaker"), content(dead, "killedBreaker"))
      yield* fs.writeFileString(lockTempPath(lockPath, "liveTaker"), content(70_002, "liveTaker"))
      // Killed between creating and writing it: no writer to read, judged by its age.
      yield* fs.writeFileString(lockTempPath(lockPath, "tornOld"), "")
      const minuteAgo = new Date(Date.now() - 60_000)
      yield* fs.utimes(lockTempPath(lockPath, "tornOld"), minuteAgo, minuteAgo)
      yield* fs.writeFileString(lockTempPath(lockPath, "tornNew"), "")
      const other = lockTempPath(lockPathOf(NodePath.join(dir, "b.json")), "otherLock")
      yield* fs.writeFileString(other, content(dead, "otherLock"))

      const locks = yield* FileLock.make(FAST).pipe(Effect.provideService(LockOwner, owner(70_001)))
      yield* locks.withLock(lockPath, Effect.void)
      expect((yield* fs.readDirectory(dir)).sort()).toEqual([
        ".a.json.lock.liveTaker.tmp",
        ".a.json.lock.tornNew.tmp",
        ".b.json.lock.otherLock.tmp"
      ])
    })))

  it.scopedLive("with this process's identity, the temp file of a process killed with SIGKILL is removed", () =>
    onDisk(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const lockPath = lockPathOf(NodePath.join(dir, "a.json"))
      const killed = spawnSync(process.execPath, ["-e", "process.kill(process.pid, 'SIGKILL')"])
      expect(killed.signal).toBe("SIGKILL")
      yield* fs.writeFileString(lockTempPath(lockPath, "killedTaker"), content(killed.pid, "killedTaker"))
      const locks = yield* FileLock.make(FAST).pipe(Effect.provideService(LockOwner, LockOwner.live))
      yield* locks.withLock(lockPath, Effect.void)
      expect(yield* fs.readDirectory(dir)).toEqual([])
    })))
})
