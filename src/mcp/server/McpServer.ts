import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Context, Deferred, Effect, Exit, HashSet, Layer, Option, Ref, Runtime, Scope, Stream } from "effect"
import { cleanText } from "../../inventory/domain/untrusted.js"
import { TOOL_MAP_VERSION } from "../../version.js"
import { McpProtocolError, RESOURCE_NOT_FOUND } from "./McpProtocolError.js"
import { McpProviders, type McpProviderSet } from "./McpProviders.js"
import { McpClientRequestFailed, type McpCallContext, type McpSession } from "./McpSession.js"
import type { McpToolProvider } from "./McpToolProvider.js"
import { type McpAnswering, makeModernEndpoint, type ModernEndpoint, type ModernOptions } from "./modern/ModernEra.js"

/** How tool-map's server names itself to a client, in both eras. */
export const SERVER_INFO = { name: "tool-map", version: TOOL_MAP_VERSION }

/** The longest internal-error line logged, in UTF-16 code units. */
const INTERNAL_ERROR_LINE_MAX = 2000

/** A defect as one cleaned line of stderr: its report's lines joined by ` | `, cut at {@link INTERNAL_ERROR_LINE_MAX}. */
export const internalErrorLine = (cause: Cause.Cause<unknown>): string =>
  `tool-map mcp: internal error: ${cleanText(Cause.pretty(cause).split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" | ").slice(0, INTERNAL_ERROR_LINE_MAX))}`

export { McpProtocolError, RESOURCE_NOT_FOUND } from "./McpProtocolError.js"

/** What the server tells a client about itself in `initialize`. */
export const SERVER_INSTRUCTIONS =
  "tool-map maps the tools this machine has: executables on PATH and the agent hosts' MCP servers, subagents, skills, commands and plugins. " +
  "Read the resource tool-map://inventory/summary at the start of a session; use `which` to find which copy of a command runs, " +
  "`inventory_query` for lists with filters, and `inventory_refresh` after installing or removing tools."

/**
 * What the gateway tells a client about itself instead: hosts show a server's instructions to the
 * model (Codex 0.171.0 as the description of the server's tool namespace, in every request), and
 * the inventory's text names tools the gateway does not have.
 */
export const GATEWAY_INSTRUCTIONS =
  "This machine's MCP server tools, on demand: find with tools_find or tools_ls, load with tools_load, call by name or with tools_call."

/** One live connection: its session (after `initialize`) and a way to wait for its end. */
export interface McpConnection {
  /** The session, once the client has sent `initialize` (a failure when the providers could not be built). */
  readonly session: Effect.Effect<McpSession, McpProtocolError>
  /** Completes when the transport closes (the client left, or the server stopped it). */
  readonly closed: Effect.Effect<void>
}

/**
 * The SDK's Ajv validator (it checks a user's answer to an elicitation against the requested
 * schema), built on its first use: the SDK builds one per `Server` otherwise, a cost every start
 * would pay although only a high-risk load through the gateway asks anything.
 */
const validatorOnFirstUse = (): jsonSchemaValidator => {
  let ajv: AjvJsonSchemaValidator | undefined
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) }
}

/** What the server offers, in `initialize` and in `server/discover`. */
const SERVER_CAPABILITIES: ServerCapabilities = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } }

const tooDeep = (name: string) =>
  new McpProtocolError({
    code: ErrorCode.InvalidParams,
    reason: `Invalid arguments for tool ${cleanText(name)}: they nest deeper than ${MAX_ARGUMENT_DEPTH} levels`
  })

/** How deep the arguments of a `tools/call` may nest (objects and arrays); deeper ones are refused with -32602 before any provider sees them. */
export const MAX_ARGUMENT_DEPTH = 64

/** How many `tools/call` requests of one connection run at once; the others wait their turn (in order). */
export const TOOL_CALLS_AT_ONCE = 8

/**
 * Whether `value` nests objects and arrays deeper than `limit` levels (`{}` is one level), walked
 * without recursion: a validator or formatter that recurses overflows the stack on 100,000 levels.
 */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next
    if (item === null || typeof item !== "object") continue
    if (depth + 1 > limit) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === "object") pending.push([child, depth + 1])
    }
  }
  return false
}

/**
 * Lets the event loop turn once (`setImmediate`): Effect runs ready fibers one after another in
 * microtasks, so calls answered without I/O (a cached bundle) would hold off SIGTERM, the
 * client's cancellations and the next lines of stdin until the last pipelined call is done.
 */
