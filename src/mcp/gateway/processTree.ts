/**
 * Every process a downstream stdio server started, found by an environment marker: the gateway
 * starts each server with `TOOL_MAP_GATEWAY_CHILD=<random id>`, which its descendants inherit,
 * and on stop finds them by scanning `/proc/<pid>/environ` (Linux). This reaches what the
 * process-group kill cannot: a daemon that called `setsid` (or was spawned `detached`) left the
 * group. A process that clears or rewrites its environment escapes; where there is no `/proc`
 * (macOS, Windows) nothing is found and only the process group is stopped.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as NodePath from "node:path"

/** The variable that marks a downstream server and everything it starts. */
export const GATEWAY_CHILD_ENV = "TOOL_MAP_GATEWAY_CHILD"

/** The longest environment read per process: a marker further in is not found. */
export const ENVIRON_MAX_BYTES = 1024 * 1024

/** Where to look: the platform (only `linux` is scanned) and the proc file system's root. */
export interface ProcessTreeOptions {
  readonly platform: NodeJS.Platform
  readonly procDir: string
  /** This process, never signalled (it carries no marker anyway, unless a test sets one). */
  readonly selfPid: number
}

/** This machine's platform and `/proc`. */
export const liveProcessTree: ProcessTreeOptions = { platform: process.platform, procDir: "/proc", selfPid: process.pid }

/**
 * Whether the NUL-separated environment `environ` holds `entry` (`NAME=value`) as a whole
 * variable, within its first `maxBytes`.
 */
const holdsEntry = (environ: Buffer, entry: Buffer): boolean => {
  for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
    const startsVariable = at === 0 || environ[at - 1] === 0
    const end = at + entry.length
    if (startsVariable && (end === environ.length || environ[end] === 0)) return true
  }
  return false
}

// One buffer for every environment read (most are a few KiB), grown up to the bound as needed:
// a fresh 1 MiB buffer a process, for every scan of a stop's grace, was hundreds of MiB of garbage.
let scratch = Buffer.alloc(64 * 1024)

/**
 * The first `max` bytes of a file, or null when it cannot be read (gone, another user's, no
 * /proc). The bytes are a view of a buffer the next read reuses.
 */
const readHead = (file: string, max: number): Buffer | null => {
  let fd: number
  try {
    fd = fs.openSync(file, "r")
  } catch {
    return null
  }
  try {
    let filled = 0
    while (filled < max) {
      if (filled === scratch.length) {
        const grown = Buffer.alloc(Math.min(max, scratch.length * 2))
        scratch.copy(grown, 0, 0, filled)
        scratch = grown
      }
      const read = fs.readSync(fd, scratch, filled, Math.min(max, scratch.length) - filled, null)
      if (read === 0) break
      filled += read
    }
    return scratch.subarray(0, filled)
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The pids whose environment carries one of `markers` (as `TOOL_MAP_GATEWAY_CHILD=<marker>`),
 * ascending; empty off Linux. Each environment is read up to {@link ENVIRON_MAX_BYTES}; an
 * unreadable one is skipped.
 */
export const markedPids = (markers: ReadonlyArray<string>, options: ProcessTreeOptions = liveProcessTree): ReadonlyArray<number> => {
  if (options.platform !== "linux" || markers.length === 0) return []
  let names: ReadonlyArray<string>
  try {
    names = fs.readdirSync(options.procDir)
  } catch {
    return []
  }
  const entries = markers.map((marker) => Buffer.from(`${GATEWAY_CHILD_ENV}=${marker}`))
  const found: Array<number> = []
  for (const name of names) {
    if (!/^[1-9][0-9]*$/.test(name)) continue
    const pid = Number(name)
    if (pid === options.selfPid) continue
    const environ = readHead(NodePath.join(options.procDir, name, "environ"), ENVIRON_MAX_BYTES)
    if (environ !== null && entries.some((entry) => holdsEntry(environ, entry))) found.push(pid)
  }
  return found.sort((a, b) => a - b)
}

const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name)
  } catch {
    // ESRCH: gone already; EPERM: not ours to stop.
  }
}

// Markers of servers started and not yet swept: their processes are killed with SIGKILL if this
// process exits without stopping them (an uncaught exit), as the process groups are.
const liveMarkers = new Set<string>()
let exitHookInstalled = false

const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", () => {
    for (const pid of markedPids([...liveMarkers])) signal(pid, "SIGKILL")
  })
}

/** The marker of one downstream server: the variable to start it with, and the sweep of what it left. */
export class ChildMarker {
  /** The marker's value: the gateway's pid and 12 random bytes, so no two servers share one. */
  readonly id = `${process.pid}-${randomBytes(12).toString("hex")}`

  constructor(private readonly options: ProcessTreeOptions = liveProcessTree) {
    liveMarkers.add(this.id)
    installExitHook()
  }

  /** The environment variable to add to the server's own. */
  get env(): Readonly<Record<string, string>> {
    return { [GATEWAY_CHILD_ENV]: this.id }
  }

  /**
   * Stops every process still carrying this marker: SIGTERM, then SIGKILL to those left after
   * `graceMs`. Resolves with the pids found at first (empty off Linux).
   */
  async stop(graceMs: number): Promise<ReadonlyArray<number>> {
    const found = markedPids([this.id], this.options)
    for (const pid of found) signal(pid, "SIGTERM")
    if (found.length > 0) {
      const deadline = Date.now() + graceMs
      while (Date.now() < deadline && markedPids([this.id], this.options).length > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, graceMs)).unref())
      }
      for (const pid of markedPids([this.id], this.options)) signal(pid, "SIGKILL")
    }
    liveMarkers.delete(this.id)
    return found
  }
}
