import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Logger, Option } from "effect"
import * as NodePath from "node:path"
import { BundleWriter } from "../../../src/inventory/bundle/BundleWriter.js"
import {
  boundHistory,
  decodeHistory,
  entryBytes,
  extendHistory,
  type HistoryEntry,
  type HistoryFile,
  historyFromLegacy,
  historyOfCommit,
  type PriorGeneration,
  renderHistory
} from "../../../src/inventory/bundle/history.js"
import { bundlePathsForDir } from "../../../src/inventory/bundle/location.js"
import type { GenerationDigest } from "../../../src/inventory/domain/drift.js"
import { LockOwner } from "../../../src/services/FileLock.js"

/** A digest of generation `n` whose tools are `names` (each at /bin/NAME). */
const digest = (n: number, names: ReadonlyArray<string>): GenerationDigest => ({
  generation: `gen-${n}`,
  generatedAt: `2026-12-0${n}T00:00:00.000Z`,
  tools: [...names].sort().map((name) => ({ name, path: `/bin/${name}` })),
  versions: [],
  items: []
})

const entry = (n: number, names: ReadonlyArray<string>): HistoryEntry => ({ number: n, committedAt: `2026-12-0${n}T00:00:01.000Z`, digest: digest(n, names) })

const numbers = (file: HistoryFile) => file.entries.map((kept) => kept.number)

describe("the history's bound (issue 29, point 4)", () => {
  it("keeps the newest entries that fit the byte budget and the count, dropping the oldest first, never fewer than two", () => {
    const entries = [entry(5, ["a"]), entry(4, ["b"]), entry(3, ["c"]), entry(2, ["d"]), entry(1, ["e"])]
    const size = entryBytes(entries[0]!)
    expect(entries.every((kept) => entryBytes(kept) === size)).toBe(true)
    expect(boundHistory(entries, { budgetBytes: 3 * size, maxEntries: 64 }).map((kept) => kept.number)).toEqual([5, 4, 3])
    expect(boundHistory(entries, { budgetBytes: 3 * size - 1, maxEntries: 64 }).map((kept) => kept.number)).toEqual([5, 4])
    expect(boundHistory(entries, { budgetBytes: 100 * size, maxEntries: 4 }).map((kept) => kept.number)).toEqual([5, 4, 3, 2])
    expect(boundHistory(entries, { budgetBytes: 1, maxEntries: 1 }).map((kept) => kept.number)).toEqual([5, 4])
    // An entry that does not fit drops every older one too: no gap in what is kept.
    const big = entry(3, Array.from({ length: 50 }, (_, i) => `tool${i}`))
    expect(boundHistory([entries[0]!, entries[1]!, big, entries[3]!, entries[4]!], { budgetBytes: 4 * size, maxEntries: 64 }).map((kept) => kept.number)).toEqual([5, 4])
  })

  it.prop("whatever is committed, the kept entries fit the bounds (beyond the two always kept), are the newest and number down without a repeat", [
    fc.array(fc.subarray(["a", "b", "c", "d", "e", "f"]), { minLength: 1, maxLength: 30 }),
    fc.integer({ min: 1, max: 8 }),
    fc.integer({ min: 200, max: 2_000 })
  ], ([scans, maxEntries, budgetBytes]) => {
    const bounds = { budgetBytes, maxEntries }
    let file = Option.none<HistoryFile>()
    scans.forEach((names, index) => {
      file = Option.some(extendHistory(file, digest(index + 1, names), `t${index + 1}`, bounds))
    })
    const last = Option.getOrThrow(file)
    expect(last.number).toBe(scans.length)
    const sizes = last.entries.map(entryBytes)
    const total = sizes.reduce((sum, size) => sum + size, 0)
    expect(last.entries.length <= 2 || (last.entries.length <= maxEntries && total <= budgetBytes)).toBe(true)
    const kept = numbers(last)
    expect(kept).toEqual([...kept].sort((a, b) => b - a))
    expect(new Set(kept).size).toBe(kept.length)
    // The newest entry holds what the last scan found.
    expect(last.entries[0]!.digest.tools.map((tool) => tool.name)).toEqual([...scans[scans.length - 1]!].sort())
    // Consecutive kept entries differ: an identical scan adds none.
    for (let i = 1; i < last.entries.length; i++) expect(last.entries[i]!.digest.tools).not.toEqual(last.entries[i - 1]!.digest.tools)
  })
})

