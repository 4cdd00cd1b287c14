import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, FiberMap, Runtime, Scope } from "effect"
import { DEFAULT_HTTP_SESSION_LIMITS } from "./http/HttpSessions.js"
import { McpServer } from "./McpServer.js"
import { isModernRequest } from "./modern/wire.js"
import { StdioLineTransport } from "./StdioTransport.js"

/** The agents a stdio client may name (its requests' `_meta`), each kept for the process's life. */
const STDIO_AGENT_LIMITS = { idle: Duration.infinity, max: DEFAULT_HTTP_SESSION_LIMITS.max }

/**
 * The transport the 2025-era server is connected to: `lines` without the 2026-07-28 requests,
 * which go to `modern` (and a cancellation of one of them to `cancel`, which says whether it was one).
 * Once the client opened a 2025 session (`initialize`), every later message is the 2025 era's:
 * one client speaks one era on one stdio.
 */
const legacyPart = (
  lines: StdioLineTransport,
  modern: (request: JSONRPCRequest) => void,
  cancel: (id: string | number) => boolean
): Transport => {
  const part: Transport = {
    start: () => lines.start(),
    send: (message) => lines.send(message),
    close: () => lines.close()
  }
  lines.onclose = () => part.onclose?.()
  lines.onerror = (error) => part.onerror?.(error)
  let initialized = false
  lines.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "initialize") initialized = true
    if (!initialized && isModernRequest(message)) return modern(message)
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      const id: unknown = message.params?.["requestId"]
      if ((typeof id === "string" || typeof id === "number") && cancel(id)) return
    }
    part.onmessage?.(message)
  }
  return part
}

/**
 * Serves the one client on `input`/`output` (stdin/stdout) until it closes its side (or the fiber
 * is interrupted: SIGTERM). What the transport skips or refuses is logged (to stderr). A client of
 * either era is served: one that opens with `initialize` by the 2025-era server, one whose requests
 * carry their `_meta` envelope (2026-07-28) by the modern endpoint, each request in a fiber of its
 * own (a `subscriptions/listen` lives until cancelled or the client leaves).
 */
export const serveStdioOn = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream) =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const runtime = yield* Effect.runtime<never>()
    const report = (line: string) => Runtime.runFork(runtime)(Effect.logWarning(line))
    const lines = new StdioLineTransport(input, output, report)
    // Made on the first 2026-07-28 request: a 2025 client's start pays nothing for it.
    const endpoint = yield* Effect.cached(Scope.extend(server.modern({ limits: STDIO_AGENT_LIMITS, fallbackAgent: "stdio" }), yield* Effect.scope))
    // The 2026 requests being answered, by id: a cancellation interrupts one, a request reusing
    // the id of one still running interrupts that one, the connection's end all of them.
    const requests = yield* FiberMap.make<string | number>()
    const write = (message: JSONRPCMessage) => Effect.promise(() => lines.send(message))
    const transport = legacyPart(
      lines,
      (request) => void Runtime.runFork(runtime)(FiberMap.run(requests, request.id, Effect.flatMap(endpoint, (modern) => modern.serve(request, write)))),
      (id) => {
        if (!FiberMap.unsafeHas(requests, id)) return false
        Runtime.runFork(runtime)(FiberMap.remove(requests, id))
        return true
      }
    )
    const connection = yield* server.connect(transport, "stdio")
    const inputEnded = Effect.async<void>((resume) => {
      const ended = () => resume(Effect.void)
      input.once("end", ended)
      input.once("close", ended)
      return Effect.sync(() => {
        input.off("end", ended)
        input.off("close", ended)
      })
    })
    yield* Effect.race(connection.closed, inputEnded)
  }).pipe(Effect.scoped)

/** Serves the one client on stdin/stdout until it closes stdin (or the process is stopped). */
export const serveStdio = Effect.suspend(() => serveStdioOn(process.stdin, process.stdout))
