/**
 * `catalog snapshot --host H` with a server that hangs (issue 29, point 5): the other server is
 * listed, kept and stopped meanwhile, and SIGTERM stops the command, and the hanging server's
 * process group, within the SIGTERM bound. Timed: it runs in the timed project, alone.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, SIGTERM_TEST_BOUND_MS } from "../support/cli.js"

const FIXTURES = path.resolve(import.meta.dirname, "../mcp/fixtures")

/** The pids of the process's children (Linux: /proc), empty once it is gone. */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  const tasks = fs.existsSync(`/proc/${pid}/task`) ? fs.readdirSync(`/proc/${pid}/task`) : []
  return tasks.flatMap((task) => {
    const file = `/proc/${pid}/task/${task}/children`
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split(/\s+/).filter((word) => word !== "").map(Number) : []
  })
}

/** Whether a process runs (and is not a zombie). */
const running = (pid: number) => fs.existsSync(`/proc/${pid}/stat`) && fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] !== "Z"

const commandOf = (pid: number) => (fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") : [])

let temp: ReturnType<typeof makeTempDir> | undefined
beforeAll(() => requireBuiltCli())
afterAll(() => temp?.remove())

it("a server that never answers holds no other: the one that answers is kept, and SIGTERM stops the command and the hanging server", async () => {
  temp = makeTempDir("tool-map-catalog-host-sigterm-")
  const home = path.join(temp.dir, "home")
  const data = path.join(temp.dir, "data")
  fs.mkdirSync(path.join(temp.dir, "bin"), { recursive: true })
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, ".claude.json"), JSON.stringify({
    mcpServers: {
      notes: { command: process.execPath, args: [path.join(FIXTURES, "notes.mjs")] },
      silent: { command: process.execPath, args: [path.join(FIXTURES, "silent.mjs")] }
    }
  }))
  const child = spawn(process.execPath, [BIN, "catalog", "snapshot", "--host", "claude-code"], {
    env: { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: data },
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on("exit", (code) => resolve({ code, at: performance.now() })))
  // Once the answering server is listed, the silent one waits for its initialize answer (30 s).
  await new Promise<void>((resolve) =>
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes("tool-map: notes: 3 tools\n")) resolve()
    }))
  const children = childrenOf(child.pid!)
  const silent = children.filter((pid) => commandOf(pid).some((word) => word.endsWith("silent.mjs")))
  expect(silent.length).toBe(1)
  // The server that answered was stopped once listed, while the other still hangs.
  expect(children.filter((pid) => running(pid) && commandOf(pid).some((word) => word.endsWith("notes.mjs")))).toEqual([])
  const sentAt = performance.now()
  child.kill("SIGTERM")
  const { code, at } = await exited
  expect(at - sentAt).toBeLessThan(SIGTERM_TEST_BOUND_MS)
  expect(code).toBe(130)
  expect(stdout).toBe("")
  expect(stderr).toBe("tool-map: listing the tools of 2 MCP server(s) of claude-code, each started once…\ntool-map: notes: 3 tools\n")
  const deadline = Date.now() + 2000
  while (silent.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  expect(silent.filter(running)).toEqual([])
  // The server listed before the signal keeps its snapshot.
  const snapshots = fs.readdirSync(path.join(data, "gateway", "snapshots"))
  expect(snapshots.map((file) => (JSON.parse(fs.readFileSync(path.join(data, "gateway", "snapshots", file), "utf8")) as { server: string }).server)).toEqual(["notes"])
})
