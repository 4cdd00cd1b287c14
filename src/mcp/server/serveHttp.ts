/**
 * `tool-map mcp --http PORT`: the Streamable HTTP transport. A module of its own, loaded only
 * with --http: importing the SDK's HTTP transport loads Node's fetch implementation (undici),
 * a start-up cost the stdio server would pay for nothing.
 */
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect, ExecutionStrategy, Exit, HashMap, Option, Ref, Runtime, Schema, Scope } from "effect"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { McpServer } from "./McpServer.js"

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

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Whether an `Origin` (or `Host`) names this machine: `http(s)://localhost|127.0.0.1|[::1]`
 * with any port. A browser page of another site (DNS rebinding included) sends its own origin.
 */
export const isLocalOrigin = (origin: string): boolean => {
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined
  return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:") && LOCAL_HOSTNAMES.has(parsed.hostname)
}

const refuse = (res: Http.ServerResponse, status: number, message: string) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}

/** One Streamable HTTP session: its transport, and the scope its connection lives in. */
interface HttpSession {
  readonly transport: StreamableHTTPServerTransport
  readonly scope: Scope.CloseableScope
}

/**
 * Serves Streamable HTTP on 127.0.0.1:`port` (0 picks a free port) at {@link MCP_HTTP_PATH},
 * one MCP session per `initialize`, until interrupted. `onListening` gets the port bound. A
 * request whose `Origin` or `Host` is not this machine's is refused with 403.
 */
export const serveHttp = (port: number, onListening: (port: number) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const runtime = yield* Effect.runtime<never>()
    const outer = yield* Effect.scope
    const sessions = yield* Ref.make(HashMap.empty<string, HttpSession>())

    const open = Effect.gen(function* () {
      const id: string = randomUUID()
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id })
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const connection = yield* server.connect(transport, id).pipe(Scope.extend(scope))
      yield* Ref.update(sessions, HashMap.set(id, { transport, scope }))
      yield* connection.closed.pipe(
        Effect.zipRight(Ref.update(sessions, HashMap.remove(id))),
        Effect.zipRight(Scope.close(scope, Exit.void)),
        Effect.forkIn(scope)
      )
      return transport
    })

    const handle = (req: Http.IncomingMessage, res: Http.ServerResponse) =>
      Effect.gen(function* () {
        const origin = req.headers.origin
        if (origin !== undefined && !isLocalOrigin(origin)) return refuse(res, 403, `Forbidden: the Origin ${origin} is not a localhost origin`)
        if (!isLocalOrigin(`http://${req.headers.host ?? ""}`)) return refuse(res, 403, `Forbidden: the Host ${req.headers.host ?? "(none)"} is not this machine`)
        if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`)
        const header = req.headers["mcp-session-id"]
        const sessionId = Array.isArray(header) ? header[0] : header
        const transport = sessionId === undefined
          ? req.method === "POST" ? yield* open : undefined
          : Option.getOrUndefined(HashMap.get(yield* Ref.get(sessions), sessionId))?.transport
        if (transport === undefined) {
          return sessionId === undefined
            ? refuse(res, 400, "Bad request: no Mcp-Session-Id (initialize with a POST first)")
            : refuse(res, 404, "Session not found")
        }
        yield* Effect.promise(() => transport.handleRequest(req, res))
      })

    const http = Http.createServer((req, res) => {
      Runtime.runFork(runtime)(handle(req, res))
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
    yield* onListening(bound)
    return yield* Effect.never
  }).pipe(Effect.scoped)
