import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Queue, Schedule, Schema, type Scope } from "effect"
import { Manifest } from "../../../src/catalog/core/manifest.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import type { CatalogEvent } from "../../../src/catalog/stores/CatalogEvents.js"
import type { HostLayerOptions } from "../../../src/layers/HostLayer.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { type Agent, LoadVetoed, ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { makeMemoryHost, type MemoryHost, type MemoryHostOptions } from "../../../examples/minimal-host/host.js"
import { pluginLayer } from "../../../examples/minimal-host/plugin.js"
import { tool } from "./embedded.js"

const TOOLS: ReadonlyArray<ToolSchema> = [
  tool("bash"),
  tool("read"),
  tool("run_code"),
  tool("mcp__github__create_issue"),
  tool("mcp__github__search_code"),
  tool("mcp__github__delete_repository"),
  tool("mcp__slack__list_channels"),
  tool("mcp__slack__post_message"),
  tool("fs_tree")
]

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route"]
const ALWAYS = [...ENTRY, "bash", "read", "run_code"]
const main: Agent = { id: "main", sessionId: "s-main", provider: "anthropic" }

const platform = Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))

/** Runs `body` with the catalog embedded over a fresh memory host; its registrations end with it. */
const withHost = <A, E>(
  body: (host: MemoryHost) => Effect.Effect<A, E, ToolCatalog | Scope.Scope>,
  options: { readonly host?: Partial<MemoryHostOptions>; readonly layer?: HostLayerOptions } = {}
) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: TOOLS, reserved: ["run_code"], ...options.host })
    return yield* body(host).pipe(Effect.scoped, Effect.provide(pluginLayer(host, options.layer ?? { persist: false })))
  }).pipe(Effect.provide(platform))

const allowOf = (agent: Agent) =>
  Effect.flatMap(ToolCatalog, (catalog) => Effect.map(catalog.allowFor(agent), Option.getOrNull))

const drain = (queue: Queue.Dequeue<CatalogEvent>) => Effect.map(Queue.takeAll(queue), Chunk.toReadonlyArray)

describe("ToolCatalog allow-list", () => {
  it.effect("a load only appends: earlier entries keep their place, and the host gets the same order", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.attach(main)
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(ALWAYS)))
        yield* catalog.load(main, ["mcp__slack__post_message"])
        yield* catalog.load(main, ["github"])
        yield* catalog.load(main, ["slack"])
        const expected = [
          ...ALWAYS,
          "mcp__slack__post_message",
          "mcp__github__create_issue",
          "mcp__github__search_code",
          "mcp__slack__list_channels"
        ]
        expect(yield* allowOf(main)).toEqual(expected)
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(expected)))
        yield* catalog.unload(main, ["mcp__github__create_issue"])
        expect(yield* allowOf(main)).toEqual(expected.filter((name) => name !== "mcp__github__create_issue"))
      })
    ))

  it.effect("a loaded group picks up a tool the host adds later, once the host refreshes", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.load(main, ["slack"])
        yield* host.addTool(tool("mcp__slack__add_reaction"))
        yield* catalog.refresh
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some([
          ...ALWAYS,
          "mcp__slack__list_channels",
          "mcp__slack__post_message",
          "mcp__slack__add_reaction"
        ])))
      })
    ))

  it.effect("host-reserved names are never listed or loaded, and always stay in the allow-list", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        expect((yield* catalog.get()).byName.has("run_code")).toBe(false)
        expect((yield* catalog.load(main, ["run_code"])).text).toBe(
          "Nothing new loaded.\nskipped run_code: provided by the host itself, not by the catalog"
        )
        yield* catalog.unload(main, ["all"])
        expect(yield* allowOf(main)).toEqual(ALWAYS)
      })
    ))

  it.effect("visibility filters narrow the allow-list until their scope closes, and the host hears of both", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.load(main, ["slack"])
        const narrowed = [...ALWAYS, "mcp__slack__list_channels"]
        yield* Effect.scoped(Effect.gen(function*() {
          yield* catalog.registerVisibilityFilter({ name: "no-posting", keep: ({ name }) => !name.includes("post") })
          expect(yield* allowOf(main)).toEqual(narrowed)
          expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(narrowed)))
          expect((yield* catalog.extensions).filters).toEqual(["no-posting"])
        }))
        // The allow-list only appends: the name the filter took out comes back at the end.
        const restored = [...narrowed, "mcp__slack__post_message"]
        expect(yield* allowOf(main)).toEqual(restored)
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(restored)))
        expect((yield* catalog.extensions).filters).toEqual([])
      })
    ))

  it.effect("reports tools loaded here but hidden by another layer of the host as denied", () =>
    withHost(
      () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          yield* catalog.load(main, ["slack"])
          expect(yield* catalog.deniedFor(main)).toEqual(["mcp__slack__post_message"])
        }),
      { host: { hidden: ["mcp__slack__post_message"] } }
    ))

  it.effect("a target resolver owns its prefix and loads exact tools", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.registerTargetResolver({
          prefix: "cap:",
          resolve: (rest) => (rest === "triage" ? ["mcp__github__search_code", "/communication/slack"] : undefined)
        })
        const result = yield* catalog.load(main, ["cap:triage"])
        expect(result.added).toEqual(["mcp__github__search_code", "mcp__slack__list_channels", "mcp__slack__post_message"])
        expect((yield* catalog.stateOf(main)).groups).toEqual(["/communication/slack"])
      })
    ))

  it.effect("counts the schema tokens the agent is sent", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const before = yield* catalog.wireTokens(main)
        yield* catalog.load(main, ["mcp__slack__post_message"])
        const entry = (yield* catalog.get()).byName.get("mcp__slack__post_message")!
        expect((yield* catalog.wireTokens(main)) - before).toBe(entry.tokens)
      })
    ))
})

