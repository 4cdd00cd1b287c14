/**
 * Memory of `tool-map mcp --http` under requests that must not allocate a session (issue 27,
 * point 6): the server's RSS after its start, after 6,000 POSTs without Mcp-Session-Id that are
 * not `initialize` (each refused with 400), and after 6,000 `initialize` POSTs whose sessions are
 * never ended (at most --max-sessions, default 64, stay open). Goal: the refused POSTs grow RSS
 * by less than 30 MiB. Before the fix each refused POST left a session behind (80 -> 313 MB).
 *
 *   npm run build && npx tsx bench/mcpHttpSessions.ts [POSTS] [BIN] [CONCURRENCY]
 *
 * (POSTS default 6000, BIN the installed dist/tool-map.cjs, CONCURRENCY default 8.)
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { installedBin } from "./harness.js"

const POSTS = Number(process.argv[2] ?? 6000)
const BIN = path.resolve(process.argv[3] ?? installedBin())
const CONCURRENCY = Number(process.argv[4] ?? 8)
const MIB = 1024 * 1024

const ACCEPT = "application/json, text/event-stream"
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
})
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })

/** The resident set of `pid` in bytes (Linux: VmRSS of /proc/PID/status). */
const rssOf = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  if (match === null) throw new Error(`no VmRSS for ${pid}`)
  return Number(match[1]) * 1024
}

const post = async (url: URL, body: string, session?: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...(session === undefined ? {} : { "mcp-session-id": session }) },
    body
  })
  await response.arrayBuffer()
  return { status: response.status, session: response.headers.get("mcp-session-id") }
}

/** `count` POSTs of `body`, `CONCURRENCY` at a time: how many got each status. */
const flood = async (url: URL, body: string, count: number) => {
  const statuses = new Map<number, number>()
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++
        const { status } = await post(url, body)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    })
  )
  return [...statuses].map(([status, times]) => `${times} x ${status}`).join(", ")
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1000))

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-http-"))
  const home = path.join(root, "home")
  fs.mkdirSync(home)
  const env = { HOME: home, PATH: "/usr/bin:/bin", PLUGIN_DATA: path.join(root, "data"), LANG: "C.UTF-8" }
  // SERVER_NODE_FLAGS (e.g. --trace-gc-nvp) are given to the server's node, its stdout then going to SERVER_STDOUT.
  const flags = (process.env.SERVER_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
  const stdout = process.env.SERVER_STDOUT === undefined ? "ignore" : fs.openSync(process.env.SERVER_STDOUT, "a")
  const server = spawn(process.execPath, [...flags, BIN, "mcp", "--http", "0"], { env, cwd: home, stdio: ["ignore", stdout, "pipe"] })
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let stderr = ""
      server.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
        const match = /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)
        if (match !== null) resolve(new URL(match[1]!))
      })
      server.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    const pid = server.pid!
    // One session used and ended, so that the code of a session is loaded before the baseline.
    const warm = await post(url, INITIALIZE)
    await post(url, TOOLS_LIST, warm.session!)
    await fetch(url, { method: "DELETE", headers: { "mcp-session-id": warm.session! } })
    await settle()
    const start = rssOf(pid)
    const refused = await flood(url, TOOLS_LIST, POSTS)
    await settle()
    const afterRefused = rssOf(pid)
    const initialized = await flood(url, INITIALIZE, POSTS)
    await settle()
    const afterInitialized = rssOf(pid)
    const warmAfter = await post(url, TOOLS_LIST, warm.session!)
    const lines = [
      `tool-map mcp --http 0 (${BIN}), node ${process.version}, ${os.cpus().length} cores, ${CONCURRENCY} requests at a time`,
      `RSS after start and one session opened and ended: ${(start / MIB).toFixed(1)} MiB`,
      `${POSTS} POSTs of tools/list without Mcp-Session-Id: ${refused}; RSS ${(afterRefused / MIB).toFixed(1)} MiB (${((afterRefused - start) / MIB).toFixed(1)} MiB growth, goal < 30)`,
      `${POSTS} initialize POSTs never ended (at most 64 sessions kept): ${initialized}; RSS ${(afterInitialized / MIB).toFixed(1)} MiB (${((afterInitialized - start) / MIB).toFixed(1)} MiB over the start)`,
      `the ended session's id afterwards: ${warmAfter.status}`
    ]
    console.log(lines.join("\n"))
    if (afterRefused - start >= 30 * MIB) process.exitCode = 1
  } finally {
    server.kill("SIGTERM")
    await new Promise((resolve) => server.on("exit", resolve))
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
