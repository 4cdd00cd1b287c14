import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Queue, Schema, type Scope } from "effect"
import { generateTools } from "../../../bench/catalogGenerators.js"
import { Manifest } from "../../../src/catalog/core/manifest.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { COMPACT_THRESHOLD } from "../../../src/catalog/stores/jsonFile.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { HostLayer, type HostLayerOptions } from "../../../src/layers/HostLayer.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { makeMemoryHost, type MemoryHost } from "../../../examples/minimal-host/host.js"

const tool = (name: string, description = `Does ${name}.`): ToolSchema => ({ name, description, inputSchema: { type: "object" } })

const TOOLS = [tool("mcp__github__create_issue"), tool("mcp__github__search_code"), tool("mcp__slack__post_message")]

/** One run of the embedded catalog over `dir`: the layer (and its writer) closes when `body` ends. */
const run = <A, E>(
  options: HostLayerOptions,
  tools: ReadonlyArray<ToolSchema>,
  body: (host: MemoryHost) => Effect.Effect<A, E, ToolCatalog | Scope.Scope>
) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools })
    return yield* body(host).pipe(Effect.scoped, Effect.provide(HostLayer(options).pipe(Layer.provide(host.port))))
  }).pipe(Effect.provide(MachineEnvironment.layerTest({})))

const getCatalog = Effect.flatMap(ToolCatalog, (catalog) => catalog.get())

/** What tells one write of a file from another: a rename puts a new inode in place. */
const identity = (file: string) =>
  Effect.map(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(file)), (info) => ({
    ino: info.ino,
    mtime: info.mtime
  }))

const readManifest = (file: string) =>
  Effect.flatMap(
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)),
    Schema.decodeUnknown(Schema.parseJson(Manifest))
  )

describe("ManifestWriter", () => {
  it.scoped("writes nothing when a rebuild has the same tool set, and rewrites when the set changes", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = (yield* Path.Path).join(dir, "manifest.json")
      yield* run({ dir }, TOOLS, () => getCatalog)
      const first = yield* identity(file)
      const text = yield* fs.readFileString(file)
      const manifest = yield* readManifest(file)
      expect(manifest.toolCount).toBe(3)
      expect(manifest.buildKey?.startsWith(`${manifest.toolSetKey}:`)).toBe(true)

      // A new process over the same tools, made to rebuild: the file holds that build already.
      yield* run({ dir }, TOOLS, () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          yield* catalog.get()
          yield* catalog.invalidate
          yield* catalog.get()
        }))
      expect(yield* identity(file)).toEqual(first)
      expect(yield* fs.readFileString(file)).toBe(text)

      yield* run({ dir }, TOOLS, (host) =>
        Effect.gen(function*() {
          yield* getCatalog
          yield* host.addTool(tool("mcp__slack__list_channels"))
          yield* Effect.flatMap(ToolCatalog, (catalog) => catalog.refresh)
        }))
      expect((yield* identity(file)).ino).not.toBe(first.ino)
      expect((yield* readManifest(file)).toolCount).toBe(4)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("rewrites when the placement changes with the same tool set (a metadata edit)", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = (yield* Path.Path).join(dir, "manifest.json")
      yield* run({ dir }, TOOLS, () => getCatalog)
      const before = yield* readManifest(file)
      yield* run({ dir }, TOOLS, () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          yield* catalog.get()
          yield* catalog.updateToolMeta("mcp__slack__post_message", { category: "chat" })
        }))
      const after = yield* readManifest(file)
      expect(after.toolSetKey).toBe(before.toolSetKey)
      expect(after.buildKey).not.toBe(before.buildKey)
      expect(after.categories.map((category) => category.name)).toEqual(["code", "chat", "uncategorized"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("follows agents' builds too: a host that only serves agents gets its manifest", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = (yield* Path.Path).join(dir, "manifest.json")
      yield* run({ dir }, TOOLS, () => Effect.flatMap(ToolCatalog, (catalog) => catalog.attach({ id: "main" })))
      expect((yield* readManifest(file)).toolCount).toBe(3)
      expect((yield* fs.readDirectory(dir)).filter((name) => name.includes(".tmp-"))).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("is indented while small and compact above the threshold", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      const small = path.join(dir, "small.json")
      const large = path.join(dir, "large.json")
      yield* run({ dir, files: { manifest: small } }, TOOLS, () => getCatalog)
      yield* run({ dir, files: { manifest: large } }, generateTools(3_000, 5), () => getCatalog)
      expect((yield* fs.readFileString(small)).startsWith("{\n  \"schemaVersion\": 1,\n")).toBe(true)
      const compact = yield* fs.readFileString(large)
      expect(compact.length).toBeGreaterThan(COMPACT_THRESHOLD)
      expect(compact.startsWith("{\"schemaVersion\":1,")).toBe(true)
      expect(compact.indexOf("\n")).toBe(compact.length - 1)
      expect((yield* readManifest(large)).toolCount).toBe(3_000)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a failed write is a warning, not a failure", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      // A directory where the manifest should go: the rename onto it fails.
      const taken = path.join(dir, "manifest.json")
      yield* fs.makeDirectory(path.join(taken, "inside"), { recursive: true })
      const warning = yield* run({ dir }, TOOLS, () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          const events = yield* catalog.subscribe
          yield* catalog.get()
          return yield* Queue.take(events).pipe(Effect.repeat({ until: (event) => event._tag === "CatalogWarning" }))
        }))
      expect(warning).toMatchObject({ _tag: "CatalogWarning", kind: "write-failed", subject: taken })
      expect(yield* fs.readDirectory(dir)).not.toContainEqual(expect.stringContaining(".tmp-"))
    }).pipe(Effect.provide(NodeContext.layer)))
})