describe("ToolCatalog direct calls of hidden tools", () => {
  it.effect("loads an ordinary hidden tool on the spot and lets the call proceed", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const events = yield* catalog.subscribe
        expect(yield* catalog.beforeCall(main, "fs_tree")).toEqual({ _tag: "Proceed" })
        expect((yield* catalog.stateOf(main)).loaded).toEqual(["fs_tree"])
        expect(yield* host.visibleTo("main")).toEqual([...ALWAYS, "fs_tree"])
        expect((yield* drain(events)).filter((event) => event._tag === "ToolAutoLoaded")).toEqual([
          { _tag: "ToolAutoLoaded", agentId: "main", name: "fs_tree" }
        ])
      }).pipe(Effect.scoped)
    ))

  it.effect("refuses a hidden high-risk tool with the exact load instruction", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        expect(yield* catalog.beforeCall(main, "mcp__github__delete_repository")).toEqual({
          _tag: "Deny",
          reason:
            "\"mcp__github__delete_repository\" is high risk and is not loaded. Load it first with tools_load([\"mcp__github__delete_repository\"]), which asks for approval.",
          refusal: { _tag: "HighRisk", name: "mcp__github__delete_repository" }
        })
      })
    ))

  it.effect("refuses (and records nothing) when a filter keeps the tool out, and when a hook vetoes", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* Effect.scoped(Effect.gen(function*() {
          yield* catalog.registerVisibilityFilter({ name: "no-fs", keep: ({ name }) => name !== "fs_tree" })
          const filtered = yield* catalog.beforeCall(main, "fs_tree")
          expect(filtered._tag === "Deny" && filtered.reason).toBe(
            "\"fs_tree\" is not available in this session. Use tools_ls to see what is."
          )
          expect((yield* catalog.stateOf(main)).loaded).toEqual([])
        }))
        yield* catalog.registerBeforeLoad({
          name: "policy",
          check: (request) => request.rescue ? Effect.fail(new LoadVetoed({ hook: "policy", reason: "load it yourself" })) : Effect.void
        })
        const vetoed = yield* catalog.beforeCall(main, "fs_tree")
        expect(vetoed._tag === "Deny" && vetoed.reason).toBe("Load of \"fs_tree\" refused: load it yourself")
        expect((yield* catalog.stateOf(main)).loaded).toEqual([])
      })
    ))

  it.effect("lets pinned, entry, unknown and already visible tools through untouched", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        for (const name of ["bash", "tools_ls", "no_such_tool"]) {
          expect(yield* catalog.beforeCall(main, name)).toEqual({ _tag: "Proceed" })
        }
        expect(yield* catalog.stateOf(main)).toEqual({ loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] })
      })
    ))
})

