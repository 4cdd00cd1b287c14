/**
 * The 2026-07-28 era over `tool-map mcp --http` and its agents (issue 31): a notification posted
 * without a session is accepted with 202 and no body, a call with a progress token is answered
 * with an SSE stream (its progress, then its result), and the agent ids a client gives are
 * bounded and cleaned (`agentNameOf`) before they key state or are shown; a flood of distinct
 * agent ids keeps no more agents than the limits allow.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client"
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, Logger, Option, Ref, Stream } from "effect"
import { agentIdOf } from "../../../src/mcp/gateway/GatewayProvider.js"
import { providersLayer } from "../../../src/mcp/server/McpProviders.js"
import { McpServer } from "../../../src/mcp/server/McpServer.js"
import { AGENT_ID_MAX, agentNameOf } from "../../../src/mcp/server/McpSession.js"
import type { McpToolProvider } from "../../../src/mcp/server/McpToolProvider.js"
import { listenHttp } from "../../../src/mcp/server/serveHttp.js"
import { TOOL_MAP_VERSION } from "../../../src/version.js"

/** `whoami` answers the session's id and agent; `slow` sends two progress notifications, then answers. */
const makeProvider = (attached: Ref.Ref<number>, detached: Ref.Ref<number>): McpToolProvider => ({
  name: "test",
  attach: () => Ref.update(attached, (n) => n + 1).pipe(Effect.zipRight(Effect.addFinalizer(() => Ref.update(detached, (n) => n + 1)))),
  listTools: () => Effect.succeed([{ name: "whoami", inputSchema: { type: "object" } }]),
  callTool: (call, { progress, session }) =>
    Effect.gen(function* () {
      if (call.name === "whoami") return Option.some({ content: [{ type: "text" as const, text: `${session.id} ${session.agent ?? "-"}` }] })
      if (call.name === "slow") {
        yield* progress(1, 2, "half")
        yield* progress(2, 2)
        return Option.some({ content: [{ type: "text" as const, text: "done" }] })
      }
      return Option.none()
    }),
  listChanged: () => Stream.empty
})

const served = Effect.gen(function* () {
  const attached = yield* Ref.make(0)
  const detached = yield* Ref.make(0)
  const layer = Layer.merge(
    McpServer.layer.pipe(Layer.provide(providersLayer({ tools: [makeProvider(attached, detached)], resources: [] }))),
    Logger.replace(Logger.defaultLogger, Logger.none)
  )
  const endpoint = yield* listenHttp(0, { idle: "30 minutes", max: 64 }).pipe(Effect.provide(layer))
  return { url: new URL(`http://127.0.0.1:${endpoint.port}/mcp`) }
})

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-client", version: "1" }
}
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "tool-map", version: TOOL_MAP_VERSION } }

interface Answer {
  readonly status: number
  readonly type: string | null
  readonly body: string
}

const post = (url: URL, body: unknown, headers: Record<string, string> = {}) => postText(url, JSON.stringify(body), headers)

const postText = (url: URL, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body
    })
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() }
  })

const call = (name: string, meta: Record<string, unknown>, id: number | string = 1): JSONRPCRequest => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: meta }
})

