/**
 * `tool-map mcp --http`'s sessions (issue 27, point 6): only an `initialize` opens one; every
 * session is closed by DELETE, after its idle time, or for a new one when the table is full.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer, Option, Stream, TestClock } from "effect"
import { providersLayer } from "../../../src/mcp/server/McpProviders.js"
import { McpServer } from "../../../src/mcp/server/McpServer.js"
import type { McpToolProvider } from "../../../src/mcp/server/McpToolProvider.js"
import { type HttpSessionLimits, listenHttp, type SseSink, sseWriter } from "../../../src/mcp/server/serveHttp.js"

const echo: McpToolProvider = {
  name: "echo",
  attach: () => Effect.void,
  listTools: () => Effect.succeed([{ name: "echo", description: "echoes", inputSchema: { type: "object" } }]),
  callTool: (call) => Effect.succeed(call.name === "echo" ? Option.some({ content: [{ type: "text" as const, text: "echoed" }] }) : Option.none()),
  listChanged: () => Stream.empty
}

const ServerLayer = McpServer.layer.pipe(Layer.provide(providersLayer({ tools: [echo], resources: [] })))

/** A server on a free port for the test's scope: its URL and its count of open sessions. */
const listening = (limits: HttpSessionLimits = { idle: "30 minutes", max: 64 }) =>
  Effect.map(listenHttp(0, limits).pipe(Effect.provide(ServerLayer)), (endpoint) => ({
    url: new URL(`http://127.0.0.1:${endpoint.port}/mcp`),
    openSessions: endpoint.openSessions
  }))

const ACCEPT = "application/json, text/event-stream"
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" }

interface Answer {
  readonly status: number
  readonly body: string
  readonly session: string | null
}

const request = (url: URL, init: RequestInit & { readonly headers?: Record<string, string> }) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, init)
    return { status: response.status, body: await response.text(), session: response.headers.get("mcp-session-id") }
  })

const post = (url: URL, body: unknown, headers: Record<string, string> = {}) =>
  request(url, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) })

const refusal = (code: number, message: string) => JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null })

const NO_SESSION = refusal(-32000, "Bad request: no Mcp-Session-Id; only an initialize request opens a session")
const NOT_FOUND = refusal(-32001, "Session not found")

/** A session opened by a raw `initialize`: its id. */
const initialize = (url: URL) =>
  Effect.map(post(url, INITIALIZE), (answer) => {
    expect([answer.status, answer.session !== null]).toEqual([200, true])
    return answer.session!
  })

/** The status of a `tools/list` in session `id`. */
const listIn = (url: URL, id: string) => Effect.map(post(url, TOOLS_LIST, { "mcp-session-id": id }), (answer) => answer.status)

/** `count` once it equals `expected`, waiting in real time (a closing session ends asynchronously), at most 5 s. */
const settlesAt = (count: Effect.Effect<number>, expected: number) =>
  Effect.gen(function* () {
    for (let tries = 0; tries < 250; tries++) {
      const now = yield* count
      if (now === expected) return now
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
    }
    return yield* count
  })

