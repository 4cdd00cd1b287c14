import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { estimateTokens } from "../../../src/inventory/domain/tokens.js"
import { CatalogLoads } from "../../../src/catalog/services/CatalogLoads.js"
import { CatalogViews } from "../../../src/catalog/services/CatalogViews.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { TOOLS, withEmbedded } from "./embedded.js"

const agent = { id: "a" }

describe("CatalogViews", () => {
  it.effect("lists a group with what the agent has loaded marked, and changes nothing", () =>
    withEmbedded((host) =>
      Effect.gen(function*() {
        const views = yield* CatalogViews
        yield* (yield* CatalogLoads).load(agent, ["mcp__slack__list_channels"])
        const calls = yield* host.restrictCalls("a")
        expect(yield* views.list(agent, { path: "slack" })).toBe([
          "/communication/slack/",
          "  *   list_channels  ~24 tok  Does mcp slack list channels.",
          "      post_message   ~24 tok  Does mcp slack post message."
        ].join("\n"))
        expect(yield* host.restrictCalls("a")).toBe(calls)
      })
    ))

  it.effect("a resolver's target lists its tools, and a query ranks only among them", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const views = yield* CatalogViews
        yield* (yield* ToolCatalog).registerTargetResolver({
          prefix: "cap:",
          resolve: (rest) => (rest === "write" ? ["mcp__github__create_issue", "mcp__slack__post_message"] : undefined)
        })
        expect(yield* views.list(agent, { path: "cap:write" })).toContain("2 matches for \"cap:write\"")
        const ranked = yield* views.list(agent, { path: "cap:write", query: "post" })
        expect(ranked).toContain("/communication/slack/post_message")
        expect(ranked).not.toContain("create_issue")
      })
    ))

  it.effect("finds hits as data under a path, none under a path that names nothing", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const views = yield* CatalogViews
        const hits = yield* views.find("issue", "/code/github", Option.none())
        expect(hits.map((hit) => [hit.name, hit.path, hit.highRisk])).toEqual([
          ["mcp__github__create_issue", "/code/github/create_issue", false]
        ])
        expect(yield* views.find("issue", "/nowhere", Option.none())).toEqual([])
      })
    ))

  it.effect("counts the tokens of the allow-list, or of every tool for an exempt agent", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const views = yield* CatalogViews
        const catalog = yield* ToolCatalog
        const always = yield* views.wireTokens(agent)
        const bash = estimateTokens(TOOLS[0]!)
        const entry = catalog.entryTools.reduce((sum, definition) => sum + estimateTokens(definition), 0)
        expect(always).toBe(bash + entry)
        const every = TOOLS.reduce((sum, schema) => sum + estimateTokens(schema), 0)
        expect(yield* views.wireTokens({ id: "cc", provider: "claude-code" })).toBe(every + entry)
      })
    ))
})
