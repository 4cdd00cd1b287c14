/**
 * The downstream side in both eras of MCP (issue 31): a 2026-07-28 server on the SDK v2
 * (test/mcp/fixtures/modern.mjs) is listed and called in that era, its tool-list change reaches
 * the gateway through `subscriptions/listen`, an `input_required` result is refused in a
 * sentence, and a dead or garbled one fails within the timeouts; a 2025-era server is spoken to
 * in its era, one that exits on the `server/discover` probe included.
 */
import { NodeContext } from "@effect/platform-node"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Duration, Effect, Either, Layer, Option } from "effect"
import { afterEach, beforeEach, chai, describe, expect, it } from "vitest"
chai.config.truncateThreshold = 0
import { DEFAULT_TIMINGS, type Downstream, type DownstreamTimings, LISTEN_REOPENS, makeDownstream, relayedResult } from "../../../src/mcp/gateway/Downstream.js"
import { GatewayLayer } from "../../../src/layers/GatewayLayer.js"
import { GatewayServers } from "../../../src/mcp/gateway/GatewayServers.js"
import type { HttpServerConfig, ServerConfig } from "../../../src/mcp/gateway/ServerConfig.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { fixture, TEST_TIMINGS, tempDir, textOf, withGateway } from "./harness.js"

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-eras-"))
})
afterEach(() => remove())

const logOf = (server: string) => path.join(dir, `${server}.log`)

/** A server's pid as it wrote it on stderr (modern.mjs). */
const pidOf = (server: string) => Number(/modern pid (\d+)/.exec(fs.readFileSync(logOf(server), "utf8"))?.[1])

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves once `check` holds, checked every 10 ms for at most `ms`. */
const eventually = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10))
  return check()
}

const MODERN_TOOLS = ["echo", "add_tool", "confirm", "resume", "hang", "exit", "fail"]

/** Runs `body` on a downstream of `server` (stopped after it), with the count of its list changes. */
const withDownstream = <A>(
  server: ServerConfig,
  body: (downstream: Downstream, changes: () => number) => Effect.Effect<A, unknown>,
  timings: Partial<DownstreamTimings> = {}
) => {
  let changes = 0
  return Effect.runPromise(
    Effect.gen(function*() {
      const downstream = yield* makeDownstream({
        config: server,
        timings: { ...DEFAULT_TIMINGS, ...TEST_TIMINGS, ...timings },
        logPath: logOf(server.name),
        onListChanged: () => {
          changes += 1
        }
      })
      return yield* body(downstream, () => changes).pipe(Effect.ensuring(downstream.stop))
    })
  )
}

const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name)
const message = <A>(result: Either.Either<A, { readonly message: string }>) => Either.match(result, { onLeft: (e) => e.message, onRight: () => "succeeded" })

