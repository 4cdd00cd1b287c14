import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, type Scope } from "effect"
import {
  ENTRY_TOOL_DEFINITIONS,
  renderRescueRefusal,
  TOOLS_LOAD,
  TOOLS_LS,
  TOOLS_UNLOAD
} from "../../../src/catalog/core/entryTools.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { type Agent, LoadVetoed, ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { makeMemoryHost, type MemoryHostOptions } from "../../../examples/minimal-host/host.js"
import { pluginLayer } from "../../../examples/minimal-host/plugin.js"

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  inputSchema: { type: "object", properties: { value: { type: "string" } } }
})

const TOOLS: ReadonlyArray<ToolSchema> = [
  tool("bash", "Run a shell command."),
  tool("mcp__github__create_issue", "Create an issue in a repository."),
  tool("mcp__github__search_code", "Search code across repositories."),
  tool("mcp__github__delete_repository", "Delete a repository for good."),
  tool("mcp__slack__list_channels", "List the channels of a workspace."),
  tool("mcp__slack__post_message", "Post a message to a channel."),
  tool("fs_tree", "Show a directory\u200b tree.")
]

const agent: Agent = { id: "main" }

/** Runs `body` with the catalog embedded over a fresh memory host, categories defined (registrations end with it). */
const withCatalog = <A, E>(
  body: Effect.Effect<A, E, ToolCatalog | Scope.Scope>,
  options: Partial<MemoryHostOptions> = {}
) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: TOOLS, ...options })
    return yield* Effect.gen(function*() {
      const catalog = yield* ToolCatalog
      yield* catalog.defineCategory({ name: "code", description: "Source hosting and review", groups: ["github"] })
      yield* catalog.defineCategory({ name: "chat", description: "Team chat", groups: ["slack"] })
      return yield* body
    }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { persist: false })))
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))))

const ls = (args: unknown) => Effect.flatMap(ToolCatalog, (catalog) => catalog.callEntryTool(agent, "tools_ls", args))
const load = (args: unknown) => Effect.flatMap(ToolCatalog, (catalog) => catalog.callEntryTool(agent, "tools_load", args))
const unload = (args: unknown) => Effect.flatMap(ToolCatalog, (catalog) => catalog.callEntryTool(agent, "tools_unload", args))

describe("entry tool definitions", () => {
  it("are tools_ls, tools_load and tools_unload with their argument schemas", () => {
    expect(ENTRY_TOOL_DEFINITIONS.map((definition) => definition.name)).toEqual(["tools_ls", "tools_load", "tools_unload"])
    expect(Object.keys(TOOLS_LS.inputSchema.properties)).toEqual(["path", "query"])
    expect(TOOLS_LS.inputSchema.required).toEqual([])
    expect(Object.keys(TOOLS_LOAD.inputSchema.properties)).toEqual(["targets", "forSubagents"])
    expect(TOOLS_LOAD.inputSchema.required).toEqual(["targets"])
    expect(TOOLS_UNLOAD.inputSchema.required).toEqual(["targets"])
  })
})

