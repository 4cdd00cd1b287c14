/**
 * Start of `tool-map mcp` (issue 10): from the spawn until its answer to `initialize` is on
 * stdout, against `node -e 0` spawned the same way, in interleaved rounds. The gateway's start
 * with fresh snapshots is measured with the same timer in bench/mcpGateway.ts.
 *
 *   npm run build && npx tsx bench/mcpStart.ts [RUNS] [BIN]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin, median, medianPairedRatio, ROOT } from "./harness.js"

/** The protocol revision the server answers with. */
const PROTOCOL = "2025-11-25"

/** The `initialize` request an MCP client sends first (the SDK client's). */
const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "bench", version: "1" } }
})}\n`

/**
 * Milliseconds from the spawn of `node ARGS` (a `tool-map mcp` command line) until its answer
 * to `request` (one JSON-RPC line, id 0) is on stdout (then stdin is closed and the server exits,
 * not timed but waited for: a gateway builds its providers as the client leaves, which would slow
 * the next run). Throws unless `accept` takes the answer.
 */
export const timeMcpAnswer = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  request: string,
  accept: (answer: { readonly id?: unknown; readonly result?: Readonly<Record<string, unknown>> }) => boolean
): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let err = ""
    let answered = false
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const newline = out.indexOf("\n")
      if (newline === -1 || answered) return
      answered = true
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6
      const answer = JSON.parse(out.slice(0, newline)) as { id?: unknown; result?: Readonly<Record<string, unknown>> }
      child.stdin.end()
      // Settled once the server has exited: work it does on its way out would slow the next run.
      child.once("exit", () => {
        if (!accept(answer)) reject(new Error(`unexpected answer: ${out}`))
        else resolve(elapsed)
      })
    })
    child.on("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`node ${args.join(" ")} exited ${code} before answering: ${err}`))
    })
    child.stdin.write(request)
  })

/** Milliseconds from the spawn of `node ARGS` until its `initialize` answer in the current protocol revision (see {@link timeMcpAnswer}). */
export const timeMcpInitialize = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<number> =>
  timeMcpAnswer(args, env, INITIALIZE, (answer) => answer.id === 0 && answer.result?.["protocolVersion"] === PROTOCOL)

/** Milliseconds of one run of `node -e 0`, spawned the same way. */
export const timeNode = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ["-e", "0"], { stdio: ["pipe", "pipe", "pipe"] })
    child.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`node -e 0 exited ${code}`))))
  })

/** The start of one `tool-map mcp` command line against `node -e 0`. */
export interface StartSamples {
  readonly node: ReadonlyArray<number>
  readonly mcp: ReadonlyArray<number>
}

/** `runs` interleaved rounds (the order alternates) of `node ARGS` until initialize and `node -e 0`, after one uncounted run. */
export const sampleMcpStart = async (runs: number, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<StartSamples> => {
  const node: Array<number> = []
  const mcp: Array<number> = []
  await timeMcpInitialize(args, env) // the OS caches the files
  for (let round = 0; round < runs; round++) {
    if (round % 2 === 0) {
      node.push(await timeNode())
      mcp.push(await timeMcpInitialize(args, env))
    } else {
      mcp.push(await timeMcpInitialize(args, env))
      node.push(await timeNode())
    }
  }
  return { node, mcp }
}

/** The table of start samples: one row for `node -e 0`, one per labelled command line. */
export const startTable = (rows: ReadonlyArray<readonly [label: string, samples: StartSamples]>): string => {
  const node = median(rows.flatMap(([, samples]) => samples.node))
  return [
    "| command | median ms | ratio to node -e 0 (medians) | median of per-round ratios |",
    "|---|---:|---:|---:|",
    `| node -e 0 | ${fmt(node)} | 1.00 | 1.00 |`,
    ...rows.map(([label, samples]) => {
      const start = median(samples.mcp)
      return `| ${label} | ${fmt(start)} | ${(start / median(samples.node)).toFixed(2)} | ${medianPairedRatio(samples.mcp, samples.node).toFixed(2)} |`
    })
  ].join("\n")
}

/**
 * `tool-map mcp` (the inventory server, an empty data dir: the bundle is read on the first
 * request, not at start) until its `initialize` answer against `node -e 0`. A markdown table.
 */
export const benchMcpStart = async (runs = 15, bin = installedBin()): Promise<string> => {
  if (!fs.existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first`)
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-mcp-"))
  try {
    const samples = await sampleMcpStart(runs, [bin, "mcp"], { ...process.env, PLUGIN_DATA: data })
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; median of ${runs} interleaved runs of \`node ${path.relative(ROOT, bin)} mcp\` until its initialize answer; load average ${os.loadavg()[0]!.toFixed(1)}.`,
      "",
      startTable([["tool-map mcp until the initialize answer", samples]]),
      "",
      "Goal (issue 10): at most 2.5x."
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMcpStart(Number(process.argv[2] ?? 15), process.argv[3] === undefined ? undefined : path.resolve(process.argv[3])))
}
