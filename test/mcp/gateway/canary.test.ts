/**
 * The canary test of the gateway (issue 27): fresh secrets of every kind the redaction rule
 * knows (a URL's userinfo and api_key query value, `--api-key=X` in a command and `--token X` in
 * args, a Bearer token, an AWS key, a PEM block, provider tokens) are put where hostile or
 * misconfigured downstream servers put them (the servers' configuration, tool names,
 * descriptions, titles and schemas, JSON-RPC errors, progress messages, stdout lines that are
 * not JSON-RPC, stderr, a crash), the gateway is driven through every entry tool, and no canary
 * may appear in any answer, any notification, or any file under its data dir (logs, snapshots,
 * state files).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, beforeEach, chai, expect, it } from "vitest"
chai.config.truncateThreshold = 0
import type { ServerConfig, StdioServerConfig } from "../../../src/mcp/gateway/ServerConfig.js"
import { fixture, tempDir, textOf, withGateway } from "./harness.js"

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures")

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/** `length` characters of `alphabet`, random. */
const random = (alphabet: string, length: number) => [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join("")

/**
 * A fresh secret of each kind, unique to this run: found anywhere, it leaked. Each has the
 * shape the rule it tests must know (an AWS key is `AKIA` and 16 capitals or digits, a GitHub
 * token `ghp_` and 36 letters or digits).
 */
export const makeCanaries = () => ({
  urlPassword: `Pw${random(ALNUM, 16)}`,
  urlKey: `Key${random(ALNUM, 16)}`,
  commandKey: `Cmd${random(ALNUM, 16)}`,
  argToken: `Arg${random(ALNUM, 16)}`,
  headerKey: `Hdr${random(ALNUM, 16)}`,
  bearer: `Tk${random(ALNUM, 20)}9Z`,
  aws: `AKIA${random(UPPER, 16)}`,
  pemBody: random(ALNUM, 64),
  openai: `sk-${random(ALNUM, 32)}`,
  github: `ghp_${random(ALNUM, 36)}`
})

type Canaries = ReturnType<typeof makeCanaries>

let dir: string
let remove: () => void
let children: Array<ChildProcess> = []
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-canary-"))
})
afterEach(() => {
  for (const child of children) child.kill("SIGKILL")
  children = []
  remove()
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })

/** Every file under `root`, with its text. */
const filesUnder = (root: string): ReadonlyArray<readonly [string, string]> =>
  fs.readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(root, name))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => [file, fs.readFileSync(file, "utf8")] as const)

/** Which canaries (by kind) `text` holds. */
const leaked = (canaries: Canaries, text: string): ReadonlyArray<string> =>
  Object.entries(canaries).flatMap(([kind, value]) => (text.includes(value) ? [kind] : []))

/** The servers: hostile ones holding the canaries, and misconfigured ones naming them. */
const serversOf = async (canaries: Canaries): Promise<{ servers: ReadonlyArray<ServerConfig>; authPort: number }> => {
  const authPort = await freePort()
  const closedPort = await freePort()
  const missingCommand: StdioServerConfig = { _tag: "Stdio", name: "cmdline", command: `/nonexistent/bin --api-key=${canaries.commandKey}`, args: [], env: {} }
  const missingArgs: StdioServerConfig = { _tag: "Stdio", name: "args", command: path.join(dir, "no-such-server"), args: ["--token", canaries.argToken], env: {} }
  return {
    authPort,
    servers: [
      fixture("canary", "canary.mjs", [], { CANARIES: JSON.stringify(canaries) }),
      missingCommand,
      missingArgs,
      {
        _tag: "Http",
        name: "closed",
        url: `http://u:${canaries.urlPassword}@127.0.0.1:${closedPort}/mcp?api_key=${canaries.urlKey}`,
        headers: { "x-api-key": canaries.headerKey }
      },
      {
        _tag: "Http",
        name: "authed",
        url: `http://u:${canaries.urlPassword}@127.0.0.1:${authPort}/mcp?api_key=${canaries.urlKey}`,
        headers: {}
      }
    ]
  }
}

