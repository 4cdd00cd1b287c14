import { describe, expect, it } from "@effect/vitest"
import { buildCatalog, resolveTarget } from "../../../src/catalog/core/catalog.js"
import type { Catalog, ToolSchema } from "../../../src/catalog/core/model.js"
import {
  type AgentState,
  allowList,
  appendOnly,
  applyLoad,
  applyUnload,
  catalogTools,
  DEFAULT_PINNED,
  deniedNames,
  emptyAgentState,
  ENTRY_TOOLS,
  handoffStateOf,
  pinnedInForce,
  planLoad,
  plannedNames
} from "../../../src/catalog/core/visibility.js"

const tool = (name: string, description = `Does ${name}.`): ToolSchema => ({ name, description, inputSchema: { type: "object" } })

const HOST_TOOLS: ReadonlyArray<ToolSchema> = [
  tool("bash"),
  tool("run_code"),
  tool("mcp__github__create_issue"),
  tool("mcp__github__search_code"),
  tool("mcp__github__delete_repository"),
  tool("mcp__slack__list_channels"),
  tool("mcp__slack__post_message")
]

const PINNED = new Set(["bash", ...ENTRY_TOOLS])
const RESERVED = new Set(["run_code"])

/** The catalog of the host's tools, every group in /uncategorized (placement is not what these tests are about). */
const catalogOf = (schemas: ReadonlyArray<ToolSchema>): Catalog =>
  buildCatalog(catalogTools(schemas, PINNED, RESERVED), { builtinPlacement: false })

const context = (catalog: Catalog) => ({
  pinned: PINNED,
  reserved: RESERVED,
  resolvePlain: (target: string) => resolveTarget(catalog, target)
})

const allow = (catalog: Catalog, state: AgentState, keep: (name: string) => boolean = () => true, hostTools = HOST_TOOLS) =>
  allowList({ catalog, hostTools: hostTools.map((schema) => schema.name), pinned: PINNED, reserved: RESERVED, state, keep })

const load = (catalog: Catalog, state: AgentState, targets: ReadonlyArray<string>, forSubagents = false) => {
  const plan = planLoad(targets.map((target) => resolveTarget(catalog, target)), context(catalog))
  return { plan, state: applyLoad(state, plan, forSubagents) }
}

const unload = (catalog: Catalog, state: AgentState, targets: ReadonlyArray<string>) =>
  applyUnload(state, targets.map((target) => resolveTarget(catalog, target)), context(catalog))

describe("allowList", () => {
  const catalog = catalogOf(HOST_TOOLS)

  it("is the entry tools, the reserved and pinned tools in host order, and nothing else when nothing is loaded", () => {
    expect(allow(catalog, emptyAgentState)).toEqual(["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route", "bash", "run_code"])
  })

  it("ignores pinned names the host does not have", () => {
    expect(allow(catalog, emptyAgentState, () => true, HOST_TOOLS.filter((schema) => schema.name !== "bash"))).toEqual([
      "tools_ls",
      "tools_load",
      "tools_unload",
      "tools_find",
      "tools_route",
      "skills_find",
      "skills_route",
      "run_code"
    ])
  })

  it("adds a loaded group's tools without its high-risk ones, and a single high-risk tool loaded by name", () => {
    const grouped = load(catalog, emptyAgentState, ["github"]).state
    expect(grouped.groups).toEqual(["/uncategorized/github"])
    expect(allow(catalog, grouped).slice(9)).toEqual(["mcp__github__create_issue", "mcp__github__search_code"])
    const single = load(catalog, grouped, ["mcp__github__delete_repository"]).state
    expect(allow(catalog, single).slice(9)).toEqual([
      "mcp__github__delete_repository",
      "mcp__github__create_issue",
      "mcp__github__search_code"
    ])
  })

  it("includes a tool a loaded group gains later", () => {
    const state = load(catalog, emptyAgentState, ["/uncategorized/slack"]).state
    const grown = [...HOST_TOOLS, tool("mcp__slack__add_reaction")]
    expect(allow(catalogOf(grown), state, () => true, grown).slice(9)).toEqual([
      "mcp__slack__add_reaction",
      "mcp__slack__list_channels",
      "mcp__slack__post_message"
    ])
  })

  it("leaves out excluded tools and what the filters keep out, but never entry tools or reserved names", () => {
    const state = { ...load(catalog, emptyAgentState, ["slack"]).state, excluded: ["mcp__slack__post_message"] }
    expect(allow(catalog, state).slice(9)).toEqual(["mcp__slack__list_channels"])
    const keepNothing = () => false
    expect(allow(catalog, state, keepNothing)).toEqual(["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route", "run_code"])
  })

  it("skips loaded names that are not in the catalog (a server that went away) but keeps them in the state", () => {
    const state = { ...emptyAgentState, loaded: ["mcp__gone__tool", "mcp__slack__list_channels"] }
    expect(allow(catalog, state).slice(9)).toEqual(["mcp__slack__list_channels"])
  })
})