const eventLoopTurn = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

/**
 * Turns for the tool calls of one connection: at most `limit` run at once, the others wait in
 * order. A waiting call is a plain promise, not a fiber: 6,000 pipelined calls as waiting fibers
 * took seconds to interrupt one by one when the connection closed (SIGTERM). A call whose
 * request was cancelled (`signal`) while it waited is refused when its turn comes, without
 * running; a connection that closes drops its line at once (the SDK answers no aborted request).
 */
export const makeTurns = (limit: number) => {
  let running = 0
  let line: Array<{ readonly signal: AbortSignal; readonly start: (go: boolean) => void }> = []
  const next = () => {
    while (running < limit && line.length > 0) {
      const waiter = line.shift()!
      if (waiter.signal.aborted) {
        waiter.start(false)
        continue
      }
      running++
      waiter.start(true)
    }
  }
  const inTurn = <A>(signal: AbortSignal, run: () => Promise<A>): Promise<A> =>
    new Promise<boolean>((start) => {
      line.push({ signal, start })
      next()
    }).then((go) => {
      if (!go) throw new McpProtocolError({ code: ErrorCode.RequestTimeout, reason: "the request was cancelled" })
      return run().finally(() => {
        running--
        next()
      })
    })
  /** Forgets the waiting calls: their requests were aborted with the connection, and nothing waits on their answers. */
  const drop = () => {
    line = []
  }
  return { inTurn, drop }
}

const toolListError = (provider: McpToolProvider, cause: { readonly message: string }) =>
  new McpProtocolError({ code: ErrorCode.InternalError, reason: `${provider.name}: ${cause.message}` })

/**
 * The server answering from `providerSet`, which may still be being built: `initialize` is the
 * SDK's own and is answered at once, and every other request waits for the providers.
 */
