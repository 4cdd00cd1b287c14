/**
 * `tool-map mcp --servers FILE` through the built CLI, driven by the SDK's Client over stdio
 * as an agent host would start it, in front of the reference servers.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, beforeEach, expect, it } from "vitest"
import { BIN, requireBuiltCli, runCli } from "../support/cli.js"
import { direct, namesOf, referenceServers, tempDir, textOf } from "../mcp/gateway/harness.js"

let dir: string
let remove: () => void
beforeAll(() => requireBuiltCli())
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-e2e-gateway-"))
})
afterEach(() => remove())

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

/** The pids the gateway started, from the start lines of the servers' logs. */
const startedPids = (dataDir: string) =>
  fs.readdirSync(path.join(dataDir, "gateway", "logs")).flatMap((file) =>
    [...fs.readFileSync(path.join(dataDir, "gateway", "logs", file), "utf8").matchAll(/ started, pid (\d+)$/gm)].map((match) => Number(match[1])))

const running = (pid: number) => fs.existsSync(`/proc/${pid}/stat`) && fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] !== "Z"

const connect = async (serversFile: string, home: string, onTransport: (transport: StdioClientTransport) => void = () => {}) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--servers", serversFile, "--agent", "e2e"],
    env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cwd: home,
    stderr: "pipe"
  })
  onTransport(transport)
  const client = new Client({ name: "e2e-client", version: "1.0.0" })
  await client.connect(transport)
  return client
}

it("fronts the reference servers: entry tools first, a load, a proxied call equal to a direct one, nothing left running after", async () => {
  const home = path.join(dir, "home")
  fs.mkdirSync(home)
  const servers = referenceServers(dir)
  const file = path.join(dir, "servers.json")
  fs.writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args, env: s.env }])) }))
  const expected = await direct(servers[1]!, (client) => client.callTool({ name: "read_graph", arguments: {} }))
  const client = await connect(file, home)
  // Its own instructions, not the inventory server's (Codex shows them with every request).
  expect(client.getInstructions()).toBe(
    "This machine's MCP server tools, on demand: find with tools_find or tools_ls, load with tools_load, call by name or with tools_call."
  )
  expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
  expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["memory"] } })).split("\n")[0]).toBe(
    "Loaded 6 tool(s), ~611 tok; callable from your next step:"
  )
  expect(namesOf((await client.listTools()).tools).length).toBe(ENTRY.length + 6)
  expect(await client.callTool({ name: "mcp__memory__read_graph", arguments: {} })).toEqual(expected)
  await client.close()
  const dataDir = path.join(home, ".local", "share", "tool-map")
  const pids = startedPids(dataDir)
  expect(pids.length).toBe(3)
  const deadline = Date.now() + 5000
  while (pids.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  expect(pids.filter(running)).toEqual([])
  // A second session starts from the snapshots and the stored state: no server is started.
  const again = await connect(file, home)
  expect(namesOf((await again.listTools()).tools).length).toBe(ENTRY.length + 6)
  await again.close()
  expect(startedPids(dataDir).length).toBe(3)
})

it("stops every downstream server, with its process group, when the gateway gets SIGTERM", async () => {
  const home = path.join(dir, "home")
  fs.mkdirSync(home)
  const pidsFile = path.join(dir, "pids")
  const file = path.join(dir, "servers.json")
  const script = path.resolve(import.meta.dirname, "../mcp/fixtures/dies.mjs")
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { dies: { command: process.execPath, args: [script, pidsFile] } } }))
  let transport: StdioClientTransport | undefined
  const client = await connect(file, home, (t) => (transport = t))
  expect(await client.callTool({ name: "mcp__dies__ping", arguments: {} })).toEqual({ content: [{ type: "text", text: "pong" }] })
  const gateway = transport!.pid!
  const children = fs.readFileSync(pidsFile, "utf8").trim().split(/\s+/).map(Number)
  expect(children.filter(running).length).toBe(2)
  process.kill(gateway, "SIGTERM")
  const deadline = Date.now() + 5000
  while ((running(gateway) || children.some(running)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  expect([gateway, ...children].filter(running)).toEqual([])
  await client.close()
})

it("refuses a servers file that is not the .mcp.json shape, naming the file", () => {
  const file = path.join(dir, "servers.json")
  fs.writeFileSync(file, JSON.stringify({ servers: {} }))
  const run = runCli(["mcp", "--servers", file], { HOME: dir, PATH: process.env.PATH ?? "" })
  expect(run.stdout).toBe("")
  expect(run.stderr).toBe(`tool-map: The MCP servers file ${file} cannot be used: at mcpServers: is missing.\n`)
  expect(run.status).toBe(6)
})

it("--host alone is the gateway (of Claude Code's servers here: none), listing the entry tools only", async () => {
  const home = path.join(dir, "home")
  fs.mkdirSync(home)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--host", "claude-code"],
    env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cwd: home,
    stderr: "pipe"
  })
  const client = new Client({ name: "e2e-client", version: "1.0.0" })
  await client.connect(transport)
  expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
  await client.close()
})
