/**
 * The signed `requestState` of a 2026-07-28 round (issue 31): an answer counts only with a state
 * this process issued for that agent and tool, before it expires, once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { makeRoundStates, OPEN_ROUNDS_MAX, ROUND_STATE_TTL_MS } from "../../../src/mcp/server/modern/roundState.js"

const OWNER = { agent: "modern/alice", tool: "tools_load" }
const YES = new Map([["confirm-1", { action: "accept" as const, content: { confirm: true } }]])
const EARLIER = new Map([["confirm-0", { action: "decline" as const }]])

describe("round states", () => {
  it.effect("the retry of its own round: the answers carried and the one asked; nothing for a forged, expired, reused or another's state", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const state = yield* states.issue(OWNER, "confirm-1", EARLIER)
      // Only the question the state asked is answered from inputResponses.
      const withStray = new Map([...YES, ["confirm-9", { action: "accept" as const, content: { confirm: true } }]])
      expect([...(yield* states.answersOf(OWNER, Option.some(state), withStray))]).toEqual([...EARLIER, ...YES])
      // Spent: the same state again counts for nothing.
      expect((yield* states.answersOf(OWNER, Option.some(state), YES)).size).toBe(0)
      expect((yield* states.answersOf(OWNER, Option.none(), YES)).size).toBe(0)
      const other = yield* states.issue(OWNER, "confirm-1", new Map())
      expect((yield* states.answersOf({ ...OWNER, agent: "modern/mallory" }, Option.some(other), YES)).size).toBe(0)
      expect((yield* states.answersOf({ ...OWNER, tool: "tools_route" }, Option.some(other), YES)).size).toBe(0)
      const [body, mac] = other.split(".") as [string, string]
      const forgedBody = Buffer.from(Buffer.from(body, "base64url").toString("utf8").replace("modern/alice", "modern/alicf")).toString("base64url")
      expect((yield* states.answersOf(OWNER, Option.some(`${forgedBody}.${mac}`), YES)).size).toBe(0)
      expect((yield* states.answersOf(OWNER, Option.some(`${body}.${mac.slice(1)}`), YES)).size).toBe(0)
      // Another process's key signs nothing here.
      const elsewhere = yield* (yield* makeRoundStates).issue(OWNER, "confirm-1", new Map())
      expect((yield* states.answersOf(OWNER, Option.some(elsewhere), YES)).size).toBe(0)
      // None of the refusals above spent `other`'s nonce: its owner's retry still counts, before it expires.
      expect([...(yield* states.answersOf(OWNER, Option.some(other), YES))]).toEqual([...YES])
      const late = yield* states.issue(OWNER, "confirm-1", new Map())
      yield* TestClock.adjust(ROUND_STATE_TTL_MS)
      expect((yield* states.answersOf(OWNER, Option.some(late), YES)).size).toBe(0)
    }))

  it.effect("a state carries no answer: the earlier rounds' answers are kept here, for the last 4,096 rounds open", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const state = yield* states.issue(OWNER, "confirm-1", EARLIER)
      const [body] = state.split(".") as [string]
      expect(Object.keys(JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as object).sort()).toEqual(["agent", "asked", "expiresAt", "nonce", "tool"])
      const oldest = yield* states.issue(OWNER, "confirm-1", EARLIER)
      for (let i = 0; i < OPEN_ROUNDS_MAX; i++) yield* states.issue(OWNER, "confirm-1", new Map())
      expect((yield* states.answersOf(OWNER, Option.some(oldest), YES)).size).toBe(0)
    }))
})