it("lets no canary out: answers, notifications, logs, snapshots and state files", async () => {
  const canaries = makeCanaries()
  const { servers, authPort } = await serversOf(canaries)
  const auth = spawn(process.execPath, [path.join(FIXTURES, "httpauth.mjs"), String(authPort), `u:${canaries.urlPassword}`], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  children.push(auth)
  await new Promise<void>((resolve, reject) => {
    auth.stderr!.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && resolve())
    auth.once("exit", () => reject(new Error("the HTTP fixture exited")))
  })

  const seen: Array<readonly [string, unknown]> = []
  const record = (what: string, value: unknown) => {
    seen.push([what, value])
    return value
  }
  await withGateway({ servers, dataDir: dir }, async ({ client }) => {
    client.fallbackNotificationHandler = async (notification) => void record("notification", notification)
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      record(`${name} ${JSON.stringify(args)}`, await client.callTool({ name, arguments: args }, undefined, {
        onprogress: (progress) => void record("progress", progress)
      }))
    await call("tools_ls", { path: "/mcp" })
    await call("tools_ls", { path: "/mcp", refresh: true })
    await call("tools_ls", { path: "/mcp/canary" })
    await call("tools_ls", { path: "/mcp/authed" })
    await call("tools_find", { query: "fetch page" })
    await call("tools_find", { query: "token" })
    await call("tools_load", { targets: ["canary", "authed"] })
    record("tools/list", await client.listTools())
    await call("mcp__canary__fetch", { url: "x" })
    await call("mcp__canary__fail")
    await call("mcp__canary__progress")
    await call("mcp__authed__whoami")
    await call("mcp__canary__crash")
    await call("mcp__canary__fetch", { url: "after the crash" })
    await call("tools_call", { name: "mcp__cmdline__go", arguments: {} })
    await call("tools_ls", { path: "/mcp" })
  })

  // The run did what it is meant to: the hostile server was listed and called, the authed one answered.
  const answers = seen.map(([what, value]) => `${what}: ${JSON.stringify(value)}`)
  expect(textOf(seen.find(([what]) => what.startsWith("mcp__canary__fail"))?.[1])).toBe(
    `The MCP server "canary" answered tools/call of "fail" with error -32000: upstream refused Authorization: Bearer [redacted] aws [redacted] key [redacted] token [redacted] (its stderr is logged in ${path.join(dir, "gateway", "logs", "canary.log")}).`
  )
  expect(answers.some((line) => line.startsWith("progress") && line.includes("[redacted]"))).toBe(true)
  expect(textOf(seen.find(([what]) => what.startsWith("mcp__authed__whoami"))?.[1])).toBe("hello, known user")
  expect(fs.readdirSync(path.join(dir, "gateway", "snapshots")).length).toBe(2)
  expect(fs.readFileSync(path.join(dir, "gateway", "logs", "canary.log"), "utf8")).toContain(
    "crashing with Authorization: Bearer [redacted] aws [redacted] key [redacted] token [redacted]\n[redacted]\n"
  )
  const listed = seen.find(([what]) => what === "tools/list")?.[1] as { tools: ReadonlyArray<{ name: string; description?: string }> }
  expect(listed.tools.filter((tool) => tool.name.startsWith("mcp__canary__")).map((tool) => [tool.name, tool.description])).toEqual([
    ["mcp__canary__crash", "Crashes."],
    ["mcp__canary__fail", "Fails."],
    ["mcp__canary__fetch", "Fetches a page. Send the header Authorization: Bearer [redacted] the AWS key is [redacted].\n[redacted]"],
    ["mcp__canary__progress", "Reports progress."]
  ])

  const found = [
    ...answers.flatMap((line) => leaked(canaries, line).map((kind) => `${kind} in ${line.slice(0, 60)}`)),
    ...filesUnder(dir).flatMap(([file, text]) => leaked(canaries, text).map((kind) => `${kind} in ${path.relative(dir, file)}`))
  ]
  expect(found).toEqual([])
}, 60_000)
