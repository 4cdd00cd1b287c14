/**
 * The `requestState` of a 2026-07-28 `input_required` answer, signed: the only way an answer in
 * `inputResponses` counts (docs/gateway-approvals.md: nothing a client sends approves, only the
 * user's answer to a question the gateway itself asked). The state binds the agent, the called
 * tool, the question asked, a random nonce and an expiry under HMAC-SHA256 with a key drawn at
 * start (never written anywhere); each nonce is accepted once. The answers of earlier rounds a
 * state carries are ones the server itself accepted under an earlier state of its own (a client
 * cannot add one: the signature would not match).
 */
import { type ElicitResult, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Effect, Option, Ref, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** How long a question asked in an `input_required` answer may be answered, in milliseconds. */
export const ROUND_STATE_TTL_MS = 10 * 60 * 1000

/** How many spent nonces are remembered (expired ones are dropped first). */
export const SPENT_NONCES_MAX = 4096

/** What a signed state says. */
const Payload = Schema.Struct({
  agent: Schema.String,
  tool: Schema.String,
  asked: Schema.String,
  nonce: Schema.String,
  expiresAt: Schema.Number,
  answers: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
type Payload = typeof Payload.Type

/** A round's identity: the agent it runs as and the tool it calls. */
export interface RoundOwner {
  readonly agent: string
  readonly tool: string
}

/** Issues and checks round states. */
export interface RoundStates {
  /** The state of an `input_required` answer that asked `asked`, carrying the answers accepted so far. */
  readonly issue: (owner: RoundOwner, asked: string, answers: ReadonlyMap<string, ElicitResult>) => Effect.Effect<string>
  /**
   * The answers a retry brings: those its state carries plus its `inputResponses`' answer to the
   * question the state asked; none unless the state is one this process signed for `owner`, not
   * expired, and not used before (its nonce is spent here).
   */
  readonly answersOf: (
    owner: RoundOwner,
    state: Option.Option<string>,
    responses: ReadonlyMap<string, ElicitResult>
  ) => Effect.Effect<Map<string, ElicitResult>>
}

const decodePayload = Schema.decodeUnknownOption(Schema.parseJson(Payload))

/** Makes the signer of this process: a fresh random key, no nonce spent. */
export const makeRoundStates: Effect.Effect<RoundStates> = Effect.gen(function* () {
  const key = randomBytes(32)
  const spent = yield* Ref.make(new Map<string, number>())
  const sign = (body: string) => createHmac("sha256", key).update(body).digest()

  const issue: RoundStates["issue"] = (owner, asked, answers) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const payload: Payload = {
        agent: owner.agent,
        tool: owner.tool,
        asked,
        nonce: randomBytes(16).toString("hex"),
        expiresAt: now + ROUND_STATE_TTL_MS,
        answers: Object.fromEntries(answers)
      }
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

  /** Spends `nonce` (false when spent already); expired nonces and the oldest beyond the cap are forgotten. */
  const spend = (nonce: string, expiresAt: number, now: number) =>
    Ref.modify(spent, (nonces) => {
      if (nonces.has(nonce)) return [false, nonces] as const
      const kept = new Map([...nonces].filter(([, expiry]) => expiry > now))
      kept.set(nonce, expiresAt)
      while (kept.size > SPENT_NONCES_MAX) kept.delete(kept.keys().next().value as string)
      return [true, kept] as const
    })

  const answersOf: RoundStates["answersOf"] = (owner, state, responses) =>
    Effect.gen(function* () {
      const answers = new Map<string, ElicitResult>()
      if (Option.isNone(state)) return answers
      const payload = verified(state.value)
      if (Option.isNone(payload)) return answers
      const { agent, tool, asked, nonce, expiresAt } = payload.value
      const now = yield* Clock.currentTimeMillis
      if (agent !== owner.agent || tool !== owner.tool || expiresAt <= now) return answers
      if (!(yield* spend(nonce, expiresAt, now))) return answers
      for (const [question, value] of Object.entries(payload.value.answers)) {
        const result = ElicitResultSchema.safeParse(value)
        if (result.success) answers.set(question, result.data)
      }
      const answer = responses.get(asked)
      if (answer !== undefined) answers.set(asked, answer)
      return answers
    })

  return { issue, answersOf }
})
