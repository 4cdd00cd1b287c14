import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateTools } from "../../bench/catalogGenerators.js"
import { claudeHome } from "../../bench/hostGenerators.js"
import { BIN, cpuMsOfRun, makeTempDir, requireBuiltCli, SIGTERM_TEST_BOUND_MS, sigtermAfterCpu } from "../support/cli.js"

/** Starts the built CLI, sends SIGTERM once it has used `cpuMs` of CPU time, and resolves with the exit code and how long the exit took after the signal. */
const terminate = (args: ReadonlyArray<string>, env: Record<string, string>, cpuMs: number) =>
  new Promise<{ readonly code: number | null; readonly exitMs: number; readonly signalled: boolean }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: "ignore" })
    const sent = sigtermAfterCpu(child, cpuMs)
    child.on("exit", (code) => {
      void sent.then((sentAt) => resolve({ code, exitMs: sentAt === null ? 0 : performance.now() - sentAt, signalled: sentAt !== null }))
    })
  })

describe("the built CLI on a large or looping agent home", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-signals-")
    const home = path.join(temp.dir, "home")
    for (const [file, content] of Object.entries(claudeHome(6000).tree)) {
      fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true })
      fs.writeFileSync(path.join(home, file), content)
    }
    // Ten links to `.` in the agents dir: without a loop guard, 10^6 paths to the same files.
    for (let index = 0; index < 10; index++) fs.symlinkSync(".", path.join(home, ".claude", "agents", `l${index}`))
    fs.mkdirSync(path.join(temp.dir, "bin"))
    env = { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: path.join(temp.dir, "data") }
  })
  afterAll(() => temp.remove())

  it("SIGTERM during the agent-host read ends the scan within a second, exit 130, nothing written", async () => {
    const stopped = await terminate(["scan", "--no-probes", "--quiet"], env, 700)
    expect([stopped.signalled, stopped.code]).toEqual([true, 130])
    expect(stopped.exitMs).toBeLessThan(SIGTERM_TEST_BOUND_MS)
    expect(fs.existsSync(path.join(env.PLUGIN_DATA!, "tools.json"))).toBe(false)
  }, 30_000)

  it("the looping agents dir yields each agent once", async () => {
    const done = await terminate(["scan", "--no-probes", "--quiet"], env, Number.POSITIVE_INFINITY)
    expect(done.code).toBe(0)
    const inventory = JSON.parse(fs.readFileSync(path.join(env.PLUGIN_DATA!, "tools.json"), "utf8")) as { agentHosts: { items: ReadonlyArray<{ kind: string }> } }
    expect(inventory.agentHosts.items.filter((item) => item.kind === "agent").length).toBe(2000)
    // A generous cap: a loaded machine has taken over a minute for this 6,000-item home.
  }, 180_000)
})

describe("the built CLI building a large catalog for the first time", () => {
  let temp: ReturnType<typeof makeTempDir>
  let schemas: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-signals-catalog-")
    schemas = path.join(temp.dir, "tools.json")
    fs.writeFileSync(schemas, JSON.stringify(generateTools(30_000)))
  })
  afterAll(() => temp.remove())

  // The moments are shares of the CPU time of an uninterrupted first listing, measured here: fixed
  // moments (500 to 2,100 ms) fell after the end of the whole listing on a faster machine. They
  // land in the read and parse of the file, the hashing of the definitions, the build and the
  // writing of the catalog's files: each is a long synchronous stretch unless cut in slices.
  let wholeCpuMs = 0
  beforeAll(async () => {
    const home = path.join(temp.dir, "home-whole")
    fs.mkdirSync(home)
    wholeCpuMs = await cpuMsOfRun(["catalog", "ls", "/", "--schemas", schemas], { HOME: home, PATH: "/usr/bin:/bin", XDG_DATA_HOME: path.join(temp.dir, "data-whole") })
  }, 60_000)

  it.each([15, 30, 45, 60, 75])("SIGTERM at %i% of an uninterrupted listing's CPU ends `catalog ls --schemas` within a second, exit 130, no partial file", async (percent) => {
    const home = path.join(temp.dir, `home-${percent}`)
    fs.mkdirSync(home)
    const data = path.join(temp.dir, `data-${percent}`)
    const env = { HOME: home, PATH: "/usr/bin:/bin", XDG_DATA_HOME: data }
    const cpuMs = Math.round((wholeCpuMs * percent) / 100)
    const stopped = await terminate(["catalog", "ls", "/", "--schemas", schemas], env, cpuMs)
    console.log(`catalog SIGTERM after ${cpuMs} ms of CPU (${percent}% of ${wholeCpuMs}): exit ${stopped.code} ${stopped.exitMs.toFixed(0)} ms after the signal`)
    expect([stopped.signalled, stopped.code]).toEqual([true, 130])
    expect(stopped.exitMs).toBeLessThan(SIGTERM_TEST_BOUND_MS)
    const catalogDir = path.join(data, "tool-map", "catalog")
    const left = fs.existsSync(catalogDir) ? fs.readdirSync(catalogDir, { recursive: true, encoding: "utf8" }) : []
    expect(left.filter((name) => /partial|\.tmp|~$/.test(name))).toEqual([])
  }, 60_000)
})
