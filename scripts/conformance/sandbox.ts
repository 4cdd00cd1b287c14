import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheRoot } from "./install.js"

/** What one command did. */
export interface CommandResult {
  readonly status: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
}

/** How host commands are kept off the network. */
export type Isolation =
  | { readonly _tag: "NetNamespace"; readonly prefix: ReadonlyArray<string> }
  | { readonly _tag: "None"; readonly reason: string }

const works = (argv: ReadonlyArray<string>): boolean =>
  spawnSync(argv[0]!, [...argv.slice(1), "true"], { stdio: "ignore", timeout: 10_000 }).status === 0

/**
 * A new network namespace (only a loopback, which is down) per command, and a PID namespace
 * whose first process is the command: when it exits, the kernel kills whatever it left running
 * (the MCP servers a host started for a health check). `unshare -n` as root, `unshare -rn` (a
 * user namespace too) otherwise. Where neither works (macOS, a container without the
 * capability), commands run with the hosts' own switches off and a dead proxy.
 */
export const detectIsolation = (): Isolation => {
  for (const prefix of [["unshare", "-n", "-p", "-f", "--kill-child", "--"], ["unshare", "-rn", "-p", "-f", "--kill-child", "--"]]) {
    if (works(prefix)) return { _tag: "NetNamespace", prefix }
  }
  return { _tag: "None", reason: "unshare -n and unshare -rn both failed: the hosts may reach the network" }
}

export const describeIsolation = (isolation: Isolation): string =>
  isolation._tag === "NetNamespace" ? `no network, own PID namespace (${isolation.prefix.slice(0, -1).join(" ")})` : `network NOT isolated: ${isolation.reason}`

/**
 * Switches that keep the hosts from updating themselves and phoning home. None of them is
 * needed for an answer, and none changes what a listing command reads.
 */
const QUIET_HOSTS: Readonly<Record<string, string>> = {
  DISABLE_AUTOUPDATER: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1"
}

/** Without a network namespace, any request goes to a port where nothing listens. */
const DEAD_PROXY: Readonly<Record<string, string>> = {
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  NO_PROXY: ""
}

export interface RunOptions {
  /** Working directory (default: the sandbox's project directory). */
  readonly cwd?: string
  /** Directories put before the system's on PATH. */
  readonly path?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}

/**
 * A throwaway machine for host commands: a HOME and a project directory copied from a fixture
 * (the hosts write state into HOME, so the fixture itself is never touched), outside the OS
 * temp dir (Codex refuses some set-up under /tmp).
 */
export interface Sandbox {
  readonly root: string
  readonly home: string
  /** The working directory of the commands: a git repository, as a user's project is. */
  readonly project: string
  /** Writes a file under the sandbox's root (`home/…`, `project/…`), making its directories. */
  readonly write: (relative: string, text: string) => string
  /** Runs a command with the sandbox's HOME, a clean environment (no keys, no tokens) and no network. */
  readonly run: (command: string, args: ReadonlyArray<string>, options?: RunOptions) => CommandResult
  readonly remove: () => void
}

/** The system dirs on every command's PATH, after the node that runs this script. */
const systemPath = (): ReadonlyArray<string> => [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"]

/** A fresh sandbox, a copy of `fixture` (a directory holding `home/` and `project/`) when given. */
export const createSandbox = (isolation: Isolation, fixture?: string): Sandbox => {
  const runs = path.join(cacheRoot(), "runs")
  fs.mkdirSync(runs, { recursive: true })
  const root = fs.mkdtempSync(path.join(runs, "run-"))
  if (fixture !== undefined) fs.cpSync(fixture, root, { recursive: true, verbatimSymlinks: true })
  const home = path.join(root, "home")
  const project = path.join(root, "project")
  for (const dir of [home, project, path.join(root, "tmp")]) fs.mkdirSync(dir, { recursive: true })
  if (!fs.existsSync(path.join(project, ".git"))) spawnSync("git", ["init", "-q", project], { stdio: "ignore" })

  const write = (relative: string, text: string): string => {
    const file = path.join(root, relative)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
    return file
  }

  const run = (command: string, args: ReadonlyArray<string>, options: RunOptions = {}): CommandResult => {
    const env: Record<string, string> = {
      HOME: home,
      PATH: [...(options.path ?? []), ...systemPath()].join(":"),
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      TMPDIR: path.join(root, "tmp"),
      XDG_CONFIG_HOME: path.join(home, ".config"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      XDG_CACHE_HOME: path.join(home, ".cache"),
      XDG_STATE_HOME: path.join(home, ".local", "state"),
      ...QUIET_HOSTS,
      ...(isolation._tag === "None" ? DEAD_PROXY : {}),
      ...options.env
    }
    const argv = isolation._tag === "NetNamespace" ? [...isolation.prefix, command, ...args] : [command, ...args]
    const result = spawnSync(argv[0]!, argv.slice(1), {
      cwd: options.cwd ?? project,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 90_000,
      killSignal: "SIGKILL",
      maxBuffer: 64 * 1024 * 1024
    })
    return {
      status: result.status,
      signal: result.signal,
      stdout: result.stdout ?? "",
      stderr: result.stderr ?? "",
      timedOut: result.error !== undefined && "code" in result.error && result.error.code === "ETIMEDOUT"
    }
  }

  return { root, home, project, write, run, remove: () => fs.rmSync(root, { recursive: true, force: true }) }
}