describe("tools_ls", () => {
  it.effect("lists the categories at / with counts, loaded counts and token totals", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* ls({})).toBe([
        "/  categories. * = loaded (callable now), ! = high risk (load it on its own), [denied] = loaded but hidden by the host. tools_ls with a query searches everything.",
        "  code/           3 tools  0 loaded  ~103 tok  Source hosting and review",
        "  chat/           2 tools  0 loaded  ~70 tok   Team chat",
        "  uncategorized/  1 tool   0 loaded  ~31 tok   Groups no classifier or annotation has placed yet",
        "  pinned, always loaded: bash"
      ].join("\n"))
    })))

  it.effect("names the host's pinned tools once: on the root listing and under a search they match", () =>
    withCatalog(Effect.gen(function*() {
      expect((yield* ls({})).split("\n").at(-1)).toBe("  pinned, always loaded: bash")
      expect(yield* ls({ query: "bash" })).toBe(["No tools match \"bash\".", "  pinned, always loaded: bash"].join("\n"))
      expect(yield* ls({ path: "/code" })).not.toContain("pinned")
    })))

  it.effect("lists a category's groups", () =>
    withCatalog(Effect.gen(function*() {
      yield* load({ targets: ["mcp__github__search_code"] })
      expect(yield* ls({ path: "/code" })).toBe([
        "/code/  Source hosting and review",
        "  github/  3 tools  1 loaded  ~103 tok"
      ].join("\n"))
    })))

  it.effect("lists a group's tools with * for loaded, ! for high risk, and a flag for a cleaned description", () =>
    withCatalog(Effect.gen(function*() {
      yield* load({ targets: ["/code/github"] })
      expect(yield* ls({ path: "/code/github" })).toBe([
        "/code/github/",
        "  *   create_issue       ~35 tok  Create an issue in a repository.",
        "   !  delete_repository  ~35 tok  Delete a repository for good.",
        "  *   search_code        ~33 tok  Search code across repositories."
      ].join("\n"))
      expect(yield* ls({ path: "/uncategorized/misc" })).toBe([
        "/uncategorized/misc/",
        "      fs_tree  ~31 tok  [description cleaned: zero-width] Show a directory tree."
      ].join("\n"))
    })))

  it.effect("marks a tool loaded but hidden by another layer of the host as [denied]", () =>
    withCatalog(
      Effect.gen(function*() {
        yield* load({ targets: ["chat"] })
        expect(yield* ls({ path: "slack" })).toBe([
          "/chat/slack/",
          "  *   list_channels  ~35 tok  List the channels of a workspace.",
          "  *   post_message   ~35 tok  [denied] Post a message to a channel."
        ].join("\n"))
      }),
      { hidden: ["mcp__slack__post_message"] }
    ))

  it.effect("shows one tool with its risk evidence", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* ls({ path: "mcp__github__delete_repository" })).toBe([
        "/code/github/delete_repository",
        "  name: mcp__github__delete_repository",
        "  Delete a repository for good.",
        "  schema ~35 tok · high risk: load it on its own",
        "  risk: name has the verb \"delete\""
      ].join("\n"))
    })))

  it.effect("searches with a query, names ranked above descriptions, under a path when given", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* ls({ query: "channel" })).toBe([
        "2 matches for \"channel\", best first (load by path or full name):",
        "      /chat/slack/list_channels  ~35 tok  List the channels of a workspace.",
        "      /chat/slack/post_message   ~35 tok  Post a message to a channel."
      ].join("\n"))
      expect(yield* ls({ path: "/code", query: "channel" })).toBe("No tools match \"channel\".")
    })))

  it.effect("answers a path that names nothing with where to start, and suggestions", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* ls({ path: "/code/gitlab" })).toBe(
        "No such path: /code/gitlab. Browse from tools_ls(\"/\"); tools_ls with a query searches everything."
      )
      expect(yield* ls({ path: "/slack" })).toBe([
        "No such path: /slack. Browse from tools_ls(\"/\"); tools_ls with a query searches everything.",
        "Did you mean: /chat/slack, /chat/slack/list_channels, /chat/slack/post_message?"
      ].join("\n"))
    })))
})

