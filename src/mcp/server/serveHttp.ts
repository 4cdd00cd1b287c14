/**
 * `tool-map mcp --http PORT`: the Streamable HTTP transport. A module of its own, loaded only
 * with --http: importing the SDK's HTTP transport loads Node's fetch implementation (undici),
 * a start-up cost the stdio server would pay for nothing.
 */
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest, type JSONRPCMessage, JSONRPCMessageSchema, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Either, Option, Runtime, Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { DEFAULT_HTTP_SESSION_LIMITS, type HttpSessionLimits, makeHttpSessions } from "./http/HttpSessions.js"
import { McpServer } from "./McpServer.js"
import type { ModernEndpoint } from "./modern/ModernEra.js"
import { isModernRequest, MODERN_PROTOCOL_VERSION, notificationVersionOf, progressTokenOf, unsupportedVersion } from "./modern/wire.js"

export { DEFAULT_HTTP_SESSION_LIMITS, type HttpSessionLimits } from "./http/HttpSessions.js"

/** The HTTP server of `--http PORT` could not listen. */
export class McpHttpListenFailed extends Schema.TaggedError<McpHttpListenFailed>()("McpHttpListenFailed", {
  port: Schema.Number,
  reason: Schema.String
}) {
  get message() {
    return `tool-map mcp --http could not listen on 127.0.0.1:${this.port}: ${this.reason}`
  }
}

/** The endpoint path of the Streamable HTTP transport. */
export const MCP_HTTP_PATH = "/mcp"

/** The largest body of a POST without a session (an `initialize` request) read, in bytes. */
export const INITIALIZE_BODY_CAP = 1024 * 1024

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Whether an `Origin` (or `Host`) names this machine: `http(s)://localhost|127.0.0.1|[::1]`
 * with any port. A browser page of another site (DNS rebinding included) sends its own origin.
 */
export const isLocalOrigin = (origin: string): boolean => {
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined
  return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:") && LOCAL_HOSTNAMES.has(parsed.hostname)
}

/** A request refused before anything is allocated for it: the status and the JSON-RPC error answered. */
interface Refusal {
  readonly _tag: "Refused"
  readonly status: number
  readonly message: string
  readonly code: number
}

const refusal = (status: number, message: string, code = -32000): Refusal => ({ _tag: "Refused", status, message, code })

