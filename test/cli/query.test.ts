import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { Walker } from "../../src/inventory/discover/Walker.js"
import { ScanProgress } from "../../src/inventory/ScanProgress.js"
import { inventoryLayerOver } from "../../src/layers/CoreLayer.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"
import { runCliOver, scanServicesWith } from "./inProcess.js"

/**
 * The CLI's inventory graph over a machine in `root`: an empty PATH, an in-memory walker that
 * finds nothing (a first scan takes milliseconds), the live bundle reader and writer, the data
 * dir `root/data`, the working directory `root`.
 */
const machineIn = (root: string) =>
  inventoryLayerOver(scanServicesWith(Walker.layerTest({ nodes: {} }))).pipe(
    Layer.provideMerge(Layer.merge(
      MachineEnvironment.layerTest({
        os: "linux",
        env: { PATH: "", HOME: NodePath.join(root, "home"), PLUGIN_DATA: NodePath.join(root, "data") },
        homedir: NodePath.join(root, "home"),
        cwd: root
      }),
      ScanProgress.silent
    )),
    Layer.provideMerge(NodeContext.layer)
  )

/** Runs `tool-map ARGS` as bin.ts does, on the machine in `root`: the exit code and what was printed. */
const run = (root: string, ...args: ReadonlyArray<string>) => runCliOver(machineIn(root), args)

/** A machine in a fresh temp dir: `home/` and `data/` exist, nothing else. */
const machine = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "query-cli-" })
  yield* fs.makeDirectory(NodePath.join(root, "home"))
  yield* fs.makeDirectory(NodePath.join(root, "data"))
  return { fs, root, data: NodePath.join(root, "data"), json: NodePath.join(root, "data", "tools.json") }
})