describe("tools_load", () => {
  it.effect("loads a group without its high-risk tools and says so", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* load({ targets: ["/code/github"] })).toBe([
        "Loaded 2 tool(s), ~68 tok; callable from your next step:",
        "  mcp__github__create_issue",
        "  mcp__github__search_code",
        "/code/github: high-risk tools left out (delete_repository); load them one by one"
      ].join("\n"))
    })))

  it.effect("refuses a single high-risk tool while no risk gate is registered, and loads it while one is", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* load({ targets: ["mcp__github__delete_repository"] })).toBe([
        "Nothing new loaded.",
        "mcp__github__delete_repository is high risk and no risk gate is registered to confirm it; not loaded"
      ].join("\n"))
      const catalog = yield* ToolCatalog
      yield* Effect.scoped(Effect.gen(function*() {
        yield* catalog.registerRiskGate({ name: "confirm" })
        expect(yield* load({ targets: ["mcp__github__delete_repository"] })).toBe([
          "Loaded 1 tool(s), ~35 tok; callable from your next step:",
          "  mcp__github__delete_repository"
        ].join("\n"))
      }))
      expect(yield* catalog.riskGates).toEqual([])
    })))

  it.effect("asks a gate that approves, and reports a gate that declines", () =>
    withCatalog(Effect.gen(function*() {
      const catalog = yield* ToolCatalog
      yield* catalog.registerRiskGate({ name: "ask-user", approve: () => Effect.succeed(false) })
      expect(yield* load({ targets: ["mcp__github__delete_repository"] })).toBe([
        "Nothing new loaded.",
        "mcp__github__delete_repository is high risk and the risk gate ask-user did not approve it; not loaded"
      ].join("\n"))
      // A user's own request (a UI click) does not ask the gate again.
      const result = yield* catalog.load(agent, ["mcp__github__delete_repository"], { consented: true })
      expect(result.added).toEqual(["mcp__github__delete_repository"])
    })))

  it.effect("lets a before-load hook veto with a reason", () =>
    withCatalog(Effect.gen(function*() {
      const catalog = yield* ToolCatalog
      const seen: Array<ReadonlyArray<string>> = []
      yield* catalog.registerBeforeLoad({
        name: "budget",
        check: (request) =>
          Effect.sync(() => seen.push(request.names)).pipe(
            Effect.zipRight(Effect.fail(new LoadVetoed({ hook: "budget", reason: "the token budget of this session is spent" })))
          )
      })
      expect(yield* load({ targets: ["chat"] })).toBe("Load refused: the token budget of this session is spent")
      expect(seen).toEqual([["mcp__slack__list_channels", "mcp__slack__post_message"]])
      expect(yield* catalog.stateOf(agent)).toEqual({ loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] })
    })))

  it.effect("skips the root, unknown targets (with suggestions) and always-on tools with a line each", () =>
    withCatalog(Effect.gen(function*() {
      expect(yield* load({ targets: ["/", "slak", "/slack", "bash", "mcp__slack__list_channels"] })).toBe([
        "Loaded 1 tool(s), ~35 tok; callable from your next step:",
        "  mcp__slack__list_channels",
        "skipped /: the whole tree cannot be loaded at once; pick a category or a group",
        "skipped slak: not found (tools_ls with a query searches everything)",
        "skipped /slack: not found (tools_ls with a query searches everything); did you mean /chat/slack, /chat/slack/list_channels, /chat/slack/post_message?",
        "skipped bash: always on already"
      ].join("\n"))
    })))

  it.effect("reports tools hidden by another layer of the host as not callable", () =>
    withCatalog(
      Effect.gen(function*() {
        expect(yield* load({ targets: "slack" })).toBe([
          "Loaded 1 tool(s), ~35 tok; callable from your next step:",
          "  mcp__slack__list_channels",
          "Hidden by the host, not callable even though loaded: mcp__slack__post_message"
        ].join("\n"))
      }),
      { hidden: ["mcp__slack__post_message"] }
    ))

  it.effect("says so when nothing is new", () =>
    withCatalog(Effect.gen(function*() {
      yield* load({ targets: ["chat"] })
      expect(yield* load({ targets: ["mcp__slack__post_message"] })).toBe("Nothing new loaded.")
    })))

  it.effect("rejects arguments that do not fit its schema", () =>
    withCatalog(Effect.gen(function*() {
      const error = yield* Effect.flip(load({ targets: [1] }))
      expect(error._tag).toBe("EntryToolArgumentsError")
      expect(error.message.startsWith("Invalid arguments for tools_load: ")).toBe(true)
    })))
})

describe("tools_unload", () => {
  it.effect("hides a single tool (excluding it from its loaded group) and skips always-on tools", () =>
    withCatalog(Effect.gen(function*() {
      yield* load({ targets: ["chat"] })
      expect(yield* unload({ targets: ["mcp__slack__post_message", "bash"] })).toBe([
        "Unloaded 1 tool(s):",
        "  mcp__slack__post_message",
        "skipped bash: always on, it cannot be unloaded"
      ].join("\n"))
      expect((yield* (yield* ToolCatalog).stateOf(agent)).excluded).toEqual(["mcp__slack__post_message"])
    })))

  it.effect("`all` returns to the always-on set", () =>
    withCatalog(Effect.gen(function*() {
      yield* load({ targets: ["chat", "/code/github"] })
      expect(yield* unload({ targets: ["all"] })).toBe([
        "Unloaded 4 tool(s):",
        "  mcp__slack__list_channels",
        "  mcp__slack__post_message",
        "  mcp__github__create_issue",
        "  mcp__github__search_code"
      ].join("\n"))
      expect(yield* unload({ targets: ["all"] })).toBe("Nothing was unloaded.")
    })))
})