/** The text of a `whoami` answered as JSON. */
const whoami = (url: URL, meta: Record<string, unknown>) =>
  Effect.map(post(url, call("whoami", meta)), (answer) => (JSON.parse(answer.body) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text)

const LONG_DIGEST = "cdc76e5c" // sha256("a" × 1,000,000), its first 8 hex digits

describe("agentNameOf", () => {
  it("cleans, bounds and refuses what names no one; idempotent", () => {
    const long = "a".repeat(1_000_000)
    const cases: ReadonlyArray<readonly [string, Option.Option<string>]> = [
      ["claude", Option.some("claude")],
      ["  spaced  ", Option.some("spaced")],
      ["\u001b[31mred\u001b[0m", Option.some("\uFFFD[31mred\uFFFD[0m\u2026f0fdc93e")],
      ["line1\nline2\r\n", Option.some("line1\uFFFDline2\u2026683376e2")],
      // Two secret-shaped names: two agents (the digest of each as given), neither shown raw.
      ["ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", Option.some("[redacted]\u20266ec359a7")],
      ["ghp_9876543210abcdefghijklmnopqrstuvwxyzAB", Option.some("[redacted]\u2026cfc468d6")],
      ["", Option.none()],
      ["   ", Option.none()],
      ["\u0000\u001b\u200b\t", Option.none()],
      ["a".repeat(128), Option.some("a".repeat(128))],
      [long, Option.some(`${"a".repeat(119)}\u2026${LONG_DIGEST}`)]
    ]
    for (const [raw, expected] of cases) expect([raw.slice(0, 40), agentNameOf(raw)]).toEqual([raw.slice(0, 40), expected])
    expect(Option.map(agentNameOf(long), (name) => name.length)).toEqual(Option.some(AGENT_ID_MAX))
    // A surrogate pair at the cut is kept whole (the cut moves one back).
    const emoji = `${"a".repeat(118)}\u{1F600}${"b".repeat(20)}`
    expect(Option.map(agentNameOf(emoji), (name) => [name.length, name.slice(0, 119)])).toEqual(Option.some([127, `${"a".repeat(118)}\u2026`]))
    for (const [raw] of [...cases, [emoji]]) {
      const once = agentNameOf(raw)
      expect(Option.flatMap(once, agentNameOf)).toEqual(once)
    }
  })
})

describe("agentIdOf: the gateway's agent of a session", () => {
  const session = (name: string, agent?: string) => ({
    id: "s",
    client: Option.some({ name, version: "1" }),
    capabilities: Option.none(),
    ...(agent === undefined ? {} : { agent }),
    elicit: () => Effect.die("not asked")
  })
  it("bounds and cleans a 2025 client's name, falls back past a control-only one, keeps --agent", () => {
    expect(agentIdOf(Option.none(), session("a".repeat(1_000_000)))).toBe(`${"a".repeat(119)}\u2026${LONG_DIGEST}`)
    expect(agentIdOf(Option.none(), session("evil\u001b[2J\nname"))).toBe("evil\uFFFD[2J\uFFFDname\u2026ffbdfa1a")
    expect(agentIdOf(Option.none(), session("\u001b\u0000"))).toBe("mcp-client")
    expect(agentIdOf(Option.none(), session("client", "\r\n"))).toBe("client")
    expect(agentIdOf(Option.some("ops"), session("client", "named"))).toBe("ops")
  })
})

describe("tool-map mcp --http, 2026-07-28", () => {
  it.live("a notification without a session: 202 and no body with the 2026 envelope or header; 400 for another version or none", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const cancelled = (meta?: object) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, ...(meta ? { _meta: meta } : {}) } })
      expect(yield* post(url, cancelled(META))).toEqual({ status: 202, type: null, body: "" })
      expect(yield* post(url, cancelled(), { "mcp-protocol-version": "2026-07-28" })).toEqual({ status: 202, type: null, body: "" })
      expect(yield* post(url, cancelled({ ...META, "io.modelcontextprotocol/protocolVersion": "2030-01-01\u001b[2J" }))).toEqual({
        status: 400,
        type: "application/json",
        body: JSON.stringify({ jsonrpc: "2.0", error: { code: -32022, message: "Unsupported protocol version: 2030-01-01\uFFFD[2J" }, id: null })
      })
      const noSession = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad request: no Mcp-Session-Id; only an initialize request opens a session" }, id: null })
      expect(yield* post(url, cancelled())).toEqual({ status: 400, type: "application/json", body: noSession })
      expect(yield* post(url, cancelled(), { "mcp-protocol-version": "2025-11-25" })).toEqual({ status: 400, type: "application/json", body: noSession })
      // A response posted without a session answers nothing tool-map asked: refused.
      expect(yield* post(url, { jsonrpc: "2.0", id: 7, result: {} })).toEqual({ status: 400, type: "application/json", body: noSession })
    }).pipe(Effect.scoped))

  it.live("a call with a progress token is an SSE stream: its progress, then its result; without one, one JSON body", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const streamed = yield* post(url, call("slow", { ...META, progressToken: "p1" }))
      const event = (message: object) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
      expect(streamed).toEqual({
        status: 200,
        type: "text/event-stream",
        body:
          event({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p1", progress: 1, total: 2, message: "half" } }) +
          event({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p1", progress: 2, total: 2 } }) +
          event({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "done" }], resultType: "complete", _meta: SERVER_META } })
      })
      expect(yield* post(url, call("slow", META))).toEqual({
        status: 200,
        type: "application/json",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "done" }], resultType: "complete", _meta: SERVER_META } })
      })
    }).pipe(Effect.scoped))

  it.live("the SDK v2 client (pinned to 2026-07-28) gets a call's progress and then its result over HTTP", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const client = new ModernClient({ name: "progress-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(new ModernHttpTransport(url))), () => Effect.promise(() => client.close()))
      const seen: Array<unknown> = []
      const result = yield* Effect.promise(() => client.callTool({ name: "slow", arguments: {} }, { onprogress: (progress) => void seen.push(progress) }))
      expect([seen, result.content]).toEqual([
        [{ progress: 1, total: 2, message: "half" }, { progress: 2, total: 2 }],
        [{ type: "text", text: "done" }]
      ])
    }).pipe(Effect.scoped))

  it.live("a 200,000-deep version is refused without being serialized; the server answers the next request", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const deep = `${"[".repeat(200_000)}0${"]".repeat(200_000)}`
      const refused = yield* postText(url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":${deep}}}}`)
      expect([refused.status, JSON.parse(refused.body)]).toEqual([200, {
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32022, message: "Unsupported protocol version: null", data: { supported: ["2026-07-28"], requested: null } }
      }])
      const long = yield* post(url, call("whoami", { ...META, "io.modelcontextprotocol/protocolVersion": "9".repeat(1000) }))
      expect((JSON.parse(long.body) as { error: { data: unknown } }).error.data).toEqual({ supported: ["2026-07-28"], requested: "9".repeat(64) })
      expect(yield* whoami(url, META)).toBe("modern/http-client -")
    }).pipe(Effect.scoped))

  it.live("subscriptions/listen: at most 4 streams per agent; a fifth is refused with the cap named, another agent's is not, and ending one makes room", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const streams: Array<AbortController> = []
      yield* Effect.addFinalizer(() => Effect.sync(() => streams.forEach((stream) => stream.abort())))
      /** The first event of a listen of `agent` (its acknowledgement), or its JSON answer. */
      const listen = (agent: string, id: number) =>
        Effect.promise(async () => {
          const abort = new AbortController()
          streams.push(abort)
          const response = await fetch(url, {
            method: "POST",
            signal: abort.signal,
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: { ...META, "dev.tool-map/agent": agent } } })
          })
          if (response.headers.get("content-type") === "application/json") return JSON.parse(await response.text()) as unknown
          const reader = response.body!.getReader()
          const { value } = await reader.read()
          return JSON.parse(/^data: (.*)$/m.exec(Buffer.from(value!).toString("utf8"))![1]!) as unknown
        })
      const ack = (id: number) => ({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": id } }
      })
      for (const id of [1, 2, 3, 4]) expect(yield* listen("many", id)).toEqual(ack(id))
      expect(yield* listen("many", 5)).toEqual({
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32600, message: "Too many subscriptions/listen streams: an agent keeps at most 4 open; end one first" }
      })
      expect(yield* listen("other", 6)).toEqual(ack(6))
      streams[0]!.abort()
      yield* Effect.sleep("200 millis")
      expect(yield* listen("many", 7)).toEqual(ack(7))
    }).pipe(Effect.scoped))

  it.live("hostile agent ids and client names: bounded and cleaned before they key a session or are shown", () =>
    Effect.gen(function* () {
      const { url } = yield* served
      const agent = (id: string) => whoami(url, { ...META, "dev.tool-map/agent": id })
      expect(yield* agent("a".repeat(1_000_000))).toBe(`modern/${"a".repeat(119)}\u2026${LONG_DIGEST} ${"a".repeat(119)}\u2026${LONG_DIGEST}`)
      expect(yield* agent("\u001b[31mred\u001b[0m")).toBe("modern/\uFFFD[31mred\uFFFD[0m\u2026f0fdc93e \uFFFD[31mred\uFFFD[0m\u2026f0fdc93e")
      expect(yield* agent("one\ntwo")).toBe("modern/one\uFFFDtwo\u202621066d10 one\uFFFDtwo\u202621066d10")
      expect(yield* agent("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB")).toBe("modern/[redacted]\u20266ec359a7 [redacted]\u20266ec359a7")
      expect(yield* agent("ghp_9876543210abcdefghijklmnopqrstuvwxyzAB")).toBe("modern/[redacted]\u2026cfc468d6 [redacted]\u2026cfc468d6")
      // Empty or control-only: no agent named; the client's name is used.
      expect(yield* agent("\u0000\u001b\r\n")).toBe("modern/http-client -")
      expect(yield* agent("")).toBe("modern/http-client -")
      const client = (name: string) => whoami(url, { ...META, "io.modelcontextprotocol/clientInfo": { name, version: "1" } })
      expect(yield* client(`x\u001b]0;title\u0007${"y".repeat(500)}`)).toBe(`modern/x\uFFFD]0;title\uFFFD${"y".repeat(108)}\u2026d8f663a2 -`)
      // A control-only client name: the fallback agent of HTTP.
      expect(yield* client("\u001b\u0007")).toBe("modern/http -")
    }).pipe(Effect.scoped))

  // 100,000 ids (29 s on a loaded 2-core machine) gave 100,000 attached, 99,936 detached; 10,000 here.
  it.live("10,000 distinct agent ids keep at most 64 agents attached; each one evicted is detached", () =>
    Effect.gen(function* () {
      const attached = yield* Ref.make(0)
      const detached = yield* Ref.make(0)
      const server = yield* McpServer.pipe(
        Effect.provide(McpServer.layer.pipe(Layer.provide(providersLayer({ tools: [makeProvider(attached, detached)], resources: [] }))))
      )
      const endpoint = yield* server.modern({ limits: { idle: "30 minutes", max: 64 }, fallbackAgent: "test" })
      let answered = 0
      for (let i = 0; i < 10_000; i++) {
        yield* endpoint.serve(call("whoami", { ...META, "dev.tool-map/agent": `agent-${i}` }, i), () => Effect.sync(() => void answered++))
      }
      expect([answered, yield* Ref.get(attached), yield* Ref.get(detached)]).toEqual([10_000, 10_000, 10_000 - 64])
    }).pipe(Effect.scoped), 30_000)
})
