import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AgentRestrictions } from "../../../src/catalog/services/AgentRestrictions.js"
import { AgentSessions } from "../../../src/catalog/services/AgentSessions.js"
import { CatalogLoads } from "../../../src/catalog/services/CatalogLoads.js"
import { VisibilityStore } from "../../../src/catalog/stores/VisibilityStore.js"
import { tool, withEmbedded } from "./embedded.js"

const ALWAYS = ["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route", "bash"]

describe("AgentRestrictions", () => {
  it.effect("attach restricts the agent before it returns, and hands the host a restriction only when it changed", () =>
    withEmbedded((host) =>
      Effect.gen(function*() {
        const restrictions = yield* AgentRestrictions
        yield* restrictions.attach({ id: "a" })
        expect(yield* host.restrictionOf("a")).toEqual(Option.some(Option.some(ALWAYS)))
        yield* restrictions.attach({ id: "a" })
        yield* restrictions.refreshAll
        expect(yield* host.restrictCalls("a")).toBe(1)
        yield* host.removeTool("bash")
        yield* restrictions.refreshAll
        expect(yield* host.restrictionOf("a")).toEqual(Option.some(Option.some(ALWAYS.slice(0, 7))))
        expect(yield* host.restrictCalls("a")).toBe(2)
      })
    ))

  it.effect("a new subagent starts from its parent's handoffs; one that already has state keeps it", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const restrictions = yield* AgentRestrictions
        const loads = yield* CatalogLoads
        yield* restrictions.attach({ id: "parent" })
        yield* loads.load({ id: "parent" }, ["slack"], { forSubagents: true })
        yield* restrictions.importState({ id: "busy" }, { loaded: ["fs_tree"] })
        yield* restrictions.attach({ id: "child", parentId: "parent" })
        yield* restrictions.attach({ id: "busy", parentId: "parent" })
        expect(yield* restrictions.allowFor({ id: "child" })).toEqual(
          Option.some([...ALWAYS, "mcp__slack__list_channels", "mcp__slack__post_message"])
        )
        expect(yield* restrictions.allowFor({ id: "busy" })).toEqual(Option.some([...ALWAYS, "fs_tree"]))
      })
    ))

  it.effect("detach forgets the agent in the sessions and the store", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const restrictions = yield* AgentRestrictions
        yield* restrictions.attach({ id: "a" })
        yield* restrictions.detach("a")
        expect(yield* (yield* AgentSessions).counts).toEqual({ agents: 0, memos: 0, waiting: 0 })
        expect(yield* (yield* VisibilityStore).agents).toEqual([])
      })
    ))

  it.effect("an exempt agent is handed no restriction, and its denied names are none", () =>
    withEmbedded(
      (host) =>
        Effect.gen(function*() {
          const restrictions = yield* AgentRestrictions
          const agent = { id: "cc", provider: "claude-code" }
          yield* restrictions.attach(agent)
          expect(yield* host.restrictionOf("cc")).toEqual(Option.some(Option.none()))
          expect(yield* restrictions.allowFor(agent)).toEqual(Option.none())
          const context = yield* restrictions.contextOf({ id: "other" })
          expect(yield* restrictions.deniedIn({ id: "other" }, context, ["mcp__slack__post_message"])).toEqual([
            "mcp__slack__post_message"
          ])
        }),
      { host: { hidden: ["mcp__slack__post_message"], tools: [tool("bash"), tool("mcp__slack__post_message")] } }
    ))
})
