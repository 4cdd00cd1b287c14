/**
 * `tool-map mcp --http` through the built CLI (issue 27, point 6): refused requests open no
 * session, --max-sessions caps them, and the session flags need --http.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

let temp: ReturnType<typeof makeTempDir> | undefined
let env: Record<string, string>

beforeAll(() => {
  requireBuiltCli()
  temp = makeTempDir("tool-map-e2e-http-sessions-")
  const home = path.join(temp.dir, "home")
  const bin = path.join(temp.dir, "bin")
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(bin, { recursive: true })
  env = { HOME: home, PATH: bin, PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
})
afterAll(() => temp?.remove())

const ACCEPT = "application/json, text/event-stream"
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })

const post = async (url: URL, body: string, session?: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...(session === undefined ? {} : { "mcp-session-id": session }) },
    body
  })
  return { status: response.status, body: await response.text(), session: response.headers.get("mcp-session-id") }
}

it.each([
  [["--session-idle", "5"], "--session-idle"],
  [["--max-sessions", "2"], "--max-sessions"]
])("mcp %j without --http is a usage error", (flags, named) => {
  expect(runCli(["mcp", ...flags], env)).toEqual({
    status: 2,
    stdout: "",
    stderr: `tool-map: ${named} applies to --http only (over stdio there is one client, no sessions). See \`tool-map mcp --help\`.\n`
  })
})

it("refuses sessionless requests without opening a session, and keeps at most --max-sessions", async () => {
  const server = spawn(process.execPath, [BIN, "mcp", "--http", "0", "--max-sessions", "1"], { env, cwd: env.HOME, stdio: ["ignore", "pipe", "pipe"] })
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let stderr = ""
      server.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
        const match = /^tool-map mcp: Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)
        if (match !== null) resolve(new URL(match[1]!))
      })
      server.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    const refused = await Promise.all(Array.from({ length: 20 }, () => post(url, TOOLS_LIST)))
    expect(new Set(refused.map((answer) => JSON.stringify(answer)))).toEqual(
      new Set([
        JSON.stringify({
          status: 400,
          body: JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad request: no Mcp-Session-Id; only an initialize request opens a session" }, id: null }),
          session: null
        })
      ])
    )
    const first = await post(url, INITIALIZE)
    const second = await post(url, INITIALIZE)
    expect([first.status, second.status]).toEqual([200, 200])
    // One session at most: the second closed the first, idle.
    expect((await post(url, TOOLS_LIST, first.session!)).status).toBe(404)
    expect((await post(url, TOOLS_LIST, second.session!)).status).toBe(200)
  } finally {
    const exited = new Promise((resolve) => server.on("exit", resolve))
    server.kill("SIGTERM")
    expect(await exited).toBe(130)
  }
})
