/**
 * The MCP gateway's costs (issue 10), each against its reference in the same run:
 * - session-start tokens: the gateway's `tools/list` against the concatenated `tools/list` of
 *   every downstream server (o200k, compact JSON), with the three reference servers and with a
 *   generated server of 600 tools next to them;
 * - proxy overhead: p50 and p99 of `tools/call` of server-everything's `echo` through
 *   `tool-map mcp --servers FILE` (stdio to the gateway, stdio to the server) against the same
 *   call made directly to the server from the same SDK client;
 * - start: `tool-map mcp --servers FILE` until its `initialize` answer, with fresh snapshots (no
 *   downstream server started), against `node -e 0`;
 * - memory: the gateway's RSS with 10 downstream servers snapshotted and 1 running.
 *
 *   npm run build && npx tsx bench/mcpGateway.ts
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { fixture, referenceServers } from "../test/mcp/gateway/harness.js"
import type { StdioServerConfig } from "../src/mcp/gateway/ServerConfig.js"
import { fmt, installedBin } from "./harness.js"
import { sampleMcpStart, startTable } from "./mcpStart.js"

const tokens = (value: unknown) => encode(JSON.stringify(value)).length

const serversFile = (dir: string, servers: ReadonlyArray<StdioServerConfig>) => {
  const file = path.join(dir, `servers-${servers.length}.json`)
  fs.writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args, env: s.env }])) }))
  return file
}

const connectStdio = async (command: string, args: ReadonlyArray<string>, env: Record<string, string>) => {
  const transport = new StdioClientTransport({ command, args: [...args], env, stderr: "pipe" })
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(transport)
  return { client, pid: transport.pid! }
}

const gatewayEnv = (home: string) => ({ HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" })

const connectGateway = (file: string, home: string) => connectStdio(process.execPath, [installedBin(), "mcp", "--servers", file, "--agent", "bench"], gatewayEnv(home))

/** Tokens of the gateway's list at session start against every server's list, concatenated. */
const sessionTokens = async (dir: string, label: string, servers: ReadonlyArray<StdioServerConfig>) => {
  const home = fs.mkdtempSync(path.join(dir, "home-"))
  const all = []
  for (const server of servers) {
    const { client } = await connectStdio(server.command, server.args, server.env)
    all.push(...(await client.listTools()).tools)
    await client.close()
  }
  const { client } = await connectGateway(serversFile(dir, servers), home)
  const listed = (await client.listTools()).tools
  await client.close()
  const direct = tokens(all)
  const gateway = tokens(listed)
  return `| ${label} | ${all.length} | ${direct.toLocaleString("en")} | ${listed.length} | ${gateway.toLocaleString("en")} | ${(100 * (1 - gateway / direct)).toFixed(1)}% |`
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** p50 and p99 of echo through the gateway and directly, interleaved call by call. */
const proxyOverhead = async (dir: string, calls: number) => {
  const everything = referenceServers(dir)[0]!
  const home = fs.mkdtempSync(path.join(dir, "home-"))
  const viaGateway = await connectGateway(serversFile(dir, [everything]), home)
  const direct = await connectStdio(everything.command, everything.args, everything.env)
  await viaGateway.client.callTool({ name: "tools_load", arguments: { targets: ["everything"] } })
  const time = async (client: Client, name: string) => {
    const started = process.hrtime.bigint()
    await client.callTool({ name, arguments: { message: "bench" } })
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  // Warm both paths (the JIT, the downstream start) before measuring.
  for (let i = 0; i < 50; i++) {
    await time(viaGateway.client, "mcp__everything__echo")
    await time(direct.client, "echo")
  }
  const gateway: Array<number> = []
  const plain: Array<number> = []
  const gatewayCpu = cpuMs(viaGateway.pid)
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      gateway.push(await time(viaGateway.client, "mcp__everything__echo"))
      plain.push(await time(direct.client, "echo"))
    } else {
      plain.push(await time(direct.client, "echo"))
      gateway.push(await time(viaGateway.client, "mcp__everything__echo"))
    }
  }
  const gatewayCpuPerCall = (cpuMs(viaGateway.pid) - gatewayCpu) / calls
  await viaGateway.client.close()
  await direct.client.close()
  const row = (label: string, values: ReadonlyArray<number>) => `| ${label} | ${fmt(percentile(values, 50))} | ${fmt(percentile(values, 99))} |`
  return [
    `| path (${calls} calls each) | p50 ms | p99 ms |`,
    "| --- | ---: | ---: |",
    row("direct to server-everything", plain),
    row("through `tool-map mcp --servers`", gateway),
    `| overhead | ${fmt(percentile(gateway, 50) - percentile(plain, 50))} | ${fmt(percentile(gateway, 99) - percentile(plain, 99))} |`,
    "",
    `CPU time of the gateway process per proxied call (its user + system time over the ${calls} calls, from /proc): ${gatewayCpuPerCall.toFixed(2)} ms. Goal (issue 10): a p50 overhead of at most 2 ms.`
  ].join("\n")
}

