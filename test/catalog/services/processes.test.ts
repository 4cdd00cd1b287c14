import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { AgentRestrictions } from "../../../src/catalog/services/AgentRestrictions.js"
import { CatalogLoads } from "../../../src/catalog/services/CatalogLoads.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { CatalogSettings } from "../../../src/catalog/stores/CatalogSettings.js"
import { CatalogLayer } from "../../../src/layers/HostLayer.js"
import { FileLock, LockOwner, type LockOwnerShape } from "../../../src/services/FileLock.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { makeMemoryHost } from "../../../examples/minimal-host/host.js"
import { TOOLS } from "./embedded.js"

type Process = Layer.Layer.Success<ReturnType<typeof CatalogLayer>>

/** Runs an effect in one simulated process. */
type Run = <A, E>(effect: Effect.Effect<A, E, Process>) => Effect.Effect<A, E>

let nextPid = 72_000

/**
 * One simulated tool-map process over the catalog in `dir`: its own memory host, catalog graph
 * (stores, memory copies, sessions) and lock owner, sharing only the files with the others.
 */
const processOver = (dir: string, extra: Layer.Layer<never, never, FileSystem.FileSystem> | Layer.Layer<FileLock, never, FileSystem.FileSystem> = Layer.empty) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: TOOLS })
    const owner: LockOwnerShape = { pid: nextPid++, isAlive: () => Effect.succeed(true) }
    const context = yield* Layer.build(
      CatalogLayer({ dir }).pipe(
        Layer.provide(Layer.mergeAll(host.port, Layer.succeed(LockOwner, owner), extra, MachineEnvironment.layerTest({})))
      )
    )
    const run: Run = (effect) => Effect.provide(effect, context)
    return run
  })

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

const stateFile = (dir: string, agentId: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return JSON.parse(yield* fs.readFileString(path.join(dir, "state", `${agentId}.json`)))
  })

const agent = { id: "a" }

const load = (targets: ReadonlyArray<string>) => Effect.flatMap(CatalogLoads, (loads) => loads.load(agent, targets))

/** Every process knows the agent (and holds its empty record in memory) before the race starts. */
const attachAll = (processes: ReadonlyArray<Run>) =>
  Effect.forEach(processes, (run) => run(Effect.flatMap(AgentRestrictions, (restrictions) => restrictions.attach(agent))), {
    discard: true
  })