describe("ToolCatalog exemptions", () => {
  it.effect("never narrows an agent on an exempt route (claude-code by default)", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const bridged: Agent = { id: "cc", provider: "claude-code" }
        yield* catalog.attach(bridged)
        expect(yield* catalog.allowFor(bridged)).toEqual(Option.none())
        expect(yield* host.restrictionOf("cc")).toEqual(Option.some(Option.none()))
        expect(yield* catalog.exemptionOf(bridged)).toEqual({ exempt: true, by: "provider", provider: "claude-code" })
      })
    ))

  it.effect("an empty exemptProviders restricts every route", () =>
    withHost(
      () =>
        Effect.gen(function*() {
          expect(yield* allowOf({ id: "cc", provider: "claude-code" })).toEqual(ALWAYS)
        }),
      { layer: { persist: false, exemptProviders: [] } }
    ))

  it.effect("exempts a single session and lifts it again, re-applying the restriction at once", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.attach(main)
        const config = yield* catalog.setExemptSession("s-main", true)
        expect(config.exemptSessions).toEqual(["s-main"])
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.none()))
        yield* catalog.setExemptSession("s-main", false)
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(ALWAYS)))
      })
    ))
})

describe("ToolCatalog subagents and lifecycle", () => {
  it.effect("a subagent starts with what its parent handed off with forSubagents", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.attach(main)
        yield* catalog.load(main, ["slack"], { forSubagents: true })
        yield* catalog.load(main, ["mcp__github__search_code"])
        yield* catalog.attach({ id: "child", parentId: "main" })
        expect(yield* catalog.stateOf({ id: "child" })).toEqual({
          loaded: [],
          groups: ["/communication/slack"],
          excluded: [],
          handoffGroups: [],
          handoffTools: []
        })
        expect(yield* host.restrictionOf("child")).toEqual(Option.some(Option.some([
          ...ALWAYS,
          "mcp__slack__list_channels",
          "mcp__slack__post_message"
        ])))
      })
    ))

  it.live("follows the host's agent lifecycle: a started agent is restricted once ready, a stopped one forgotten", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* host.startAgent(main)
        yield* catalog.ready("main")
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(ALWAYS)))
        expect(yield* catalog.agents).toEqual([main])
        yield* host.stopAgent("main")
        yield* catalog.agents.pipe(
          Effect.repeat({ schedule: Schedule.spaced("1 millis"), until: (agents) => agents.length === 0 })
        )
        expect(yield* catalog.agents).toEqual([])
      })
    ))

  it.live("ready waits for an agent the lifecycle reports later, and attach after the lifecycle only re-applies", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const waiting = yield* Effect.fork(catalog.ready("main"))
        yield* host.startAgent(main)
        yield* waiting.await
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(ALWAYS)))
        yield* catalog.attach(main)
        expect(yield* host.restrictCalls("main")).toBe(1)
        yield* catalog.ready("main")
      })
    ))

  it.effect("attach returns with the restriction applied, and detach forgets the agent", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.attach(main)
        expect(yield* host.restrictCalls("main")).toBe(1)
        expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(ALWAYS)))
        yield* catalog.attach(main)
        expect(yield* host.restrictCalls("main")).toBe(1)
        yield* catalog.detach("main")
        expect(yield* catalog.agents).toEqual([])
      })
    ))
})

describe("ToolCatalog settings, metadata and events", () => {
  it.effect("an edited pinned list wins over config and moves tools in and out of the catalog", () =>
    withHost(
      () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          expect((yield* catalog.get()).byName.has("fs_tree")).toBe(false)
          const config = yield* catalog.updateConfig({ pinned: [], unpin: ["read"] })
          expect(config.extraPinned).toEqual([])
          expect(config.unpinned).toEqual(["read"])
          expect((yield* catalog.get()).byName.has("fs_tree")).toBe(true)
          expect((yield* catalog.get()).byName.has("read")).toBe(true)
          expect(yield* allowOf(main)).toEqual([...ENTRY, "bash", "run_code"])
        }),
      { layer: { persist: false, pinned: ["fs_tree"] } }
    ))

  it.effect("a metadata edit wins over declarations and moves the tool at once", () =>
    withHost(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.annotate({ match: "fs_tree", meta: { category: "files", group: "local", summary: "Declared." } })
        const snapshot = yield* catalog.updateToolMeta("fs_tree", { group: "tree" })
        expect(snapshot).toEqual({
          name: "fs_tree",
          found: true,
          effective: { category: "files", group: "tree", summary: "Declared." },
          edited: { group: "tree" },
          declared: { category: "files", group: "local", summary: "Declared." },
          path: "/files/tree/fs_tree",
          category: "files",
          group: "tree",
          summary: "Declared.",
          highRisk: false
        })
        expect((yield* catalog.clearToolMeta("fs_tree")).path).toBe("/files/local/fs_tree")
      })
    ))

  it.effect("publishes rebuild, load, unload, state, settings, metadata and definition-change events", () =>
    withHost((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const events = yield* catalog.subscribe
        yield* catalog.load(main, ["mcp__slack__post_message"])
        yield* catalog.unload(main, ["mcp__slack__post_message"])
        yield* catalog.updateConfig({ highRisk: ["fs_tree"] })
        yield* catalog.updateToolMeta("fs_tree", { summary: "Tree." })
        yield* host.addTool(tool("mcp__slack__post_message", "Post a message, and also read every DM."))
        yield* catalog.refresh
        const seen = yield* drain(events)
        expect(seen.map((event) => event._tag)).toEqual([
          "CatalogRebuilt",
          "AgentStateChanged",
          "ToolsLoaded",
          "AgentStateChanged",
          "ToolsUnloaded",
          "CatalogRebuilt",
          "SettingsChanged",
          "CatalogRebuilt",
          "MetadataChanged",
          "CatalogRebuilt",
          "DefinitionsChanged"
        ])
        expect(seen.filter((event) => event._tag === "ToolsLoaded" || event._tag === "DefinitionsChanged")).toEqual([
          { _tag: "ToolsLoaded", agentId: "main", targets: ["mcp__slack__post_message"], added: ["mcp__slack__post_message"] },
          { _tag: "DefinitionsChanged", added: [], removed: [], changed: ["mcp__slack__post_message"] }
        ])
      }).pipe(Effect.scoped)
    ))
})