describe("rescue refusals", () => {
  it("name the exact load instruction", () => {
    expect(renderRescueRefusal({ _tag: "HighRisk", name: "mcp__x__drop" })).toBe(
      "\"mcp__x__drop\" is high risk and is not loaded. Load it first with tools_load([\"mcp__x__drop\"]), which asks for approval."
    )
    expect(renderRescueRefusal({ _tag: "Filtered", name: "t" })).toBe(
      "\"t\" is not available in this session. Use tools_ls to see what is."
    )
    expect(renderRescueRefusal({ _tag: "Vetoed", name: "t", reason: "no" })).toBe("Load of \"t\" refused: no")
  })
})

describe("hostile tool names in the entry tools' answers", () => {
  const HOSTILE: ReadonlyArray<ToolSchema> = [
    tool("mcp__evil__csi\u001b[2J\u001b[31mred", "Clears the screen."),
    tool("mcp__evil__osc\u001b]0;pwned\u0007title", "Sets the title."),
    tool("mcp__evil__bidi\u202eexe.txt", "Reads backwards."),
    tool("mcp__evil__line\nbreak", "Breaks a line."),
    tool("mcp__evil__nul\u0000byte", "Holds a NUL."),
    tool("mcp__evil__lone\ud800surrogate", "Holds half a pair."),
    tool(`mcp__evil__${"w".repeat(5000)}`, "Is very long."),
    tool("mcp__evil__short", "Is short.")
  ]

  it.scoped("are neutralized in every line, and a very long one is cut in the table, not padding every row", () =>
    withCatalog(
      Effect.gen(function*() {
        const cell = (name: string) => name.padEnd(80)
        const long = `${"w".repeat(79)}…`
        expect(yield* ls({ path: "/uncategorized/evil" })).toBe([
          "/uncategorized/evil/",
          `      ${cell("bidi\uFFFDexe.txt")}  ~33 tok   Reads backwards.`,
          `      ${cell("csi\uFFFD[2J\uFFFD[31mred")}  ~36 tok   Clears the screen.`,
          `      ${cell("line\uFFFDbreak")}  ~31 tok   Breaks a line.`,
          `      ${cell("lone\uFFFDsurrogate")}  ~34 tok   Holds half a pair.`,
          `      ${cell("nul\uFFFDbyte")}  ~32 tok   Holds a NUL.`,
          `      ${cell("osc\uFFFD]0;pwned\uFFFDtitle")}  ~36 tok   Sets the title.`,
          `      ${cell("short")}  ~29 tok   Is short.`,
          `      ${long}  ~829 tok  Is very long.`
        ].join("\n"))
        const names = [
          "mcp__evil__bidi\uFFFDexe.txt",
          "mcp__evil__csi\uFFFD[2J\uFFFD[31mred",
          "mcp__evil__line\uFFFDbreak",
          "mcp__evil__lone\uFFFDsurrogate",
          "mcp__evil__nul\uFFFDbyte",
          "mcp__evil__osc\uFFFD]0;pwned\uFFFDtitle",
          "mcp__evil__short",
          `mcp__evil__${"w".repeat(5000)}`
        ]
        // Lists of names, one a line, are not tables: each name is whole, neutralized.
        expect(yield* load({ targets: ["evil"] })).toBe(
          ["Loaded 8 tool(s), ~1.1k tok; callable from your next step:", ...names.map((name) => `  ${name}`)].join("\n")
        )
        expect(yield* unload({ targets: ["all"] })).toBe(["Unloaded 8 tool(s):", ...names.map((name) => `  ${name}`)].join("\n"))
        expect(yield* ls({ path: "mcp__evil__nul\u0000byte" })).toBe([
          "/uncategorized/evil/nul\uFFFDbyte",
          "  name: mcp__evil__nul\uFFFDbyte",
          "  Holds a NUL.",
          "  schema ~32 tok"
        ].join("\n"))
        expect(yield* ls({ path: "/nope\u001b[31m\u202e" })).toBe(
          "No such path: /nope\uFFFD[31m\uFFFD. Browse from tools_ls(\"/\"); tools_ls with a query searches everything."
        )
        expect(yield* ls({ query: "clears" })).toBe([
          "1 match for \"clears\", best first (load by path or full name):",
          "      /uncategorized/evil/csi\uFFFD[2J\uFFFD[31mred  ~36 tok  Clears the screen."
        ].join("\n"))
        expect(renderRescueRefusal({ _tag: "Filtered", name: "a\u001b[2Jb" })).toBe(
          "\"a\uFFFD[2Jb\" is not available in this session. Use tools_ls to see what is."
        )
      }),
      { tools: HOSTILE }
    ))
})
