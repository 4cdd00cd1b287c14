/**
 * The 2026-07-28 era beside the 2025 one: tool-map's answers to a request that carries its own
 * `_meta` envelope, from the same providers the 2025 sessions are served from (McpServer.ts).
 *
 * With no session, each request names its agent (`agentKeyOf`; its `_meta` read in wire.ts):
 * the first request of an agent attaches a session of its own to the providers (the gateway's
 * loaded tools live there), kept in a table like the Streamable HTTP sessions' (idle ones closed);
 * every request runs with that session's id and its own envelope's client and capabilities.
 * `subscriptions/listen` forwards the providers' changes the client opted in to; the risk gate's
 * question to the user becomes an `input_required` answer (see {@link answerCall}).
 */
import {
  type CallToolResult,
  type ElicitRequestFormParams,
  ErrorCode,
  type Implementation,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ListToolsResult,
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Deferred, Effect, Either, Exit, Option, Ref, type Scope, Stream } from "effect"
import { createHash } from "node:crypto"
import { cleanText } from "../../../inventory/domain/untrusted.js"
import { makeRoundStates, type RoundAnswers } from "./roundState.js"
import { type HttpSessionLimits, makeHttpSessions } from "../http/HttpSessions.js"
import { McpProtocolError } from "../McpProtocolError.js"
import type { McpProviderSet } from "../McpProviders.js"
import { agentNameOf, type McpCallContext, McpClientRequestFailed, CurrentRequestSession, type McpSession } from "../McpSession.js"
import {
  acknowledgedFilter,
  completeResult,
  type Envelope,
  envelopeOf,
  inputResponsesOf,
  isRecord,
  listenFilterOf,
  listenNotification,
  MODERN_PROTOCOL_VERSION,
  progressTokenOf,
  requestStateOf
} from "./wire.js"

/** What both eras answer from: McpServer's composition of the providers, per session. */
export interface McpAnswering {
  readonly providers: Effect.Effect<McpProviderSet, McpProtocolError>
  readonly listTools: (session: McpSession) => Effect.Effect<ListToolsResult, McpProtocolError>
  /** A call, its arguments' depth checked (refused with -32602 when too deep). */
  readonly callTool: (
    session: McpSession,
    name: string,
    args: Readonly<Record<string, unknown>>,
    context: Omit<McpCallContext, "session">
  ) => Effect.Effect<CallToolResult, McpProtocolError>
  readonly listResources: (session: McpSession) => Effect.Effect<{ readonly resources: Array<Resource> }, McpProtocolError>
  readonly readResource: (uri: string, session: McpSession) => Effect.Effect<ReadResourceResult, McpProtocolError>
  /** A defect's answer: logged on stderr, the client told only that there was one. */
  readonly internalError: (cause: Cause.Cause<unknown>) => Effect.Effect<McpProtocolError>
  readonly instructions: string
  /** How the server names itself (`serverInfo`). */
  readonly serverInfo: Implementation
  readonly capabilities: ServerCapabilities
  /** How many tool calls and resource reads of one agent run at once (the others wait their turn), as per 2025 session. */
  readonly callsAtOnce: number
}

/** Serves 2026-07-28 requests. */
export interface ModernEndpoint {
  /**
   * Answers `request` (one {@link isModernRequest} accepts) through `write`. A
   * `subscriptions/listen` writes its acknowledgement, then its notifications until the effect
   * is interrupted (the client cancelled it or left). Interrupting any other request stops it
   * without an answer.
   */
  readonly serve: (request: JSONRPCRequest, write: (message: JSONRPCMessage) => Effect.Effect<void>) => Effect.Effect<void>
}

/** How a 2026-07-28 client that names no agent and no client is known. */
export interface ModernOptions {
  /** The agents' sessions kept, and how long an idle one lives. */
  readonly limits: HttpSessionLimits
  /** The agent key of a request naming neither an agent nor its client (`stdio`: the one client of the process). */
  readonly fallbackAgent: string
}

/** An agent's session, and the turns of its calls. */
interface Agent {
  readonly session: McpSession
  readonly turns: Effect.Semaphore
}

/** How many `subscriptions/listen` streams one agent keeps open at once (one more is refused). */
const LISTENS_PER_AGENT = 4

/** The prefix of a 2026-07-28 agent's session id. */
const MODERN_SESSION_PREFIX = "modern/"