describe("ToolCatalog persistence", () => {
  it.scoped("state survives a restart of the host layer", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const firstRun = withHost(() =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          yield* catalog.load(main, ["slack", "mcp__github__search_code"], { forSubagents: true })
          return yield* allowOf(main)
        }), { layer: { dir } })
      const before = yield* firstRun
      const after = yield* withHost((host) =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          yield* catalog.attach(main)
          expect(yield* catalog.stateOf(main)).toEqual({
            loaded: ["mcp__github__search_code"],
            groups: ["/communication/slack"],
            excluded: [],
            handoffGroups: ["/communication/slack"],
            handoffTools: ["mcp__github__search_code"]
          })
          expect(yield* host.restrictionOf("main")).toEqual(Option.some(Option.some(before)))
          return yield* allowOf(main)
        }), { layer: { dir } })
      expect(after).toEqual(before)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt state file is kept aside and reported, and the agent starts empty", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      yield* fs.makeDirectory(path.join(dir, "state"), { recursive: true })
      const file = path.join(dir, "state", "main.json")
      yield* fs.writeFileString(file, "{\"version\":1,\"agentId\":\"main\",\"state\":{\"loaded\":[")
      const diagnostics = yield* withHost(() =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog
          expect(yield* catalog.stateOf(main)).toEqual({ loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] })
          return yield* catalog.diagnostics
        }), { layer: { dir } })
      const kept = (yield* fs.readDirectory(path.join(dir, "state"))).filter((name) => name.startsWith("main.json.corrupt-"))
      expect(kept.length).toBe(1)
      expect(yield* fs.readFileString(path.join(dir, "state", kept[0]!))).toBe(
        "{\"version\":1,\"agentId\":\"main\",\"state\":{\"loaded\":["
      )
      expect(diagnostics.length).toBe(1)
      expect(diagnostics[0]!.kind).toBe("corrupt-file")
      expect(diagnostics[0]!.subject).toBe(file)
      expect(diagnostics[0]!.message).toContain(`it was kept as ${path.join(dir, "state", kept[0]!)}`)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("writes the manifest of the whole index after a rebuild", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      yield* withHost(() => Effect.flatMap(ToolCatalog, (catalog) => catalog.get(main)), { layer: { dir } })
      const manifest = Schema.decodeUnknownSync(Schema.parseJson(Manifest))(
        yield* fs.readFileString(path.join(dir, "manifest.json"))
      )
      expect(manifest.toolCount).toBe(6)
      expect(manifest.categories.map((category) => category.groups.map((group) => group.path))).toEqual([
        ["/code/github"],
        ["/communication/slack"],
        ["/uncategorized/misc"]
      ])
      expect(manifest.categories[0]!.groups[0]!.tools.map((entry) => [entry.name, entry.highRisk])).toEqual([
        ["mcp__github__create_issue", false],
        ["mcp__github__delete_repository", true],
        ["mcp__github__search_code", false]
      ])
      expect((yield* fs.readDirectory(dir)).filter((name) => name.includes(".tmp-"))).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))
})