const refuse = (res: Http.ServerResponse, { code, message, status }: Refusal) => {
  res.writeHead(status, { "content-type": "application/json", ...(status === 413 ? { connection: "close" } : {}) })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

/** Where a request goes, from its headers: refused, to its session, or (a POST without a session) to the check of its body. */
type Route = Refusal | { readonly _tag: "Session"; readonly id: string } | { readonly _tag: "Opening" }

const routeOf = (req: Http.IncomingMessage): Route => {
  const origin = req.headers.origin
  if (origin !== undefined && !isLocalOrigin(origin)) return refusal(403, `Forbidden: the Origin ${origin} is not a localhost origin`)
  if (!isLocalOrigin(`http://${req.headers.host ?? ""}`)) return refusal(403, `Forbidden: the Host ${req.headers.host ?? "(none)"} is not this machine`)
  if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_HTTP_PATH) return refusal(404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`)
  const header = req.headers["mcp-session-id"]
  const id = Array.isArray(header) ? header[0] : header
  if (id !== undefined) return { _tag: "Session", id }
  if (req.method !== "POST") return refusal(400, "Bad request: no Mcp-Session-Id (initialize with a POST first)")
  return { _tag: "Opening" }
}

/**
 * What the body of a POST without a session opens (undefined: over {@link INITIALIZE_BODY_CAP}):
 * the `initialize` request it is, a 2026-07-28 request (its `_meta` envelope: no session, see
 * src/mcp/server/modern), a 2026-07-28 notification (its envelope, or `versionHeader`, names that
 * revision: accepted with 202 and no body, as the spec's Streamable HTTP says, and dropped: that
 * era's client cancels a request by closing its response), else a refusal.
 */
const initializeOf = (
  text: string | undefined,
  versionHeader: string | undefined
):
  | Refusal
  | { readonly _tag: "Initialize"; readonly body: unknown }
  | { readonly _tag: "Modern"; readonly request: JSONRPCRequest }
  | { readonly _tag: "Accepted" } => {
  if (text === undefined) return refusal(413, `Payload too large: a request without a session must not exceed ${INITIALIZE_BODY_CAP} bytes`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return refusal(400, "Parse error: Invalid JSON", -32700)
  }
  // The method first: the schema's check of anything else builds an error to throw away.
  const method = typeof body === "object" && body !== null && "method" in body ? body.method : undefined
  if (method === "initialize" && isInitializeRequest(body)) return { _tag: "Initialize", body }
  const message = typeof method === "string" && method !== "initialize" ? JSONRPCMessageSchema.safeParse(body) : undefined
  if (message?.success === true && isModernRequest(message.data)) return { _tag: "Modern", request: message.data }
  const claimed = message?.success === true ? notificationVersionOf(message.data, versionHeader) : Option.none()
  if (Option.isSome(claimed)) {
    if (claimed.value === MODERN_PROTOCOL_VERSION) return { _tag: "Accepted" }
    const unsupported = unsupportedVersion(claimed.value)
    return refusal(400, unsupported.message, unsupported.code)
  }
  return refusal(400, "Bad request: no Mcp-Session-Id; only an initialize request opens a session")
}

/**
 * Reads the body of `req` and hands it to `then` as text, or undefined as soon as it is over `cap`
 * bytes. Plain callbacks: a request refused for its body costs no fiber.
 */
const readBody = (req: Http.IncomingMessage, cap: number, then: (text: string | undefined) => void) => {
  if (Number(req.headers["content-length"]) > cap) return then(undefined)
  const chunks: Array<Buffer> = []
  let size = 0
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size <= cap) return void chunks.push(chunk)
    req.off("data", onData).off("end", onEnd).off("error", onEnd)
    then(undefined)
  }
  const onEnd = () => then(Buffer.concat(chunks).toString("utf8"))
  req.on("data", onData).once("end", onEnd).once("error", onEnd)
}

/** Resolves once `res` is closed (sent, or its connection gone); made before anything is sent. */
const closedOf = (res: Http.ServerResponse) => new Promise<void>((resolve) => res.once("close", () => resolve()))

/** Whether `request` asked for progress (`_meta.progressToken`): its answer is then an SSE stream. */
const asksProgress = (request: JSONRPCRequest): boolean => Option.isSome(progressTokenOf(request.params))

/** The most bytes a 2026-07-28 SSE response may hold unsent (its client not reading): past it the response is ended. */
const SSE_BACKLOG_MAX_BYTES = 8 * 1024 * 1024

/** What {@link sseWriter} needs of a response: Node's `ServerResponse` has it. */
export interface SseSink {
  readonly writableLength: number
  readonly writableNeedDrain: boolean
  readonly destroyed: boolean
  write(chunk: string): boolean
  destroy(): void
  once(event: "drain", listener: () => void): unknown
}

/**
 * Writes SSE events to `res` minding its client's pace: a list change (`…/list_changed`) of a
 * kind already waiting unsent is not written again (at most one of each kind pending), and once
 * more than `cap` bytes wait unsent the response is destroyed (which ends its request or listen)
 * and `onOverflow` runs, once. Answers whether the event was written.
 */
export const sseWriter = (res: SseSink, cap: number, onOverflow: () => void) => {
  const pendingKinds = new Set<string>()
  return (message: JSONRPCMessage): boolean => {
    if (res.destroyed) return false
    const kind = "method" in message && message.method.endsWith("/list_changed") ? message.method : undefined
    if (kind !== undefined && pendingKinds.has(kind)) return false
    res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
    if (res.writableLength > cap) {
      res.destroy()
      onOverflow()
      return true
    }
    if (kind !== undefined && res.writableNeedDrain) {
      if (pendingKinds.size === 0) res.once("drain", () => pendingKinds.clear())
      pendingKinds.add(kind)
    }
    return true
  }
}

/**
 * Answers a 2026-07-28 request: its answer as one JSON body; a request with a progress token as an
 * SSE stream of its progress notifications, then its answer (the stream ends with it); a
 * `subscriptions/listen` as an SSE stream of its notifications until the client closes it. The
 * client closing the response first stops the request.
 */
const serveModern = (endpoint: ModernEndpoint, request: JSONRPCRequest, res: Http.ServerResponse, closed: Promise<void>) => {
  const stream = request.method === "subscriptions/listen" || asksProgress(request)
  if (stream) res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  let overflowed = false
  const sse = sseWriter(res, SSE_BACKLOG_MAX_BYTES, () => void (overflowed = true))
  const write = (message: JSONRPCMessage) =>
    Effect.suspend(() => {
      if (stream) {
        const before = overflowed
        sse(message)
        // One line, when it ends: the later writes of the ended stream are dropped silently.
        return overflowed && !before
          ? Effect.logWarning(`tool-map mcp: a 2026-07-28 SSE stream was ended: its client left over ${SSE_BACKLOG_MAX_BYTES} bytes unread`)
          : Effect.void
      }
      if (!("id" in message) || res.headersSent) return Effect.void
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(message))
      return Effect.void
    })
  return Effect.raceFirst(endpoint.serve(request, write), Effect.promise(() => closed)).pipe(Effect.ensuring(Effect.sync(() => res.end())))
}

/** The listening server of {@link listenHttp}. */
export interface HttpEndpoint {
  /** The port bound. */
  readonly port: number
  /** How many MCP sessions are open. */
  readonly openSessions: Effect.Effect<number>
}

/**
 * Listens for Streamable HTTP on 127.0.0.1:`port` (0 picks a free port) at {@link MCP_HTTP_PATH}
 * until the scope closes. A request whose `Origin` or `Host` is not this machine's is refused
 * with 403. Only an `initialize` POST opens a session (a transport and a server connection);
 * a 2026-07-28 request (its own `_meta` envelope) is answered without one; any other request
 * without a session id is refused before anything is allocated. A session is
 * closed by DELETE, when idle for `limits.idle`, or, the table being full (`limits.max`), to make
 * room for a new one when it is the one idle the longest; with every session busy a new one is
 * refused with 503.
 */
export const listenHttp = (port: number, limits: HttpSessionLimits = DEFAULT_HTTP_SESSION_LIMITS) =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const runtime = yield* Effect.runtime<never>()
    // 2026-07-28 clients: no session; their agents' state kept within the same limits as the sessions.
    const modern = yield* server.modern({ limits, fallbackAgent: "http" })
    const sessions = yield* makeHttpSessions(limits, (id, closeSelf) =>
      Effect.gen(function* () {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id })
        const connection = yield* server.connect(transport, id)
        yield* connection.closed.pipe(Effect.zipRight(closeSelf), Effect.forkScoped)
        return transport
      }))

    /** Serves `req` on `transport` until its response is closed (an SSE stream stays open), counted as the session's request. */
    const serveOn = (transport: StreamableHTTPServerTransport, req: Http.IncomingMessage, res: Http.ServerResponse, closed: Promise<void>, body?: unknown) =>
      Effect.promise(() => transport.handleRequest(req, res, body)).pipe(Effect.zipRight(Effect.promise(() => closed)))

    const inSession = (id: string, req: Http.IncomingMessage, res: Http.ServerResponse, closed: Promise<void>) =>
      Effect.gen(function* () {
        const transport = yield* sessions.use(id)
        if (Option.isNone(transport)) return refuse(res, refusal(404, "Session not found", -32001))
        yield* serveOn(transport.value, req, res, closed).pipe(Effect.ensuring(sessions.release(id)))
      })

    const opening = (body: unknown, req: Http.IncomingMessage, res: Http.ServerResponse, closed: Promise<void>) =>
      Effect.gen(function* () {
        const id: string = randomUUID()
        const opened = yield* sessions.open(id)
        if (Either.isLeft(opened)) {
          const message = `Service unavailable: all ${opened.left.max} MCP sessions are open with a request in progress; end one with DELETE, or retry later`
          return refuse(res, refusal(503, message))
        }
        yield* serveOn(opened.right, req, res, closed, body).pipe(Effect.ensuring(sessions.release(id)))
        // The transport refused the request (its Accept or Content-Type): there is no session to keep.
        if (opened.right.sessionId === undefined) yield* sessions.close(id)
      })

    const run = Runtime.runFork(runtime)
    // Requests refused for their headers or body are answered here, without a fiber: a flood of
    // them allocates no more than Node's own objects of each request.
    const http = Http.createServer((req, res) => {
      const route = routeOf(req)
      if (route._tag === "Refused") return refuse(res, route)
      const closed = closedOf(res)
      if (route._tag === "Session") return void run(inSession(route.id, req, res, closed))
      readBody(req, INITIALIZE_BODY_CAP, (text) => {
        const header = req.headers["mcp-protocol-version"]
        const initialize = initializeOf(text, Array.isArray(header) ? header[0] : header)
        if (initialize._tag === "Refused") return refuse(res, initialize)
        if (initialize._tag === "Accepted") return void res.writeHead(202).end()
        if (initialize._tag === "Modern") return void run(serveModern(modern, initialize.request, res, closed))
        run(opening(initialize.body, req, res, closed))
      })
    })
    const bound = yield* Effect.acquireRelease(
      Effect.async<number, McpHttpListenFailed>((resume) => {
        const failed = (error: Error) => resume(Effect.fail(new McpHttpListenFailed({ port, reason: error.message })))
        http.once("error", failed)
        http.listen(port, "127.0.0.1", () => {
          http.off("error", failed)
          const address = http.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          http.close(() => resume(Effect.void))
          http.closeAllConnections()
        })
    )
    return { port: bound, openSessions: sessions.size } satisfies HttpEndpoint
  })

/**
 * Serves {@link listenHttp} until interrupted; `onListening` gets the port bound.
 */
export const serveHttp = (port: number, onListening: (port: number) => Effect.Effect<void>, limits: HttpSessionLimits = DEFAULT_HTTP_SESSION_LIMITS) =>
  Effect.gen(function* () {
    const endpoint = yield* listenHttp(port, limits)
    yield* onListening(endpoint.port)
    return yield* Effect.never
  }).pipe(Effect.scoped)