describe("the catalog shared by processes", () => {
  it.scopedLive("processes loading different tools into one agent at once each report only the tools they loaded", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const targets = ["mcp__github__create_issue", "mcp__github__search_code", "mcp__slack__list_channels", "mcp__slack__post_message", "fs_tree"]
      const processes = yield* Effect.forEach(targets, () => processOver(dir))
      yield* attachAll(processes)
      const results = yield* Effect.forEach(targets, (target, i) => processes[i]!(load([target])), { concurrency: "unbounded" })
      expect(results.map((result) => result.added)).toEqual(targets.map((target) => [target]))
      expect(results.map((result) => result.text.split("\n").slice(1))).toEqual(targets.map((target) => [`  ${target}`]))
      expect(results.map((result) => result.text.startsWith("Loaded 1 tool(s), "))).toEqual(targets.map(() => true))
      const stored = yield* stateFile(dir, "a")
      expect([...stored.state.loaded].sort()).toEqual([...targets].sort())
      expect(stored.order.slice(8).sort()).toEqual([...targets].sort())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a load after another process's load reports its own group only, and an unload its own names", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [first, second] = [yield* processOver(dir), yield* processOver(dir)]
      yield* attachAll([first, second])
      expect((yield* first(load(["mcp__github__create_issue"]))).added).toEqual(["mcp__github__create_issue"])
      // The second process's memory copy still holds the empty record it read on attach.
      const slack = yield* second(load(["slack"]))
      expect(slack.added).toEqual(["mcp__slack__list_channels", "mcp__slack__post_message"])
      expect(slack.text.split("\n")[0]!.startsWith("Loaded 2 tool(s), ")).toBe(true)
      const unloaded = yield* first(Effect.flatMap(CatalogLoads, (loads) => loads.unload(agent, ["slack", "mcp__github__create_issue"])))
      expect(unloaded.removed).toEqual(["mcp__github__create_issue", "mcp__slack__list_channels", "mcp__slack__post_message"])
      expect((yield* stateFile(dir, "a")).state).toEqual({ loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a tool called directly in one process while another loads keeps both loads", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [caller, loader] = [yield* processOver(dir), yield* processOver(dir)]
      yield* attachAll([caller, loader])
      const rescue = Effect.flatMap(CatalogLoads, (loads) => loads.beforeCall(agent, "fs_tree"))
      // In turn (the caller's memory copy is stale by then), then both at once.
      yield* loader(load(["slack"]))
      expect(yield* caller(rescue)).toEqual({ _tag: "Proceed" })
      expect((yield* stateFile(dir, "a")).state).toMatchObject({ loaded: ["fs_tree"], groups: ["/communication/slack"] })
      const [decision] = yield* Effect.all([
        caller(Effect.flatMap(CatalogLoads, (loads) => loads.beforeCall(agent, "mcp__github__search_code"))),
        loader(load(["mcp__github__create_issue"]))
      ], { concurrency: "unbounded" })
      expect(decision).toEqual({ _tag: "Proceed" })
      const stored = yield* stateFile(dir, "a")
      expect([...stored.state.loaded].sort()).toEqual(["fs_tree", "mcp__github__create_issue", "mcp__github__search_code"])
      expect(stored.state.groups).toEqual(["/communication/slack"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a rescue of a tool another process loaded meanwhile proceeds and records nothing more", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [caller, loader] = [yield* processOver(dir), yield* processOver(dir)]
      yield* attachAll([caller, loader])
      yield* loader(load(["fs_tree"]))
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const before = yield* fs.readFileString(path.join(dir, "state", "a.json"))
      expect(yield* caller(Effect.flatMap(CatalogLoads, (loads) => loads.beforeCall(agent, "fs_tree")))).toEqual({ _tag: "Proceed" })
      expect(yield* fs.readFileString(path.join(dir, "state", "a.json"))).toBe(before)
      expect(yield* caller(Effect.flatMap(ToolCatalog, (catalog) => catalog.stateOf(agent)))).toMatchObject({ loaded: ["fs_tree"] })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a subagent's handoff does not overwrite what another process loaded for it meanwhile", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [host, other] = [yield* processOver(dir), yield* processOver(dir)]
      const child = { id: "child", parentId: "parent" }
      yield* host(Effect.gen(function*() {
        yield* (yield* AgentRestrictions).attach({ id: "parent" })
        yield* (yield* CatalogLoads).load({ id: "parent" }, ["slack"], { forSubagents: true })
        // The host reads the child's (empty) record before the child starts.
        expect((yield* (yield* ToolCatalog).stateOf(child)).loaded).toEqual([])
      }))
      yield* other(Effect.flatMap(CatalogLoads, (loads) => loads.load(child, ["fs_tree"])))
      yield* host(Effect.flatMap(AgentRestrictions, (restrictions) => restrictions.attach(child)))
      expect((yield* stateFile(dir, "child")).state).toEqual({
        loaded: ["fs_tree"],
        groups: [],
        excluded: [],
        handoffGroups: [],
        handoffTools: []
      })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("the graph's one FileLock guards the agent state and the settings files", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = yield* Path.Path
      const taken = yield* Ref.make<ReadonlyArray<string>>([])
      const recording = Layer.effect(
        FileLock,
        Effect.map(FileLock.make(), (locks) =>
          FileLock.of({
            ...locks,
            acquire: (lockPath) => Effect.zipRight(Ref.update(taken, (all) => [...all, lockPath]), locks.acquire(lockPath))
          }))
      ).pipe(Layer.provide(LockOwner.layer))
      const run = yield* processOver(dir, recording)
      yield* run(load(["fs_tree"]))
      yield* run(Effect.flatMap(CatalogSettings, (settings) => settings.updateSettings({ pinned: ["fs_tree"] })))
      expect(yield* Ref.get(taken)).toEqual([path.join(dir, "state", ".a.json.lock"), path.join(dir, ".settings.json.lock")])
    }).pipe(Effect.provide(NodeContext.layer)))
})
