/**
 * The 2026-07-28 era on tool-map's stdio server, on the wire (issue 31): `server/discover`, the
 * `_meta` envelope (refused for another version), per-agent sessions, `subscriptions/listen`
 * (acknowledged, then only what the client opted in to, ended by a cancellation), and a
 * provider's question to the user as an `input_required` answer retried with the answer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Layer, Logger, Option, PubSub, Ref, Stream } from "effect"
import { PassThrough } from "node:stream"
import { providersLayer } from "../../../src/mcp/server/McpProviders.js"
import { internalErrorLine, McpServer } from "../../../src/mcp/server/McpServer.js"
import type { McpSession } from "../../../src/mcp/server/McpSession.js"
import type { McpToolProvider } from "../../../src/mcp/server/McpToolProvider.js"
import { questionKey } from "../../../src/mcp/server/modern/ModernEra.js"
import { serveStdioOn } from "../../../src/mcp/server/serveStdio.js"
import { TOOL_MAP_VERSION } from "../../../src/version.js"

const QUESTION = {
  mode: "form" as const,
  message: "Go on?",
  requestedSchema: { type: "object" as const, properties: { confirm: { type: "boolean" as const } }, required: ["confirm"] }
}
const KEY = questionKey(QUESTION)

/**
 * `whoami` answers the session's id, client and agent; `ask` asks the user `QUESTION` and answers
 * what was said; `change` publishes a list change for every session.
 */
const makeProvider = (changes: PubSub.PubSub<void>, attached: Ref.Ref<ReadonlyArray<string>>): McpToolProvider => ({
  name: "test",
  attach: (session) =>
    session.agent === "doomed"
      ? Effect.die(new Error("attach broke\nsecond line"))
      : session.agent === "flaky"
      // Its first attach breaks, the next succeeds.
      ? Effect.flatMap(Ref.getAndUpdate(attached, (ids) => (ids.includes("flaky broke") ? [...ids, session.id] : [...ids, "flaky broke"])), (ids) =>
        ids.includes("flaky broke") ? Effect.void : Effect.die(new Error("flaky attach broke")))
      : Effect.zipRight(session.agent === "slow" ? Effect.sleep("3 seconds") : Effect.void, Ref.update(attached, (ids) => [...ids, session.id])),
  listTools: () => Effect.succeed([{ name: "whoami", inputSchema: { type: "object" } }, { name: "ask", inputSchema: { type: "object" } }]),
  callTool: (call, { session }) =>
    Effect.gen(function* () {
      if (call.name === "whoami") return Option.some({ content: [{ type: "text" as const, text: describeSession(session) }] })
      if (call.name === "ask") {
        const answer = yield* Effect.either(session.elicit(QUESTION))
        const text = answer._tag === "Left" ? `failed: ${answer.left.message}` : JSON.stringify(answer.right)
        return Option.some({ content: [{ type: "text" as const, text }] })
      }
      if (call.name === "change") {
        yield* PubSub.publish(changes, undefined)
        return Option.some({ content: [{ type: "text" as const, text: "changed" }] })
      }
      return Option.none()
    }),
  listChanged: () => Stream.fromPubSub(changes)
})

const describeSession = (session: McpSession) =>
  `${session.id} ${Option.match(session.client, { onNone: () => "-", onSome: (client) => client.name })} ${session.agent ?? "-"}`

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "wire-client", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } }
}
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "tool-map", version: TOOL_MAP_VERSION } }
const request = (id: number | string, method: string, params: object = {}, meta: object = META) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })

const served = Effect.gen(function* () {
  const input = new PassThrough()
  const output = new PassThrough()
  const changes = yield* PubSub.unbounded<void>()
  const attached = yield* Ref.make<ReadonlyArray<string>>([])
  const fiber = yield* serveStdioOn(input, output).pipe(
    Effect.provide(Layer.merge(
      McpServer.layer.pipe(Layer.provide(providersLayer({ tools: [makeProvider(changes, attached)], resources: [] }))),
      Logger.replace(Logger.defaultLogger, Logger.none)
    )),
    Effect.fork
  )
  let received = ""
  output.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8")
  })
  const lines = () => received.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as unknown)
  /** The messages written so far once there are `count` of them. */
  const upTo = (count: number) =>
    Effect.gen(function* () {
      while (lines().length < count) yield* Effect.sleep("5 millis")
      return lines()
    })
  const send = (...messages: ReadonlyArray<string>) => Effect.sync(() => input.write(messages.map((line) => `${line}\n`).join("")))
  return { input, fiber, send, upTo, attached }
})

