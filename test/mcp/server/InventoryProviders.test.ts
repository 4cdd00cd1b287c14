import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, type Duration, Effect, Exit, Fiber, Layer, Option, Ref, Stream } from "effect"
import * as NodePath from "node:path"
import { Bundle } from "../../../src/inventory/bundle/Bundle.js"
import { bundlePathsForDir } from "../../../src/inventory/bundle/location.js"
import { type Inventory, VersionReport } from "../../../src/inventory/domain/inventory.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { InventoryReader } from "../../../src/inventory/query/InventoryReader.js"
import { type ScanOptions, type ScanOutcome, ScanProgram } from "../../../src/inventory/ScanProgram.js"
import { InventoryProvidersLayer } from "../../../src/mcp/server/inventory/InventoryProviders.js"
import { McpProviders } from "../../../src/mcp/server/McpProviders.js"
import type { McpCallContext, McpSession } from "../../../src/mcp/server/McpSession.js"
import { untrustedJson } from "../../../src/mcp/server/untrusted.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

const session: McpSession = { id: "unit", client: Option.none(), capabilities: Option.none(), elicit: () => Effect.die("no elicitation in this test") }
const context: McpCallContext = { session, progressToken: Option.none(), progress: () => Effect.void }

const inventory = inventoryOf(
  [
    toolNamed("git", { path: "/bin/git" }),
    toolNamed("git", { path: "/opt/bin/git", root: "/opt/bin", pathIndex: 1, shadowedBy: "/bin/git" }),
    toolNamed("node", { category: "runtimes" })
  ],
  { versions: [new VersionReport({ name: "git", version: "2.45.0", path: "/bin/git", status: "ok", durationMs: 3, detail: null })] }
)

const outcome = (tag: "Written" | "Skipped", dir: string): ScanOutcome =>
  tag === "Written"
    ? { _tag: "Written", generation: "gen-2", paths: bundlePathsForDir(dir), counts: { tools: 3, shadowed: 1, pathDirs: 1, roots: 0, versions: 1, agentHostItems: 0, diagnostics: 0 }, durationMs: 12, reason: "a PATH dir changed", changes: null }
    : { _tag: "Skipped", generation: "gen-1", paths: bundlePathsForDir(dir), durationMs: 2, reason: "no watched input changed since the last scan" }

/** The inventory's providers over a fixed inventory (`read`), a scanner that answers `next` and records its options, and a bundle in `dir`. */
const providersOver = (dir: string, next: Ref.Ref<"Written" | "Skipped">, scans: Ref.Ref<ReadonlyArray<ScanOptions>>, read: Inventory | Effect.Effect<Inventory>, scanTakes: Duration.DurationInput = 0) =>
  InventoryProvidersLayer.pipe(
    Layer.provide(
      Layer.mergeAll(
        Layer.succeed(InventoryReader, InventoryReader.of({
          load: () => (Effect.isEffect(read) ? read : Effect.succeed(read)),
          loadWithHistory: () => Effect.die("the MCP providers never read the history")
        })),
        Layer.succeed(ScanProgram, ScanProgram.of({
          run: (options) =>
            Effect.zipRight(Ref.update(scans, (list) => [...list, options]), Effect.delay(Effect.map(Ref.get(next), (tag) => outcome(tag, dir)), scanTakes))
        })),
        Bundle.layer.pipe(Layer.provide(MachineEnvironment.layerTest({ env: { PLUGIN_DATA: dir }, homedir: dir, cwd: dir })))
      )
    )
  )

/** The providers, built in the test's scope (their change hub lives as long as it). */
const providersIn = (dir: string, next: Ref.Ref<"Written" | "Skipped">, scans: Ref.Ref<ReadonlyArray<ScanOptions>>, read: Inventory | Effect.Effect<Inventory> = inventory, scanTakes: Duration.DurationInput = 0) =>
  Effect.map(Layer.build(providersOver(dir, next, scans, read, scanTakes)), Context.get(McpProviders))