describe("extendHistory: an identical scan pushes nothing out", () => {
  it("numbers every commit, keeps one entry for a run of identical ones, and tags the file with the newest generation", () => {
    const first = extendHistory(Option.none(), digest(1, ["a"]), "t1")
    expect([first.number, first.generation, numbers(first)]).toEqual([1, "gen-1", [1]])
    const second = extendHistory(Option.some(first), digest(2, ["a", "b"]), "t2")
    const same = extendHistory(Option.some(second), digest(3, ["a", "b"]), "t3")
    expect(same).toEqual({
      format: "tool-map-history/1",
      generation: "gen-3",
      generatedAt: "2026-12-03T00:00:00.000Z",
      number: 3,
      committedAt: "t3",
      entries: [{ number: 2, committedAt: "t2", digest: digest(2, ["a", "b"]) }, { number: 1, committedAt: "t1", digest: digest(1, ["a"]) }]
    })
    expect(numbers(extendHistory(Option.some(same), digest(4, ["b"]), "t4"))).toEqual([4, 2, 1])
  })

  it("a bundle written before the history: its digest and its digest file's, numbered 1 and 2", () => {
    const legacy = historyFromLegacy(digest(2, ["b"]), Option.some(digest(1, ["a"])))
    expect([legacy.number, legacy.generation, numbers(legacy), legacy.entries.map((kept) => kept.committedAt)]).toEqual([2, "gen-2", [2, 1], ["2026-12-02T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]])
    expect(numbers(historyFromLegacy(digest(2, ["b"]), Option.none()))).toEqual([1])
  })

  it("decodes what it renders, and refuses what is not a history", () => {
    const file = extendHistory(Option.some(historyFromLegacy(digest(2, ["b"]), Option.some(digest(1, ["a"])))), digest(3, ["c"]), "t3")
    expect(decodeHistory(renderHistory(file))).toEqual(Option.some(file))
    const refused = [
      "",
      "{",
      "[]",
      JSON.stringify({ generation: "gen-1", previous: digest(1, ["a"]) }),
      JSON.stringify({ ...file, format: "tool-map-history/2" }),
      JSON.stringify({ ...file, entries: [] }),
      JSON.stringify({ ...file, number: 1.5 }),
      JSON.stringify({ ...file, entries: [file.entries[1], file.entries[0]] }),
      JSON.stringify({ ...file, entries: [{ ...file.entries[0], number: 4 }] }),
      JSON.stringify({ ...file, entries: [{ ...file.entries[0], digest: { tools: 1 } }] })
    ]
    expect(refused.map((text) => Option.isNone(decodeHistory(text)))).toEqual(refused.map(() => true))
  })
})

describe("the history in a commit: read and extended under the bundle's lock", () => {
  const filesOf = (generation: string) => ({
    json: `${JSON.stringify({ generation })}\n`,
    markdown: `<!-- tool-map generation=${generation} -->\n`,
    summary: `<!-- tool-map generation=${generation} -->\n`
  })
  const prior: PriorGeneration = { digest: Option.none(), legacy: Option.none() }

  it.scopedLive("a first commit writes none; two writers at once each extend what the other committed; a corrupt history is replaced, with a warning, and the commit goes on", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "history-" })
      const paths = bundlePathsForDir(dir)
      const writer = yield* BundleWriter.make({ lockWait: "10 seconds", lockRetryInterval: "5 millis" }).pipe(Effect.provideService(LockOwner, LockOwner.live))
      const commit = (n: number, names: ReadonlyArray<string>, replaced: PriorGeneration = prior) =>
        writer.commit(paths, `gen-${n}`, { ...filesOf(`gen-${n}`), history: historyOfCommit(paths, replaced, digest(n, names)) })
      const read = Effect.map(fs.readFileString(NodePath.join(dir, "tools.history.json")), (text) => Option.getOrThrow(decodeHistory(text)))
      // A first scan (no bundle, no history) writes no history, as no generation is replaced.
      yield* commit(1, ["a"])
      expect((yield* fs.readDirectory(dir)).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md"])
      // The next replaces generation 1: the history starts from it (what the scan read of the bundle in place).
      yield* commit(2, ["b"], { digest: Option.some(digest(1, ["a"])), legacy: Option.some(historyFromLegacy(digest(1, ["a"]), Option.none())) })
      yield* Effect.all([commit(3, ["c"]), commit(4, ["d"])], { concurrency: 2 })
      const all = yield* read
      expect([all.number, numbers(all)]).toEqual([4, [4, 3, 2, 1]])
      expect(all.entries.slice(0, 2).map((kept) => kept.digest.generation).sort()).toEqual(["gen-3", "gen-4"])

      yield* fs.writeFileString(NodePath.join(dir, "tools.history.json"), "{\"format\": \"tool-map-history/1\"")
      const logged: Array<string> = []
      const logger = Logger.make(({ message }) => logged.push(String(message)))
      yield* commit(5, ["e"]).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(logged).toEqual([`tool-map: the history ${dir}/tools.history.json was not kept: it is not the history of a tool-map bundle (corrupt or from an incompatible version); it is replaced by a new one`])
      const fresh = yield* read
      expect([fresh.number, fresh.generation, numbers(fresh)]).toEqual([1, "gen-5", [1]])
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
