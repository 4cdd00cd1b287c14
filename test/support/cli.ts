import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The built CLI; `npm test` builds it before vitest runs. */
export const BIN = path.resolve(import.meta.dirname, "../../dist/tool-map.cjs")

/**
 * The wall-clock bound a test holds "SIGTERM is honoured within a second" to. The promise is 1 s
 * (measured in bench/results and in the timed runs' logs); a test keeps a margin that holds at
 * a load of 4 on 2 cores, where a process gets about half a core (1,002.6 ms failed a 1,000 ms
 * bound there).
 */
export const SIGTERM_TEST_BOUND_MS = 2_500

const ROOT = path.resolve(import.meta.dirname, "../..")

/** The inputs of the build: a change to any of them after `dist` was built makes `dist` stale. */
const buildInputs = (): ReadonlyArray<string> => [
  ...fs.readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(ROOT, "src", name)),
  path.join(ROOT, "package.json"),
  path.join(ROOT, "scripts", "bundle.mjs")
]

/**
 * Why the built file at `bin` does not reflect `inputs`, or null: it is missing, or one input
 * was modified after it (an end-to-end test must not pass or fail on yesterday's build).
 */
export const staleBuildReason = (bin: string, inputs: ReadonlyArray<string>): string | null => {
  if (!fs.existsSync(bin)) return `${bin} is missing`
  const built = fs.statSync(bin).mtimeMs
  const newer = inputs.filter((file) => fs.existsSync(file) && fs.statSync(file).mtimeMs > built)
  if (newer.length === 0) return null
  const shown = newer.slice(0, 3).map((file) => path.relative(ROOT, file)).join(", ")
  return `${bin} is older than ${shown}${newer.length > 3 ? ` and ${newer.length - 3} more` : ""}`
}

/** Fails unless the built CLI exists and is newer than every source file. */
export const requireBuiltCli = () => {
  const reason = staleBuildReason(BIN, buildInputs())
  if (reason !== null) throw new Error(`${reason}: run \`npm run build\` first (npm test does).`)
}

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI with exactly the given environment (nothing inherited). */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, cwd?: string): CliRun => {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env,
    cwd: cwd ?? env.HOME ?? os.tmpdir(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A fresh temp dir, removed by the returned function. */
export const makeTempDir = (prefix: string): { readonly dir: string; readonly remove: () => void } => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** Writes an executable file (mode 0755) with the given text. */
export const writeExecutable = (file: string, text = "#!/bin/sh\nexit 0\n") => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text, { mode: 0o755 })
}

/** CPU time (user + system, ms) the process has used so far (Linux: /proc/PID/stat, in clock ticks of 10 ms), or null once it is gone. */
const cpuMsOf = (pid: number): number | null => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

/** The pids of the process's children (Linux: the children file of each task in /proc/PID/task), empty once it is gone. */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter((word) => word !== "").map(Number)
    )
  } catch {
    return []
  }
}

/**
 * Sends SIGTERM once the process has a child of its own (a probe it started): the moment a test of
 * "SIGTERM while the probes hang" means, whatever the machine's speed. Resolves with the time the
 * signal was sent, or null when the process ended first.
 */
export const sigtermOnceChildRuns = (child: { readonly pid?: number | undefined; readonly exitCode: number | null; readonly signalCode: string | null; kill: (signal: NodeJS.Signals) => boolean }): Promise<number | null> =>
  new Promise((resolve) => {
    const poll = setInterval(() => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
        clearInterval(poll)
        resolve(null)
      } else if (childrenOf(child.pid).length > 0) {
        clearInterval(poll)
        const sentAt = performance.now()
        child.kill("SIGTERM")
        resolve(sentAt)
      }
    }, 5)
  })

/** The CPU time (ms) a command of the built CLI uses when run to its end, read until it exits (within one 5 ms poll). */
export const cpuMsOfRun = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: "ignore" })
    let last = 0
    const poll = setInterval(() => {
      const used = child.pid === undefined ? null : cpuMsOf(child.pid)
      if (used !== null) last = used
    }, 5)
    child.on("exit", (code) => {
      clearInterval(poll)
      if (code === 0) resolve(last)
      else reject(new Error(`${args.join(" ")} exited ${code}`))
    })
  })

/**
 * Sends SIGTERM once the process has used `cpuMs` of CPU time. A timer started at spawn would,
 * on a loaded machine, fire before Node has loaded the CLI (whose handler turns SIGTERM into exit
 * 130) and test Node's default instead; CPU time moves on with the program whatever the load.
 * Resolves with the time the signal was sent, or null when the process ended first.
 */
export const sigtermAfterCpu = (child: { readonly pid?: number | undefined; readonly exitCode: number | null; readonly signalCode: string | null; kill: (signal: NodeJS.Signals) => boolean }, cpuMs: number): Promise<number | null> =>
  new Promise((resolve) => {
    const poll = setInterval(() => {
      const used = child.pid === undefined ? null : cpuMsOf(child.pid)
      if (child.exitCode !== null || child.signalCode !== null || used === null) {
        clearInterval(poll)
        resolve(null)
      } else if (used >= cpuMs) {
        clearInterval(poll)
        const sentAt = performance.now()
        child.kill("SIGTERM")
        resolve(sentAt)
      }
    }, 5)
  })