/** The agent a request runs as: `_meta` `dev.tool-map/agent`, else its client's name, else `fallback` (each bounded and cleaned: `agentNameOf`). */
const agentKeyOf = (envelope: Envelope, fallback: string): string =>
  Option.getOrElse(
    Option.orElse(envelope.agent, () => Option.flatMap(envelope.client, (client) => agentNameOf(client.name))),
    () => fallback
  )

/** A request's envelope and the id of its agent's session (`agentKeyOf`, worked out once a request). */
interface Caller {
  readonly envelope: Envelope
  readonly id: string
}

/**
 * The key of an elicitation in `inputRequests`: the question's digest, so that an answer can only
 * answer the question it was given for (a retry whose loads differ asks anew).
 */
export const questionKey = (params: ElicitRequestFormParams): string =>
  `confirm-${createHash("sha256").update(JSON.stringify([params.message, params.requestedSchema])).digest("hex").slice(0, 16)}`

/** One round of a `tools/call`: the answers known so far (see roundState.ts), and the question it stopped at, if any. */
interface Round {
  readonly answers: RoundAnswers
  pending: Option.Option<{ readonly key: string; readonly params: ElicitRequestFormParams }>
}

/**
 * The request's `elicit`: the answer the client gave to this question in this or an earlier round;
 * else the question is kept as the round's pending one and the call is interrupted, so that the
 * request answers `input_required` with it (the risk gate asks before anything is loaded).
 */
const elicitIn = (round: Round, envelope: Envelope): McpSession["elicit"] => (params) =>
  Effect.suspend(() => {
    if (!Option.exists(envelope.capabilities, (capabilities) => capabilities.elicitation !== undefined)) {
      return new McpClientRequestFailed({ method: "elicitation/create", reason: "the client declared no elicitation capability" })
    }
    const key = questionKey(params)
    const answer = round.answers.byQuestion.get(key)
    if (answer !== undefined) return Effect.succeed(answer)
    round.pending = Option.some({ key, params })
    return Effect.interrupt
  })

const errorMessage = (id: JSONRPCRequest["id"], code: number, message: string, data?: unknown): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) }
})


