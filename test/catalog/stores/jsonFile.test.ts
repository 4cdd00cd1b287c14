import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { writeFileAtomic } from "../../../src/catalog/stores/jsonFile.js"

/** A pid that named a process which has exited. */
const deadPid = (): number => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout)

describe("writeFileAtomic", () => {
  it.scoped("removes the temp files killed writers of the same target left, and no other", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const dead = deadPid()
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000)
      const temps: ReadonlyArray<readonly [string, Date]> = [
        [`.router.index.tmp-${dead}-old`, minutesAgo(2)],
        [`.router.index.tmp-${dead}-fresh`, minutesAgo(0)],
        [`.router.index.tmp-${process.pid}-mine`, minutesAgo(2)],
        [`.router.index.tmp-${process.ppid}-live`, minutesAgo(2)],
        [".router.index.tmp-0f8e2b1c-9d3a-4c55-8e1f-2a6b7c8d9e0f", minutesAgo(120)],
        [".router.index.tmp-1a2b3c4d-0000-4c55-8e1f-2a6b7c8d9e0f", minutesAgo(30)],
        [`.other.json.tmp-${dead}-old`, minutesAgo(2)]
      ]
      for (const [name, mtime] of temps) {
        NodeFs.writeFileSync(`${dir}/${name}`, "partial")
        NodeFs.utimesSync(`${dir}/${name}`, mtime, mtime)
      }
      yield* TestClock.setTime(Date.now())
      yield* writeFileAtomic(`${dir}/router.index`, "index")
      expect((yield* fs.readDirectory(dir)).sort()).toEqual([
        `.other.json.tmp-${dead}-old`,
        ".router.index.tmp-1a2b3c4d-0000-4c55-8e1f-2a6b7c8d9e0f",
        `.router.index.tmp-${dead}-fresh`,
        `.router.index.tmp-${process.pid}-mine`,
        `.router.index.tmp-${process.ppid}-live`,
        "router.index"
      ].sort())
      expect(yield* fs.readFileString(`${dir}/router.index`)).toBe("index")
    }).pipe(Effect.provide(NodeContext.layer)))
})