describe("a 2026-07-28 server (SDK v2)", () => {
  for (const [label, args] of [["that refuses the 2025 era", ["--legacy=reject"]], ["that serves both eras", []]] as const) {
    it(`${label}: is listed and called in 2026-07-28, and its tool-list change reaches the gateway`, async () => {
      const seen = await withDownstream(fixture("modern", "modern.mjs", args), (downstream, changes) =>
        Effect.gen(function*() {
          const before = yield* downstream.era
          const listed = names(yield* downstream.listTools)
          const era = yield* downstream.era
          const echo = yield* downstream.call("echo", { text: "hi" }, {})
          const added = yield* downstream.call("add_tool", {}, {})
          const changed = yield* Effect.promise(() => eventually(() => changes() === 1, 3000))
          const relisted = names(yield* downstream.listTools)
          const late = yield* downstream.call("late_tool", {}, {})
          return { before, listed, era, echo, added, changed, changes: changes(), relisted, late }
        }))
      expect(seen).toEqual({
        before: Option.none(),
        listed: MODERN_TOOLS,
        era: Option.some({ era: "modern", protocolVersion: "2026-07-28" }),
        echo: { content: [{ type: "text", text: "hi" }] },
        added: { content: [{ type: "text", text: "added" }] },
        changed: true,
        changes: 1,
        relisted: [...MODERN_TOOLS, "late_tool"],
        late: { content: [{ type: "text", text: "late" }] }
      })
    })
  }

  it("refuses an input_required result in a sentence, and a request for input the gateway did not declare; the server keeps running", async () => {
    const log = logOf("modern")
    const seen = await withDownstream(fixture("modern", "modern.mjs", ["--legacy=reject"]), (downstream) =>
      Effect.gen(function*() {
        const resume = message(yield* Effect.either(downstream.call("resume", {}, {})))
        const confirm = message(yield* Effect.either(downstream.call("confirm", {}, {})))
        const fail = yield* downstream.call("fail", {}, {})
        return { resume, confirm, fail, running: yield* downstream.running }
      }))
    expect(seen).toEqual({
      resume:
        `The MCP server "modern" asked for input during tools/call of "resume" (an input_required result), which the gateway does not answer (its stderr is logged in ${log}).`,
      confirm:
        `The MCP server "modern" answered tools/call of "confirm" with error -32021: Cannot request input 'ok' (elicitation/create): the request's client capabilities do not declare the required capability (its stderr is logged in ${log}).`,
      fail: { content: [{ type: "text", text: "it failed" }], isError: true },
      running: true
    })
  })

  it("that hangs on a call is stopped at the call timeout, and its process is gone within a second of the stop", async () => {
    const started = Date.now()
    const seen = await withDownstream(fixture("modern", "modern.mjs", ["--legacy=reject"]), (downstream) =>
      Effect.gen(function*() {
        yield* downstream.listTools
        const pid = pidOf("modern")
        const hang = message(yield* Effect.either(downstream.call("hang", {}, {})))
        const gone = yield* Effect.promise(() => eventually(() => !alive(pid), 1000))
        return { hang, running: yield* downstream.running, era: yield* downstream.era, gone }
      }), { callTimeout: Duration.seconds(1) })
    expect(seen).toEqual({
      hang: `The MCP server "modern" did not answer tools/call of "hang" within 1000 ms; it was stopped (its stderr is logged in ${logOf("modern")}).`,
      running: false,
      era: Option.none(),
      gone: true
    })
    expect(Date.now() - started).toBeLessThan(4000)
  })

  it("that exits during a call fails that call at once, and is started again in the same era on the next need", async () => {
    const seen = await withDownstream(fixture("modern", "modern.mjs", ["--legacy=reject"]), (downstream) =>
      Effect.gen(function*() {
        yield* downstream.listTools
        const startedAt = Date.now()
        const exit = message(yield* Effect.either(downstream.call("exit", {}, {})))
        const took = Date.now() - startedAt
        yield* Effect.sleep(Duration.millis(300))
        const echo = yield* downstream.call("echo", { text: "back" }, {})
        return { exit, fast: took < 2000, echo, era: yield* downstream.era }
      }))
    expect(seen).toEqual({
      exit: `The MCP server "modern" exited during tools/call of "exit" (its stderr is logged in ${logOf("modern")}).`,
      fast: true,
      echo: { content: [{ type: "text", text: "back" }] },
      era: Option.some({ era: "modern", protocolVersion: "2026-07-28" })
    })
  })

  it("that garbles its lines after server/discover fails its listing at the listing timeout, told what it wrote", async () => {
    const started = Date.now()
    const listed = await withDownstream(fixture("modern", "modern.mjs", ["--garble"]), (downstream) =>
      Effect.gen(function*() {
        const result = message(yield* Effect.either(downstream.listTools))
        return { result, running: yield* downstream.running }
      }), { listTimeout: Duration.seconds(1) })
    expect(listed).toEqual({
      result:
        `The MCP server "modern" did not finish tools/list within 1000 ms (0 page(s), 0 tools so far); it wrote something that is not JSON-RPC on stdout: Welcome to my server! Type help.; it was stopped (its stderr is logged in ${logOf("modern")}).`,
      running: false
    })
    expect(Date.now() - started).toBeLessThan(4000)
  })
})