const startup = async (dir: string, runs: number) => {
  const home = fs.mkdtempSync(path.join(dir, "home-"))
  const file = serversFile(dir, referenceServers(dir))
  // One session takes the snapshots (tools_ls waits for every server's first listing, its
  // tools/list does not); the timed ones find them fresh and start no server.
  const { client } = await connectGateway(file, home)
  await client.callTool({ name: "tools_ls", arguments: {} })
  await client.close()
  const logs = path.join(home, ".local", "share", "tool-map", "gateway", "logs")
  const startsLogged = () =>
    fs.readdirSync(logs).reduce((n, f) => n + (fs.readFileSync(path.join(logs, f), "utf8").match(/ started, pid /g)?.length ?? 0), 0)
  const before = startsLogged()
  const samples = await sampleMcpStart(runs, [installedBin(), "mcp", "--servers", file, "--agent", "bench"], gatewayEnv(home))
  return [
    `Median of ${runs} interleaved runs (after one uncounted run).`,
    "",
    startTable([["tool-map mcp --servers FILE (3 servers, fresh snapshots) until initialize", samples]]),
    "",
    `Downstream servers started by the ${runs + 1} runs: ${startsLogged() - before}. Goal (issue 10): at most 2.5x.`
  ].join("\n")
}

/** User + system CPU milliseconds a process has used so far (Linux: /proc/PID/stat, in clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const rssOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

const memory = async (dir: string) => {
  const home = fs.mkdtempSync(path.join(dir, "home-"))
  const servers = Array.from({ length: 10 }, (_, i) => fixture(`gen${i}`, "many.mjs", [String(50 + i)]))
  const file = serversFile(dir, servers)
  // The first session takes the snapshots (tools_ls waits for them).
  const first = await connectGateway(file, home)
  await first.client.callTool({ name: "tools_ls", arguments: {} })
  await first.client.close()
  const { client, pid } = await connectGateway(file, home)
  await client.listTools()
  const idle = rssOf(pid)
  await client.callTool({ name: "mcp__gen0__tool_00001", arguments: { id: "1" } })
  const running = rssOf(pid)
  const logs = path.join(home, ".local", "share", "tool-map", "gateway", "logs", "gen0.log")
  const childPid = Number([...fs.readFileSync(logs, "utf8").matchAll(/ started, pid (\d+)$/gm)].at(-1)![1])
  const child = rssOf(childPid)
  await client.close()
  return [
    "| gateway process (10 servers of 50-59 tools snapshotted) | RSS MiB |",
    "| --- | ---: |",
    `| after initialize and tools/list, no server running | ${idle.toFixed(1)} |`,
    `| after one call, 1 server running | ${running.toFixed(1)} |`,
    `| the running server itself (a Node MCP server) | ${child.toFixed(1)} |`
  ].join("\n")
}

const main = async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-gateway-")))
  try {
    const reference = referenceServers(dir)
    const lines = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((n) => n.toFixed(1)).join(" ")}.`,
      "",
      "### Session-start tokens (o200k, compact JSON of the tools array)",
      "",
      "| servers | tools | all `tools/list` concatenated | gateway lists | gateway `tools/list` | saved |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      await sessionTokens(dir, "everything, memory, filesystem", reference),
      await sessionTokens(dir, "the same + a generated server of 600 tools", [...reference, fixture("generated", "many.mjs", ["600"])]),
      "",
      "### Proxy overhead (server-everything `echo`)",
      "",
      await proxyOverhead(dir, 400),
      "",
      "### Start until the initialize answer",
      "",
      await startup(dir, 11),
      "",
      "### Memory",
      "",
      await memory(dir)
    ]
    console.log(lines.join("\n"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
