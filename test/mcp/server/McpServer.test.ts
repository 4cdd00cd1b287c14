import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Layer, Logger, LogLevel, Option, Queue, Ref, Stream } from "effect"
import { type McpProviderSet, providersLayer } from "../../../src/mcp/server/McpProviders.js"
import { McpResourceChange, type McpResourceProvider } from "../../../src/mcp/server/McpResourceProvider.js"
import { MAX_ARGUMENT_DEPTH, McpProtocolError, McpServer, TOOL_CALLS_AT_ONCE } from "../../../src/mcp/server/McpServer.js"
import type { McpSession } from "../../../src/mcp/server/McpSession.js"
import { McpProviderError, type McpToolProvider } from "../../../src/mcp/server/McpToolProvider.js"

const tool = (name: string): Tool => ({ name, description: `the ${name} tool`, inputSchema: { type: "object" } })

const textResult = (text: string) => ({ content: [{ type: "text" as const, text }] })

/** Providers whose behaviour the tests observe: what they were attached to and when their sessions ended. */
const makeFixture = Effect.gen(function* () {
  const attached = yield* Ref.make<ReadonlyArray<string>>([])
  const detached = yield* Ref.make<ReadonlyArray<string>>([])
  const toolChanges = yield* Queue.unbounded<void>()
  const resourceChanges = yield* Queue.unbounded<McpResourceChange>()
  const interrupted = yield* Deferred.make<void>()
  const sessions = yield* Ref.make<ReadonlyArray<McpSession>>([])
  const running = yield* Ref.make({ now: 0, most: 0 })

  const first: McpToolProvider = {
    name: "first",
    attach: (session) =>
      Effect.gen(function* () {
        yield* Ref.update(attached, (list) => [...list, `first:${session.id}:${Option.getOrUndefined(session.client)?.name}`])
        yield* Ref.update(sessions, (list) => [...list, session])
        yield* Effect.addFinalizer(() => Ref.update(detached, (list) => [...list, `first:${session.id}`]))
      }),
    listTools: () => Effect.succeed([tool("alpha"), tool("shared")]),
    callTool: (call, context) => {
      switch (call.name) {
        case "alpha":
          return Effect.succeed(Option.some({ ...textResult(`alpha ${JSON.stringify(call.arguments)} for ${context.session.id}`), structuredContent: { ok: true } }))
        case "busy":
          return Ref.update(running, ({ now, most }) => ({ now: now + 1, most: Math.max(most, now + 1) })).pipe(
            Effect.zipRight(Effect.sleep("20 millis")),
            Effect.zipRight(Ref.update(running, ({ now, most }) => ({ now: now - 1, most }))),
            Effect.as(Option.some(textResult("done")))
          )
        case "crash":
          return Effect.die(new Error("boom in /opt/tool-map/dist/tool-map.cjs"))
        case "broken":
          return Effect.fail(new McpProviderError({ provider: "first", method: "tools/call", target: "broken", reason: "it \u001b[31mbroke" }))
        case "slow":
          return Effect.gen(function* () {
            yield* context.progress(1, 2, "half way")
            return yield* Effect.never
          }).pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
        default:
          return Effect.succeed(Option.none())
      }
    },
    listChanged: () => Stream.fromQueue(toolChanges)
  }
  const second: McpToolProvider = {
    name: "second",
    attach: () => Effect.void,
    listTools: () => Effect.succeed([tool("shared"), tool("beta")]),
    callTool: (call) => Effect.succeed(call.name === "beta" || call.name === "alpha" ? Option.some(textResult(`second ${call.name}`)) : Option.none()),
    listChanged: () => Stream.empty
  }
  const resources: McpResourceProvider = {
    name: "docs",
    listResources: () => Effect.succeed([{ uri: "test://a", name: "a" }, { uri: "test://b", name: "b" }]),
    readResource: (uri) => Effect.succeed(uri.startsWith("test://") ? Option.some({ contents: [{ uri, text: `content of ${uri}` }] }) : Option.none()),
    changes: Stream.fromQueue(resourceChanges)
  }
  return { attached, detached, toolChanges, resourceChanges, interrupted, sessions, running, providers: { tools: [first, second], resources: [resources] } }
})

/** The fixture's server with one SDK client connected to it in memory, for the test's scope. */
const connected = Effect.gen(function* () {
  const fixture = yield* makeFixture
  const server = yield* McpServer.pipe(Effect.provide(McpServer.layer.pipe(Layer.provide(providersLayer(fixture.providers)))))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const connection = yield* server.connect(serverSide, "session-1")
  const client = new Client({ name: "unit-client", version: "2.0.0" }, { capabilities: { elicitation: { form: {} } } })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
  return { ...fixture, client, connection }
})