describe("a 2025-era server", () => {
  it("is spoken to in 2025-11-25, and its notifications/tools/list_changed reaches the gateway", async () => {
    const seen = await withDownstream(fixture("rugpull", "rugpull.mjs"), (downstream, changes) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        const era = yield* downstream.era
        yield* downstream.call("swap", {}, {})
        const changed = yield* Effect.promise(() => eventually(() => changes() === 1, 3000))
        return { listed, era, changed }
      }))
    expect(seen).toEqual({
      listed: ["lookup", "swap"],
      era: Option.some({ era: "legacy", protocolVersion: "2025-11-25" }),
      changed: true
    })
  })

  it("that exits on the server/discover probe is started again with initialize, and a restart skips the probe", async () => {
    const openings = path.join(dir, "openings")
    const seen = await withDownstream(fixture("strict", "strictlegacy.mjs", [openings]), (downstream) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        const era = yield* downstream.era
        yield* downstream.stop
        const again = yield* downstream.call("hello", {}, {})
        return { listed, era, again }
      }))
    expect(seen).toEqual({
      listed: ["hello"],
      era: Option.some({ era: "legacy", protocolVersion: "2025-11-25" }),
      again: { content: [{ type: "text", text: "hello" }] }
    })
    expect(fs.readFileSync(openings, "utf8")).toBe("server/discover\ninitialize\ninitialize\n")
  })
})

describe("the probe's other answers", () => {
  it("a 2025-era server that leaves server/discover unanswered gets initialize after half the start timeout", async () => {
    const openings = path.join(dir, "openings")
    const started = Date.now()
    const seen = await withDownstream(fixture("quiet", "strictlegacy.mjs", [openings, "--ignore"]), (downstream) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        const took = Date.now() - started
        return { listed, era: yield* downstream.era, waited: took >= 1000 && took < 2000 }
      }), { startTimeout: Duration.seconds(2) })
    expect(seen).toEqual({ listed: ["hello"], era: Option.some({ era: "legacy", protocolVersion: "2025-11-25" }), waited: true })
    expect(fs.readFileSync(openings, "utf8")).toBe("server/discover\n")
  })

  it("a 2025-era server that leaves server/discover unanswered waits for the probe timeout at most, whatever the start timeout", async () => {
    const openings = path.join(dir, "openings")
    const started = Date.now()
    const seen = await withDownstream(fixture("quiet", "strictlegacy.mjs", [openings, "--ignore"]), (downstream) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        const took = Date.now() - started
        return { listed, waited: took >= 300 && took < 1500 }
      }), { startTimeout: Duration.seconds(5), probeTimeout: Duration.millis(300) })
    expect(seen).toEqual({ listed: ["hello"], waited: true })
  })

  it("a server that exits at once is started twice on its first start only (the probe, then initialize), once on each later start", async () => {
    const spawned = path.join(dir, "spawned")
    const config: ServerConfig = { _tag: "Stdio", name: "crash", command: "sh", args: ["-c", `echo spawned >> '${spawned}'; exit 1`], env: {} }
    const seen = await withDownstream(config, (downstream) =>
      Effect.gen(function*() {
        const first = message(yield* Effect.either(downstream.listTools))
        const afterFirst = fs.readFileSync(spawned, "utf8")
        yield* Effect.sleep(Duration.millis(300))
        const second = message(yield* Effect.either(downstream.listTools))
        yield* Effect.sleep(Duration.millis(500))
        const third = message(yield* Effect.either(downstream.listTools))
        return { first, afterFirst, second, third, spawned: fs.readFileSync(spawned, "utf8") }
      }))
    const exited = `The MCP server "crash" exited before it answered initialize (its stderr is logged in ${logOf("crash")}).`
    expect(seen).toEqual({ first: exited, afterFirst: "spawned\nspawned\n", second: exited, third: exited, spawned: "spawned\nspawned\nspawned\nspawned\n" })
  })

  it("a stdio server that answers its listen request after each change gets it again, followed by a listing: both changes are seen", async () => {
    const listened = path.join(dir, "listens")
    const listens = () => (fs.existsSync(listened) ? fs.readFileSync(listened, "utf8").split("\n").length - 1 : 0)
    const seen = await withDownstream(fixture("once", "listenonce.mjs", [listened]), (downstream, changes) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        yield* Effect.promise(() => eventually(() => listens() === 1, 3000))
        yield* downstream.call("add_a", {}, {})
        const reopened = yield* Effect.promise(() => eventually(() => changes() === 2 && listens() === 2, 3000))
        yield* downstream.call("add_b", {}, {})
        const again = yield* Effect.promise(() => eventually(() => changes() === 4 && listens() === 3, 3000))
        yield* Effect.sleep(Duration.millis(300))
        const relisted = names(yield* downstream.listTools)
        return { listed, reopened, again, changes: changes(), listens: listens(), relisted }
      }), { listenBackoff: Duration.millis(100) })
    expect(seen).toEqual({ listed: ["add_a", "add_b"], reopened: true, again: true, changes: 4, listens: 3, relisted: ["add_a", "add_b", "a", "b"] })
  })

  it("a result of a kind the gateway does not know fails the call in a sentence", async () => {
    const seen = await withDownstream(fixture("odd", "oddresult.mjs"), (downstream) =>
      Effect.gen(function*() {
        const listed = names(yield* downstream.listTools)
        const later = message(yield* Effect.either(downstream.call("later", {}, {})))
        return { listed, era: yield* downstream.era, later, running: yield* downstream.running }
      }))
    expect(seen).toEqual({
      listed: ["later"],
      era: Option.some({ era: "modern", protocolVersion: "2026-07-28" }),
      later: `The MCP server "odd" answered tools/call of "later" with a result of kind "eventually", which the gateway does not know (its stderr is logged in ${logOf("odd")}).`,
      running: true
    })
  })
})