const make = (providerSet: Effect.Effect<McpProviderSet, McpProtocolError>, instructions: string, toolCallsAtOnce: number) => Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const validator = validatorOnFirstUse()

  /**
   * Runs a handler's effect for the SDK: its typed failure becomes the JSON-RPC error the SDK
   * sends, the request's abort signal (`notifications/cancelled`, the session's end) interrupts it.
   */
  /** A defect logged on stderr (its trace names the install path and the code) and the error the client gets instead. */
  const internalError = (cause: Cause.Cause<unknown>): Effect.Effect<McpProtocolError> =>
    Effect.as(
      Effect.logError(internalErrorLine(cause)),
      new McpProtocolError({ code: ErrorCode.InternalError, reason: "tool-map: internal error (its details are on the server's stderr)" })
    )

  const answer = <A>(effect: Effect.Effect<A, McpProtocolError>, signal: AbortSignal): Promise<A> =>
    Runtime.runPromiseExit(runtime)(effect, { signal }).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      const failure = Cause.failureOption(exit.cause)
      // The SDK answers with the thrown error's `code` and `message`.
      if (Option.isSome(failure)) throw failure.value
      if (Cause.isInterruptedOnly(exit.cause)) throw new McpProtocolError({ code: ErrorCode.RequestTimeout, reason: "the request was cancelled" })
      // A defect's trace names the install path and the code: it goes to stderr, not to the client (and the model).
      return Runtime.runPromise(runtime)(internalError(exit.cause)).then((error) => {
        throw error
      })
    })

  /** A notification to the client; one the transport cannot send any more (it closed) is only logged. */
  const notify = (what: string, send: () => Promise<void>) =>
    Effect.tryPromise(send).pipe(Effect.catchAll((error) => Effect.logDebug(`tool-map mcp: ${what} not sent: ${String(error.error)}`)))

  const listToolsOf = (session: McpSession) =>
    Effect.gen(function* () {
      const providers = yield* providerSet
      const seen = new Set<string>()
      const tools: Array<Tool> = []
      for (const provider of providers.tools) {
        const listed = yield* provider.listTools(session).pipe(Effect.mapError((error) => toolListError(provider, error)))
        for (const tool of listed) {
          if (seen.has(tool.name)) {
            yield* Effect.logWarning(`tool-map mcp: ${provider.name} lists ${cleanText(tool.name)} again; the first one is kept`)
            continue
          }
          seen.add(tool.name)
          tools.push(tool)
        }
      }
      return { tools }
    })

  const callToolOf = (session: McpSession, name: string, args: Readonly<Record<string, unknown>>, context: Omit<McpCallContext, "session">) =>
    Effect.gen(function* () {
      const providers = yield* providerSet
      for (const provider of providers.tools) {
        const answered = yield* provider.callTool({ name, arguments: args }, { ...context, session }).pipe(
          Effect.catchTag("McpProviderError", (error) =>
            Effect.succeed(Option.some<CallToolResult>({ content: [{ type: "text", text: cleanText(error.message) }], isError: true })))
        )
        if (Option.isSome(answered)) return answered.value
      }
      return yield* new McpProtocolError({ code: ErrorCode.InvalidParams, reason: `Unknown tool: ${cleanText(name)}` })
    })

  const listResourcesOf = (session: McpSession) =>
    Effect.gen(function* () {
      const providers = yield* providerSet
      const lists = yield* Effect.forEach(providers.resources, (provider) =>
        provider.listResources(session).pipe(
          Effect.mapError((error) => new McpProtocolError({ code: ErrorCode.InternalError, reason: error.message }))
        ))
      return { resources: lists.flat() }
    })

  const readResourceOf = (uri: string, session: McpSession) =>
    Effect.gen(function* () {
      const providers = yield* providerSet
      for (const provider of providers.resources) {
        const read = yield* provider.readResource(uri, session).pipe(
          Effect.mapError((error) => new McpProtocolError({ code: ErrorCode.InternalError, reason: error.message }))
        )
        if (Option.isSome(read)) return read.value
      }
      return yield* new McpProtocolError({ code: RESOURCE_NOT_FOUND, reason: `Resource not found: ${cleanText(uri)}` })
    })

  /** What the 2026-07-28 era answers from: the same providers, per agent session (src/mcp/server/modern). */
  const answering: McpAnswering = {
    providers: providerSet,
    listTools: listToolsOf,
    callTool: (session, name, args, context) =>
      nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)
        ? Effect.fail(tooDeep(name))
        : Effect.zipRight(eventLoopTurn, callToolOf(session, name, args, context)),
    listResources: listResourcesOf,
    readResource: (uri, session) => Effect.zipRight(eventLoopTurn, readResourceOf(uri, session)),
    internalError,
    instructions,
    serverInfo: SERVER_INFO,
    capabilities: SERVER_CAPABILITIES,
    callsAtOnce: toolCallsAtOnce
  }

  const connect = Effect.fn("McpServer.connect")(function* (transport: Transport, id: string) {
    const server = new Server(
      SERVER_INFO,
      {
        capabilities: SERVER_CAPABILITIES,
        instructions,
        jsonSchemaValidator: validator
      }
    )
    const scope = yield* Scope.make()
    const closed = yield* Deferred.make<void>()
    const subscriptions = yield* Ref.make(HashSet.empty<string>())
    const sessionSlot = yield* Deferred.make<McpSession, McpProtocolError>()
    const sessionStarted = yield* Ref.make(false)
    // Pipelined tool calls and resource reads wait here instead of all running at once (each may read the bundle or a downstream server).
    const { inTurn, drop: dropWaitingCalls } = makeTurns(toolCallsAtOnce)

    const elicit: McpSession["elicit"] = (params) =>
      Effect.gen(function* () {
        if (server.getClientCapabilities()?.elicitation === undefined) {
          return yield* new McpClientRequestFailed({ method: "elicitation/create", reason: "the client declared no elicitation capability" })
        }
        return yield* Effect.tryPromise({
          try: (signal) => server.elicitInput(params, { signal }),
          catch: (error) => new McpClientRequestFailed({ method: "elicitation/create", reason: error instanceof Error ? error.message : String(error) })
        })
      })

    /**
     * The session from `initialize` on: attached to every provider and subscribed to their
     * change streams once, by whichever comes first (the `initialized` notification or a request).
     */
    const startSession = Effect.gen(function* () {
      if (yield* Ref.getAndSet(sessionStarted, true)) return yield* Deferred.await(sessionSlot)
      // Providers that failed to build fail this request and every later one of the session.
      const providers = yield* Effect.tapError(providerSet, (error) => Deferred.fail(sessionSlot, error))
      const session: McpSession = {
        id,
        client: Option.fromNullable(server.getClientVersion()),
        capabilities: Option.fromNullable(server.getClientCapabilities()),
        elicit
      }
      yield* Effect.forEach(providers.tools, (provider) => provider.attach(session), { discard: true }).pipe(Scope.extend(scope))
      for (const provider of providers.tools) {
        yield* Stream.runForEach(provider.listChanged(session), () => notify("tools/list_changed", () => server.sendToolListChanged())).pipe(
          Effect.forkIn(scope)
        )
      }
      for (const provider of providers.resources) {
        yield* Stream.runForEach(provider.changes, (change) =>
          change._tag === "ListChanged"
            ? notify("resources/list_changed", () => server.sendResourceListChanged())
            : Effect.flatMap(Ref.get(subscriptions), (uris) =>
                HashSet.has(uris, change.uri) ? notify("resources/updated", () => server.sendResourceUpdated({ uri: change.uri })) : Effect.void)
        ).pipe(Effect.forkIn(scope))
      }
      yield* Deferred.succeed(sessionSlot, session)
      return session
    })

    const listTools = Effect.flatMap(startSession, listToolsOf)

    const callTool = (name: string, args: Readonly<Record<string, unknown>>, context: Omit<McpCallContext, "session">) =>
      Effect.flatMap(startSession, (session) => callToolOf(session, name, args, context))

    const listResources = Effect.flatMap(startSession, listResourcesOf)

    const readResource = (uri: string) => Effect.flatMap(startSession, (session) => readResourceOf(uri, session))

    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => answer(listTools, extra.signal))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const progressToken = Option.fromNullable(request.params._meta?.progressToken)
      const progress = (value: number, total?: number, message?: string) =>
        Option.match(progressToken, {
          onNone: () => Effect.void,
          onSome: (token) =>
            notify("progress", () =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: value, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }
              }))
        })
      const args = request.params.arguments ?? {}
      if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
        return Promise.reject(tooDeep(request.params.name))
      }
      return inTurn(extra.signal, () =>
        answer(Effect.zipRight(eventLoopTurn, callTool(request.params.name, args, { progressToken, progress })), extra.signal))
    })
    server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) => answer(listResources, extra.signal))
    // A read of tools.json parses and re-serializes the bundle: resource reads take the same turns.
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      inTurn(extra.signal, () => answer(Effect.zipRight(eventLoopTurn, readResource(request.params.uri)), extra.signal)))
    server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
      answer(Effect.as(Ref.update(subscriptions, HashSet.add(request.params.uri)), {}), extra.signal))
    server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) =>
      answer(Effect.as(Ref.update(subscriptions, HashSet.remove(request.params.uri)), {}), extra.signal))
    server.oninitialized = () => Runtime.runFork(runtime)(startSession)
    server.onclose = () => {
      dropWaitingCalls()
      Runtime.runFork(runtime)(Deferred.succeed(closed, undefined))
    }

    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(transport)),
      () => Effect.promise(() => server.close()).pipe(Effect.zipRight(Scope.close(scope, Exit.void)))
    )
    return { session: Deferred.await(sessionSlot), closed: Deferred.await(closed) } satisfies McpConnection
  })

  const modern = (options: ModernOptions) => makeModernEndpoint(answering, options)

  return McpServer.of({ connect, modern })
})

