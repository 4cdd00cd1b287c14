/**
 * Pipelined requests on the stdio server (issue 27, point 5): the built `tool-map mcp` over a
 * fixture machine (TOOLS executables in four PATH dirs, scanned once before), sent 6,000 `which`
 * calls in one write, then (a new server) 300 forced `inventory_refresh` calls in one write. Each
 * phase reads every answer, then takes the server's peak RSS (VmHWM of /proc/PID/status: the
 * launcher runs the CLI in its own process) before closing stdin. Linux only.
 *
 *   npm run build && npx tsx bench/mcpPipelined.ts [TOOLS] [BIN]
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin } from "./harness.js"

const TOOLS = Number(process.argv[2] ?? 3000)
const BIN = process.argv[3] ?? installedBin()

interface PhaseResult {
  readonly requests: number
  readonly answered: number
  readonly errors: number
  readonly peakMiB: number
  readonly seconds: number
  /** How the server ended before it answered every request (its last stderr line), if it did. */
  readonly crashed: string | null
}

/** The process's peak RSS so far in MiB (VmHWM), or null once it is gone. */
const peakOf = (pid: number): number | null => {
  try {
    const kiB = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kiB === undefined ? null : Number(kiB) / 1024
  } catch {
    return null
  }
}

const line = (message: object) => `${JSON.stringify(message)}\n`

/**
 * Sends `requests` (ids 1..n) after `initialize` in one write, reads every answer, and returns the
 * server's peak RSS (sampled every 50 ms too, for a server that dies before the end).
 */
const phase = (env: NodeJS.ProcessEnv, requests: ReadonlyArray<(id: number) => object>): Promise<PhaseResult> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [BIN, "mcp"], { env, stdio: ["pipe", "pipe", "pipe"] })
    let peakMiB = 0
    const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, peakOf(child.pid!) ?? 0)), 50)
    let buffered = ""
    let answered = 0
    let errors = 0
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8")
      let newline = buffered.indexOf("\n")
      while (newline !== -1) {
        const answer = JSON.parse(buffered.slice(0, newline)) as { id?: number; error?: unknown; result?: { isError?: boolean } }
        buffered = buffered.slice(newline + 1)
        newline = buffered.indexOf("\n")
        if (typeof answer.id !== "number" || answer.id === 0) continue
        answered++
        if (answer.error !== undefined || answer.result?.isError === true) errors++
        if (answered === requests.length) {
          clearInterval(sampler)
          peakMiB = Math.max(peakMiB, peakOf(child.pid!) ?? 0)
          const seconds = (performance.now() - started) / 1000
          child.stdin.end()
          child.once("exit", () => resolve({ requests: requests.length, answered, errors, peakMiB, seconds, crashed: null }))
        }
      }
    })
    child.on("exit", (code, signal) => {
      if (answered === requests.length) return
      clearInterval(sampler)
      const reason = /FATAL ERROR: [^\n]*/.exec(stderr)?.[0] ?? stderr.trim().split("\n").at(-1) ?? ""
      resolve({ requests: requests.length, answered, errors, peakMiB, seconds: (performance.now() - started) / 1000, crashed: `exit ${code ?? signal}: ${reason}` })
    })
    child.stdin.write(line({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }))
    child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }))
    child.stdin.write(requests.map((request, index) => line(request(index + 1))).join(""))
  })

const call = (name: string, args: object) => (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })

const main = async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-pipelined-")))
  try {
    const home = path.join(root, "home")
    const dirs = ["a", "b", "c", "d"].map((name) => path.join(root, "bin", name))
    for (const dir of [home, ...dirs]) fs.mkdirSync(dir, { recursive: true })
    for (let index = 0; index < TOOLS; index++) {
      // Every fourth name is in two dirs: a shadowed copy.
      const name = `tool-${String(index).padStart(5, "0")}`
      fs.writeFileSync(path.join(dirs[index % 4]!, name), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
      if (index % 4 === 0) fs.writeFileSync(path.join(dirs[1]!, name), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    }
    const env = { HOME: home, PATH: dirs.join(":"), PLUGIN_DATA: path.join(root, "data"), LANG: "C.UTF-8" }
    const scan = spawnSync(process.execPath, [BIN, "scan", "--no-probes", "--quiet"], { env, encoding: "utf8" })
    if (scan.status !== 0) throw new Error(`scan exited ${scan.status}: ${scan.stderr}`)
    const bundleMiB = fs.statSync(path.join(root, "data", "tools.json")).size / (1024 * 1024)

    const which = await phase(env, Array.from({ length: Number(process.env.WHICH_CALLS ?? 6000) }, (_, index) => call("which", { name: `tool-${String(index % TOOLS).padStart(5, "0")}` })))
    const refresh = await phase(env, Array.from({ length: Number(process.env.REFRESH_CALLS ?? 300) }, () => call("inventory_refresh", { force: true })))

    const row = (label: string, result: PhaseResult) =>
      `| ${label} | ${result.requests} | ${result.answered} | ${result.errors} | ${result.peakMiB.toFixed(0)} | ${fmt(result.seconds * 1000)} | ${result.crashed ?? ""} |`
    console.log(`tool-map mcp, ${BIN}; ${TOOLS} tools on PATH (tools.json ${bundleMiB.toFixed(1)} MiB); Node ${process.version}; ${os.cpus().length} cores, load ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`)
    console.log("")
    console.log("| pipelined requests | sent | answered | error answers | peak RSS (MiB, VmHWM) | wall (ms) | server died |")
    console.log("|---|---|---|---|---|---|---|")
    console.log(row("`which`", which))
    console.log(row("`inventory_refresh` force: true", refresh))
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
