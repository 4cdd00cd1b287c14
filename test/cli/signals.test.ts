/**
 * SIGTERM at any moment of a command of the built CLI exits 130 within a second (issue 27,
 * point 10): while Node loads the CLI (it exited by the signal, status 143 in a shell), and
 * while `catalog ls --query` builds the router's index of 50,000 tools (1.0-1.7 s of work that
 * did not look at the event loop). Moments are CPU times of the process, measured against an
 * uninterrupted run here, so that a loaded machine moves them with the program.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateTools } from "../../bench/catalogGenerators.js"
import { BIN, cpuMsOfRun, makeTempDir, requireBuiltCli, SIGTERM_TEST_BOUND_MS, sigtermAfterCpu } from "../support/cli.js"

interface Stopped {
  readonly code: number | null
  readonly stdout: string
  readonly signal: NodeJS.Signals | null
  readonly exitMs: number
  readonly signalled: boolean
}

/** Starts the built CLI, sends SIGTERM once it has used `cpuMs` of CPU time, and resolves with how it ended. */
const terminate = (args: ReadonlyArray<string>, env: Record<string, string>, cpuMs: number) =>
  new Promise<Stopped>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: ["ignore", "pipe", "ignore"] })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => stdout += chunk.toString("utf8"))
    const sent = sigtermAfterCpu(child, cpuMs)
    child.on("close", (code, signal) => {
      void sent.then((sentAt) => resolve({ code, stdout, signal, exitMs: sentAt === null ? 0 : performance.now() - sentAt, signalled: sentAt !== null }))
    })
  })

/** The CPU time (ms) of a bare Node process that does nothing: before it, no handler of ours can run. */
const bareNodeCpuMs = (): number => {
  const probe = spawnSync(process.execPath, ["-e", "const s = require('fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' '); console.log((Number(s[11]) + Number(s[12])) * 10)"], { encoding: "utf8" })
  return Number(probe.stdout.trim())
}

describe("SIGTERM while the built CLI starts", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined
  let env: Record<string, string>
  let schemas: string
  let bare = 0

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-early-signals-")
    // An empty PATH dir: no probe runs, the runs stay short.
    fs.mkdirSync(path.join(temp.dir, "bin"))
    env = { HOME: path.join(temp.dir, "home"), PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: path.join(temp.dir, "data"), XDG_DATA_HOME: path.join(temp.dir, "xdg") }
    fs.mkdirSync(env.HOME!)
    schemas = path.join(temp.dir, "tools.json")
    fs.writeFileSync(schemas, JSON.stringify(generateTools(50)))
    bare = bareNodeCpuMs()
  })
  afterAll(() => temp?.remove())

  // `scan --if-stale` starts in the everyday entry and, with no bundle yet, hands over to the
  // whole CLI: the moments fall in either's loading, or between the two.
  it.each([
    ["scan", ["scan", "--no-probes", "--quiet"]],
    ["catalog ls", ["catalog", "ls", "/", "--schemas", "SCHEMAS"]],
    ["scan --if-stale", ["scan", "--if-stale", "--quiet"]]
  ])("at moments from Node's start to the end of `%s`, exits 130 within a second", async (_name, template) => {
    const args = template.map((arg) => (arg === "SCHEMAS" ? schemas : arg))
    const whole = await cpuMsOfRun(args, env)
    const clear = () => {
      fs.rmSync(env.PLUGIN_DATA!, { recursive: true, force: true })
      fs.rmSync(env.XDG_DATA_HOME!, { recursive: true, force: true })
    }
    clear()
    const done = spawnSync(process.execPath, [BIN, ...args], { env, cwd: env.HOME, encoding: "utf8" })
    expect(done.status).toBe(0)
    // Every 10 ms of CPU (the clock's tick) from a tick after the end of Node's own start to the end of the run.
    const moments = Array.from({ length: Math.max(1, Math.floor((whole - bare) / 10) - 1) }, (_, i) => bare + 10 * (i + 2)).slice(0, 16)
    const stopped: Array<Stopped & { readonly cpuMs: number }> = []
    for (const cpuMs of moments) {
      clear()
      stopped.push({ cpuMs, ...(await terminate(args, env, cpuMs)) })
    }
    const signalled = stopped.filter((run) => run.signalled)
    console.log(`${args.join(" ")}: Node ${bare} ms, whole ${whole} ms of CPU; ${signalled.map((run) => `${run.cpuMs} ms: ${run.code ?? run.signal} after ${run.exitMs.toFixed(0)} ms`).join(", ")}`)
    expect(signalled.length).toBeGreaterThan(0)
    // 130, or 0 with the whole output: the signal came during the last step, which cannot be
    // undone (the catalog's commit), and the run finished it.
    const honoured = (run: Stopped) => (run.code === 130 || (run.code === 0 && run.stdout === done.stdout)) && run.exitMs < 1000
    expect(signalled.filter((run) => !honoured(run)).map((run) => [run.cpuMs, run.code ?? run.signal])).toEqual([])
  }, 120_000)
})

describe("SIGTERM while `catalog ls --query` builds the router index of 50,000 tools", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined
  let base: string
  let whole = 0

  /** A home holding the catalog of 50,000 tools (built once) and no router index yet. */
  const copyOfBase = (name: string) => {
    const home = path.join(base, "..", name)
    fs.cpSync(base, home, { recursive: true })
    return { HOME: home, PATH: "/usr/bin:/bin", XDG_DATA_HOME: path.join(home, "data") }
  }

  beforeAll(async () => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-router-signals-")
    base = path.join(temp.dir, "base")
    fs.mkdirSync(base)
    const schemas = path.join(temp.dir, "tools.json")
    fs.writeFileSync(schemas, JSON.stringify(generateTools(50_000)))
    const env = { HOME: base, PATH: "/usr/bin:/bin", XDG_DATA_HOME: path.join(base, "data") }
    await cpuMsOfRun(["catalog", "ls", "/", "--schemas", schemas], env)
    fs.rmSync(schemas)
    const catalog = path.join(base, "data", "tool-map", "catalog")
    expect(fs.readdirSync(catalog).includes("router.index")).toBe(false)
    whole = await cpuMsOfRun(["catalog", "ls", "--query", "read file"], copyOfBase("whole"))
    fs.rmSync(path.join(temp.dir, "whole"), { recursive: true })
  }, 180_000)
  afterAll(() => temp?.remove())

  // The index is built in the second half of the run's CPU time (reading the catalog comes first).
  it.each([50, 65, 80])("SIGTERM at %i% of an uninterrupted run's CPU exits 130 within a second, no partial index file", async (percent) => {
    const env = copyOfBase(`home-${percent}`)
    const cpuMs = Math.round((whole * percent) / 100)
    const stopped = await terminate(["catalog", "ls", "--query", "read file"], env, cpuMs)
    console.log(`catalog ls --query: SIGTERM after ${cpuMs} ms of CPU (${percent}% of ${whole}): ${stopped.code ?? stopped.signal} ${stopped.exitMs.toFixed(0)} ms after the signal`)
    expect([stopped.signalled, stopped.code]).toEqual([true, 130])
    expect(stopped.exitMs).toBeLessThan(SIGTERM_TEST_BOUND_MS)
    const catalog = path.join(env.XDG_DATA_HOME, "tool-map", "catalog")
    expect(fs.readdirSync(catalog).filter((name) => /partial|\.tmp|~$/.test(name))).toEqual([])
    fs.rmSync(env.HOME, { recursive: true })
  }, 120_000)
})
