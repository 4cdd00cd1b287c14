import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Option, Ref, Stream } from "effect"
import { PassThrough } from "node:stream"
import { providersLayer } from "../../../src/mcp/server/McpProviders.js"
import { McpServer } from "../../../src/mcp/server/McpServer.js"
import type { McpToolProvider } from "../../../src/mcp/server/McpToolProvider.js"
import { serveStdioOn } from "../../../src/mcp/server/serveStdio.js"
import { MAX_MESSAGE_BYTES, requestIdOf } from "../../../src/mcp/server/StdioTransport.js"
import { SIGTERM_TEST_BOUND_MS } from "../../support/cli.js"

/** How many `spin` calls have run so far. */
let spins = 0

/** `echo` answers its arguments; `spin` holds the one thread for 5 ms, as a read of a large bundle does. */
const provider: McpToolProvider = {
  name: "test",
  attach: () => Effect.void,
  listTools: () => Effect.succeed([{ name: "echo", inputSchema: { type: "object" } }, { name: "spin", inputSchema: { type: "object" } }]),
  callTool: (call) =>
    Effect.sync(() => {
      if (call.name === "spin") {
        spins++
        const until = performance.now() + 5
        while (performance.now() < until);
      }
      return call.name === "echo" || call.name === "spin" ? Option.some({ content: [{ type: "text" as const, text: `${call.name} ${JSON.stringify(call.arguments)}` }] }) : Option.none()
    }),
  listChanged: () => Stream.empty
}

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
const call = (id: number, name: string, args: object) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })

/** The server on two in-memory pipes, its log lines collected; `stop` interrupts it as SIGTERM does. */
const served = Effect.gen(function* () {
  const input = new PassThrough()
  const output = new PassThrough()
  const logged = yield* Ref.make<ReadonlyArray<string>>([])
  const logger = Logger.make(({ message }) => Effect.runSync(Ref.update(logged, (lines) => [...lines, String(message)])))
  const fiber = yield* serveStdioOn(input, output).pipe(
    Effect.provide(Layer.merge(McpServer.layer.pipe(Layer.provide(providersLayer({ tools: [provider], resources: [] }))), Logger.replace(Logger.defaultLogger, logger))),
    Effect.fork
  )
  let received = ""
  const answers = (count: number) =>
    Effect.async<ReadonlyArray<unknown>>((resume) => {
      const check = () => {
        const lines = received.split("\n").filter((line) => line !== "")
        if (lines.length >= count) resume(Effect.succeed(lines.slice(0, count).map((line) => JSON.parse(line) as unknown)))
      }
      const onData = (chunk: Buffer) => {
        received += chunk.toString("utf8")
        check()
      }
      output.on("data", onData)
      check()
      return Effect.sync(() => output.off("data", onData))
    })
  const send = (...lines: ReadonlyArray<string>) => Effect.sync(() => input.write(lines.map((line) => `${line}\n`).join("")))
  return { input, output, fiber, logged, answers, send }
})

describe("serveStdioOn", () => {
  it("finds the id of a request from the ends of its line, only beside a method", () => {
    expect(requestIdOf('{"method":"tools/call","params":{"name":"x","arguments":{"a":"', '"}},"jsonrpc":"2.0","id":7}')).toBe(7)
    expect(requestIdOf('{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"a":"', 'xxx"}}')).toBe("r-1")
    // A nested "id" is not the request's, and an id without a method may be an answer to a request of ours.
    expect(requestIdOf('{"method":"tools/call","params":{"arguments":{"id":3,"a":"', 'xx"}}}')).toBe(null)
    expect(requestIdOf('{"jsonrpc":"2.0","id":4,"result":{"a":"', 'xx"}}')).toBe(null)
  })

  it.live("answers a request over 10 MiB with a JSON-RPC error, says so on stderr and goes on serving", () =>
    Effect.gen(function* () {
      const { fiber, logged, answers, send } = yield* served
      const big = "x".repeat(MAX_MESSAGE_BYTES + 10)
      // The SDK's client writes the id last; a line without an id to answer is only reported.
      const overLine = `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"${big}"}},"jsonrpc":"2.0","id":1}`
      const noIdLine = `{"method":"notifications/message","params":{"t":"${big}"},"jsonrpc":"2.0"}`
      yield* send(INITIALIZE, INITIALIZED, overLine, noIdLine, "not json {", call(2, "echo", { a: 1 }))
      // The refusal is written at once, before the answers of the requests read ahead of it.
      const [refused, initialized, echoed] = yield* answers(3)
      expect((initialized as { id: number }).id).toBe(0)
      expect(refused).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: `The request is ${overLine.length} bytes long; tool-map mcp reads messages of at most 10 MiB` }
      })
      expect(echoed).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: 'echo {"a":1}' }] } })
      expect(yield* Ref.get(logged)).toEqual([
        `tool-map mcp: refused request 1: its message of ${overLine.length} bytes is over the 10 MiB limit`,
        `tool-map mcp: skipped a message of ${noIdLine.length} bytes on stdin, over the 10 MiB limit (no request id found in it to answer)`,
        "tool-map mcp: skipped a line of stdin that is not JSON (10 bytes)"
      ])
      expect(fiber.unsafePoll()).toBe(null)
      yield* Fiber.interrupt(fiber)
    }))

  it.live("stops within a second of SIGTERM with 2,000 calls pipelined and stdout never read", () =>
    Effect.gen(function* () {
      const { fiber, send, output } = yield* served
      yield* send(INITIALIZE, INITIALIZED, ...Array.from({ length: 2000 }, (_, index) => call(index + 1, "spin", {})))
      // Nobody reads stdout: the answers pile up in the pipe.
      output.pause()
      // Once the calls run (all 2,000 were read), SIGTERM comes as a callback of the event loop: a timer stands for it.
      const before = spins
      yield* Effect.async<void>((resume) => {
        const poll = setInterval(() => {
          if (spins >= before + 16) resume(Effect.void)
        }, 1)
        return Effect.sync(() => clearInterval(poll))
      })
      const due = performance.now() + 100
      yield* Effect.async<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), 100)
        return Effect.sync(() => clearTimeout(timer))
      })
      yield* Fiber.interrupt(fiber)
      expect(performance.now() - due).toBeLessThan(SIGTERM_TEST_BOUND_MS)
    }))
})
