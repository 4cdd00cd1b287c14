import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin, median, medianPairedRatio, ROOT } from "./harness.js"

/** The `initialize` request an MCP client sends first (the SDK client's, protocol 2025-11-25). */
const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
})}\n`

/**
 * Milliseconds from the spawn of `tool-map mcp` until its answer to `initialize` is on stdout
 * (then stdin is closed and the server exits, not timed). Throws unless the answer is the
 * result of request 0.
 */
const timeMcpInitialize = (bin: string, env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [bin, "mcp"], { env, stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const newline = out.indexOf("\n")
      if (newline === -1) return
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6
      const answer = JSON.parse(out.slice(0, newline)) as { id?: number; result?: { protocolVersion?: string } }
      child.stdin.end()
      if (answer.id !== 0 || answer.result?.protocolVersion !== "2025-11-25") reject(new Error(`unexpected answer: ${out}`))
      else resolve(elapsed)
    })
    child.on("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`tool-map mcp exited ${code} before answering: ${err}`))
    })
    child.stdin.write(INITIALIZE)
  })

/** Milliseconds of one run of `node -e 0`, spawned the same way. */
const timeNode = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ["-e", "0"], { stdio: ["pipe", "pipe", "pipe"] })
    child.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`node -e 0 exited ${code}`))))
  })

/**
 * `tool-map mcp` until its `initialize` answer against `node -e 0`, `runs` interleaved rounds
 * (the order alternates), over an existing bundle of this machine. Returns a markdown table.
 */
export const benchMcpStart = async (runs = 15, bin = installedBin()): Promise<string> => {
  if (!fs.existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first`)
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-mcp-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  try {
    const node: Array<number> = []
    const mcp: Array<number> = []
    await timeMcpInitialize(bin, env) // one uncounted run: the OS caches the files
    for (let round = 0; round < runs; round++) {
      if (round % 2 === 0) {
        node.push(await timeNode())
        mcp.push(await timeMcpInitialize(bin, env))
      } else {
        mcp.push(await timeMcpInitialize(bin, env))
        node.push(await timeNode())
      }
    }
    const base = median(node)
    const start = median(mcp)
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; median of ${runs} interleaved runs of \`node ${path.relative(ROOT, bin)} mcp\` until its initialize answer; load average ${os.loadavg()[0]!.toFixed(1)}.`,
      "",
      "| command | median ms | ratio to node -e 0 (medians) | median of per-round ratios |",
      "|---|---|---|---|",
      `| node -e 0 | ${fmt(base)} | 1.00 | 1.00 |`,
      `| tool-map mcp until the initialize answer | ${fmt(start)} | ${(start / base).toFixed(2)} | ${medianPairedRatio(mcp, node).toFixed(2)} |`,
      "",
      "Goal (issue 10): at most 2.5x."
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

// `npx tsx bench/mcpStart.ts [RUNS] [BIN]`
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMcpStart(Number(process.argv[2] ?? 15), process.argv[3] === undefined ? undefined : path.resolve(process.argv[3])))
}
