/**
 * The `requestState` of a 2026-07-28 `input_required` answer, signed: the only way an answer in
 * `inputResponses` counts (docs/gateway-approvals.md: nothing a client sends approves, only the
 * user's answer to a question the gateway itself asked). The state binds the agent, the called
 * tool, the question asked, a random nonce and an expiry under HMAC-SHA256 with a key drawn at
 * start (never written anywhere); each nonce is accepted once. The answers of earlier rounds stay
 * here, kept under the round's nonce: a state carries no answer. Of an answer only what the risk
 * gate reads is kept (its action, and `confirm` when a boolean), and a round that carries answers
 * expires with the first round of its request: a "yes" counts at most 10 minutes after it was asked.
 */
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Effect, Option, Ref, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** How long a question asked in an `input_required` answer may be answered, in milliseconds. */
export const ROUND_STATE_TTL_MS = 10 * 60 * 1000

/** How many rounds waiting for their retry are kept (expired ones are dropped first, then the oldest). */
export const OPEN_ROUNDS_MAX = 4096

/** What a signed state says. */
const Payload = Schema.Struct({
  agent: Schema.String,
  tool: Schema.String,
  asked: Schema.String,
  nonce: Schema.String,
  expiresAt: Schema.Number
})
type Payload = typeof Payload.Type

/** A round's identity: the agent it runs as and the tool it calls. */
interface RoundOwner {
  readonly agent: string
  readonly tool: string
}

/** The answers a request knows, by question key, and until when they count (epoch ms; none without answers). */
export interface RoundAnswers {
  readonly byQuestion: ReadonlyMap<string, ElicitResult>
  readonly until: Option.Option<number>
}

/** No answer yet. */
export const NO_ANSWERS: RoundAnswers = { byQuestion: new Map(), until: Option.none() }

/** What is kept of an answer: its action, and `confirm` when it is a boolean (all the risk gate reads), nothing else. */
const keptAnswer = (answer: ElicitResult): ElicitResult => {
  const confirm = answer.content?.["confirm"]
  return typeof confirm === "boolean" ? { action: answer.action, content: { confirm } } : { action: answer.action }
}

/** Issues and checks round states. */
export interface RoundStates {
  /**
   * The state of an `input_required` answer that asked `asked`, carrying the answers accepted so
   * far: it expires 10 minutes from now, or with the answers it carries when they expire sooner.
   */
  readonly issue: (owner: RoundOwner, asked: string, answers: RoundAnswers) => Effect.Effect<string>
  /**
   * The answers a retry brings: those of its earlier rounds plus its `inputResponses`' answer to
   * the question its state asked; none unless the state is one this process signed for `owner`,
   * not expired, and not used before (its round is closed here).
   */
  readonly answersOf: (
    owner: RoundOwner,
    state: Option.Option<string>,
    responses: ReadonlyMap<string, ElicitResult>
  ) => Effect.Effect<RoundAnswers>
}

const decodePayload = Schema.decodeUnknownOption(Schema.parseJson(Payload))

/** A round waiting for its retry: the answers of its earlier rounds, until when it may be retried. */
interface OpenRound {
  readonly answers: ReadonlyMap<string, ElicitResult>
  readonly expiresAt: number
}

/** A round's end: `ttl` from now, or its carried answers' end when sooner. */
const roundEnd = (now: number, answers: RoundAnswers) =>
  Option.match(answers.until, { onNone: () => now + ROUND_STATE_TTL_MS, onSome: (until) => Math.min(until, now + ROUND_STATE_TTL_MS) })

/** Makes the signer of this process: a fresh random key, no round open. */
export const makeRoundStates: Effect.Effect<RoundStates> = Effect.gen(function* () {
  const key = randomBytes(32)
  const open = yield* Ref.make(new Map<string, OpenRound>())
  const sign = (body: string) => createHmac("sha256", key).update(body).digest()

  const issue: RoundStates["issue"] = (owner, asked, answers) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const payload: Payload = { agent: owner.agent, tool: owner.tool, asked, nonce: randomBytes(16).toString("hex"), expiresAt: roundEnd(now, answers) }
      yield* Ref.update(open, (rounds) => {
        const kept = new Map([...rounds].filter(([, round]) => round.expiresAt > now))
        kept.set(payload.nonce, { answers: new Map([...answers.byQuestion].map(([question, answer]) => [question, keptAnswer(answer)])), expiresAt: payload.expiresAt })
        while (kept.size > OPEN_ROUNDS_MAX) kept.delete(kept.keys().next().value as string)
        return kept
      })
      const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url")
      return `${body}.${sign(body).toString("base64url")}`
    })

  /** The payload of `state` when this process signed it. */
  const verified = (state: string): Option.Option<Payload> => {
    const dot = state.indexOf(".")
    if (dot < 0) return Option.none()
    const body = state.slice(0, dot)
    const given = Buffer.from(state.slice(dot + 1), "base64url")
    const expected = sign(body)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none()
    return decodePayload(Buffer.from(body, "base64url").toString("utf8"))
  }

  /** Closes the round of `nonce`: its earlier answers, none when it is not open (never issued, used, or dropped). */
  const close = (nonce: string) =>
    Ref.modify(open, (rounds) => {
      const round = rounds.get(nonce)
      if (round === undefined) return [Option.none<OpenRound>(), rounds] as const
      const kept = new Map(rounds)
      kept.delete(nonce)
      return [Option.some(round), kept] as const
    })

  const answersOf: RoundStates["answersOf"] = (owner, state, responses) =>
    Effect.gen(function* () {
      if (Option.isNone(state)) return NO_ANSWERS
      const payload = verified(state.value)
      if (Option.isNone(payload)) return NO_ANSWERS
      const { agent, tool, asked, nonce, expiresAt } = payload.value
      const now = yield* Clock.currentTimeMillis
      if (agent !== owner.agent || tool !== owner.tool || expiresAt <= now) return NO_ANSWERS
      const round = yield* close(nonce)
      if (Option.isNone(round)) return NO_ANSWERS
      const answers = new Map(round.value.answers)
      const answer = responses.get(asked)
      if (answer !== undefined) answers.set(asked, keptAnswer(answer))
      // They count as long as this round would have: its end is the first round's at the latest.
      return { byQuestion: answers, until: answers.size === 0 ? Option.none() : Option.some(expiresAt) }
    })

  return { issue, answersOf }
})