/**
 * tool-map's MCP server: the SDK's low-level `Server` over one transport per client, answering
 * from the providers of {@link McpProviders} (see McpToolProvider.ts for how they compose).
 */
export class McpServer extends Context.Tag("tool-map/McpServer")<McpServer, {
  /**
   * Serves one client over `transport` (connected here) as the session `id`. The connection
   * lives until its scope closes, which closes the transport and ends the session's provider
   * state; `closed` completes when the client goes away first.
   */
  readonly connect: (transport: Transport, id: string) => Effect.Effect<McpConnection, never, Scope.Scope>
  /**
   * The 2026-07-28 era's answers, from the same providers (see src/mcp/server/modern): a
   * transport hands it the requests that carry their own envelope. The agents' sessions it opens
   * close with the scope.
   */
  readonly modern: (options: ModernOptions) => Effect.Effect<ModernEndpoint, never, Scope.Scope>
}>() {
  /** The server over the providers of {@link McpProviders}. */
  static readonly layer = Layer.effect(this, Effect.flatMap(McpProviders, (set) => make(Effect.succeed(set), SERVER_INSTRUCTIONS, TOOL_CALLS_AT_ONCE)))
  /**
   * The server over providers still being built (`providerSet` completes once they are): a
   * client's `initialize` is answered without waiting for them (with `instructions`), its other
   * requests wait.
   */
  static readonly layerAwaiting = (providerSet: Effect.Effect<McpProviderSet, McpProtocolError>, instructions: string = SERVER_INSTRUCTIONS) =>
    Layer.effect(this, make(providerSet, instructions, TOOL_CALLS_AT_ONCE))
}