describe("the gateway in front of a 2026-07-28 server", () => {
  it("loads its tool, sees the tool-list change after add_tool, and loads and calls the new tool", async () => {
    await withGateway({ servers: [fixture("modern", "modern.mjs", ["--legacy=reject"])], dataDir: dir }, async ({ client, nextListChanged }) => {
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__modern__echo", "mcp__modern__add_tool"] } })))
        .toBe([
          "Loaded 2 tool(s), ~91 tok; callable from your next step:",
          "  mcp__modern__echo",
          "  mcp__modern__add_tool",
          "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
          `mcp__modern__echo {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
          `mcp__modern__add_tool {"type":"object","properties":{}}`
        ].join("\n"))
      expect(textOf(await client.callTool({ name: "mcp__modern__echo", arguments: { text: "through" } }))).toBe("through")
      const changed = nextListChanged()
      expect(textOf(await client.callTool({ name: "mcp__modern__add_tool", arguments: {} }))).toBe("added")
      await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error("no list change within 5 s")), 5000))])
      // Listed again after the change, without a refresh asked for.
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp/modern" } }))).toBe([
        "/mcp/modern/",
        "  *   add_tool   ~41 tok  Adds late_tool.",
        "      confirm    ~40 tok  Asks before it answers.",
        "  *   echo       ~50 tok  Returns its text.",
        "      exit       ~40 tok  Exits during the call.",
        "      fail       ~37 tok  Fails.",
        "      hang       ~38 tok  Never answers.",
        "      late_tool  ~39 tok  Came late.",
        "      resume     ~41 tok  Asks to be called again."
      ].join("\n"))
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__modern__late_tool"] } }))).toBe([
        "Loaded 1 tool(s), ~39 tok; callable from your next step:",
        "  mcp__modern__late_tool",
        "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
        `mcp__modern__late_tool {"type":"object","properties":{}}`
      ].join("\n"))
      expect(textOf(await client.callTool({ name: "mcp__modern__late_tool", arguments: {} }))).toBe("late")
    })
  })
})

describe("the gateway's status of its servers", () => {
  it("tells the era each running server speaks", async () => {
    const layer = GatewayLayer({
      servers: [fixture("modern", "modern.mjs", ["--legacy=reject"]), fixture("rugpull", "rugpull.mjs")],
      agent: Option.none(),
      dataDir: dir,
      timings: TEST_TIMINGS
    }).pipe(Layer.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({ homedir: dir, cwd: dir }))))
    const status = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const servers = yield* GatewayServers
      yield* servers.initialized
      return yield* servers.status
    })).pipe(Effect.provide(layer)))
    expect(status.map(({ era, name, running, tools }) => ({ name, running, tools, era }))).toEqual([
      { name: "modern", running: true, tools: Option.some(7), era: Option.some({ era: "modern", protocolVersion: "2026-07-28" }) },
      { name: "rugpull", running: true, tools: Option.some(2), era: Option.some({ era: "legacy", protocolVersion: "2025-11-25" }) }
    ])
  })
})

describe("the results of a 2026-07-28 server", () => {
  it("are passed on without the protocol's _meta keys (the server's self-description), its own keys kept", () => {
    const content = [{ type: "text" as const, text: "x" }]
    expect([
      relayedResult({ content, _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } } }),
      relayedResult({
        content,
        _meta: { "io.modelcontextprotocol/serverInfo": {}, "dev.mcp.tools/x": 1, "com.example/trace": "t1", "openai/outputTemplate": "ui://a", plain: true }
      }),
      relayedResult({ content, _meta: { "com.example/trace": "t2" } }),
      relayedResult({ content })
    ]).toEqual([
      { content },
      { content, _meta: { "com.example/trace": "t1", "openai/outputTemplate": "ui://a", plain: true } },
      { content, _meta: { "com.example/trace": "t2" } },
      { content }
    ])
  })
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })

describe("a 2026-07-28 server over Streamable HTTP (SDK v2 createMcpHandler)", () => {
  let server: ChildProcess | undefined
  afterEach(() => {
    server?.kill("SIGKILL")
    server = undefined
  })
  const requests = () => path.join(dir, "requests")
  const requestLines = () => fs.readFileSync(requests(), "utf8").split("\n").filter((line) => line !== "")
  const listens = () => requestLines().filter((line) => line.startsWith("subscriptions/listen ")).length

  const serve = async (args: ReadonlyArray<string>): Promise<HttpServerConfig> => {
    const port = await freePort()
    const script = path.join(import.meta.dirname, "..", "fixtures", "modernhttp.mjs")
    const child = spawn(process.execPath, [script, String(port), requests(), ...args], { stdio: ["ignore", "ignore", "pipe"] })
    server = child
    await new Promise<void>((resolve) => child.stderr!.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && resolve()))
    return { _tag: "Http", name: "remote", url: `http://127.0.0.1:${port}/mcp`, headers: {} }
  }
  const HTTP_TOOLS = ["echo", "hang", "add_tool", "add_more"]
  const timings = { listenBackoff: Duration.millis(100) }

  for (const [label, args] of [["that serves both eras", []], ["that serves 2026-07-28 only", ["--legacy=reject"]]] as const) {
    it(`${label}: is probed, listed and called in 2026-07-28 with the era's headers, and its tool-list change comes on the listen stream`, async () => {
      const config = await serve(args)
      const seen = await withDownstream(config, (downstream, changes) =>
        Effect.gen(function*() {
          const before = yield* downstream.era
          const listed = names(yield* downstream.listTools)
          const era = yield* downstream.era
          const echo = yield* downstream.call("echo", { text: "over http" }, {})
          yield* Effect.promise(() => eventually(() => listens() === 1, 3000))
          const added = yield* downstream.call("add_tool", {}, {})
          const changed = yield* Effect.promise(() => eventually(() => changes() === 1, 3000))
          const relisted = names(yield* downstream.listTools)
          const late = yield* downstream.call("late_tool", {}, {})
          return { before, listed, era, echo, added, changed, relisted, late }
        }), timings)
      expect(seen).toEqual({
        before: Option.none(),
        listed: HTTP_TOOLS,
        era: Option.some({ era: "modern", protocolVersion: "2026-07-28" }),
        echo: { content: [{ type: "text", text: "over http" }] },
        added: { content: [{ type: "text", text: "added" }] },
        changed: true,
        relisted: [...HTTP_TOOLS, "late_tool"],
        late: { content: [{ type: "text", text: "late_tool" }] }
      })
      expect(requestLines().sort()).toEqual([
        "server/discover server/discover - 2026-07-28",
        "subscriptions/listen subscriptions/listen - 2026-07-28",
        "tools/call tools/call add_tool 2026-07-28",
        "tools/call tools/call echo 2026-07-28",
        "tools/call tools/call late_tool 2026-07-28",
        "tools/list tools/list - 2026-07-28",
        "tools/list tools/list - 2026-07-28"
      ])
    })
  }

  it("a call interrupted by the gateway's client closes its POST, which is how a 2026-07-28 server hears of it", async () => {
    const config = await serve(["--legacy=reject"])
    const seen = await withDownstream(config, (downstream) =>
      Effect.gen(function*() {
        const hang = yield* Effect.timeoutOption(downstream.call("hang", {}, {}), Duration.millis(300))
        const closed = yield* Effect.promise(() => eventually(() => requestLines().includes("(closed by the client) tools/call"), 3000))
        const echo = yield* downstream.call("echo", { text: "still here" }, {})
        return { hang, closed, echo, running: yield* downstream.running }
      }), timings)
    expect(seen).toEqual({ hang: Option.none(), closed: true, echo: { content: [{ type: "text", text: "still here" }] }, running: true })
  })

  it("a listen stream the server ends after a change is opened again and followed by a listing: the next change is seen too", async () => {
    const config = await serve(["--legacy=reject", "--listen-once"])
    const seen = await withDownstream(config, (downstream, changes) =>
      Effect.gen(function*() {
        yield* downstream.listTools
        yield* Effect.promise(() => eventually(() => listens() === 1, 3000))
        yield* downstream.call("add_tool", {}, {})
        // The change on the first stream, then the listing after the second one opened.
        const reopened = yield* Effect.promise(() => eventually(() => changes() === 2 && listens() === 2, 3000))
        yield* downstream.call("add_more", {}, {})
        const again = yield* Effect.promise(() => eventually(() => changes() === 4 && listens() === 3, 3000))
        yield* Effect.sleep(Duration.millis(300))
        const relisted = names(yield* downstream.listTools)
        return { reopened, again, changes: changes(), listens: listens(), relisted, running: yield* downstream.running }
      }), timings)
    expect(seen).toEqual({
      reopened: true,
      again: true,
      changes: 4,
      listens: 3,
      relisted: [...HTTP_TOOLS, "late_tool", "later_tool"],
      running: true
    })
  })

  it(`a listen stream that ends at once is opened again ${LISTEN_REOPENS} times with a growing wait, then left until the next listing`, async () => {
    const config = await serve(["--legacy=reject", "--listen-ends"])
    const seen = await withDownstream(config, (downstream, changes) =>
      Effect.gen(function*() {
        const started = Date.now()
        yield* downstream.listTools
        const gaveUp = yield* Effect.promise(() => eventually(() => listens() === 1 + LISTEN_REOPENS, 3000))
        // 100 + 200 + 400 ms of waits between the four streams.
        const took = Date.now() - started
        yield* Effect.sleep(Duration.millis(1000))
        const afterWait = { listens: listens(), changes: changes() }
        yield* downstream.listTools
        yield* Effect.promise(() => eventually(() => listens() === 2 * (1 + LISTEN_REOPENS), 3000))
        return { gaveUp, waited: took >= 700, afterWait, listensAfterListing: listens(), running: yield* downstream.running }
      }), timings)
    expect(seen).toEqual({
      gaveUp: true,
      waited: true,
      afterWait: { listens: 1 + LISTEN_REOPENS, changes: LISTEN_REOPENS },
      listensAfterListing: 2 * (1 + LISTEN_REOPENS),
      running: true
    })
  })
})
