import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Logger, LogLevel, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { emptyAgentState } from "../../../src/catalog/core/visibility.js"
import { CatalogEvents } from "../../../src/catalog/stores/CatalogEvents.js"
import { CatalogSettings } from "../../../src/catalog/stores/CatalogSettings.js"
import { COMPACT_THRESHOLD, modifyJsonFile, writeJsonAtomic } from "../../../src/catalog/stores/jsonFile.js"
import { VisibilityStore } from "../../../src/catalog/stores/VisibilityStore.js"
import { FileLock, lockPathOf, LockOwner, type LockOwnerShape } from "../../../src/services/FileLock.js"

/** Simulated processes: each store or change gets a pid of its own, alive until killed. */
const makeProcesses = () => {
  const alive = new Set<number>()
  let next = 71_000
  return {
    spawn: (): LockOwnerShape => {
      const pid = next++
      alive.add(pid)
      return { pid, isAlive: (other) => Effect.sync(() => alive.has(other)) }
    },
    kill: (owner: LockOwnerShape) => void alive.delete(owner.pid)
  }
}

const Names = Schema.Struct({ names: Schema.Array(Schema.String) })
type Names = typeof Names.Type

const addName = (name: string) => (current: Option.Option<Names>) => {
  const names = Option.match(current, { onNone: (): ReadonlyArray<string> => [], onSome: (value) => value.names })
  return Effect.succeed([names, names.includes(name) ? Option.none<Names>() : Option.some({ names: [...names, name] })] as const)
}

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

/** A store of one simulated process over `stateDir`. */
const storeOf = (stateDir: string, owner: LockOwnerShape) =>
  VisibilityStore.layer({ stateDir: Option.some(stateDir) }).pipe(
    Layer.provideMerge(CatalogEvents.layer),
    Layer.provide(Layer.succeed(LockOwner, owner))
  )

const quiet = Logger.withMinimumLogLevel(LogLevel.Error)