describe("the inventory's MCP providers", () => {
  it.scoped("which answers as query which --json, plus the winner's version; another name is not theirs", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const { tools } = yield* providersIn(dir, yield* Ref.make<"Written" | "Skipped">("Skipped"), yield* Ref.make<ReadonlyArray<ScanOptions>>([]))
      const provider = tools[0]!
      const answer = yield* provider.callTool({ name: "which", arguments: { name: "git" } }, context)
      expect(Option.getOrThrow(answer)).toEqual({
        content: [{ type: "text", text: "git runs /bin/git (version 2.45.0).\nalso /opt/bin/git (shadowed)" }],
        structuredContent: {
          name: "git",
          winner: "/bin/git",
          version: "2.45.0",
          copies: [
            { path: "/bin/git", linkTarget: null, pathIndex: 0, root: "/bin", sameFileAs: null, version: "2.45.0", wins: true },
            { path: "/opt/bin/git", linkTarget: null, pathIndex: 1, root: "/opt/bin", sameFileAs: null, version: null, wins: false }
          ]
        }
      })
      expect(yield* provider.callTool({ name: "tools_ls", arguments: {} }, context)).toEqual(Option.none())
      const invalid = yield* Effect.flip(provider.callTool({ name: "which", arguments: { name: "" } }, context))
      expect(invalid.message).toBe(
        "tools/call which failed in inventory: invalid arguments: { readonly name: nonEmptyString }\n└─ [\"name\"]\n   └─ nonEmptyString\n      └─ Predicate refinement failure\n         └─ Expected The command name as typed in a shell, e.g. git or python3., actual \"\""
      )
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.live("inventory_query filters as query tools; inventory_refresh runs the --if-stale scan, and a written generation updates the three resources", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const next = yield* Ref.make<"Written" | "Skipped">("Skipped")
      const scans = yield* Ref.make<ReadonlyArray<ScanOptions>>([])
      const { tools, resources } = yield* providersIn(dir, next, scans)
      const [provider, docs] = [tools[0]!, resources[0]!]
      const query = yield* provider.callTool({ name: "inventory_query", arguments: { kind: "tools", category: "runtimes" } }, context)
      expect(Option.getOrThrow(query).structuredContent).toEqual({ kind: "tools", generation: inventory.generation, count: 1, items: [untrustedJson(inventory.tools[2])] })

      const updates = yield* Stream.runCollect(Stream.take(docs.changes, 3)).pipe(Effect.fork)
      yield* Effect.sleep("100 millis") // the fork subscribes to the changes
      const skipped = yield* provider.callTool({ name: "inventory_refresh", arguments: {} }, context)
      expect(Option.getOrThrow(skipped).structuredContent).toMatchObject({ skipped: true, generation: "gen-1" })
      yield* Ref.set(next, "Written")
      const written = yield* provider.callTool({ name: "inventory_refresh", arguments: { force: true } }, context)
      expect(Option.getOrThrow(written).structuredContent).toEqual({
        skipped: false,
        generation: "gen-2",
        files: { json: NodePath.join(dir, "tools.json"), markdown: NodePath.join(dir, "tools.md"), summary: NodePath.join(dir, "tools.summary.md") },
        counts: { tools: 3, shadowed: 1, pathDirs: 1, roots: 0, versions: 1, agentHostItems: 0, diagnostics: 0 },
        changes: null,
        durationMs: 12,
        rescanReason: "a PATH dir changed"
      })
      expect((yield* Ref.get(scans)).map((options) => [options.ifStale, options.probes, options.progress])).toEqual([[true, true, false], [false, true, false]])
      expect([...(yield* updates.await.pipe(Effect.flatten))].map((change) => change._tag === "Updated" && change.uri)).toEqual([
        "tool-map://inventory/summary",
        "tool-map://inventory/tools.md",
        "tool-map://inventory/tools.json"
      ])
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))

  it.live("inventory_query of tools filters as query tools does: a long filter lets the event loop run, so a cancelled call stops at once", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      // 20,000 names of 250 characters against a glob of 1,000: about a minute of matching.
      const big = inventoryOf(Array.from({ length: 20_000 }, (_, index) => toolNamed(`${"a".repeat(240)}${String(index).padStart(10, "0")}`)))
      const { tools } = yield* providersIn(dir, yield* Ref.make<"Written" | "Skipped">("Skipped"), yield* Ref.make<ReadonlyArray<ScanOptions>>([]), big)
      const call = tools[0]!.callTool({ name: "inventory_query", arguments: { kind: "tools", name: `${"*a".repeat(499)}*b` } }, context)
      const fiber = yield* Effect.fork(call)
      // A filter that never yields would hold the event loop: this timer would fire only once it ended.
      yield* Effect.sleep("200 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))

  it.scoped("inventory_query takes a name glob of at most 1,024 characters, as query tools --name", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const { tools } = yield* providersIn(dir, yield* Ref.make<"Written" | "Skipped">("Skipped"), yield* Ref.make<ReadonlyArray<ScanOptions>>([]))
      const longest = yield* tools[0]!.callTool({ name: "inventory_query", arguments: { kind: "tools", name: `${"?".repeat(1023)}*` } }, context)
      expect(Option.getOrThrow(longest).structuredContent).toEqual({ kind: "tools", generation: inventory.generation, count: 0, items: [] })
      const tooLong = yield* Effect.flip(tools[0]!.callTool({ name: "inventory_query", arguments: { kind: "tools", name: "g".repeat(1025) } }, context))
      const description = "NonEmptyString & tools: only tools whose name (or an alias's) matches this glob of at most 1024 characters, e.g. python*: * any run, ? one character, [a-z] or [!a-z] a class, {a,b} alternatives, \\ escapes. | undefined"
      // The first line names the whole input type; the tree under it is the failure.
      expect(tooLong.message.split("\n").slice(1)).toEqual([
        `└─ ["name"]`,
        `   └─ ${description}`,
        "      ├─ name takes a glob of at most 1024 characters",
        `      └─ Expected undefined, actual "${"g".repeat(1025)}"`
      ])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.live("pipelined calls share one read of the bundle, kept until a new tools.json is renamed into place; without one each call reads", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const reads = yield* Ref.make(0)
      // A read takes a while, as parsing a large bundle does: the calls asking meanwhile wait for it.
      const counted = Effect.zipRight(Ref.update(reads, (count) => count + 1), Effect.as(Effect.sleep("20 millis"), inventory))
      const { tools } = yield* providersIn(dir, yield* Ref.make<"Written" | "Skipped">("Skipped"), yield* Ref.make<ReadonlyArray<ScanOptions>>([]), counted)
      const provider = tools[0]!
      const which = provider.callTool({ name: "which", arguments: { name: "git" } }, context)
      const calls = (count: number) => Effect.all(Array.from({ length: count }, () => which), { concurrency: "unbounded" })
      // No tools.json yet (the reader scans first): nothing to key a kept read on.
      yield* calls(3)
      expect(yield* Ref.getAndSet(reads, 0)).toBe(3)
      const json = NodePath.join(dir, "tools.json")
      yield* fs.writeFileString(json, "{}")
      const answers = yield* calls(50)
      expect(answers.map((answer) => Option.getOrThrow(answer).content)).toEqual(
        Array.from({ length: 50 }, () => [{ type: "text", text: "git runs /bin/git (version 2.45.0).\nalso /opt/bin/git (shadowed)" }])
      )
      yield* calls(10)
      expect(yield* Ref.getAndSet(reads, 0)).toBe(1)
      yield* fs.writeFileString(`${json}.next`, "{ }")
      yield* fs.rename(`${json}.next`, json)
      yield* calls(10)
      expect(yield* Ref.get(reads)).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))

  it.live("refreshes run one scan at a time; those asked while one runs share the next, forced when any of them was", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const scans = yield* Ref.make<ReadonlyArray<ScanOptions>>([])
      const { tools } = yield* providersIn(dir, yield* Ref.make<"Written" | "Skipped">("Written"), scans, inventory, "50 millis")
      const provider = tools[0]!
      const refresh = (args: Readonly<Record<string, unknown>>) => Effect.map(provider.callTool({ name: "inventory_refresh", arguments: args }, context), (answer) => Option.getOrThrow(answer).structuredContent)
      const first = yield* Effect.fork(refresh({}))
      yield* Effect.sleep("10 millis")
      const rest = yield* Effect.all([refresh({}), ...Array.from({ length: 299 }, () => refresh({ force: true }))], { concurrency: "unbounded" })
      expect(rest.length).toBe(300)
      expect(yield* Fiber.join(first)).toEqual(rest[0])
      expect((yield* Ref.get(scans)).map((options) => options.ifStale)).toEqual([true, false])
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))
})

describe("untrustedJson", () => {
  it("cleans every string, and a description of tag and zero-width characters too", () => {
    expect(untrustedJson({ name: "a\u001b[2Jb", description: "read\u{E0041}\u200Bme\u202E", nested: [{ path: "x\u2028y" }], n: 1, ok: true, none: null, gone: undefined })).toEqual({
      name: "a\uFFFD[2Jb",
      description: "readme",
      nested: [{ path: "x\uFFFDy" }],
      n: 1,
      ok: true,
      none: null
    })
  })
})
