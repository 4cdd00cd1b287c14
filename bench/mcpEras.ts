/**
 * The gateway's downstream side before and after a change of its MCP client (issue 31: the SDK
 * v1 client against the SDK v2 one, which probes a stdio server with `server/discover` before
 * the 2025 handshake), each against `node -e 0` in the same interleaved rounds:
 * - start: `tool-map mcp --servers FILE` (the three reference servers, fresh snapshots: no
 *   downstream server started) until its `initialize` answer;
 * - first listing: the same gateway with no snapshot, from its spawn until `tools_ls` answers,
 *   which waits for the first `tools/list` of every server (each started, probed and listed);
 * - the bundle: bytes of the scripts the launcher runs.
 * Each timing is also given as the median of its per-round ratio to the first build's (the
 * steadier figure on a loaded machine).
 *
 *   npx tsx bench/mcpEras.ts RUNS LABEL=BIN [LABEL=BIN ...]
 *
 * BIN is a built `dist/tool-map.cjs` (of a worktree at the commit to measure).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { referenceServers } from "../test/mcp/gateway/harness.js"
import { fmt, median, medianPairedRatio } from "./harness.js"
import { timeMcpInitialize } from "./mcpStart.js"

const serversFile = (dir: string) => {
  const file = path.join(dir, "servers.json")
  const servers = referenceServers(dir)
  fs.writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args, env: s.env }])) }))
  return file
}

const gatewayEnv = (home: string) => ({ HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" })

/** Milliseconds from the gateway's spawn (a fresh home: no snapshot) until `tools_ls` answers. */
const timeFirstListing = async (bin: string, file: string, dir: string): Promise<number> => {
  const home = fs.mkdtempSync(path.join(dir, "home-"))
  const started = process.hrtime.bigint()
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--servers", file, "--agent", "bench"], env: gatewayEnv(home), stderr: "pipe" })
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(transport)
  const answer = await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } })
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  const text = JSON.stringify(answer)
  await client.close()
  fs.rmSync(home, { recursive: true, force: true })
  if (!/everything\//.test(text) || !/memory\//.test(text) || !/filesystem\//.test(text) || /no tool list yet/.test(text)) {
    throw new Error(`tools_ls did not list the three servers: ${text}`)
  }
  return elapsed
}

const timeNode = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ["-e", "0"], { stdio: ["pipe", "pipe", "pipe"] })
    child.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`node -e 0 exited ${code}`))))
  })

const main = async () => {
  const runs = Number(process.argv[2] ?? 9)
  const bins = process.argv.slice(3).map((arg) => {
    const [label, bin] = arg.split("=") as [string, string]
    return { label, bin: path.resolve(bin) }
  })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-eras-"))
  try {
    const file = serversFile(dir)
    // Fresh snapshots for the start runs: one listing per build takes them.
    const snapshotted = fs.mkdtempSync(path.join(dir, "snapshotted-"))
    for (const { bin } of bins) {
      const home = path.join(snapshotted, path.basename(path.dirname(path.dirname(bin))))
      fs.mkdirSync(home)
      const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--servers", file, "--agent", "bench"], env: gatewayEnv(home), stderr: "pipe" })
      const client = new Client({ name: "bench", version: "1.0.0" })
      await client.connect(transport)
      await client.callTool({ name: "tools_ls", arguments: {} })
      await client.close()
    }
    const homeOf = (bin: string) => path.join(snapshotted, path.basename(path.dirname(path.dirname(bin))))
    const node: Array<number> = []
    const start = new Map(bins.map(({ label }) => [label, [] as Array<number>]))
    const listing = new Map(bins.map(({ label }) => [label, [] as Array<number>]))
    for (const { bin } of bins) await timeFirstListing(bin, file, dir) // the OS caches the files
    for (let round = 0; round < runs; round++) {
      const order = round % 2 === 0 ? bins : [...bins].reverse()
      node.push(await timeNode())
      for (const { bin, label } of order) {
        start.get(label)!.push(await timeMcpInitialize([bin, "mcp", "--servers", file, "--agent", "bench"], gatewayEnv(homeOf(bin))))
        listing.get(label)!.push(await timeFirstListing(bin, file, dir))
      }
    }
    const nodeMedian = median(node)
    const bundleBytes = (bin: string) =>
      ["tool-map.cjs", "tool-map.gateway.cjs", "tool-map.bundle.cjs"].map((name) => fs.statSync(path.join(path.dirname(bin), name)).size)
    console.log([
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; ${runs} interleaved rounds; load average ${os.loadavg()[0]!.toFixed(1)}.`,
      "",
      `| build | start until initialize, ms | ratio to node -e 0 | ratio to ${bins[0]!.label} | first listing of 3 servers, ms | ratio to node -e 0 | ratio to ${bins[0]!.label} | gateway script bytes | whole-CLI script bytes |`,
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      `| node -e 0 | ${fmt(nodeMedian)} | 1.00 | | | | | | |`,
      ...bins.map(({ bin, label }) => {
        const s = start.get(label)!
        const l = listing.get(label)!
        const [, gateway, whole] = bundleBytes(bin)
        const first = bins[0]!.label
        return `| ${label} | ${fmt(median(s))} | ${medianPairedRatio(s, node).toFixed(2)} | ${medianPairedRatio(s, start.get(first)!).toFixed(3)} | ${fmt(median(l))} | ${medianPairedRatio(l, node).toFixed(2)} | ${medianPairedRatio(l, listing.get(first)!).toFixed(3)} | ${gateway!.toLocaleString("en")} | ${whole!.toLocaleString("en")} |`
      })
    ].join("\n"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
