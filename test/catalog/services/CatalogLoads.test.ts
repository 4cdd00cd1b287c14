import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Ref } from "effect"
import { CatalogLoads } from "../../../src/catalog/services/CatalogLoads.js"
import { LoadVetoed } from "../../../src/catalog/services/CatalogRegistry.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { withEmbedded } from "./embedded.js"

const agent = { id: "a" }

describe("CatalogLoads", () => {
  it.effect("loads run one at a time: concurrent loads each report their own tools, and all stay loaded", () =>
    withEmbedded((host) =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const loads = yield* CatalogLoads
        const targets = ["mcp__github__create_issue", "mcp__github__search_code", "mcp__slack__list_channels", "fs_tree"]
        const results = yield* Effect.forEach(targets, (target) => loads.load(agent, [target]), { concurrency: "unbounded" })
        expect(results.map((result) => result.added)).toEqual(targets.map((target) => [target]))
        expect([...(yield* catalog.stateOf(agent)).loaded].sort()).toEqual([...targets].sort())
        const restriction = Option.flatten(yield* host.restrictionOf("a"))
        expect(Option.map(restriction, (names) => names.slice(8))).toEqual(Option.some(targets))
      }), {
      // A host that yields while restricting lets the other loads run in between, were they not serialized.
      port: (port) => ({ ...port, restrict: (agent, allow) => Effect.zipRight(Effect.yieldNow(), port.restrict(agent, allow)) })
    }))

  it.effect("a veto leaves the state as it was and says why", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const loads = yield* CatalogLoads
        yield* catalog.registerBeforeUnload({
          name: "keep",
          check: () => Effect.fail(new LoadVetoed({ hook: "keep", reason: "this session keeps its tools" }))
        })
        yield* loads.load(agent, ["slack"])
        const result = yield* loads.unload(agent, ["slack"])
        expect(result).toEqual({
          text: "Unload refused: this session keeps its tools",
          removed: [],
          notes: [],
          refused: Option.some("this session keeps its tools")
        })
        expect((yield* catalog.stateOf(agent)).groups).toEqual(["/communication/slack"])
      })
    ))

  it.effect("a gate's queued spend runs where the load commits: two loads, one approval, exactly one loads", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const loads = yield* CatalogLoads
        const risky = "mcp__github__delete_repository"
        // One approval both loads see before either commits (as two processes would): only one spend finds it.
        const approval = yield* Ref.make(true)
        const spent = yield* Ref.make(0)
        yield* catalog.registerRiskGate({
          name: "terminal",
          approve: ({ spendOnLoad }) =>
            Effect.as(spendOnLoad(Effect.zipRight(Ref.update(spent, (n) => n + 1), Ref.getAndSet(approval, false))), true)
        })
        const results = yield* Effect.forEach([{ id: "a" }, { id: "b" }], (who) => loads.load(who, [risky]), { concurrency: "unbounded" })
        expect(results.map((result) => result.added)).toEqual([[risky], []])
        expect(results[1]!.notes).toEqual([{ _tag: "NotApproved", tool: risky, gate: "terminal" }])
        expect(results[1]!.text).toBe(`Nothing new loaded.\n${risky} is high risk and the risk gate terminal did not approve it; not loaded`)
        expect(yield* Ref.get(spent)).toBe(2)
        expect((yield* catalog.stateOf({ id: "b" })).loaded).toEqual([])
      })
    ))

  it.effect("a load interrupted before it commits (a later tool's question, a cancel) spends nothing", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const loads = yield* CatalogLoads
        const approval = yield* Ref.make(true)
        const asked = yield* Deferred.make<void>()
        yield* catalog.registerRiskGate({ name: "terminal", approve: ({ spendOnLoad }) => Effect.as(spendOnLoad(Ref.getAndSet(approval, false)), true) })
        // A later gate's question, never answered.
        yield* catalog.registerRiskGate({ name: "ask", approve: () => Effect.zipRight(Deferred.succeed(asked, undefined), Effect.never) })
        const fiber = yield* Effect.fork(loads.load(agent, ["mcp__github__delete_repository"]))
        yield* Deferred.await(asked)
        yield* Fiber.interrupt(fiber)
        expect(yield* Ref.get(approval)).toBe(true)
        expect((yield* catalog.stateOf(agent)).loaded).toEqual([])
      })
    ))

  it.effect("a high-risk tool loads on its own through a gate, and a rescue of it is refused", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const loads = yield* CatalogLoads
        const decision = yield* loads.beforeCall(agent, "mcp__github__delete_repository")
        expect(decision._tag === "Deny" && decision.refusal).toEqual({ _tag: "HighRisk", name: "mcp__github__delete_repository" })
        yield* catalog.registerRiskGate({ name: "ask", approve: ({ tool }) => Effect.succeed(tool.name.endsWith("repository")) })
        expect((yield* loads.load(agent, ["mcp__github__delete_repository"])).added).toEqual(["mcp__github__delete_repository"])
        expect(yield* loads.beforeCall(agent, "fs_tree")).toEqual({ _tag: "Proceed" })
        expect((yield* catalog.stateOf(agent)).loaded).toEqual(["mcp__github__delete_repository", "fs_tree"])
      })
    ))
})
