/**
 * Start of `tool-map mcp` in both eras of MCP (issue 31), several builds in the same interleaved
 * rounds, each against `node -e 0`: from the spawn until the answer to a 2025 client's
 * `initialize`, of the inventory server and of the gateway (`--servers` a file of no server), and
 * (a build that serves 2026-07-28) to a 2026 client's `server/discover`.
 *
 *   npm run build && npx tsx bench/mcpServerEras.ts RUNS LABEL=BIN [LABEL=BIN ...]
 *
 * BIN is a built `dist/tool-map.cjs` (of a worktree at the commit to measure); a label ending in
 * `+discover` also times `server/discover` on that build.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, median, medianPairedRatio } from "./harness.js"
import { timeMcpAnswer, timeMcpInitialize, timeNode } from "./mcpStart.js"

const DISCOVER = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "server/discover",
  params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" } } }
})}\n`

const timeDiscover = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  timeMcpAnswer(args, env, DISCOVER, (answer) => answer.id === 0 && JSON.stringify(answer.result?.["supportedVersions"]) === '["2026-07-28"]')

const main = async (runs: number, builds: ReadonlyArray<readonly [string, string]>) => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-eras-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  const servers = path.join(data, "servers.json")
  fs.writeFileSync(servers, JSON.stringify({ mcpServers: {} }))
  const timers: Array<readonly [string, () => Promise<number>]> = [["node -e 0", timeNode]]
  for (const [label, bin] of builds) {
    const name = label.replace(/\+discover$/, "")
    timers.push([`${name}: mcp, initialize (2025-11-25)`, () => timeMcpInitialize([bin, "mcp"], env)])
    timers.push([`${name}: mcp --servers, initialize (2025-11-25)`, () => timeMcpInitialize([bin, "mcp", "--servers", servers], env)])
    if (label.endsWith("+discover")) {
      timers.push([`${name}: mcp, server/discover (2026-07-28)`, () => timeDiscover([bin, "mcp"], env)])
      timers.push([`${name}: mcp --servers, server/discover (2026-07-28)`, () => timeDiscover([bin, "mcp", "--servers", servers], env)])
    }
  }
  try {
    for (const [, time] of timers) await time() // the OS caches the files
    const samples = new Map<string, Array<number>>(timers.map(([name]) => [name, []]))
    for (let round = 0; round < runs; round++) {
      // Each round in another order, so that no command always follows the same one.
      const order = timers.map((_, index) => timers[(index + round) % timers.length]!)
      for (const [name, time] of order) samples.get(name)!.push(await time())
    }
    const node = samples.get("node -e 0")!
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; ${runs} interleaved rounds; load average ${os.loadavg()[0]!.toFixed(1)} at the end.`,
      "",
      "| command | median ms | median of per-round ratios to node -e 0 |",
      "|---|---:|---:|",
      ...[...samples].map(([name, values]) => `| ${name} | ${fmt(median(values))} | ${medianPairedRatio(values, node).toFixed(2)} |`)
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const builds = process.argv.slice(3).map((arg) => {
    const equals = arg.indexOf("=")
    if (equals < 1) throw new Error(`expected LABEL=BIN, got ${arg}`)
    return [arg.slice(0, equals), path.resolve(arg.slice(equals + 1))] as const
  })
  console.log(await main(Number(process.argv[2] ?? 15), builds))
}