describe("internalErrorLine", () => {
  it("logs a defect as one cleaned line", () => {
    const line = internalErrorLine(Cause.die(new Error("attach broke\nsecond \u001b[2J line")))
    expect(line.startsWith("tool-map mcp: internal error: Error: attach broke | second \uFFFD[2J line | at ")).toBe(true)
    expect(/[\n\r\u001b]/.test(line)).toBe(false)
  })
})

describe("tool-map mcp on stdio, 2026-07-28", () => {
  it.live("answers server/discover, lists and calls tools with each request's envelope, and refuses another version", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo, attached } = yield* served
      yield* send(
        request(1, "server/discover"),
        request(2, "tools/list"),
        request(3, "tools/call", { name: "whoami", arguments: {} }),
        request(4, "tools/call", { name: "whoami", arguments: {} }, { ...META, "dev.tool-map/agent": "named" }),
        request(5, "tools/list", {}, { ...META, "io.modelcontextprotocol/protocolVersion": "2027-01-01" }),
        request(6, "tools/call", { name: "whoami", arguments: {} }, { ...META, "dev.tool-map/agent": "bad\u001b[2Jname" }),
        request(7, "tools/list", {}, { ...META, "io.modelcontextprotocol/protocolVersion": "\u001b[2J" })
      )
      const answers = yield* upTo(7)
      const byId = new Map(answers.map((answer) => [(answer as { id: number }).id, answer]))
      expect(byId.get(1)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: {
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
          instructions: expect.stringMatching(/^tool-map maps the tools this machine has/),
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          _meta: SERVER_META
        }
      })
      expect(byId.get(2)).toEqual({
        jsonrpc: "2.0",
        id: 2,
        result: {
          tools: [{ name: "whoami", inputSchema: { type: "object" } }, { name: "ask", inputSchema: { type: "object" } }],
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          _meta: SERVER_META
        }
      })
      expect(byId.get(3)).toEqual({
        jsonrpc: "2.0",
        id: 3,
        result: { content: [{ type: "text", text: "modern/wire-client wire-client -" }], resultType: "complete", _meta: SERVER_META }
      })
      expect((byId.get(4) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe("modern/named wire-client named")
      expect(byId.get(5)).toEqual({
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32022, message: "Unsupported protocol version: 2027-01-01", data: { supported: ["2026-07-28"], requested: "2027-01-01" } }
      })
      // A hostile agent id or version is neutralized wherever it is shown.
      expect((byId.get(6) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(
        "modern/bad\uFFFD[2Jname\u2026e0cff306 wire-client bad\uFFFD[2Jname\u2026e0cff306"
      )
      expect((byId.get(7) as { error: { message: string } }).error.message).toBe("Unsupported protocol version: \uFFFD[2J")
      // One session per agent, attached once (the requests run at once: in any order).
      expect([...(yield* Ref.get(attached))].sort()).toEqual(["modern/bad\uFFFD[2Jname\u2026e0cff306", "modern/named", "modern/wire-client"])
      yield* Fiber.interrupt(fiber)
    }))

  it.live("asks the user with input_required under a signed requestState; only the retry of that round, by that agent, once, is answered", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      const answer = { action: "accept", content: { confirm: true } }
      const asked = (id: number, requestState: unknown) => ({
        jsonrpc: "2.0",
        id,
        result: { resultType: "input_required", inputRequests: { [KEY]: { method: "elicitation/create", params: QUESTION } }, requestState }
      })
      const stateOf = (message: unknown) => (message as { result: { requestState: string } }).result.requestState
      yield* send(request(1, "tools/call", { name: "ask", arguments: {} }))
      const [first] = yield* upTo(1)
      const state = stateOf(first)
      expect(first).toEqual(asked(1, state))
      expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
      // Forged: an answer never asked for, a made-up state, a tampered one, another agent's: each asked anew.
      const made = JSON.stringify({ answers: { [KEY]: answer } })
      const [body, mac] = state.split(".") as [string, string]
      const tampered = `${Buffer.from(Buffer.from(body, "base64url").toString("utf8").replace('"tool":"ask"', '"tool":"ask" ')).toString("base64url")}.${mac}`
      yield* send(
        request(2, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer } }),
        request(3, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer }, requestState: made }),
        request(4, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer }, requestState: tampered }),
        request(5, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer }, requestState: state }, { ...META, "dev.tool-map/agent": "other" })
      )
      const forged = yield* upTo(5)
      for (const id of [2, 3, 4, 5]) {
        const message = forged.find((answer) => (answer as { id: number }).id === id)
        expect(message).toEqual(asked(id, stateOf(message)))
      }
      // The honest retry (the other agent's attempt spent no nonce of this one's): answered; its replay is asked anew.
      yield* send(request(6, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer }, requestState: state }))
      const honest = (yield* upTo(6))[5]
      expect(honest).toEqual({ jsonrpc: "2.0", id: 6, result: { content: [{ type: "text", text: JSON.stringify(answer) }], resultType: "complete", _meta: SERVER_META } })
      yield* send(request(7, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: answer }, requestState: state }))
      const replay = (yield* upTo(7))[6]
      expect(replay).toEqual(asked(7, stateOf(replay)))
      // A "no" answered with the state it was asked with is the user's "no".
      yield* send(request(8, "tools/call", { name: "ask", arguments: {}, inputResponses: { [KEY]: { action: "decline" } }, requestState: stateOf(replay) }))
      expect((yield* upTo(8))[7]).toEqual({ jsonrpc: "2.0", id: 8, result: { content: [{ type: "text", text: '{"action":"decline"}' }], resultType: "complete", _meta: SERVER_META } })
      const { "io.modelcontextprotocol/clientCapabilities": _, ...withoutCapabilities } = META
      yield* send(request(9, "tools/call", { name: "ask", arguments: {} }, withoutCapabilities))
      expect(((yield* upTo(9))[8] as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(
        "failed: The MCP client did not answer elicitation/create: the client declared no elicitation capability"
      )
      yield* Fiber.interrupt(fiber)
    }))

  it.live("a 200,000-deep version is refused without being serialized, a defect is answered as an internal error, and neither holds a place among the 64 requests in flight", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      const deep = `${"[".repeat(200_000)}0${"]".repeat(200_000)}`
      const deepLines = Array.from({ length: 66 }, (_, i) =>
        `{"jsonrpc":"2.0","id":${1000 + i},"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":${deep}}}}`)
      yield* send(...deepLines, request("doomed", "subscriptions/listen", { notifications: { toolsListChanged: true } }, { ...META, "dev.tool-map/agent": "doomed" }))
      yield* send(request(1, "tools/call", { name: "whoami", arguments: {} }))
      const all = yield* upTo(68)
      const byId = new Map(all.map((answer) => [(answer as { id: number | string }).id, answer]))
      for (let i = 0; i < 66; i++) {
        expect(byId.get(1000 + i)).toEqual({
          jsonrpc: "2.0",
          id: 1000 + i,
          error: { code: -32022, message: "Unsupported protocol version: null", data: { supported: ["2026-07-28"], requested: null } }
        })
      }
      expect(byId.get("doomed")).toEqual({
        jsonrpc: "2.0",
        id: "doomed",
        error: { code: -32603, message: "tool-map: internal error (its details are on the server's stderr)" }
      })
      expect(byId.get(1)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "modern/wire-client wire-client -" }], resultType: "complete", _meta: SERVER_META }
      })
      yield* Fiber.interrupt(fiber)
    }))

  it.live("an agent whose attach is slow delays no other agent: the second agent's first request is answered first", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      const started = Date.now()
      yield* send(request(1, "tools/call", { name: "whoami", arguments: {} }, { ...META, "dev.tool-map/agent": "slow" }))
      yield* Effect.sleep("50 millis")
      yield* send(request(2, "tools/call", { name: "whoami", arguments: {} }, { ...META, "dev.tool-map/agent": "quick" }))
      const [first] = yield* upTo(1)
      const quickAfter = Date.now() - started
      expect(first).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "modern/quick wire-client quick" }], resultType: "complete", _meta: SERVER_META } })
      // The slow attach takes 3 s; the other agent is answered well before it ends.
      expect(quickAfter).toBeLessThan(2000)
      const [, second] = yield* upTo(2)
      expect(second).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "modern/slow wire-client slow" }], resultType: "complete", _meta: SERVER_META } })
      yield* Fiber.interrupt(fiber)
    }))

  it.live("a failed attach leaves no session behind: the agent's next request attaches again", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo, attached } = yield* served
      const flaky = { ...META, "dev.tool-map/agent": "flaky" }
      yield* send(request(1, "tools/call", { name: "whoami", arguments: {} }, flaky))
      const [first] = yield* upTo(1)
      expect(first).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32603 } })
      // The failed entry is closed in the background: the next request finds none and attaches again.
      yield* Effect.sleep("50 millis")
      yield* send(request(2, "tools/call", { name: "whoami", arguments: {} }, flaky))
      const [, second] = yield* upTo(2)
      expect(second).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "modern/flaky wire-client flaky" }], resultType: "complete", _meta: SERVER_META } })
      expect(yield* Ref.get(attached)).toEqual(["flaky broke", "modern/flaky"])
      yield* Fiber.interrupt(fiber)
    }))

  it.live("a listen whose id is used again is replaced: one stream per id, ended by one cancellation", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      const listen = request("dup", "subscriptions/listen", { notifications: { toolsListChanged: true } })
      yield* send(listen)
      yield* upTo(1)
      yield* send(listen)
      yield* upTo(2)
      yield* Effect.sleep("50 millis")
      yield* send(request(1, "tools/call", { name: "change", arguments: {} }))
      yield* upTo(4)
      yield* Effect.sleep("100 millis")
      const changed = { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { "io.modelcontextprotocol/subscriptionId": "dup" } } }
      const afterFirst = yield* upTo(4)
      expect(afterFirst.length).toBe(4)
      expect(afterFirst.slice(2).filter((message) => (message as { method?: string }).method === changed.method)).toEqual([changed])
      yield* send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "dup" } }))
      yield* Effect.sleep("50 millis")
      yield* send(request(2, "tools/call", { name: "change", arguments: {} }))
      yield* upTo(5)
      yield* Effect.sleep("100 millis")
      const all = yield* upTo(5)
      expect(all.length).toBe(5)
      expect((all[4] as { id: number }).id).toBe(2)
      yield* Fiber.interrupt(fiber)
    }))

  it.live("stdio after a 2025 initialize stays 2025, and an initialize naming the 2026 version is the 2025 handshake", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      yield* send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
        })
      )
      const [initialized] = yield* upTo(1)
      expect((initialized as { id: number; result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-11-25")
      yield* send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), request(2, "tools/list"))
      const [, listed] = yield* upTo(2)
      // The 2025 answer: no resultType, no server _meta.
      expect(listed).toEqual({ jsonrpc: "2.0", id: 2, result: { tools: [{ name: "whoami", inputSchema: { type: "object" } }, { name: "ask", inputSchema: { type: "object" } }] } })
      yield* Fiber.interrupt(fiber)
    }))

  it.live("subscriptions/listen: acknowledged with what it sends, a list change on the stream, nothing after its cancellation", () =>
    Effect.gen(function* () {
      const { fiber, send, upTo } = yield* served
      yield* send(request("listen:0", "subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true } }))
      const [ack] = yield* upTo(1)
      expect(ack).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": "listen:0" } }
      })
      yield* send(request(1, "tools/call", { name: "change", arguments: {} }))
      const afterChange = yield* upTo(3)
      expect(afterChange.slice(1)).toContainEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen:0" } }
      })
      yield* send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "listen:0" } }))
      yield* Effect.sleep("50 millis")
      yield* send(request(2, "tools/call", { name: "change", arguments: {} }))
      const last = yield* upTo(4)
      yield* Effect.sleep("50 millis")
      expect((yield* upTo(4)).length).toBe(4)
      expect(last[3]).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "changed" }], resultType: "complete", _meta: SERVER_META } })
      yield* Fiber.interrupt(fiber)
    }))
})