describe("appendOnly", () => {
  it("keeps every surviving entry in place and appends the new ones", () => {
    expect(appendOnly(["a", "b", "c"], ["d", "c", "a"])).toEqual(["a", "c", "d"])
    expect(appendOnly([], ["x", "y"])).toEqual(["x", "y"])
  })
})

describe("planLoad and applyLoad", () => {
  const catalog = catalogOf(HOST_TOOLS)

  it("notes what it cannot load: the root, unknown names, pinned and reserved names, high-risk tools of a group", () => {
    const { plan } = load(catalog, emptyAgentState, ["/", "nope", "bash", "run_code", "github"])
    expect(plan.notes).toEqual([
      { _tag: "WholeTree", target: "/" },
      { _tag: "NotFound", target: "nope", suggestions: [] },
      { _tag: "AlwaysOn", target: "bash" },
      { _tag: "Reserved", target: "run_code" },
      { _tag: "RiskyLeftOut", group: "/uncategorized/github", tools: ["delete_repository"] }
    ])
    expect(plannedNames(plan)).toEqual(["mcp__github__create_issue", "mcp__github__search_code"])
  })

  it("a category load subscribes each of its groups; forSubagents hands them off", () => {
    const { state } = load(catalog, emptyAgentState, ["/uncategorized"], true)
    expect(state).toEqual({
      loaded: [],
      groups: ["/uncategorized/github", "/uncategorized/slack"],
      excluded: [],
      handoffGroups: ["/uncategorized/github", "/uncategorized/slack"],
      handoffTools: []
    })
    expect(handoffStateOf(state)).toEqual({ ...emptyAgentState, groups: ["/uncategorized/github", "/uncategorized/slack"] })
  })

  it("loading a tool clears its exclusion", () => {
    const state = { ...emptyAgentState, groups: ["/uncategorized/slack"], excluded: ["mcp__slack__post_message"] }
    expect(load(catalog, state, ["mcp__slack__post_message"]).state).toEqual({
      ...emptyAgentState,
      loaded: ["mcp__slack__post_message"],
      groups: ["/uncategorized/slack"]
    })
  })
})

describe("applyUnload", () => {
  const catalog = catalogOf(HOST_TOOLS)

  it("excludes a single tool whose group stays loaded", () => {
    const loaded = load(catalog, emptyAgentState, ["slack"]).state
    const { notes, state } = unload(catalog, loaded, ["mcp__slack__post_message"])
    expect(notes).toEqual([])
    expect(state.excluded).toEqual(["mcp__slack__post_message"])
    expect(allow(catalog, state).slice(9)).toEqual(["mcp__slack__list_channels"])
  })

  it("`all` returns to the always-on set; pinned names cannot be unloaded", () => {
    const loaded = load(catalog, emptyAgentState, ["slack", "mcp__github__create_issue"], true).state
    const { notes, state } = unload(catalog, loaded, ["bash", "ALL"])
    expect(notes).toEqual([{ _tag: "AlwaysOn", target: "bash" }])
    expect(state).toEqual(emptyAgentState)
  })
})

describe("deniedNames", () => {
  it("is the catalog tools of the allow-list that the host's final view hides (pinned tools are not ours)", () => {
    const catalog = catalogOf(HOST_TOOLS)
    const state = load(catalog, emptyAgentState, ["slack"]).state
    expect(deniedNames(allow(catalog, state), catalog, new Set(["tools_ls", "mcp__slack__list_channels"]))).toEqual([
      "mcp__slack__post_message"
    ])
  })
})

describe("the tools a catalog is built from", () => {
  it("pinned in force: the defaults and the settings' pinned, less unpin, the entry tools always", () => {
    const pinned = pinnedInForce({ pinned: ["deploy"], unpin: ["web_search", "tools_ls"] })
    expect([...pinned]).toEqual([
      ...DEFAULT_PINNED.filter((name) => name !== "web_search"),
      "deploy",
      ...ENTRY_TOOLS
    ])
  })

  it("leaves out the pinned and the reserved names, in the host's order; the host's own list when none is left out", () => {
    const schemas = [tool("search_docs"), tool("web_search"), tool("run_code"), tool("get_weather")]
    const pinned = pinnedInForce({ pinned: [], unpin: [] })
    expect(catalogTools(schemas, pinned, RESERVED).map((schema) => schema.name)).toEqual(["search_docs", "get_weather"])
    expect(catalogTools(schemas, pinnedInForce({ pinned: [], unpin: ["web_search"] }), new Set()).map((schema) => schema.name))
      .toEqual(["search_docs", "web_search", "run_code", "get_weather"])
    const none = [tool("search_docs"), tool("get_weather")]
    expect(catalogTools(none, pinned, RESERVED)).toBe(none)
  })
})
