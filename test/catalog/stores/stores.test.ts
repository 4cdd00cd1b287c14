import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import { CatalogEvents } from "../../../src/catalog/stores/CatalogEvents.js"
import {
  CATALOG_FILE_MAX_BYTES,
  CatalogFileError,
  hashOfFile,
  modifyJsonFile,
  readJsonFile,
  writeJsonAtomic
} from "../../../src/catalog/stores/jsonFile.js"
import { emptyAgentState } from "../../../src/catalog/core/visibility.js"
import { Fault, FaultyFileSystem } from "../../../src/layers/FaultyFileSystem.js"
import { CatalogSettings, type CatalogSettingsBase } from "../../../src/catalog/stores/CatalogSettings.js"
import {
  agentFileName,
  type AgentRecord,
  StateProviderError,
  VisibilityStore
} from "../../../src/catalog/stores/VisibilityStore.js"

const Doc = Schema.Struct({ name: Schema.String, count: Schema.Number })

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

describe("writeJsonAtomic / readJsonFile", () => {
  it.scoped("writes validated JSON that reads back, leaving no temp file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "nested", "doc.json")
      yield* writeJsonAtomic(Doc, file, { name: "a", count: 1 })
      expect(yield* fs.readFileString(file)).toBe("{\n  \"name\": \"a\",\n  \"count\": 1\n}\n")
      expect(yield* readJsonFile(Doc, file)).toEqual({ _tag: "Found", value: { name: "a", count: 1 } })
      expect(yield* readJsonFile(Doc, path.join(dir, "none.json"))).toEqual({ _tag: "Missing" })
      expect(yield* fs.readDirectory(path.join(dir, "nested"))).toEqual(["doc.json"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a failed rename leaves the old file whole and removes the temp file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const faults = yield* FaultyFileSystem
      const dir = yield* tempDir
      const file = path.join(dir, "doc.json")
      yield* writeJsonAtomic(Doc, file, { name: "old", count: 1 })
      yield* faults.reset
      yield* writeJsonAtomic(Doc, file, { name: "probe", count: 0 })
      const rename = (yield* faults.log).find((call) => call.method === "rename")!
      yield* faults.reset
      yield* faults.arm(Fault.once(rename.index))
      const error = yield* Effect.flip(writeJsonAtomic(Doc, file, { name: "new", count: 2 }))
      expect(error._tag).toBe("CatalogFileError")
      expect(error.operation).toBe("write")
      expect(yield* readJsonFile(Doc, file)).toEqual({ _tag: "Found", value: { name: "probe", count: 0 } })
      expect(yield* fs.readDirectory(dir)).toEqual(["doc.json"])
    }).pipe(Effect.provide(FaultyFileSystem.layer().pipe(Layer.provideMerge(NodeContext.layer)))))

  it.scoped("a file that does not parse or validate is renamed aside with a timestamp, never dropped", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "doc.json")
      yield* fs.writeFileString(file, "{\"name\":\"a\",\"count\":\"many\"}")
      const result = yield* readJsonFile(Doc, file)
      expect(result._tag).toBe("Corrupt")
      if (result._tag !== "Corrupt") return
      expect(result.corrupt.path).toBe(file)
      expect(result.corrupt.keptAt).toBe(`${file}.corrupt-1970-01-01T00-00-00-000Z`)
      expect(result.corrupt.reason).toContain("Expected number, actual \"many\"")
      expect(yield* fs.readFileString(result.corrupt.keptAt)).toBe("{\"name\":\"a\",\"count\":\"many\"}")
      expect(yield* fs.exists(file)).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a FIFO, a link to /dev/zero, a file over the cap or nested past the cap is not valid: kept aside, never read whole", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* tempDir
      const at = (name: string) => path.join(dir, name)
      execFileSync("mkfifo", [at("fifo.json")])
      yield* fs.symlink("/dev/zero", at("zero.json"))
      NodeFs.writeFileSync(at("big.json"), "")
      NodeFs.truncateSync(at("big.json"), CATALOG_FILE_MAX_BYTES + 1)
      yield* fs.writeFileString(at("deep.json"), `{"name":"a","count":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)
      const kept = (name: string, reason: string) => ({
        _tag: "Corrupt",
        corrupt: { path: at(name), keptAt: `${at(name)}.corrupt-1970-01-01T00-00-00-000Z`, reason }
      })
      expect(yield* readJsonFile(Doc, at("fifo.json"))).toEqual(kept("fifo.json", "it is not a regular file (fifo)"))
      expect(yield* readJsonFile(Doc, at("zero.json"))).toEqual(kept("zero.json", "it is not a regular file (character device)"))
      expect(yield* readJsonFile(Doc, at("big.json"))).toEqual(kept("big.json", "it is 67108865 bytes, over the 67108864-byte cap"))
      expect(yield* readJsonFile(Doc, at("deep.json"))).toEqual(kept("deep.json", "it nests deeper than 256 levels of arrays and objects"))
      expect((yield* fs.readDirectory(dir)).sort()).toEqual(
        ["big.json", "deep.json", "fifo.json", "zero.json"].map((name) => `${name}.corrupt-1970-01-01T00-00-00-000Z`)
      )
      // The link was moved aside, not what it leads to.
      expect(yield* fs.readLink(at("zero.json.corrupt-1970-01-01T00-00-00-000Z"))).toBe("/dev/zero")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a read-modify-write of a FIFO keeps it aside and writes the file, instead of blocking", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "doc.json")
      execFileSync("mkfifo", [file])
      const modified = yield* modifyJsonFile(Doc, file, (current) => Effect.succeed([current, Option.some({ name: "a", count: 1 })] as const))
      expect(modified).toEqual({
        result: Option.none(),
        value: Option.some({ name: "a", count: 1 }),
        written: true,
        corrupt: Option.some({ path: file, keptAt: `${file}.corrupt-1970-01-01T00-00-00-000Z`, reason: "it is not a regular file (fifo)" })
      })
      expect(yield* readJsonFile(Doc, file)).toEqual({ _tag: "Found", value: { name: "a", count: 1 } })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("the hash of a schemas file is taken only of a regular file within the cap", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const fifo = path.join(dir, "fifo.json")
      execFileSync("mkfifo", [fifo])
      NodeFs.writeFileSync(path.join(dir, "a.json"), "[]")
      expect(yield* hashOfFile(path.join(dir, "a.json"), 2)).toEqual(Option.some(createHash("sha256").update("[]").digest("hex")))
      expect(yield* hashOfFile(path.join(dir, "none.json"), 2)).toEqual(Option.none())
      expect(yield* Effect.flip(hashOfFile(fifo, 2))).toEqual(
        new CatalogFileError({ path: fifo, operation: "read", reason: "it is not a regular file (fifo)" })
      )
      expect(yield* Effect.flip(hashOfFile(path.join(dir, "a.json"), 1))).toEqual(
        new CatalogFileError({ path: path.join(dir, "a.json"), operation: "read", reason: "it is 2 bytes, over the 1-byte cap" })
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})

const settingsLayer = (dir: string, base: CatalogSettingsBase) =>
  CatalogSettings.layer(
    {
      settings: Option.some(`${dir}/settings.json`),
      metadata: Option.some(`${dir}/metadata.json`),
      exemptions: Option.some(`${dir}/exempt.json`)
    },
    base
  ).pipe(Layer.provideMerge(CatalogEvents.layer))

describe("CatalogSettings", () => {
  it.scoped("each key in the settings file wins over config; other keys keep config", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      yield* fs.writeFileString(`${dir}/settings.json`, "{\"unpin\":[]}")
      const result = yield* Effect.gen(function*() {
        const settings = yield* CatalogSettings
        const first = yield* settings.settings
        const updated = yield* settings.updateSettings({ highRisk: ["mcp__db__query"] })
        return { first, updated, stored: yield* settings.storedSettings }
      }).pipe(Effect.provide(settingsLayer(dir, { pinned: ["a"], unpin: ["bash"], highRisk: ["x"] })))
      expect(result.first).toEqual({ pinned: ["a"], unpin: [], highRisk: ["x"] })
      expect(result.updated).toEqual({ pinned: ["a"], unpin: [], highRisk: ["mcp__db__query"] })
      expect(result.stored).toEqual({ unpin: [], highRisk: ["mcp__db__query"] })
      expect(JSON.parse(yield* fs.readFileString(`${dir}/settings.json`))).toEqual({ unpin: [], highRisk: ["mcp__db__query"] })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("the exemption file wins over config providers, and holds per-session exemptions", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const base = { exemptProviders: ["claude-code", "bridge"] }
      const noFile = yield* Effect.gen(function*() {
        const settings = yield* CatalogSettings
        const before = yield* settings.exemptionOf("bridge", "s1")
        yield* settings.setExemptSession("s1", true)
        return { before, after: yield* settings.exemptionOf("other", "s1"), all: yield* settings.exemptions }
      }).pipe(Effect.provide(settingsLayer(dir, base)))
      expect(noFile.before).toEqual({ exempt: true, by: "provider", provider: "bridge" })
      expect(noFile.after).toEqual({ exempt: true, by: "session", sessionId: "s1" })
      expect(noFile.all).toEqual({ providers: ["claude-code", "bridge"], sessions: ["s1"], fromFile: true })
      yield* fs.writeFileString(`${dir}/exempt.json`, "{\"providers\":[],\"sessions\":[\"s1\"]}")
      const fromFile = yield* Effect.gen(function*() {
        const settings = yield* CatalogSettings
        return [yield* settings.exemptionOf("claude-code", "s2"), yield* settings.exemptionOf("claude-code", "s1")]
      }).pipe(Effect.provide(settingsLayer(dir, base)))
      expect(fromFile).toEqual([{ exempt: false }, { exempt: true, by: "session", sessionId: "s1" }])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("metadata edits merge per field and clear per tool", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const result = yield* Effect.gen(function*() {
        const settings = yield* CatalogSettings
        yield* settings.setMeta("t", { group: "g" })
        const merged = yield* settings.setMeta("t", { summary: "S.", group: undefined })
        yield* settings.setMeta("u", { highRisk: true })
        yield* settings.clearMeta("u")
        return { merged, all: yield* settings.metadata }
      }).pipe(Effect.provide(settingsLayer(dir, {})))
      expect(result.merged).toEqual({ group: "g", summary: "S." })
      expect(result.all).toEqual({ t: { group: "g", summary: "S." } })
      expect(JSON.parse(yield* fs.readFileString(`${dir}/metadata.json`))).toEqual({ t: { group: "g", summary: "S." } })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt settings file is kept aside and reported; config applies", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      yield* fs.writeFileString(`${dir}/settings.json`, "{\"pinned\": \"bash\"}")
      const result = yield* Effect.gen(function*() {
        const settings = yield* CatalogSettings
        return { settings: yield* settings.settings, diagnostics: yield* (yield* CatalogEvents).diagnostics }
      }).pipe(Effect.provide(settingsLayer(dir, { pinned: ["x"] })))
      expect(result.settings).toEqual({ pinned: ["x"], unpin: [], highRisk: [] })
      expect(result.diagnostics.map((warning) => [warning.kind, warning.subject])).toEqual([
        ["corrupt-file", `${dir}/settings.json`]
      ])
      expect(yield* fs.readDirectory(dir)).toEqual(["settings.json.corrupt-1970-01-01T00-00-00-000Z"])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("VisibilityStore", () => {
  it("names state files safely for any agent id", () => {
    expect(agentFileName("main")).toBe("main.json")
    expect(agentFileName("../x y/é")).toBe("%2E%2E%2Fx%20y%2F%C3%A9.json")
    expect(agentFileName("")).toBe("%.json")
    // An id of any length gets a name the file system takes: cut, with a hash that keeps ids apart.
    const long = "é".repeat(150)
    const name = agentFileName(long)
    expect(name).toBe(`${"%C3%A9".repeat(20)}~${createHash("sha256").update(long).digest("hex").slice(0, 32)}.json`)
    expect(agentFileName(`${long}x`)).not.toBe(name)
    expect(agentFileName("a".repeat(160))).toBe(`${"a".repeat(160)}.json`)
    expect(agentFileName("a".repeat(161))).toMatch(/^a{120}~[0-9a-f]{32}\.json$/)
    // A cut never splits an escape.
    expect(agentFileName(`a${"%".repeat(100)}`)).toMatch(/^a(%25){39}~[0-9a-f]{32}\.json$/)
  })

  it.scoped("persists each agent's record in its own file and reads it back in a new store", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const layer = VisibilityStore.layer({ stateDir: Option.some(dir) }).pipe(Layer.provide(CatalogEvents.layer))
      const record: AgentRecord = { state: { ...emptyAgentState, loaded: ["t"] }, order: ["tools_ls", "t"] }
      yield* Effect.flatMap(VisibilityStore, (store) => store.modify("a/b", () => Effect.succeed([undefined, record] as const)))
        .pipe(Effect.provide(layer))
      expect(JSON.parse(yield* fs.readFileString(`${dir}/a%2Fb.json`))).toEqual({
        version: 1,
        agentId: "a/b",
        state: { loaded: ["t"], groups: [], excluded: [], handoffGroups: [], handoffTools: [] },
        order: ["tools_ls", "t"]
      })
      expect(yield* Effect.flatMap(VisibilityStore, (store) => store.get("a/b")).pipe(Effect.provide(layer))).toEqual(record)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("the newest registered provider is in force until disposed; its failures are warnings", () =>
    Effect.gen(function*() {
      const store = yield* VisibilityStore
      const saved: Array<string> = []
      const dispose = yield* store.registerStateProvider({
        name: "remote",
        load: (agentId) =>
          agentId === "broken"
            ? Effect.fail(new StateProviderError({ provider: "remote", agentId, operation: "load", reason: "offline" }))
            : Effect.succeed(Option.some({ state: { ...emptyAgentState, groups: ["/c/g"] }, order: [] })),
        save: (agentId) => Effect.sync(() => void saved.push(agentId))
      })
      expect(yield* store.stateProviders).toEqual(["remote"])
      expect((yield* store.get("a")).state.groups).toEqual(["/c/g"])
      expect(yield* store.get("broken")).toEqual({ state: emptyAgentState, order: [] })
      yield* store.modify("a", (record) => Effect.succeed([undefined, { ...record, order: ["x"] }] as const))
      expect(saved).toEqual(["a"])
      yield* dispose
      expect(yield* store.stateProviders).toEqual([])
      expect((yield* (yield* CatalogEvents).diagnostics).map((warning) => warning.message)).toEqual([
        "State provider remote could not load the state of agent broken: offline"
      ])
    }).pipe(Effect.provide(VisibilityStore.layerMemory.pipe(Layer.provideMerge(CatalogEvents.layer)))))
})
