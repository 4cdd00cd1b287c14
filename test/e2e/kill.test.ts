import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readGeneration } from "../../src/inventory/bundle/format.js"
import { BIN, makeTempDir, requireBuiltCli, writeExecutable } from "../support/cli.js"

/** How many scans must actually die by SIGKILL (every other one aimed at the commit); 200 took two and a half minutes of the suite. */
const KILLS = 100
/** Scans killed side by side, each on its own output dir. */
const WORKERS = 3
const BUNDLE = ["inv.json", "inv.md", "inv.summary.md", "inv.which.jsonl"] as const
/** The bundle's history (every scan writes it), tagged with the bundle's generation. */
const DIGEST = "inv.history.json"

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/**
 * Runs the built CLI. `kill` chooses when to send SIGKILL: after a delay from the start, or
 * after a delay from the moment the lock file `lockFile` appears (the commit has begun).
 */
const run = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  kill?: { readonly afterMs: number } | { readonly lockFile: string; readonly afterLockMs: number }
): Promise<Exited> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timers: Array<NodeJS.Timeout> = []
    let watcher: fs.FSWatcher | undefined
    if (kill !== undefined && "afterMs" in kill) timers.push(setTimeout(() => child.kill("SIGKILL"), kill.afterMs))
    if (kill !== undefined && "lockFile" in kill) {
      watcher = fs.watch(path.dirname(kill.lockFile), (_, name) => {
        if (name !== path.basename(kill.lockFile) || watcher === undefined) return
        watcher.close()
        watcher = undefined
        timers.push(setTimeout(() => child.kill("SIGKILL"), kill.afterLockMs))
      })
    }
    child.on("error", reject)
    child.on("close", (code, signal) => {
      for (const timer of timers) clearTimeout(timer)
      watcher?.close()
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started })
    })
  })

/** How long the commit of a scan holds the lock, seen from outside: lock created → lock removed. */
const commitWindow = async (target: string, env: Record<string, string>): Promise<number> => {
  const dir = path.dirname(target)
  fs.mkdirSync(dir, { recursive: true })
  const lock = `.${path.basename(target, ".md")}.lock`
  const seen: Array<number> = []
  const watcher = fs.watch(dir, (_, name) => {
    if (name === lock) seen.push(performance.now())
  })
  const scan = await run(["scan", "--no-probes", target], env)
  watcher.close()
  expect({ code: scan.code, stderr: scan.stderr }).toEqual({ code: 0, stderr: "" })
  return seen.length >= 2 ? seen[seen.length - 1]! - seen[0]! : 0
}

/** A fake machine: a HOME and four PATH dirs holding 400 executables (some through links). */
const makeMachine = (root: string) => {
  const home = path.join(root, "home")
  fs.mkdirSync(home, { recursive: true })
  const dirs = [0, 1, 2, 3].map((d) => path.join(root, `bin-${d}`))
  for (const [d, dir] of dirs.entries()) {
    for (let i = 0; i < 100; i++) {
      const file = path.join(dir, `tool-${d}-${i}${i % 10 === 0 ? ".sh" : ""}`)
      if (d > 0 && i % 25 === 0) {
        fs.mkdirSync(dir, { recursive: true })
        fs.symlinkSync(path.join(dirs[0]!, `tool-0-${i + 1}`), file)
      } else {
        writeExecutable(file, `#!/bin/sh\necho tool ${d} ${i}\n`)
      }
    }
  }
  return { HOME: home, PATH: dirs.join(":"), LANG: "C.UTF-8" }
}

/**
 * What an output dir holds: nothing of the bundle, or all three files with one generation (and
 * the history, when there is one, tagged with that generation), and nothing else. Returns the generation (or null for no bundle) or a description of the fault.
 */
const inspect = (dir: string): { readonly ok: true; readonly generation: string | null } | { readonly ok: false; readonly why: string } => {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []
  if (names.length === 0) return { ok: true, generation: null }
  const extra = names.filter((name) => !(BUNDLE as ReadonlyArray<string>).includes(name) && name !== DIGEST)
  if (extra.length > 0) return { ok: false, why: `files other than the bundle: ${extra.join(", ")}` }
  const files = names.includes(DIGEST) ? [...BUNDLE, DIGEST] : BUNDLE
  if (names.length !== files.length) return { ok: false, why: `an incomplete bundle: ${names.join(", ")}` }
  const generations = files.map((name) => readGeneration(fs.readFileSync(path.join(dir, name), "utf8")))
  if (generations[0] === null || generations.some((generation) => generation !== generations[0])) {
    return { ok: false, why: `mixed generations: ${files.map((name, i) => `${name}=${generations[i]}`).join(", ")}` }
  }
  return { ok: true, generation: generations[0] }
}