describe("listenHttp: sessions", () => {
  it.live("refuses a POST without Mcp-Session-Id that is not an initialize, before allocating a session", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening()
      const answers = yield* Effect.forEach(Array.from({ length: 60 }, (_, i) => ({ ...TOOLS_LIST, id: i })), (message) => post(url, message), {
        concurrency: 10
      })
      expect(new Set(answers.map((answer) => JSON.stringify([answer.status, answer.body, answer.session])))).toEqual(
        new Set([JSON.stringify([400, NO_SESSION, null])])
      )
      // A notification, and a batch that holds an initialize: neither opens a session.
      expect(yield* post(url, { jsonrpc: "2.0", method: "notifications/initialized" })).toEqual({ status: 400, body: NO_SESSION, session: null })
      expect(yield* post(url, [INITIALIZE, TOOLS_LIST])).toEqual({ status: 400, body: NO_SESSION, session: null })
      expect(yield* request(url, { method: "GET", headers: { accept: "text/event-stream" } })).toEqual({
        status: 400,
        body: refusal(-32000, "Bad request: no Mcp-Session-Id (initialize with a POST first)"),
        session: null
      })
      expect(yield* openSessions).toBe(0)
    }).pipe(Effect.scoped))

  it.live("answers a body that is not JSON with -32700 and one over 1 MiB with 413, opening nothing", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening()
      expect(yield* post(url, "{not json")).toEqual({ status: 400, body: refusal(-32700, "Parse error: Invalid JSON"), session: null })
      const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(1024 * 1024) } })
      expect(yield* post(url, big)).toEqual({
        status: 413,
        body: refusal(-32000, "Payload too large: a request without a session must not exceed 1048576 bytes"),
        session: null
      })
      expect(yield* openSessions).toBe(0)
    }).pipe(Effect.scoped))

  it.live("keeps no session of an initialize the transport refuses (an Accept without text/event-stream)", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening()
      expect(yield* post(url, INITIALIZE, { accept: "application/json" })).toEqual({
        status: 406,
        body: refusal(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream"),
        session: null
      })
      expect(yield* settlesAt(openSessions, 0)).toBe(0)
    }).pipe(Effect.scoped))

  it.live("serves an SDK client's session until it ends it with DELETE; then its id is not found", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening()
      const client = new Client({ name: "http-unit", version: "1.0.0" })
      const transport = new StreamableHTTPClientTransport(url)
      yield* Effect.promise(() => client.connect(transport))
      expect((yield* Effect.promise(() => client.listTools())).tools.map((tool) => tool.name)).toEqual(["echo"])
      expect(yield* openSessions).toBe(1)
      const id = transport.sessionId!
      yield* Effect.promise(() => transport.terminateSession())
      expect(yield* settlesAt(openSessions, 0)).toBe(0)
      expect(yield* post(url, TOOLS_LIST, { "mcp-session-id": id })).toEqual({ status: 404, body: NOT_FOUND, session: null })
      yield* Effect.promise(() => client.close())
    }).pipe(Effect.scoped))

  it.effect("closes a session idle for the configured time, and only then (TestClock)", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening({ idle: "10 minutes", max: 64 })
      const id = yield* initialize(url)
      yield* TestClock.adjust("9 minutes")
      expect(yield* listIn(url, id)).toBe(200)
      yield* TestClock.adjust("9 minutes")
      expect(yield* settlesAt(openSessions, 1)).toBe(1)
      expect(yield* listIn(url, id)).toBe(200)
      yield* TestClock.adjust("11 minutes")
      expect(yield* settlesAt(openSessions, 0)).toBe(0)
      expect(yield* listIn(url, id)).toBe(404)
    }).pipe(Effect.scoped))

  it.effect("a full table closes the session idle the longest to open a new one", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening({ idle: "1 hour", max: 2 })
      const first = yield* initialize(url)
      yield* TestClock.adjust("1 minute")
      const second = yield* initialize(url)
      yield* TestClock.adjust("1 minute")
      expect(yield* listIn(url, first)).toBe(200)
      yield* TestClock.adjust("1 minute")
      const third = yield* initialize(url)
      expect(yield* settlesAt(openSessions, 2)).toBe(2)
      expect([yield* listIn(url, first), yield* listIn(url, second), yield* listIn(url, third)]).toEqual([200, 404, 200])
    }).pipe(Effect.scoped))

  it.live("with every session busy (an SSE stream open), a new one is refused with 503 until one is free", () =>
    Effect.gen(function* () {
      const { url, openSessions } = yield* listening({ idle: "1 hour", max: 1 })
      const first = yield* initialize(url)
      const controller = new AbortController()
      const stream = yield* Effect.promise(() =>
        fetch(url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": first }, signal: controller.signal }))
      expect(stream.status).toBe(200)
      expect(yield* post(url, INITIALIZE)).toEqual({
        status: 503,
        body: refusal(-32000, "Service unavailable: all 1 MCP sessions are open with a request in progress; end one with DELETE, or retry later"),
        session: null
      })
      controller.abort()
      yield* Effect.promise(() => stream.body!.cancel().catch(() => undefined))
      let second: string | null = null
      for (let tries = 0; tries < 250 && second === null; tries++) {
        const answer = yield* post(url, INITIALIZE)
        if (answer.status === 200) second = answer.session
        else yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      }
      expect(second).not.toBeNull()
      expect(yield* settlesAt(openSessions, 1)).toBe(1)
      expect(yield* listIn(url, first)).toBe(404)
    }).pipe(Effect.scoped))
})

/** A response whose client reads only when told (`drain`): what was written, what waits unsent. */
const slowSink = (highWaterMark: number) => {
  const written: Array<string> = []
  let unsent = 0
  let onDrain: Array<() => void> = []
  const sink: SseSink & { destroyed: boolean } = {
    get writableLength() {
      return unsent
    },
    get writableNeedDrain() {
      return unsent >= highWaterMark
    },
    destroyed: false,
    write: (chunk: string) => {
      written.push(chunk)
      unsent += chunk.length
      return unsent < highWaterMark
    },
    destroy: () => void (sink.destroyed = true),
    once: (_event: "drain", listener: () => void) => void onDrain.push(listener)
  }
  const drain = () => {
    unsent = 0
    const listeners = onDrain
    onDrain = []
    listeners.forEach((listener) => listener())
  }
  return { sink, written, drain }
}

describe("sseWriter: a client that does not read", () => {
  const changed = (method: string) => ({ jsonrpc: "2.0" as const, method, params: { requestId: 1 } })
  const progress = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/progress", params: { progressToken: 1, progress: n } })

  it("holds at most one list change of each kind unsent; after a drain the next is written", () => {
    const { sink, written, drain } = slowSink(10)
    const overflows: Array<number> = []
    const write = sseWriter(sink, 10_000, () => overflows.push(1))
    expect([
      write(changed("notifications/tools/list_changed")),
      write(changed("notifications/tools/list_changed")),
      write(changed("notifications/resources/list_changed")),
      write(changed("notifications/resources/list_changed")),
      write(changed("notifications/tools/list_changed"))
    ]).toEqual([true, false, true, false, false])
    expect(written).toHaveLength(2)
    drain()
    expect(write(changed("notifications/tools/list_changed"))).toBe(true)
    expect(written).toHaveLength(3)
    expect(overflows).toEqual([])
  })

  it("ends the response once more than the cap waits unsent, once", () => {
    const { sink, written } = slowSink(10)
    const overflows: Array<number> = []
    const write = sseWriter(sink, 300, () => overflows.push(1))
    const results: Array<boolean> = []
    for (let n = 0; n < 10; n++) results.push(write(progress(n)))
    const event = `event: message\ndata: ${JSON.stringify(progress(0))}\n\n`
    // Each event is the same size: the one that takes the backlog over 300 bytes is the last written.
    const last = Math.floor(300 / event.length)
    expect(results).toEqual(Array.from({ length: 10 }, (_, n) => n <= last))
    expect(written).toHaveLength(last + 1)
    expect(sink.destroyed).toBe(true)
    expect(overflows).toEqual([1])
  })
})
