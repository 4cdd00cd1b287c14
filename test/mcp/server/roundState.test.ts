/**
 * The signed `requestState` of a 2026-07-28 round (issue 31): an answer counts only with a state
 * this process issued for that agent and tool, before it expires, once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { makeRoundStates, NO_ANSWERS, OPEN_ROUNDS_MAX, ROUND_STATE_TTL_MS, type RoundAnswers } from "../../../src/mcp/server/modern/roundState.js"

const OWNER = { agent: "modern/alice", tool: "tools_load" }
const YES = new Map([["confirm-1", { action: "accept" as const, content: { confirm: true } }]])
const EARLIER_ANSWERS = new Map([["confirm-0", { action: "decline" as const }]])
/** Answers carried from a round that counts until `until`. */
const carried = (until: number): RoundAnswers => ({ byQuestion: EARLIER_ANSWERS, until: Option.some(until) })
const EARLIER = carried(ROUND_STATE_TTL_MS)
/** The answers by question, as entries. */
const entries = (answers: RoundAnswers) => [...answers.byQuestion]
const size = (answers: RoundAnswers) => answers.byQuestion.size

describe("round states", () => {
  it.effect("the retry of its own round: the answers carried and the one asked; nothing for a forged, expired, reused or another's state", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const state = yield* states.issue(OWNER, "confirm-1", EARLIER)
      // Only the question the state asked is answered from inputResponses.
      const withStray = new Map([...YES, ["confirm-9", { action: "accept" as const, content: { confirm: true } }]])
      expect(entries(yield* states.answersOf(OWNER, Option.some(state), withStray))).toEqual([...EARLIER_ANSWERS, ...YES])
      // Spent: the same state again counts for nothing.
      expect(size(yield* states.answersOf(OWNER, Option.some(state), YES))).toBe(0)
      expect(size(yield* states.answersOf(OWNER, Option.none(), YES))).toBe(0)
      const other = yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      expect(size(yield* states.answersOf({ ...OWNER, agent: "modern/mallory" }, Option.some(other), YES))).toBe(0)
      expect(size(yield* states.answersOf({ ...OWNER, tool: "tools_route" }, Option.some(other), YES))).toBe(0)
      const [body, mac] = other.split(".") as [string, string]
      const forgedBody = Buffer.from(Buffer.from(body, "base64url").toString("utf8").replace("modern/alice", "modern/alicf")).toString("base64url")
      expect(size(yield* states.answersOf(OWNER, Option.some(`${forgedBody}.${mac}`), YES))).toBe(0)
      expect(size(yield* states.answersOf(OWNER, Option.some(`${body}.${mac.slice(1)}`), YES))).toBe(0)
      // Another process's key signs nothing here.
      const elsewhere = yield* (yield* makeRoundStates).issue(OWNER, "confirm-1", NO_ANSWERS)
      expect(size(yield* states.answersOf(OWNER, Option.some(elsewhere), YES))).toBe(0)
      // None of the refusals above spent `other`'s nonce: its owner's retry still counts, before it expires.
      expect(entries(yield* states.answersOf(OWNER, Option.some(other), YES))).toEqual([...YES])
      const late = yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      yield* TestClock.adjust(ROUND_STATE_TTL_MS)
      expect(size(yield* states.answersOf(OWNER, Option.some(late), YES))).toBe(0)
    }))

  it.effect("a state carries no answer: the earlier rounds' answers are kept here, for the last 4,096 rounds open", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const state = yield* states.issue(OWNER, "confirm-1", EARLIER)
      const [body] = state.split(".") as [string]
      expect(Object.keys(JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as object).sort()).toEqual(["agent", "asked", "expiresAt", "nonce", "tool"])
      const oldest = yield* states.issue(OWNER, "confirm-1", EARLIER)
      for (let i = 0; i < OPEN_ROUNDS_MAX; i++) yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      expect(size(yield* states.answersOf(OWNER, Option.some(oldest), YES))).toBe(0)
    }))

  it.effect("of an answer only its action and a boolean confirm are kept: other keys and any size are dropped", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const big = "x".repeat(1024 * 1024)
      const state = yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      const padded = new Map([["confirm-1", { action: "accept" as const, content: { confirm: true, pad: big, other: [big] } }]])
      const answers = yield* states.answersOf(OWNER, Option.some(state), padded)
      expect(entries(answers)).toEqual([["confirm-1", { action: "accept", content: { confirm: true } }]])
      // Carried into the next round, and back: still only what the gate reads.
      const next = yield* states.issue(OWNER, "confirm-2", {
        byQuestion: new Map([...answers.byQuestion, ["confirm-x", { action: "accept" as const, content: { confirm: "yes", pad: big } }]]),
        until: answers.until
      })
      expect(entries(yield* states.answersOf(OWNER, Option.some(next), new Map()))).toEqual([
        ["confirm-1", { action: "accept", content: { confirm: true } }],
        ["confirm-x", { action: "accept" }]
      ])
    }))

  it.effect("answers carried forward keep the first round's expiry: a yes counts at most 10 minutes after it was asked", () =>
    Effect.gen(function* () {
      const states = yield* makeRoundStates
      const first = yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      yield* TestClock.adjust(ROUND_STATE_TTL_MS - 60_000)
      const answered = yield* states.answersOf(OWNER, Option.some(first), YES)
      expect(answered.until).toEqual(Option.some(ROUND_STATE_TTL_MS))
      const second = yield* states.issue(OWNER, "confirm-2", answered)
      const [body] = second.split(".") as [string]
      expect((JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { expiresAt: number }).expiresAt).toBe(ROUND_STATE_TTL_MS)
      // One minute later the first round's 10 minutes are over: the retry of the second brings nothing.
      yield* TestClock.adjust(60_000)
      expect(size(yield* states.answersOf(OWNER, Option.some(second), new Map([["confirm-2", { action: "accept" as const, content: { confirm: true } }]])))).toBe(0)
      // A round without answers carried still gets its own 10 minutes.
      const fresh = yield* states.issue(OWNER, "confirm-1", NO_ANSWERS)
      yield* TestClock.adjust(ROUND_STATE_TTL_MS - 1)
      expect(entries(yield* states.answersOf(OWNER, Option.some(fresh), YES))).toEqual([...YES])
    }))
})