/** Makes the endpoint; the agents' sessions are closed with the scope. */
export const makeModernEndpoint = (
  answering: McpAnswering,
  options: ModernOptions
): Effect.Effect<ModernEndpoint, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Held only to look an agent up and, on its first request, to enter it in the table: the
    // attach (which may wait for every downstream's first listing) runs outside, in the agent's
    // own fiber, and each request of that agent awaits it alone (another agent never does).
    const opening = yield* Effect.makeSemaphore(1)
    const states = yield* makeRoundStates

    /**
     * An agent's session, opened with the envelope of its first request; its attach to every tool
     * provider runs in the session's scope, its outcome (a failure of the providers kept as such) in `ready`.
     */
    const sessions = yield* makeHttpSessions<Deferred.Deferred<Agent, McpProtocolError>, Envelope>(options.limits, (id, closeSelf, base) =>
      Effect.gen(function* () {
        // Capabilities are each request's own: the session kept declares none, so that nothing asks
        // this agent's user through it outside a request of its own (see `answerCall`).
        const session: McpSession = {
          id,
          client: base.client,
          capabilities: Option.none(),
          ...(Option.isSome(base.agent) ? { agent: base.agent.value } : {}),
          elicit: () => new McpClientRequestFailed({ method: "elicitation/create", reason: "a 2026-07-28 client is asked only in answer to its own request" })
        }
        const ready = yield* Deferred.make<Agent, McpProtocolError>()
        const attach = Effect.gen(function* () {
          const providers = yield* answering.providers
          yield* Effect.forEach(providers.tools, (provider) => provider.attach(session), { discard: true })
          return { session, turns: yield* Effect.makeSemaphore(answering.callsAtOnce) }
        })
        // A failed attach leaves no entry behind (stdio's sessions never idle out): the agent's next
        // request attaches again. Closed from outside this scope, which the close ends.
        yield* Effect.forkScoped(
          Effect.intoDeferred(attach, ready).pipe(
            Effect.zipRight(Deferred.await(ready)),
            Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : Effect.asVoid(Effect.forkDaemon(closeSelf))))
          )
        )
        return ready
      }))

    /** Runs `use` with the caller's agent session, opened on its first request; counted in progress meanwhile. */
    const withSession = <A>(
      { envelope, id }: Caller,
      use: (session: McpSession, turns: Effect.Semaphore) => Effect.Effect<A, McpProtocolError>
    ): Effect.Effect<A, McpProtocolError> => {
      const acquire = opening.withPermits(1)(
        Effect.gen(function* () {
          const open = yield* sessions.use(id)
          if (Option.isSome(open)) return Either.right(open.value)
          return yield* sessions.open(id, envelope)
        })
      )
      return Effect.acquireUseRelease(
        acquire,
        (opened) => {
          if (Either.isLeft(opened)) {
            return new McpProtocolError({ code: ErrorCode.ConnectionClosed, reason: `all ${opened.left.max} agents' sessions are busy; retry later` })
          }
          return Effect.flatMap(Deferred.await(opened.right), (attached) =>
            use({ ...attached.session, client: envelope.client, capabilities: envelope.capabilities }, attached.turns))
        },
        (opened) => (Either.isRight(opened) ? sessions.release(id) : Effect.void)
      )
    }

    /** The answer to `request` from `effect`: its result as 2026-07-28 writes it, or its failure as a JSON-RPC error. */
    const reply = (request: JSONRPCRequest, effect: Effect.Effect<Readonly<Record<string, unknown>>, McpProtocolError>) =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(effect)
        if (Exit.isSuccess(exit)) {
          return { jsonrpc: "2.0", id: request.id, result: completeResult(request.method, exit.value, answering.serverInfo) } satisfies JSONRPCMessage
        }
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure)) return errorMessage(request.id, failure.value.code, failure.value.reason)
        const error = yield* answering.internalError(exit.cause)
        return errorMessage(request.id, error.code, error.reason)
      })

    /**
     * A `tools/call`: run with the request's own `elicit` (answers of earlier rounds from
     * `requestState`, this round's from `inputResponses`). When the risk gate asked a question
     * not answered yet, the call stopped there and the answer is `input_required` with it;
     * the client retries the same call with the user's answer.
     */
    const answerCall = (request: JSONRPCRequest, write: (message: JSONRPCMessage) => Effect.Effect<void>, caller: Caller) =>
      Effect.gen(function* () {
        const params = request.params
        const name = isRecord(params) ? params["name"] : undefined
        const args = isRecord(params) ? (params["arguments"] ?? {}) : {}
        if (typeof name !== "string" || !isRecord(args)) {
          return errorMessage(request.id, ErrorCode.InvalidParams, "Invalid params: tools/call needs a tool name and an arguments object")
        }
        const owner = { agent: caller.id, tool: name }
        const round: Round = { answers: yield* states.answersOf(owner, requestStateOf(params), inputResponsesOf(params)), pending: Option.none() }
        const progressToken = progressTokenOf(params)
        const progress = (value: number, total?: number, message?: string) =>
          Option.match(progressToken, {
            onNone: () => Effect.void,
            onSome: (progressToken) =>
              write({
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken, progress: value, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }
              })
          })
        const call = withSession(caller, (session, turns) => {
          const asking: McpSession = {
            ...session,
            elicit: elicitIn(round, caller.envelope)
          }
          return turns.withPermits(1)(answering.callTool(asking, name, args, { progressToken, progress })).pipe(
            Effect.locally(CurrentRequestSession, Option.some(asking))
          )
        })
        const exit = yield* Effect.exit(call)
        if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause) && Option.isSome(round.pending)) {
          const { key, params: question } = round.pending.value
          return {
            jsonrpc: "2.0",
            id: request.id,
            result: {
              resultType: "input_required",
              inputRequests: { [key]: { method: "elicitation/create", params: question } },
              requestState: yield* states.issue(owner, key, round.answers)
            }
          } satisfies JSONRPCMessage
        }
        return yield* reply(request, exit)
      })

    /** `subscriptions/listen`: acknowledged, then the opted-in changes of the agent's session until interrupted. */
    const listen = (request: JSONRPCRequest, write: (message: JSONRPCMessage) => Effect.Effect<void>, caller: Caller) =>
      withSession(caller, (session) =>
        Effect.gen(function* () {
          const filter = listenFilterOf(request.params)
          const providers = yield* answering.providers
          yield* write(listenNotification(request.id, "notifications/subscriptions/acknowledged", { notifications: acknowledgedFilter(filter) }))
          const tools = filter.toolsListChanged
            ? providers.tools.map((provider) => Stream.map(provider.listChanged(session), () => listenNotification(request.id, "notifications/tools/list_changed")))
            : []
          const subscribed = new Set(filter.resourceSubscriptions)
          const resources = providers.resources.map((provider) =>
            Stream.filterMap(provider.changes, (change) =>
              change._tag === "ListChanged"
                ? filter.resourcesListChanged ? Option.some(listenNotification(request.id, "notifications/resources/list_changed")) : Option.none()
                : subscribed.has(change.uri) ? Option.some(listenNotification(request.id, "notifications/resources/updated", { uri: change.uri })) : Option.none()
            ))
          yield* Stream.runForEach(Stream.mergeAll([...tools, ...resources], { concurrency: "unbounded" }), write)
          // Nothing (more) to forward: the stream stays open until the client ends it.
          return yield* Effect.never
        })).pipe(Effect.catchAll((failure) => Effect.flatMap(reply(request, Effect.fail(failure)), write)))

    /** The open `subscriptions/listen` streams of each agent (by session id). */
    const listening = yield* Ref.make(new Map<string, number>())
    const releaseListen = (id: string) =>
      Ref.update(listening, (counts) => {
        const next = new Map(counts)
        const count = (counts.get(id) ?? 0) - 1
        if (count > 0) next.set(id, count)
        else next.delete(id)
        return next
      })

    /** {@link listen}, refused when the agent has {@link LISTENS_PER_AGENT} streams open already. */
    const listenCounted = (request: JSONRPCRequest, write: (message: JSONRPCMessage) => Effect.Effect<void>, caller: Caller) => {
      const { id } = caller
      const admit = Ref.modify(listening, (counts) => {
        const count = counts.get(id) ?? 0
        if (count >= LISTENS_PER_AGENT) return [false, counts] as const
        return [true, new Map(counts).set(id, count + 1)] as const
      })
      return Effect.acquireUseRelease(
        admit,
        (admitted) =>
          admitted
            ? listen(request, write, caller)
            : write(errorMessage(request.id, ErrorCode.InvalidRequest, `Too many subscriptions/listen streams: an agent keeps at most ${LISTENS_PER_AGENT} open; end one first`)),
        (admitted) => (admitted ? releaseListen(id) : Effect.void)
      )
    }

    const answer = (request: JSONRPCRequest, write: (message: JSONRPCMessage) => Effect.Effect<void>) =>
      Effect.gen(function* () {
        const envelope = envelopeOf(request)
        if (Either.isLeft(envelope)) return yield* write(errorMessage(request.id, envelope.left.code, envelope.left.message, envelope.left.data))
        const caller: Caller = { envelope: envelope.right, id: MODERN_SESSION_PREFIX + agentKeyOf(envelope.right, options.fallbackAgent) }
        const params = isRecord(request.params) ? request.params : {}
        switch (request.method) {
          case "server/discover":
            return yield* Effect.flatMap(
              reply(request, Effect.succeed({ supportedVersions: [MODERN_PROTOCOL_VERSION], capabilities: answering.capabilities, instructions: answering.instructions })),
              write
            )
          case "ping":
            return yield* Effect.flatMap(reply(request, Effect.succeed({})), write)
          case "tools/list":
            return yield* Effect.flatMap(reply(request, withSession(caller, (session) => answering.listTools(session))), write)
          case "tools/call":
            return yield* Effect.flatMap(answerCall(request, write, caller), write)
          case "resources/list":
            return yield* Effect.flatMap(reply(request, withSession(caller, (session) => answering.listResources(session))), write)
          case "resources/read": {
            const uri = params["uri"]
            if (typeof uri !== "string") return yield* write(errorMessage(request.id, ErrorCode.InvalidParams, "Invalid params: resources/read needs a uri"))
            return yield* Effect.flatMap(reply(request, withSession(caller, (session, turns) => turns.withPermits(1)(answering.readResource(uri, session)))), write)
          }
          case "subscriptions/listen":
            return yield* listenCounted(request, write, caller)
          default:
            return yield* write(errorMessage(request.id, ErrorCode.MethodNotFound, `Method not found: ${cleanText(request.method)}`))
        }
      })

    /**
     * Total: a failure or defect of any request (even one thrown while reading its envelope) is
     * logged as one line and answered with a JSON-RPC internal error for its id, which frees the
     * id's place among the requests in flight (stdio); only an interruption ends it without an answer.
     */
    const serve: ModernEndpoint["serve"] = (request, write) =>
      Effect.suspend(() => answer(request, write)).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.flatMap(answering.internalError(cause), (error) => write(errorMessage(request.id, error.code, error.reason)))
        )
      )

    return { serve } satisfies ModernEndpoint
  })
