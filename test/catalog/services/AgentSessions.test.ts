import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import { AgentSessions, type BuildMemo, BuildScope } from "../../../src/catalog/services/AgentSessions.js"
import type { Registries } from "../../../src/catalog/services/CatalogRegistry.js"
import { tool } from "./embedded.js"

const NOTHING_REGISTERED: Registries = {
  classifiers: [],
  annotations: [],
  categories: [],
  filters: [],
  resolvers: [],
  riskGates: [],
  beforeLoad: [],
  beforeUnload: []
}

const memoOf = (key: string): BuildMemo => ({
  inputs: Option.none(),
  catalog: buildCatalog([tool("mcp__a__one")]),
  buildKey: key,
  hashes: new Map()
})

describe("AgentSessions", () => {
  it.effect("knows agents in the order they came, taking a newer description of one it knows", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      expect(yield* sessions.remember({ id: "b" })).toBe(true)
      expect(yield* sessions.remember({ id: "a" })).toBe(true)
      expect(yield* sessions.remember({ id: "b", provider: "anthropic" })).toBe(false)
      expect(yield* sessions.agents).toEqual([{ id: "b", provider: "anthropic" }, { id: "a" }])
      expect(yield* sessions.get("a")).toEqual(Option.some({ id: "a" }))
      expect(yield* sessions.get("c")).toEqual(Option.none())
    }).pipe(Effect.provide(AgentSessions.layer)))

  it.effect("keys build memos by scope value: Host and each Agent apart, equal keys the same", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      yield* sessions.setMemo(BuildScope.Host(), memoOf("host"))
      yield* sessions.setMemo(BuildScope.Agent({ id: "a" }), memoOf("a"))
      expect(Option.map(yield* sessions.memo(BuildScope.Host()), (memo) => memo.buildKey)).toEqual(Option.some("host"))
      expect(Option.map(yield* sessions.memo(BuildScope.Agent({ id: "a" })), (memo) => memo.buildKey)).toEqual(Option.some("a"))
      expect(yield* sessions.memo(BuildScope.Agent({ id: "host" }))).toEqual(Option.none())
    }).pipe(Effect.provide(AgentSessions.layer)))

  it.effect("detach drops the agent's session, restriction and build memo, and nothing of others", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      for (const id of ["a", "b"]) {
        yield* sessions.remember({ id })
        yield* sessions.restricted(id, "bash")
        yield* sessions.setMemo(BuildScope.Agent({ id }), memoOf(id))
      }
      yield* sessions.setMemo(BuildScope.Host(), memoOf("host"))
      expect(yield* sessions.counts).toEqual({ agents: 2, memos: 3, waiting: 0 })
      yield* sessions.detach("a")
      expect(yield* sessions.counts).toEqual({ agents: 1, memos: 2, waiting: 0 })
      expect(yield* sessions.applied("a")).toEqual(Option.none())
      expect(yield* sessions.memo(BuildScope.Agent({ id: "a" }))).toEqual(Option.none())
      expect(yield* sessions.applied("b")).toEqual(Option.some("bash"))
      // Known again after a detach, it starts over: no restriction applied yet.
      yield* sessions.remember({ id: "a" })
      expect(yield* sessions.applied("a")).toEqual(Option.none())
    }).pipe(Effect.provide(AgentSessions.layer)))

  it.effect("ready waits until the agent is restricted, and returns at once afterwards", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      const first = yield* Effect.fork(sessions.ready("a"))
      const second = yield* Effect.fork(sessions.ready("a"))
      yield* Effect.yieldNow()
      expect(yield* sessions.counts).toEqual({ agents: 0, memos: 0, waiting: 1 })
      yield* sessions.remember({ id: "a" })
      yield* Effect.yieldNow()
      expect(first.unsafePoll()).toBeNull()
      yield* sessions.restricted("a", "bash")
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* sessions.ready("a")
      expect(yield* sessions.counts).toEqual({ agents: 1, memos: 0, waiting: 0 })
    }).pipe(Effect.provide(AgentSessions.layer)))

  it.effect("forgetInputs keeps each memo's build but drops what it was made from", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      const memo = memoOf("a")
      yield* sessions.setMemo(BuildScope.Host(), {
        ...memo,
        inputs: Option.some({ schemas: [], pinned: "", registries: NOTHING_REGISTERED, metadata: {}, highRisk: "" })
      })
      yield* sessions.forgetInputs
      const kept = Option.getOrThrow(yield* sessions.memo(BuildScope.Host()))
      expect(kept.inputs).toEqual(Option.none())
      expect(kept.buildKey).toBe("a")
      expect(kept.catalog).toBe(memo.catalog)
    }).pipe(Effect.provide(AgentSessions.layer)))

  it.effect("exclusive runs one change at a time", () =>
    Effect.gen(function*() {
      const sessions = yield* AgentSessions
      const log: Array<string> = []
      const step = (name: string) =>
        sessions.exclusive(Effect.gen(function*() {
          log.push(`${name} in`)
          yield* Effect.yieldNow()
          log.push(`${name} out`)
        }))
      yield* Effect.all([step("a"), step("b")], { concurrency: "unbounded" })
      expect(log).toEqual(["a in", "a out", "b in", "b out"])
    }).pipe(Effect.provide(AgentSessions.layer)))
})
