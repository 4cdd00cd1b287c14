/**
 * One downstream server's edges (issue 27): credentials in an HTTP server's URL, a secret in a
 * stdio server's command line, a listing that never ends or never comes, and lines on stdout
 * that are not JSON-RPC. Each is driven through the gateway (harness) where the answer a model
 * sees is the point, and through `makeDownstream` where a limit is.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Duration, Effect, Either } from "effect"
import { afterEach, beforeEach, chai, describe, expect, it } from "vitest"
chai.config.truncateThreshold = 0
import { DEFAULT_TIMINGS, type ListingLimits, makeDownstream } from "../../../src/mcp/gateway/Downstream.js"
import type { ServerConfig, StdioServerConfig } from "../../../src/mcp/gateway/ServerConfig.js"
import { fixture, TEST_TIMINGS, tempDir, textOf, withGateway } from "./harness.js"

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures")

let dir: string
let remove: () => void
let servers: Array<ChildProcess> = []
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-downstream-"))
})
afterEach(() => {
  for (const server of servers) server.kill("SIGKILL")
  servers = []
  remove()
})

const logOf = (server: string) => path.join(dir, "gateway", "logs", `${server}.log`)

/** Every file under the data dir, as text, for a search of what must not be there. */
const filesUnder = (root: string): ReadonlyArray<string> =>
  fs.existsSync(root)
    ? fs.readdirSync(root, { recursive: true, encoding: "utf8" }).map((name) => path.join(root, name)).filter((file) => fs.statSync(file).isFile())
    : []

const allText = (root: string) => filesUnder(root).map((file) => `${file}\n${fs.readFileSync(file, "utf8")}`).join("\n")

/** A server's log without its time stamps and pids. */
const logLines = (server: string) =>
  fs.readFileSync(logOf(server), "utf8").replace(/^\[tool-map [^\]]+\] /gm, "").replace(/pid \d+/g, "pid N").trimEnd().split("\n")

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })

const OVERVIEW = "/mcp/  Tools of the MCP servers behind the gateway, one group per server"
const POISONED = "  poisoned/  3 tools  0 loaded  ~121 tok"

describe("credentials in an HTTP server's URL (issue 27, 1)", () => {
  it("never shows the URL's password or secret query values, in tools_ls, refresh failures or files", async () => {
    // A port nothing listens on (fetch refuses port 9 itself as a "bad port" before connecting).
    const port = await freePort()
    const url = `http://u:PASS-canary-1@127.0.0.1:${port}/mcp?api_key=KEY-canary-2&region=eu`
    const remote: ServerConfig = { _tag: "Http", name: "remote", url, headers: {} }
    const timings = { ...TEST_TIMINGS, backoffInitial: Duration.millis(1), backoffMax: Duration.millis(1) }
    await withGateway({ servers: [remote, fixture("poisoned", "poisoned.mjs")], dataDir: dir, timings }, async ({ client }) => {
      const reason = `could not be started (http://127.0.0.1:${port}/mcp?api_key=[redacted]): fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe(
        [OVERVIEW, POISONED, `server remote: no tool list yet (${reason}); try tools_ls with refresh`].join("\n")
      )
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp", refresh: true } }))).toBe(
        [
          OVERVIEW,
          POISONED,
          `refresh failed: The MCP server "remote" ${reason}.`,
          `server remote: no tool list yet (${reason}); try tools_ls with refresh`
        ].join("\n")
      )
    })
    expect(allText(dir)).not.toMatch(/canary/)
  })

  it("sends the URL's userinfo as Authorization: Basic, so that the server answers", async () => {
    const port = await freePort()
    const server = spawn(process.execPath, [path.join(FIXTURES, "httpauth.mjs"), String(port), "u:PASS canary"], { stdio: ["ignore", "ignore", "pipe"] })
    servers.push(server)
    await new Promise<void>((resolve, reject) => {
      server.stderr!.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && resolve())
      server.once("exit", () => reject(new Error("the HTTP fixture exited")))
    })
    // The password percent-encoded in the URL, as a user writes a blank in it.
    const remote: ServerConfig = { _tag: "Http", name: "remote", url: `http://u:PASS%20canary@127.0.0.1:${port}/mcp?api_key=KEY-canary`, headers: {} }
    await withGateway({ servers: [remote], dataDir: dir }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe(
        [OVERVIEW, "  remote/  1 tool  0 loaded  ~20 tok"].join("\n")
      )
      expect(await client.callTool({ name: "mcp__remote__whoami", arguments: {} })).toEqual({ content: [{ type: "text", text: "hello, known user" }] })
    })
    expect(allText(dir)).not.toMatch(/canary/)
  })
})

describe("a secret in a stdio server's command line (issue 27, 2)", () => {
  it("is redacted in tools_ls and in the server's log", async () => {
    const missing: StdioServerConfig = { _tag: "Stdio", name: "missing", command: "/nonexistent/bin --api-key=X-canary-3", args: [], env: {} }
    await withGateway({ servers: [missing, fixture("poisoned", "poisoned.mjs")], dataDir: dir }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe([
        OVERVIEW,
        POISONED,
        "server missing: no tool list yet (could not be started (/nonexistent/bin --api-key=[redacted]): spawn /nonexistent/bin --api-key=[redacted] ENOENT); try tools_ls with refresh"
      ].join("\n"))
    })
    expect(logLines("missing")).toEqual(["could not start: spawn /nonexistent/bin --api-key=[redacted] ENOENT", "exited with code -2"])
    expect(allText(dir)).not.toMatch(/canary/)
  })
})

