/**
 * The SDK `Transport` of a stdio downstream server, over `node:child_process`. The SDK's own
 * `StdioClientTransport` spawns through cross-spawn without a process group and sends stderr
 * to ours; this one starts the child in its own process group (`detached`), so that the child
 * and anything it started are stopped together (SIGTERM to the group, SIGKILL after a grace
 * period), and sends its stderr to a capped log file.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { cleanText } from "../../inventory/domain/untrusted.js"
import { ChildMarker } from "./processTree.js"
import type { StderrLog } from "./StderrLog.js"

/** How the child is started. */
export interface ChildTransportOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** On top of the SDK's default inherited variables (HOME, PATH, …). */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
  readonly log: StderrLog
  /** How long the group gets between SIGTERM and SIGKILL. */
  readonly killGraceMs: number
  /** Longest line read from stdout; a longer one is garbage and dropped. */
  readonly maxLineBytes: number
}

// Process groups alive in this process: killed with SIGKILL if the process exits without
// closing them (an uncaught exit), so no downstream server outlives the gateway.
const liveGroups = new Set<number>()
let exitHookInstalled = false

const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", () => {
    for (const pid of liveGroups) signalGroup(pid, "SIGKILL")
  })
}

/** Sends `signal` to the process group `pid`; false when no process of it is left. */
const signalGroup = (pid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    // ESRCH: the whole group is gone already.
    return false
  }
}

/**
 * The first characters of a line that is not JSON-RPC, for an error message and the log: cut
 * after the one boundary of untrusted text, so that no secret is cut into a piece the rule no
 * longer knows.
 */
const excerpt = (line: string): string => {
  // A line may be 128 MiB: the rule reads its start only, far more than a secret's length.
  const clean = cleanText(line.slice(0, 4096))
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean
}

export class ChildTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private child: ChildProcess | undefined
  private chunks: Array<Buffer> = []
  private buffered = 0
  /** Messages read and not yet handed to the SDK, oldest first (see {@link deliver}). */
  private readonly inbox: Array<JSONRPCMessage> = []
  private delivering = false
  private closed = false
  private exited: Promise<void> | undefined
  /** The last line that was not a JSON-RPC message, to explain a server that answers nothing usable. */
  lastGarbage: string | undefined
  /** Marks the child and its descendants, to stop those that left its process group (setsid). */
  private readonly marker = new ChildMarker()

  constructor(private readonly options: ChildTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** The 2025-era version the handshake agreed on (the SDK client sets it). */
  protocolVersion: string | undefined

  setProtocolVersion(version: string): void {
    this.protocolVersion = version
  }

  /** The start, once: the era's probe (Downstream) starts the transport before the client does. */
  private started: Promise<void> | undefined

  start(): Promise<void> {
    this.started ??= this.spawn()
    return this.started
  }

  private spawn(): Promise<void> {
    installExitHook()
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: { ...getDefaultEnvironment(), ...this.options.env, ...this.marker.env },
        cwd: this.options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
        windowsHide: true
      })
      this.child = child
      this.exited = new Promise((done) => child.once("close", () => done()))
      child.once("error", (error) => {
        this.options.log.note(`could not start: ${error.message}`)
        reject(error)
        this.finish()
      })
      child.once("spawn", () => {
        if (child.pid !== undefined) liveGroups.add(child.pid)
        this.options.log.note(`started, pid ${child.pid}`)
        resolve()
      })
      child.once("close", (code, signal) => {
        this.options.log.note(`exited${code === null ? "" : ` with code ${code}`}${signal === null ? "" : ` on ${signal}`}`)
        this.finish()
      })
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk))
      child.stderr?.on("data", (chunk: Buffer) => this.options.log.append(chunk))
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("error", (error) => this.onerror?.(error))
    })
  }

  private read(chunk: Buffer): void {
    let start = 0
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, index)
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece])
      this.chunks = []
      this.buffered = 0
      start = index + 1
      this.dispatch(line.toString("utf8").replace(/\r$/, ""))
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start)
      this.buffered += rest.length
      if (this.buffered > this.options.maxLineBytes) {
        this.chunks = []
        this.buffered = 0
        this.garbage(`a line longer than ${this.options.maxLineBytes} bytes`)
        return
      }
      this.chunks.push(rest)
    }
  }

  private dispatch(line: string): void {
    if (line.trim() === "") return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return this.garbage(excerpt(line))
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) return this.garbage(excerpt(line))
    this.inbox.push(parsed.data)
    if (!this.delivering) this.deliver()
  }

  /**
   * Hands the received messages to the SDK one per turn of the event loop. The SDK runs a
   * notification's handler in a microtask but settles a response at once, and a stream may
   * emit two chunks in one turn: a server's last progress notification and its result would
   * otherwise reach the client result first, and the progress be dropped as belonging to no
   * request.
   */
  private deliver(): void {
    const message = this.inbox.shift()
    this.delivering = message !== undefined
    if (message === undefined) return
    this.onmessage?.(message)
    setImmediate(() => this.deliver())
  }

  private garbage(what: string): void {
    this.lastGarbage = what
    this.options.log.note(`not a JSON-RPC message on stdout: ${what}`)
    this.onerror?.(new Error(`not a JSON-RPC message: ${what}`))
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (stdin === undefined || stdin === null || this.closed) return reject(new Error("Not connected"))
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve()
      else stdin.once("drain", () => resolve())
    })
  }

  /** Stops the child's whole process group: SIGTERM, then SIGKILL after the grace period. */
  async close(): Promise<void> {
    const child = this.child
    if (child === undefined || child.pid === undefined) return this.finish()
    const pid = child.pid
    child.stdin?.end()
    // Descendants outside the group hold its pipes open too: stopped alongside, before `exited` is awaited.
    const swept = this.marker.stop(this.options.killGraceMs)
    if (signalGroup(pid, "SIGTERM")) {
      const grace = new Promise<void>((done) => setTimeout(done, this.options.killGraceMs).unref())
      await Promise.race([this.exited, grace])
      // The leader may be gone while members of its group live on: SIGKILL whatever is left.
      signalGroup(pid, "SIGKILL")
    }
    await swept
    await this.exited
    this.finish()
  }

  private finish(): void {
    if (this.child?.pid !== undefined) {
      // The leader is gone; its group may not be. A group outliving its leader is killed now.
      signalGroup(this.child.pid, "SIGKILL")
      liveGroups.delete(this.child.pid)
      void this.marker.stop(this.options.killGraceMs)
    }
    if (this.closed) return
    // Messages read before the end reach the SDK before it hears of the close.
    if (this.delivering) return void setImmediate(() => this.finish())
    this.closed = true
    this.onclose?.()
  }
}