describe("McpServer", () => {
  it.live("lists the providers' tools in order, a later duplicate dropped", () =>
    Effect.gen(function* () {
      const { client } = yield* connected
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((listed) => listed.name)).toEqual(["alpha", "shared", "beta"])
      expect(tools[1]?.description).toBe("the shared tool")
    }).pipe(Effect.scoped))

  it.live("attaches each provider once per session with the client's info, and detaches it when the session ends", () =>
    Effect.gen(function* () {
      const fixture = yield* makeFixture
      const server = yield* McpServer.pipe(Effect.provide(McpServer.layer.pipe(Layer.provide(providersLayer(fixture.providers)))))
      yield* Effect.scoped(
        Effect.gen(function* () {
          const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
          const connection = yield* server.connect(serverSide, "s-7")
          const client = new Client({ name: "unit-client", version: "2.0.0" })
          yield* Effect.promise(() => client.connect(clientSide))
          const session = yield* connection.session
          expect([session.id, Option.getOrUndefined(session.client)]).toEqual(["s-7", { name: "unit-client", version: "2.0.0" }])
          yield* Effect.promise(() => client.listTools())
          expect(yield* Ref.get(fixture.attached)).toEqual(["first:s-7:unit-client"])
          expect(yield* Ref.get(fixture.detached)).toEqual([])
          yield* Effect.promise(() => client.close())
          yield* connection.closed
        })
      )
      expect(yield* Ref.get(fixture.detached)).toEqual(["first:s-7"])
    }))

  it.live("calls the first provider that claims a tool; a provider error is a result with isError; an unknown tool is -32602", () =>
    Effect.gen(function* () {
      const { client } = yield* connected
      const alpha = yield* Effect.promise(() => client.callTool({ name: "alpha", arguments: { x: 1 } }))
      expect(alpha).toEqual({ content: [{ type: "text", text: 'alpha {"x":1} for session-1' }], structuredContent: { ok: true } })
      const beta = yield* Effect.promise(() => client.callTool({ name: "beta" }))
      expect(beta).toEqual({ content: [{ type: "text", text: "second beta" }] })
      const broken = yield* Effect.promise(() => client.callTool({ name: "broken" }))
      expect(broken).toEqual({ content: [{ type: "text", text: "tools/call broken failed in first: it \uFFFD[31mbroke" }], isError: true })
      const unknown = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "gamma" })))
      expect(String(unknown.error)).toBe("McpError: MCP error -32602: Unknown tool: gamma")
    }).pipe(Effect.scoped))

  it.live("runs at most TOOL_CALLS_AT_ONCE (8) tool calls of a connection at once; the others wait their turn and are answered", () =>
    Effect.gen(function* () {
      const { client, running } = yield* connected
      const answers = yield* Effect.promise(() => Promise.all(Array.from({ length: 30 }, () => client.callTool({ name: "busy" }))))
      expect(answers).toEqual(Array.from({ length: 30 }, () => textResult("done")))
      expect(TOOL_CALLS_AT_ONCE).toBe(8)
      expect(yield* Ref.get(running)).toEqual({ now: 0, most: 8 })
    }).pipe(Effect.scoped))

  it.live("refuses arguments nested deeper than MAX_ARGUMENT_DEPTH (64) with -32602 and a short reason, before any provider sees them", () =>
    Effect.gen(function* () {
      const { client } = yield* connected
      const nested = (depth: number) => {
        let value: Record<string, unknown> = {}
        for (let level = 1; level < depth; level++) value = { a: value }
        return value
      }
      expect(MAX_ARGUMENT_DEPTH).toBe(64)
      const deepest = nested(64)
      const accepted = yield* Effect.promise(() => client.callTool({ name: "alpha", arguments: deepest }))
      expect(accepted).toEqual({ content: [{ type: "text", text: `alpha ${JSON.stringify(deepest)} for session-1` }], structuredContent: { ok: true } })
      for (const depth of [65, 100_000]) {
        const refused = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "alpha", arguments: nested(depth) })))
        expect(String(refused.error)).toBe("McpError: MCP error -32602: Invalid arguments for tool alpha: they nest deeper than 64 levels")
      }
      // Arrays count as objects do.
      let array: Array<unknown> = []
      for (let level = 1; level < 100_000; level++) array = [array]
      const refused = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "alpha", arguments: { list: array } })))
      expect(String(refused.error)).toBe("McpError: MCP error -32602: Invalid arguments for tool alpha: they nest deeper than 64 levels")
    }).pipe(Effect.scoped))

  it.live("answers a provider's defect with a short internal error: no trace, no install path", () =>
    Effect.gen(function* () {
      const { client } = yield* connected
      const crashed = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "crash" })))
      expect(String(crashed.error)).toBe("McpError: MCP error -32603: tool-map: internal error (its details are on the server's stderr)")
    }).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.None)))

  it.live("forwards progress, and a cancelled call interrupts the provider's fiber", () =>
    Effect.gen(function* () {
      const { client, interrupted } = yield* connected
      const progress: Array<unknown> = []
      const controller = new AbortController()
      const call = client.callTool({ name: "slow" }, undefined, {
        signal: controller.signal,
        onprogress: (update) => {
          progress.push(update)
          controller.abort("the user gave up")
        }
      })
      const failure = yield* Effect.flip(Effect.tryPromise(() => call))
      expect(String(failure.error)).toContain("the user gave up")
      yield* Deferred.await(interrupted)
      expect(progress).toEqual([{ progress: 1, total: 2, message: "half way" }])
    }).pipe(Effect.scoped))

  it.live("sends tools/list_changed for each change of a provider's list", () =>
    Effect.gen(function* () {
      const { client, toolChanges } = yield* connected
      const received = yield* Queue.unbounded<string>()
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        Effect.runSync(Queue.offer(received, notification.method))
      })
      yield* Effect.promise(() => client.listTools())
      yield* Queue.offerAll(toolChanges, [undefined, undefined])
      expect([yield* Queue.take(received), yield* Queue.take(received)]).toEqual(["notifications/tools/list_changed", "notifications/tools/list_changed"])
    }).pipe(Effect.scoped))

  it.live("resources: list, read, not found; updated only for subscribed URIs; list_changed for everyone", () =>
    Effect.gen(function* () {
      const { client, resourceChanges } = yield* connected
      expect((yield* Effect.promise(() => client.listResources())).resources).toEqual([{ uri: "test://a", name: "a" }, { uri: "test://b", name: "b" }])
      expect(yield* Effect.promise(() => client.readResource({ uri: "test://a" }))).toEqual({ contents: [{ uri: "test://a", text: "content of test://a" }] })
      const missing = yield* Effect.flip(Effect.tryPromise(() => client.readResource({ uri: "other://x" })))
      expect(String(missing.error)).toBe("McpError: MCP error -32002: Resource not found: other://x")

      const received = yield* Queue.unbounded<string>()
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        Effect.runSync(Queue.offer(received, `updated ${notification.params.uri}`))
      })
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        Effect.runSync(Queue.offer(received, "list changed"))
      })
      yield* Effect.promise(() => client.subscribeResource({ uri: "test://b" }))
      yield* Queue.offerAll(resourceChanges, [
        McpResourceChange.Updated({ uri: "test://a" }),
        McpResourceChange.Updated({ uri: "test://b" }),
        McpResourceChange.ListChanged()
      ])
      expect([yield* Queue.take(received), yield* Queue.take(received)]).toEqual(["updated test://b", "list changed"])
      yield* Effect.promise(() => client.unsubscribeResource({ uri: "test://b" }))
      yield* Queue.offerAll(resourceChanges, [McpResourceChange.Updated({ uri: "test://b" }), McpResourceChange.ListChanged()])
      expect(yield* Queue.take(received)).toBe("list changed")
    }).pipe(Effect.scoped))

  it.live("elicits through a client that declared the capability", () =>
    Effect.gen(function* () {
      const { client, connection } = yield* connected
      const { ElicitRequestSchema } = yield* Effect.promise(() => import("@modelcontextprotocol/sdk/types.js"))
      client.setRequestHandler(ElicitRequestSchema, (request) =>
        Promise.resolve({ action: "accept", content: { answer: `yes to ${request.params.message}` } }))
      const session = yield* connection.session
      const answer = yield* session.elicit({ mode: "form", message: "load?", requestedSchema: { type: "object", properties: { answer: { type: "string" } } } })
      expect(answer).toEqual({ action: "accept", content: { answer: "yes to load?" } })
    }).pipe(Effect.scoped))

  it.live("over providers still being built: initialize is answered at once, the other requests wait for them", () =>
    Effect.gen(function* () {
      const fixture = yield* makeFixture
      const ready = yield* Deferred.make<McpProviderSet, McpProtocolError>()
      const server = yield* McpServer.pipe(Effect.provide(McpServer.layerAwaiting(Deferred.await(ready))))
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide, "session-1")
      const client = new Client({ name: "unit-client", version: "2.0.0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
      expect(client.getServerVersion()?.name).toBe("tool-map")
      const listing = yield* Effect.fork(Effect.promise(() => client.listTools()))
      yield* Effect.sleep("100 millis")
      expect(Option.isNone(yield* listing.poll)).toBe(true)
      expect(yield* Ref.get(fixture.attached)).toEqual([])
      yield* Deferred.succeed(ready, fixture.providers)
      expect((yield* listing.await.pipe(Effect.flatten)).tools.map((listed) => listed.name)).toEqual(["alpha", "shared", "beta"])
      expect(yield* Ref.get(fixture.attached)).toEqual(["first:session-1:unit-client"])
    }).pipe(Effect.scoped))

  it.live("over providers that failed to build: a request is answered with the JSON-RPC error", () =>
    Effect.gen(function* () {
      const server = yield* McpServer.pipe(
        Effect.provide(McpServer.layerAwaiting(Effect.fail(new McpProtocolError({ code: -32603, reason: "tool-map mcp could not start its tools (see its stderr)" }))))
      )
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide, "session-1")
      const client = new Client({ name: "unit-client", version: "2.0.0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
      const failed = yield* Effect.flip(Effect.tryPromise(() => client.readResource({ uri: "test://a" })))
      expect(String(failed.error)).toBe("McpError: MCP error -32603: tool-map mcp could not start its tools (see its stderr)")
    }).pipe(Effect.scoped))
})