describe("a query's exit code comes from the real cause", () => {
  it.scopedLive("no bundle yet: the first scan runs, and the query answers from it", () =>
    Effect.gen(function*() {
      const { data, fs, root } = yield* machine
      expect(yield* run(root, "query", "tools", "--json")).toEqual({ code: 0, stdout: JSON.stringify({ stale: false, staleReason: null, tools: [] }, null, 2), stderr: "" })
      expect((yield* fs.readDirectory(data)).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
      const stale = yield* run(root, "query", "stale", "--json")
      expect([stale.code, JSON.parse(stale.stdout).stale, JSON.parse(stale.stdout).reason]).toEqual([0, false, null])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a first scan that meets another scan's lock exits 5 and says who holds it", () =>
    Effect.gen(function*() {
      const { data, fs, json, root } = yield* machine
      const lock = NodePath.join(data, ".tools.lock")
      // A live holder (this very process, started when it says): the writer waits for it, then gives up.
      yield* fs.writeFileString(lock, JSON.stringify({ pid: process.pid, nonce: "held-by-the-test", createdAt: new Date().toISOString() }))
      expect(yield* run(root, "query", "tools")).toEqual({
        code: 5,
        stdout: "",
        stderr: `tool-map: Cannot read the tool-map bundle at ${json}: no bundle existed and the first scan failed: The tool-map bundle is being written by another tool-map process (pid ${process.pid}): ${lock} is held. Wait for it to finish and retry; if no such process is running, delete ${lock}.`
      })
      expect((yield* fs.readDirectory(data)).sort()).toEqual([".tools.lock"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("an interrupted commit that cannot be repaired exits 3", () =>
    Effect.gen(function*() {
      const { data, fs, json, root } = yield* machine
      const journal = NodePath.join(data, ".tools.journal")
      yield* fs.writeFileString(journal, "not a journal")
      const result = yield* run(root, "query", "versions")
      expect([result.code, result.stdout]).toEqual([3, ""])
      expect(result.stderr.split("\n")).toHaveLength(1)
      expect(result.stderr).toMatch(new RegExp(`^tool-map: Cannot read the tool-map bundle at ${json}: Cannot write the tool-map bundle: .*${journal} failed: the commit journal is not a valid tool-map journal`))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a corrupt bundle exits 4 and is not rescanned", () =>
    Effect.gen(function*() {
      const { fs, json, root } = yield* machine
      yield* fs.writeFileString(json, "{ not json")
      expect(yield* run(root, "query", "mcp")).toEqual({
        code: 4,
        stdout: "",
        stderr: `tool-map: Cannot read the tool-map bundle at ${json}: it is not a valid tool-map bundle (corrupt or from an incompatible version); run \`tool-map scan --force\` to rebuild it`
      })
      expect(yield* fs.readFileString(json)).toBe("{ not json")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a --from that names no file of a bundle exits 2", () =>
    Effect.gen(function*() {
      const { root } = yield* machine
      expect(yield* run(root, "query", "which", "git", "--from", "inv.txt")).toEqual({
        code: 2,
        stdout: "",
        stderr: "tool-map: Cannot read the tool-map bundle at inv.txt: inv.txt names no file of a tool-map bundle; give one of the three files `tool-map scan PATH.md` writes: PATH.md, PATH.json or PATH.summary.md"
      })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("--from names a bundle by any of its three files and never writes", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* machine
      const out = NodePath.join(root, "out")
      expect(yield* run(root, "scan", "out/inv.md", "--quiet", "--no-probes")).toEqual({ code: 0, stdout: "", stderr: "" })
      const files = ["inv.json", "inv.md", "inv.summary.md"]
      const before = yield* Effect.forEach(files, (name) => fs.readFileString(NodePath.join(out, name)))
      const generation = JSON.parse(before[0]!).generation as string
      for (const name of files) {
        const stale = yield* run(root, "query", "stale", "--json", "--from", `out/${name}`)
        expect([stale.code, JSON.parse(stale.stdout).generation, JSON.parse(stale.stdout).repairPending, stale.stderr]).toEqual([0, generation, null, ""])
      }
      expect((yield* fs.readDirectory(out)).sort()).toEqual([...files, "inv.which.jsonl"])
      expect(yield* Effect.forEach(files, (name) => fs.readFileString(NodePath.join(out, name)))).toEqual(before)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("--from a path with no bundle exits 4 naming it, and writes nothing (no first scan)", () =>
    Effect.gen(function*() {
      const { data, fs, root } = yield* machine
      const typo = NodePath.join(root, "typo.md")
      expect(yield* run(root, "query", "tools", "--from", "typo.md")).toEqual({
        code: 4,
        stdout: "",
        stderr: `tool-map: Cannot read the tool-map bundle at typo.md: there is no tool-map bundle there (${NodePath.join(root, "typo.json")} does not exist). --from only reads a bundle; write one with \`tool-map scan ${typo}\``
      })
      // inv.summary.md names the bundle inv, or else the bundle inv.summary: neither exists.
      const summary = yield* run(root, "query", "tools", "--from", "inv.summary.md")
      expect([summary.code, summary.stderr]).toEqual([
        4,
        `tool-map: Cannot read the tool-map bundle at inv.summary.md: there is no tool-map bundle there (${NodePath.join(root, "inv.json")} or ${NodePath.join(root, "inv.summary.json")} does not exist). --from only reads a bundle; write one with \`tool-map scan ${NodePath.join(root, "inv.md")}\``
      ])
      expect((yield* fs.readDirectory(root)).sort()).toEqual(["data", "home"])
      expect(yield* fs.readDirectory(data)).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("--from over an interrupted commit reads the generation the repair would leave, and repairs nothing", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* machine
      const out = NodePath.join(root, "out")
      const files = ["inv.json", "inv.md", "inv.summary.md"]
      const contents = () => Effect.forEach(files, (name) => fs.readFileString(NodePath.join(out, name)))
      expect((yield* run(root, "scan", "out/inv.md", "--quiet", "--no-probes")).code).toBe(0)
      const old = yield* contents()
      expect((yield* run(root, "scan", "out/inv.md", "--quiet", "--no-probes")).code).toBe(0)
      const next = yield* contents()
      const generation = JSON.parse(next[0]!).generation as string
      // A commit of `generation` killed after its journal was published, before any swap.
      for (const [index, name] of files.entries()) {
        yield* fs.writeFileString(NodePath.join(out, `.${name}.${generation}.stage`), next[index]!)
        yield* fs.writeFileString(NodePath.join(out, name), old[index]!)
      }
      const journal = { format: "tool-map-journal/1", generation, state: "forward", files: files.map((target) => ({ target, stage: `.${target}.${generation}.stage`, backup: null })) }
      yield* fs.writeFileString(NodePath.join(out, ".inv.journal"), JSON.stringify(journal))
      const listing = (yield* fs.readDirectory(out)).sort()
      const stale = yield* run(root, "query", "stale", "--json", "--from", "out/inv.md")
      const message = `an interrupted write of the tool-map bundle in ${out} (generation ${generation}) is not repaired yet; the bundle it will be rolled forward to is read. The next tool-map run that can write to ${out} repairs it.`
      expect([stale.code, JSON.parse(stale.stdout).generation, JSON.parse(stale.stdout).repairPending]).toEqual([0, generation, message])
      expect((yield* fs.readDirectory(out)).sort()).toEqual(listing)
      expect(yield* contents()).toEqual(old)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a relative redirect is written and read against the environment's working directory", () =>
    Effect.gen(function*() {
      const { fs, root } = yield* machine
      expect(yield* run(root, "scan", "out/inv.md", "--quiet", "--no-probes")).toEqual({ code: 0, stdout: "", stderr: "" })
      expect((yield* fs.readDirectory(NodePath.join(root, "out"))).sort()).toEqual(["inv.json", "inv.md", "inv.summary.md", "inv.which.jsonl"])
      expect(yield* run(root, "query", "tools", "--json", "--from", "out/inv.md")).toEqual({ code: 0, stdout: JSON.stringify({ stale: false, staleReason: null, tools: [] }, null, 2), stderr: "" })
    }).pipe(Effect.provide(NodeContext.layer)))
})