describe("modifyJsonFile", () => {
  it.scopedLive("a change waiting for the lock is applied to what the holder wrote, not to what it read first", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = NodePath.join(yield* tempDir, "names.json")
      yield* writeJsonAtomic(Names, file, { names: ["x"] })
      const processes = makeProcesses()
      const a = yield* FileLock.make().pipe(Effect.provideService(LockOwner, processes.spawn()))
      const b = yield* FileLock.make({ lockWait: "5 seconds", lockRetryInterval: "5 millis" }).pipe(
        Effect.provideService(LockOwner, processes.spawn())
      )
      const held = yield* Deferred.make<void>()
      const done = yield* Deferred.make<void>()
      // A holds the lock and, while B waits, writes a name of its own.
      const holder = yield* Effect.fork(a.withLock(
        lockPathOf(file),
        Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(done))
      ))
      yield* Deferred.await(held)
      let runs = 0
      const waiter = yield* Effect.fork(
        modifyJsonFile(Names, file, (current) => Effect.suspend(() => (runs += 1, addName("b")(current)))).pipe(
          Effect.provideService(FileLock, b)
        )
      )
      yield* Effect.sleep("50 millis")
      expect(runs).toBe(1)
      yield* writeJsonAtomic(Names, file, { names: ["x", "a"] })
      yield* Deferred.succeed(done, undefined)
      yield* Fiber.join(holder)
      const modified = yield* Fiber.join(waiter)
      // Run once on the first read, once more under the lock on A's write.
      expect(runs).toBe(2)
      expect(modified).toEqual({ result: ["x", "a"], value: Option.some({ names: ["x", "a", "b"] }), written: true, corrupt: Option.none() })
      expect(JSON.parse(yield* fs.readFileString(file))).toEqual({ names: ["x", "a", "b"] })
      expect((yield* fs.readDirectory(NodePath.dirname(file))).sort()).toEqual(["names.json"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("many changes at once, each from its own process, are all kept", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = NodePath.join(yield* tempDir, "names.json")
      const processes = makeProcesses()
      const names = Array.from({ length: 10 }, (_, i) => `n${i}`)
      yield* Effect.forEach(
        names,
        (name) => modifyJsonFile(Names, file, addName(name)).pipe(Effect.provideService(LockOwner, processes.spawn())),
        { concurrency: "unbounded", discard: true }
      )
      expect([...JSON.parse(yield* fs.readFileString(file)).names].sort()).toEqual(names)
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scoped("a change that changes nothing takes no lock and writes nothing, not even its directory", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const missing = NodePath.join(dir, "sub", "names.json")
      const none = yield* modifyJsonFile(Names, missing, () => Effect.succeed([1, Option.none<Names>()] as const))
      expect(none).toEqual({ result: 1, value: Option.none(), written: false, corrupt: Option.none() })
      expect(yield* fs.readDirectory(dir)).toEqual([])
      const file = NodePath.join(dir, "names.json")
      yield* writeJsonAtomic(Names, file, { names: ["x"] })
      const before = yield* fs.stat(file)
      const same = yield* modifyJsonFile(Names, file, addName("x"))
      expect(same.written).toBe(false)
      expect(yield* fs.readDirectory(dir)).toEqual(["names.json"])
      expect((yield* fs.stat(file)).mtime).toEqual(before.mtime)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt file is kept aside under the lock and the change applied to nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const file = NodePath.join(dir, "names.json")
      yield* fs.writeFileString(file, "{\"names\": 3}")
      const modified = yield* modifyJsonFile(Names, file, addName("a"))
      expect(modified.value).toEqual(Option.some({ names: ["a"] }))
      expect(Option.map(modified.corrupt, (corrupt) => corrupt.keptAt)).toEqual(Option.some(`${file}.corrupt-1970-01-01T00-00-00-000Z`))
      expect((yield* fs.readDirectory(dir)).sort()).toEqual(["names.json", "names.json.corrupt-1970-01-01T00-00-00-000Z"])
      expect(yield* fs.readFileString(`${file}.corrupt-1970-01-01T00-00-00-000Z`)).toBe("{\"names\": 3}")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a file is indented up to the compact threshold and compact above it", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      yield* writeJsonAtomic(Names, `${dir}/small.json`, { names: ["a"] })
      expect(yield* fs.readFileString(`${dir}/small.json`)).toBe("{\n  \"names\": [\n    \"a\"\n  ]\n}\n")
      const large = { names: Array.from({ length: COMPACT_THRESHOLD / 8 }, (_, i) => `name${i}`) }
      yield* writeJsonAtomic(Names, `${dir}/large.json`, large)
      expect(yield* fs.readFileString(`${dir}/large.json`)).toBe(`${JSON.stringify(large)}\n`)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("VisibilityStore under concurrent processes", () => {
  it.scopedLive("stores of several processes loading different tools into one agent at once lose none", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* tempDir
      const processes = makeProcesses()
      const tools = Array.from({ length: 8 }, (_, i) => `t${i}`)
      // Each process reads the agent first (as a command does before it loads), then loads.
      yield* Effect.forEach(
        tools,
        (tool) =>
          Effect.gen(function*() {
            const store = yield* VisibilityStore
            yield* store.get("a")
            yield* Effect.sleep("10 millis")
            yield* store.modify("a", (record) =>
              Effect.succeed([undefined, { ...record, state: { ...record.state, loaded: [...record.state.loaded, tool] } }] as const))
            return yield* store.get("a")
          }).pipe(Effect.provide(storeOf(dir, processes.spawn()))),
        { concurrency: "unbounded", discard: true }
      )
      const saved = JSON.parse(yield* fs.readFileString(path.join(dir, "a.json")))
      expect([...saved.state.loaded].sort()).toEqual(tools)
      expect(yield* fs.readDirectory(dir)).toEqual(["a.json"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("the memory copy holds what is on disk after a change: another process's load included", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const processes = makeProcesses()
      const load = (tool: string) => (record: { readonly state: typeof emptyAgentState; readonly order: ReadonlyArray<string> }) =>
        Effect.succeed([undefined, { ...record, state: { ...record.state, loaded: [...record.state.loaded, tool] } }] as const)
      const result = yield* Effect.gen(function*() {
        const store = yield* VisibilityStore
        expect(yield* store.get("a")).toEqual({ state: emptyAgentState, order: [] })
        // Another process loads "other" meanwhile.
        yield* Effect.flatMap(VisibilityStore, (other) => other.modify("a", load("other"))).pipe(
          Effect.provide(storeOf(dir, processes.spawn()))
        )
        yield* store.modify("a", load("mine"))
        return yield* store.get("a")
      }).pipe(Effect.provide(storeOf(dir, processes.spawn())))
      expect(result.state.loaded).toEqual(["other", "mine"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("a read of an agent already in memory sees a change another process stored since", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const processes = makeProcesses()
      const load = (tool: string) => (record: { readonly state: typeof emptyAgentState; readonly order: ReadonlyArray<string> }) =>
        Effect.succeed([undefined, { ...record, state: { ...record.state, loaded: [...record.state.loaded, tool] } }] as const)
      const other = (change: Effect.Effect<void, never, VisibilityStore>) => change.pipe(Effect.provide(storeOf(dir, processes.spawn())))
      const seen = yield* Effect.gen(function*() {
        const store = yield* VisibilityStore
        const loadedNow = Effect.map(store.get("a"), (record) => record.state.loaded)
        const first = yield* loadedNow
        yield* other(Effect.flatMap(VisibilityStore, (store) => store.modify("a", load("theirs"))))
        const afterTheirs = yield* loadedNow
        yield* store.modify("a", load("mine"))
        const afterMine = yield* loadedNow
        yield* other(Effect.flatMap(VisibilityStore, (store) => store.modify("a", load("later"))))
        return [first, afterTheirs, afterMine, yield* loadedNow]
      }).pipe(Effect.provide(storeOf(dir, processes.spawn())))
      expect(seen).toEqual([[], ["theirs"], ["theirs", "mine"], ["theirs", "mine", "later"]])
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("a lock held by a live process past the wait is a warning: the change stays in memory", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const processes = makeProcesses()
      const holder = yield* FileLock.make().pipe(Effect.provideService(LockOwner, processes.spawn()))
      yield* holder.acquire(lockPathOf(path.join(dir, "a.json")))
      const impatient = yield* FileLock.make({ lockWait: "50 millis", lockRetryInterval: "5 millis" }).pipe(
        Effect.provideService(LockOwner, processes.spawn())
      )
      const result = yield* Effect.gen(function*() {
        const store = yield* VisibilityStore
        yield* store.modify("a", (record) => Effect.succeed([undefined, { ...record, order: ["x"] }] as const))
        return { record: yield* store.get("a"), warnings: yield* (yield* CatalogEvents).diagnostics }
      }).pipe(
        Effect.provide(
          VisibilityStore.layer({ stateDir: Option.some(dir) }).pipe(
            Layer.provideMerge(CatalogEvents.layer),
            Layer.provide(Layer.succeed(FileLock, impatient))
          )
        )
      )
      expect(result.record.order).toEqual(["x"])
      expect(result.warnings.map((warning) => warning.kind)).toEqual(["state-provider-failed"])
      expect(result.warnings[0]?.message).toContain(`${path.join(dir, ".a.json.lock")} is held by another tool-map process`)
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("the lock of a process that died holding it is broken, and the change is saved", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* tempDir
      const processes = makeProcesses()
      const dead = processes.spawn()
      yield* fs.writeFileString(
        path.join(dir, ".a.json.lock"),
        JSON.stringify({ pid: dead.pid, nonce: "gone", createdAt: "2024-01-01T00:00:00.000Z" })
      )
      processes.kill(dead)
      yield* Effect.flatMap(VisibilityStore, (store) =>
        store.modify("a", (record) => Effect.succeed([undefined, { ...record, order: ["x"] }] as const))).pipe(
          Effect.provide(storeOf(dir, processes.spawn()))
        )
      expect(JSON.parse(yield* fs.readFileString(path.join(dir, "a.json"))).order).toEqual(["x"])
      expect(yield* fs.readDirectory(dir)).toEqual(["a.json"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))
})

describe("CatalogSettings under concurrent processes", () => {
  const settingsOf = (dir: string, owner: LockOwnerShape) =>
    CatalogSettings.layer(
      {
        settings: Option.some(`${dir}/settings.json`),
        metadata: Option.some(`${dir}/metadata.json`),
        exemptions: Option.some(`${dir}/exempt.json`)
      },
      {}
    ).pipe(Layer.provideMerge(CatalogEvents.layer), Layer.provide(Layer.succeed(LockOwner, owner)))

  it.scopedLive("edits of two processes that both read the files first are both kept, in each file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const processes = makeProcesses()
      const a = yield* Layer.build(settingsOf(dir, processes.spawn()))
      const b = yield* Layer.build(settingsOf(dir, processes.spawn()))
      const inA = <X, E>(effect: Effect.Effect<X, E, CatalogSettings>) => Effect.provide(effect, a)
      const inB = <X, E>(effect: Effect.Effect<X, E, CatalogSettings>) => Effect.provide(effect, b)
      yield* inA(Effect.flatMap(CatalogSettings, (settings) => settings.setMeta("t", { group: "g" })))
      yield* inB(Effect.flatMap(CatalogSettings, (settings) => settings.setMeta("u", { highRisk: true })))
      yield* inA(Effect.flatMap(CatalogSettings, (settings) => settings.updateSettings({ pinned: ["p"] })))
      yield* inB(Effect.flatMap(CatalogSettings, (settings) => settings.updateSettings({ highRisk: ["h"] })))
      yield* inA(Effect.flatMap(CatalogSettings, (settings) => settings.setExemptSession("s1", true)))
      const exemptions = yield* inB(Effect.flatMap(CatalogSettings, (settings) => settings.setExemptSession("s2", true)))
      expect(JSON.parse(yield* fs.readFileString(`${dir}/metadata.json`))).toEqual({ t: { group: "g" }, u: { highRisk: true } })
      expect(JSON.parse(yield* fs.readFileString(`${dir}/settings.json`))).toEqual({ pinned: ["p"], highRisk: ["h"] })
      expect(JSON.parse(yield* fs.readFileString(`${dir}/exempt.json`))).toEqual({ sessions: ["s1", "s2"] })
      expect(exemptions.sessions).toEqual(["s1", "s2"])
      expect(yield* inB(Effect.flatMap(CatalogSettings, (settings) => settings.metadata))).toEqual({ t: { group: "g" }, u: { highRisk: true } })
      expect((yield* fs.readDirectory(dir)).sort()).toEqual(["exempt.json", "metadata.json", "settings.json"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))

  it.scopedLive("an edit that changes nothing writes nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const processes = makeProcesses()
      const layer = settingsOf(dir, processes.spawn())
      yield* Effect.flatMap(CatalogSettings, (settings) => settings.updateSettings({ pinned: ["p"] })).pipe(Effect.provide(layer))
      const before = yield* fs.stat(`${dir}/settings.json`)
      yield* Effect.sleep("20 millis")
      yield* Effect.flatMap(CatalogSettings, (settings) =>
        Effect.zipRight(settings.updateSettings({ pinned: ["p"] }), settings.clearMeta("none"))).pipe(Effect.provide(layer))
      expect((yield* fs.stat(`${dir}/settings.json`)).mtime).toEqual(before.mtime)
      expect(yield* fs.readDirectory(dir)).toEqual(["settings.json"])
    }).pipe(Effect.provide(NodeContext.layer), quiet))
})
