import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

/** Runs the built CLI without waiting for it, with exactly the given environment. */
const startCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

interface FileState {
  readonly content: string
  readonly mtimeMs: number
  /** An atomic rewrite renames a new file into place: a new inode, even within one mtime tick. */
  readonly ino: number
}

/** Every file under `dir` (relative path) with its content, mtime and inode. */
const filesUnder = (dir: string): Record<string, FileState> => {
  const out: Record<string, FileState> = {}
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const file = path.join(dir, name)
    const info = fs.statSync(file)
    if (info.isFile()) out[name] = { content: fs.readFileSync(file, "latin1"), mtimeMs: info.mtimeMs, ino: info.ino }
  }
  return out
}

const N = 10

describe("the built CLI's catalog under concurrent processes", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined

  beforeAll(() => requireBuiltCli())
  afterEach(() => temp?.remove())

  const setup = (tools: number) => {
    temp = makeTempDir("tool-map-catalog-e2e-")
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    const schemas = path.join(temp.dir, "tools.json")
    const list = Array.from({ length: tools }, (_, i) => ({
      name: `mcp__s__tool_${i}`,
      description: `Reads record ${i}.`,
      inputSchema: { type: "object", properties: { id: { type: "string" } } }
    }))
    fs.writeFileSync(schemas, JSON.stringify(list))
    const env = { HOME: home, XDG_DATA_HOME: path.join(temp.dir, "xdg"), PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }
    return { env, schemas, catalogDir: path.join(temp.dir, "xdg", "tool-map", "catalog") }
  }

  it(`${N} processes loading a different tool each into one agent at once: every load is kept`, async () => {
    const { catalogDir, env, schemas } = setup(N + 4)
    // The first run keeps the schemas; the loads below then race only on the agent's state.
    expect(runCli(["catalog", "ls", "/", "--schemas", schemas], env).status).toBe(0)
    const runs = await Promise.all(
      Array.from({ length: N }, (_, i) => startCli(["catalog", "load", "--agent", "a", `mcp__s__tool_${i}`, "--schemas", schemas], env))
    )
    expect(runs.map((run) => run.status)).toEqual(Array.from({ length: N }, () => 0))
    expect(runs.map((run) => run.stderr)).toEqual(Array.from({ length: N }, () => ""))
    // Each reports the one tool it loaded, not the ones other processes loaded meanwhile.
    expect(runs.map((run) => run.stdout.split("\n").slice(1))).toEqual(
      Array.from({ length: N }, (_, i) => [`  mcp__s__tool_${i}`, ""])
    )
    expect(runs.filter((run) => !run.stdout.startsWith("Loaded 1 tool(s), "))).toEqual([])
    const state = JSON.parse(fs.readFileSync(path.join(catalogDir, "state", "a.json"), "utf8"))
    expect([...state.state.loaded].sort()).toEqual(Array.from({ length: N }, (_, i) => `mcp__s__tool_${i}`).sort())
    // The allow-list order holds every load too, after the always-on tools, each once.
    expect(state.order.filter((name: string) => name.startsWith("mcp__")).sort()).toEqual([...state.state.loaded].sort())
    expect(fs.readdirSync(path.join(catalogDir, "state"))).toEqual(["a.json"])
  }, 120_000)

  it("a listing of an unchanged catalog changes no file, with or without --schemas", () => {
    const { catalogDir, env, schemas } = setup(3000)
    const first = runCli(["catalog", "ls", "/", "--schemas", schemas], env)
    expect(first.status).toBe(0)
    expect(runCli(["catalog", "load", "mcp__s__tool_1", "--schemas", schemas], env).status).toBe(0)
    expect(fs.existsSync(path.join(catalogDir, "router.index"))).toBe(false)
    // The first ranking of this tool set writes the router's index; nothing writes it again.
    expect(runCli(["catalog", "ls", "--query", "tool", "--schemas", schemas], env).status).toBe(0)
    const before = filesUnder(catalogDir)
    expect(Object.keys(before)).toEqual([
      "definitions.json",
      "manifest.json",
      "router.index",
      "schemas.facts.json",
      "schemas.json",
      // The schemas the recorded build was made of (catalog diff), a hard link to schemas.json.
      "schemas.recorded.json",
      "state/cli.json"
    ])
    expect(before["schemas.recorded.json"]!.content).toBe(before["schemas.json"]!.content)
    // Large enough to be kept compact: one line.
    expect(before["schemas.json"]!.content.trimEnd().includes("\n")).toBe(false)
    for (const args of [["ls", "/", "--schemas", schemas], ["ls", "/"], ["ls", "--query", "record", "--schemas", schemas], ["ls", "s"]]) {
      const run = runCli(["catalog", ...args], env)
      expect(run.status).toBe(0)
      expect(run.stderr).toBe("")
      expect(filesUnder(catalogDir)).toEqual(before)
    }
  }, 120_000)
})