describe("a listing that never ends or never comes (issue 27, 4)", () => {
  /** Lists one fixture server with `makeDownstream`, within `listing` and `listTimeout`; the failure's message, or the tools' names. */
  const list = (server: StdioServerConfig, listing: Partial<ListingLimits>, listTimeout = Duration.seconds(20)) =>
    Effect.runPromise(Effect.gen(function*() {
      const downstream = yield* makeDownstream({
        config: server,
        timings: { ...DEFAULT_TIMINGS, ...TEST_TIMINGS, callTimeout: Duration.minutes(5), listTimeout },
        logPath: logOf(server.name),
        onListChanged: () => {},
        listing
      })
      const listed = yield* Effect.either(downstream.listTools)
      const running = yield* downstream.running
      yield* downstream.stop
      return { listed: Either.match(listed, { onLeft: (error) => error.message, onRight: (tools) => tools.map((tool) => tool.name) }), running }
    }))

  it("stops following a nextCursor after the page limit, and stops the server", async () => {
    expect(await list(fixture("endless", "endless.mjs"), { maxPages: 50 })).toEqual({
      listed: `The MCP server "endless" listed more than 50 pages of tools (50 page(s), 50 tools so far); it was stopped (its stderr is logged in ${logOf("endless")}).`,
      running: false
    })
  })

  it("stops at a cursor given before", async () => {
    expect(await list(fixture("loop", "endless.mjs", ["0", "loop"]), {})).toEqual({
      listed: `The MCP server "loop" gave a tools/list cursor it gave before (2 page(s), 2 tools so far); it was stopped (its stderr is logged in ${logOf("loop")}).`,
      running: false
    })
  })

  it("stops at the tool limit and at the byte limit", async () => {
    expect((await list(fixture("many", "many.mjs"), { maxTools: 500 })).listed).toBe(
      `The MCP server "many" listed more than 500 tools (1 page(s), 10000 tools so far); it was stopped (its stderr is logged in ${logOf("many")}).`
    )
    expect((await list(fixture("bigschema", "bigschema.mjs"), { maxBytes: 1024 * 1024 })).listed).toBe(
      `The MCP server "bigschema" listed more than 1048576 bytes of tools (1 page(s), 2 tools so far); it was stopped (its stderr is logged in ${logOf("bigschema")}).`
    )
  })

  it("stops a listing whose pages, each in time, take longer than the listing timeout in all", async () => {
    const started = Date.now()
    const { listed } = await list(fixture("endless", "endless.mjs", ["100"]), {}, Duration.seconds(1))
    expect(String(listed).replace(/\(\d+ page\(s\), \d+ tools/, "(N page(s), N tools")).toBe(
      `The MCP server "endless" did not finish tools/list within 1000 ms (N page(s), N tools so far); it was stopped (its stderr is logged in ${logOf("endless")}).`
    )
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("keeps a page limit by default: an endless cursor does not hold the entry tools", async () => {
    const timings = { ...TEST_TIMINGS, callTimeout: Duration.minutes(5), listTimeout: Duration.minutes(5) }
    await withGateway({ servers: [fixture("endless", "endless.mjs"), fixture("poisoned", "poisoned.mjs")], dataDir: dir, timings }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe([
        OVERVIEW,
        POISONED,
        "server endless: no tool list yet (listed more than 1000 pages of tools (1000 page(s), 1000 tools so far)); try tools_ls with refresh"
      ].join("\n"))
    })
  }, 60_000)

  it("does not hold the entry tools for the call timeout when a server never answers tools/list", async () => {
    const timings = { ...TEST_TIMINGS, callTimeout: Duration.minutes(5), listTimeout: Duration.seconds(2) }
    const started = Date.now()
    await withGateway({ servers: [fixture("nolist", "nolist.mjs"), fixture("poisoned", "poisoned.mjs")], dataDir: dir, timings }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe([
        OVERVIEW,
        POISONED,
        "server nolist: no tool list yet (did not finish tools/list within 2000 ms (0 page(s), 0 tools so far)); try tools_ls with refresh"
      ].join("\n"))
    })
    // The listing timeout (2 s) and wide slack for a busy machine, far below the call timeout (5 min).
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 40_000)
})

describe("a server's error answer", () => {
  it("with the SDK's codes for a close (-32000) or a timeout (-32001) is an answer: the server is not stopped", async () => {
    await withGateway({ servers: [fixture("errorcodes", "errorcodes.mjs")], dataDir: dir }, async ({ client }) => {
      const fail = async (code: number) => textOf(await client.callTool({ name: "tools_call", arguments: { name: "mcp__errorcodes__fail", arguments: { code } } }))
      const answered = (code: number) =>
        `The MCP server "errorcodes" answered tools/call of "fail" with error ${code}: no luck (its stderr is logged in ${logOf("errorcodes")}).`
      expect(await fail(-32000)).toBe(answered(-32000))
      expect(await fail(-32001)).toBe(answered(-32001))
      expect(textOf(await client.callTool({ name: "tools_call", arguments: { name: "mcp__errorcodes__fail", arguments: {} } }))).toBe("fine")
    })
    expect(logLines("errorcodes")).toEqual(["started, pid N", "exited on SIGTERM"])
  })
})

describe("lines on stdout that are not JSON-RPC (issue 27, 14)", () => {
  it("are skipped, and logged neutralized and redacted, while the server keeps answering", async () => {
    await withGateway({ servers: [fixture("stray", "stray.mjs", ["sk-canary-4-0123456789"])], dataDir: dir }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe(
        [OVERVIEW, "  stray/  1 tool  0 loaded  ~21 tok"].join("\n")
      )
      expect(await client.callTool({ name: "tools_call", arguments: { name: "mcp__stray__echo", arguments: {} } })).toEqual({
        content: [{ type: "text", text: "echoed" }]
      })
    })
    expect(logLines("stray")).toEqual([
      "started, pid N",
      "not a JSON-RPC message on stdout: \uFFFD[32mstray server ready\uFFFD[0m token=[redacted]",
      "not a JSON-RPC message on stdout: listing tools\uFFFD",
      "exited on SIGTERM"
    ])
    expect(allText(dir)).not.toMatch(/canary/)
  })
})