describe("SIGKILL at random moments of a scan", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-kill-")
    env = makeMachine(temp.dir)
  })
  afterAll(() => temp?.remove())

  it(`the next run always finds one consistent generation and no leftovers (${KILLS} kills)`, async () => {
    // Calibrate: the duration of a whole scan of this machine and of its commit, medians of three.
    const calibration = path.join(temp.dir, "calibration", "inv.md")
    const durations: Array<number> = []
    const windows: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      windows.push(await commitWindow(calibration, env))
      durations.push(performance.now() - started)
      const state = inspect(path.dirname(calibration))
      expect(state.ok && state.generation !== null).toBe(true)
    }
    const median = (values: Array<number>) => values.sort((a, b) => a - b)[1]!
    const scanMs = median(durations)
    const commitMs = Math.max(1, median(windows))

    const stats = { kills: 0, killsInCommit: 0, finished: 0, pendingAtKill: 0, bundles: 0, empty: 0 }
    const failures: Array<string> = []
    const worker = async (w: number) => {
      const out = path.join(temp.dir, `out-${w}`)
      const target = path.join(out, "inv.md")
      for (let attempt = 0; stats.kills < KILLS && attempt < 2 * KILLS; attempt++) {
        // Every tenth round starts from no bundle (every twentieth from no directory); the
        // others kill a scan that replaces a bundle.
        if (attempt % 10 === 0) fs.rmSync(out, { recursive: true, force: true })
        if (attempt % 20 !== 0) fs.mkdirSync(out, { recursive: true })
        // Even rounds: a random moment of the whole scan. Odd rounds: a random moment of its
        // commit (from the lock file's creation on), which a uniform delay would rarely hit.
        const inCommit = attempt % 2 === 1
        const when = inCommit
          ? { lockFile: path.join(out, ".inv.lock"), afterLockMs: Math.random() * commitMs * 1.2 }
          : { afterMs: Math.random() * scanMs }
        const moment = "afterMs" in when
          ? `${when.afterMs.toFixed(0)} ms into a ${scanMs.toFixed(0)} ms scan`
          : `${when.afterLockMs.toFixed(1)} ms into a ${commitMs.toFixed(1)} ms commit`
        const scan = await run(["scan", "--no-probes", target], env, when)
        if (scan.signal === "SIGKILL") {
          stats.kills++
          if (inCommit) stats.killsInCommit++
          if (fs.existsSync(out) && fs.readdirSync(out).some((name) => name.startsWith("."))) stats.pendingAtKill++
        } else {
          stats.finished++
          if (scan.code !== 0) failures.push(`an unkilled scan exited ${scan.code}: ${scan.stderr}`)
        }
        // A query with --from reads the consistent generation without repairing anything (or
        // finds none, when the kill came before the first commit) and writes nothing.
        const listing = () => (fs.existsSync(out) ? fs.readdirSync(out).sort() : [])
        const before = listing()
        const query = await run(["query", "versions", "--json", "--from", target], env)
        if (query.code === 4 && query.stderr.includes("there is no tool-map bundle there")) stats.empty++
        else if (query.code !== 0) failures.push(`query after a kill ${moment} exited ${query.code}: ${query.stderr}`)
        else {
          stats.bundles++
          try {
            JSON.parse(query.stdout)
          } catch {
            failures.push(`query after a kill ${moment} printed something other than JSON: ${query.stdout.slice(0, 200)}`)
          }
        }
        if (listing().join(",") !== before.join(",")) failures.push(`query after a kill ${moment} changed ${out}: ${before.join(",")} -> ${listing().join(",")}`)
        // The next scan repairs: one consistent generation, no leftovers.
        const repair = await run(["scan", "--if-stale", "--no-probes", target], env)
        if (repair.code !== 0) failures.push(`scan after a kill ${moment} exited ${repair.code}: ${repair.stderr}`)
        const state = inspect(out)
        if (!state.ok) failures.push(`after a kill ${moment}: ${state.why}`)
        else if (state.generation === null) failures.push(`after a kill ${moment} and a scan: no bundle`)
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))

    console.log(`kill test: scan ${scanMs.toFixed(0)} ms, commit ${commitMs.toFixed(1)} ms; ${JSON.stringify(stats)}`)
    expect(failures).toEqual([])
    expect(stats.kills).toBeGreaterThanOrEqual(KILLS)
    // The kills aimed at the commit did land inside it: some left a write to repair.
    expect(stats.pendingAtKill).toBeGreaterThan(0)
  }, 600_000)
})
