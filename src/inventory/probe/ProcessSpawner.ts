import { Context, Deferred, Duration, Effect, Either, Layer, Schema, type Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { Readable } from "node:stream"
import { processStartTicks } from "../../services/processIdentity.js"

/** What to run: an absolute program path and its argv, never a shell line. */
export interface SpawnRequest {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /**
   * The child's environment: nothing is inherited from the parent. On Linux the spawner adds
   * one variable of its own, {@link SPAWN_MARKER_VARIABLE}.
   */
  readonly env: Readonly<Record<string, string>>
  /** Windows only: the args are already quoted for `cmd.exe` and must be passed through as-is. */
  readonly windowsVerbatimArguments: boolean
  /** Bytes kept per stream; reading stops there and the stream is closed. */
  readonly outputCap: number
}

/** The text read from one stream, up to the cap. */
export interface CapturedOutput {
  readonly text: string
  readonly truncated: boolean
}

/** How the process ended: an exit code, or the signal that ended it. */
export interface ProcessExit {
  readonly code: number | null
  readonly signal: string | null
}

/** A started process, alive for the scope that spawned it. */
export interface SpawnedProcess {
  readonly pid: number
  /** Completes when the process itself has exited (its children may live on). */
  readonly exit: Effect.Effect<ProcessExit>
  /** Completes when stdout and stderr are both closed: EOF, the cap reached, or an error. */
  readonly outputClosed: Effect.Effect<void>
  /** What has been read so far from each stream. */
  readonly output: Effect.Effect<{ readonly stdout: CapturedOutput; readonly stderr: CapturedOutput }>
}

/** The program could not be started (no such file, not executable, bad argument…). */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  command: Schema.String,
  /** The errno code (ENOENT, EACCES…) when there is one. */
  code: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  get message() {
    return `Cannot start ${this.command}: ${this.reason}`
  }
}

/**
 * The port through which every child process is started. The live adapter uses
 * `child_process.spawn` directly: the platform `CommandExecutor` cannot close stdin (only
 * "pipe" or "inherit"), cannot pass `windowsVerbatimArguments`, and its finalizer sends
 * SIGTERM and then waits, which hangs on a child that traps SIGTERM.
 */
export class ProcessSpawner extends Context.Tag("tool-map/ProcessSpawner")<ProcessSpawner, {
  /**
   * Starts the process in its own process group, stdin on the null device, stdout and stderr
   * captured up to the cap. Closing the scope kills the whole group with SIGKILL, whether the
   * process is still running or has exited and left children behind. On Linux, when something
   * may have been left behind (a live group member, output still open or cut at the cap), it
   * also kills this user's processes started since the child whose environment carries the
   * child's marker: descendants that left the group (`setsid`).
   */
  readonly spawn: (request: SpawnRequest) => Effect.Effect<SpawnedProcess, SpawnFailed, Scope.Scope>
}>() {
  /** The live adapter over Node's `child_process`. */
  static readonly layer = Layer.sync(this, () => ProcessSpawner.of({ spawn: spawnNode }))

  /** The live adapter, recording every request in `calls` (tests assert on argv, env, count). */
  static readonly layerRecording = (calls: Array<SpawnRequest>) =>
    Layer.sync(this, () =>
      ProcessSpawner.of({
        spawn: (request) => Effect.suspend(() => {
          calls.push(request)
          return spawnNode(request)
        })
      }))
}

/** How long the release waits for the killed process to be reaped before giving up on it. */
const REAP_WAIT = Duration.millis(500)

/**
 * The variable that marks a child and everything it starts (environments are inherited), so
 * that descendants which left the process group can still be found in `/proc`. Its value is
 * random per child: no other process carries it by chance.
 */
export const SPAWN_MARKER_VARIABLE = "TOOL_MAP_SPAWN_MARKER"

/** How a Linux child's descendants are found again: its marker, and when the child started. */
export interface SpawnTrace {
  /** `SPAWN_MARKER_VARIABLE=<value>`, as it appears in an environment block. */
  readonly marker: string
  /** The child's start time in clock ticks since boot (`/proc/<pid>/stat`); 0 when unknown. */
  readonly startTicks: number
}

interface LiveChild {
  readonly child: ChildProcess.ChildProcess
  readonly pid: number
  /** Linux only. */
  readonly trace: SpawnTrace | null
  readonly stdout: () => CapturedOutput
  readonly stderr: () => CapturedOutput
}

const spawnNode = (request: SpawnRequest): Effect.Effect<SpawnedProcess, SpawnFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const exited = yield* Deferred.make<ProcessExit>()
    const stdoutClosed = yield* Deferred.make<void>()
    const stderrClosed = yield* Deferred.make<void>()
    const live = yield* Effect.acquireRelease(
      startChild(request, exited, stdoutClosed, stderrClosed),
      (started) => killAndReap(started, request, exited)
    )
    return {
      pid: live.pid,
      exit: Deferred.await(exited),
      outputClosed: Effect.asVoid(Effect.all([Deferred.await(stdoutClosed), Deferred.await(stderrClosed)])),
      output: Effect.sync(() => ({ stdout: live.stdout(), stderr: live.stderr() }))
    }
  })

const startChild = (
  request: SpawnRequest,
  exited: Deferred.Deferred<ProcessExit>,
  stdoutClosed: Deferred.Deferred<void>,
  stderrClosed: Deferred.Deferred<void>
) =>
  Effect.async<LiveChild, SpawnFailed>((resume) => {
    const markerValue = process.platform === "linux" ? NodeCrypto.randomBytes(12).toString("hex") : null
    const created = Either.try({
      try: () =>
        ChildProcess.spawn(request.command, [...request.args], {
          // "ignore" opens the null device: a probe that reads stdin sees EOF at once.
          stdio: ["ignore", "pipe", "pipe"],
          env: markerValue === null ? { ...request.env } : { ...request.env, [SPAWN_MARKER_VARIABLE]: markerValue },
          shell: false,
          // Its own process group (POSIX), so the whole group can be killed with one signal.
          detached: process.platform !== "win32",
          windowsHide: true,
          windowsVerbatimArguments: request.windowsVerbatimArguments
        }),
      catch: (error) => error
    })
    if (Either.isLeft(created)) {
      resume(Effect.fail(toSpawnFailed(request.command, created.left)))
      return
    }
    const child = created.right
    let started = false
    const stdout = capture(child.stdout, request.outputCap, stdoutClosed)
    const stderr = capture(child.stderr, request.outputCap, stderrClosed)
    child.on("exit", (code, signal) => {
      Deferred.unsafeDone(exited, Effect.succeed({ code, signal }))
    })
    // Errors after the start (a failed kill) are ignored: the release kills by group anyway.
    child.on("error", (error) => {
      if (!started) resume(Effect.fail(toSpawnFailed(request.command, error)))
    })
    child.once("spawn", () => {
      started = true
      const pid = child.pid
      // Without a pid there is no group to kill later; never let a bogus one reach kill(-pid).
      if (pid === undefined || pid <= 1) {
        child.kill("SIGKILL")
        resume(Effect.fail(new SpawnFailed({ command: request.command, code: null, reason: "started without a pid" })))
        return
      }
      // Read now, while the child cannot have been reaped: its pid still names it.
      const trace = markerValue === null
        ? null
        : { marker: `${SPAWN_MARKER_VARIABLE}=${markerValue}`, startTicks: processStartTicks(pid) ?? 0 }
      resume(Effect.succeed({ child, pid, trace, stdout, stderr }))
    })
  })

/** Collects a stream up to `cap` bytes, then destroys it so a chatty writer neither blocks nor fills memory. */
const capture = (
  stream: Readable | null,
  cap: number,
  closed: Deferred.Deferred<void>
): () => CapturedOutput => {
  const finish = () => Deferred.unsafeDone(closed, Effect.void)
  if (stream === null) {
    finish()
    return () => ({ text: "", truncated: false })
  }
  const chunks: Array<Buffer> = []
  let size = 0
  let truncated = false
  stream.on("data", (chunk: Buffer) => {
    const room = cap - size
    if (chunk.length <= room) {
      chunks.push(chunk)
      size += chunk.length
      return
    }
    if (room > 0) chunks.push(chunk.subarray(0, room))
    size = cap
    truncated = true
    // The writer now gets EPIPE/SIGPIPE instead of waiting for a reader that will never come.
    stream.destroy()
    finish()
  })
  stream.once("end", finish)
  stream.once("close", finish)
  stream.once("error", finish)
  return () => ({ text: Buffer.concat(chunks).toString("utf8"), truncated })
}

const killAndReap = (
  live: LiveChild,
  request: SpawnRequest,
  exited: Deferred.Deferred<ProcessExit>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (process.platform === "win32") {
      yield* Effect.timeoutOption(Effect.interruptible(killWindowsTree(live, request.env)), REAP_WAIT)
    } else {
      // A stream cut at the cap was closed by us, not by its writers, who may still live.
      const outputHeld = isOpen(live.child.stdout) || isOpen(live.child.stderr) || live.stdout().truncated || live.stderr().truncated
      const groupHadMembers = yield* killPosixGroup(live)
      const trace = live.trace
      if (trace !== null && (groupHadMembers || outputHeld)) yield* Effect.sync(() => killMarked(trace))
    }
    live.child.stdout?.destroy()
    live.child.stderr?.destroy()
    // Finalizers are uninterruptible: without `interruptible` the timeout could not cut the wait.
    yield* Effect.timeoutOption(Effect.interruptible(Deferred.await(exited)), REAP_WAIT)
  })

const isOpen = (stream: Readable | null): boolean => stream !== null && !stream.readableEnded && !stream.destroyed

// SIGKILL to the group even when the leader has exited: a forked daemon may still hold the pipes.
// ESRCH (the group is already empty) is the normal case and is ignored. The group id cannot be
// reused while any member lives; it is sent within milliseconds of the leader's exit.
/** Whether the group may still have had members: anything but ESRCH (EPERM: another user's). */
const killPosixGroup = (live: LiveChild): Effect.Effect<boolean> =>
  Effect.sync(() => {
    const group = Either.try({ try: () => process.kill(-live.pid, "SIGKILL"), catch: (error) => error as NodeJS.ErrnoException })
    if (Either.isLeft(group) && live.child.exitCode === null && live.child.signalCode === null) {
      live.child.kill("SIGKILL")
    }
    return Either.isRight(group) || group.left.code !== "ESRCH"
  })

/** Passes over `/proc`: a process may start another between a pass's read and its kill. */
const MARKED_SWEEPS = 3

/**
 * SIGKILLs every process started no earlier than the traced child whose initial environment
 * holds its marker, until a pass finds no new one; returns their pids. Linux only. Another
 * user's environment is unreadable (unless tool-map runs as root), and a process gone
 * meanwhile, or unreadable, is skipped.
 * The start time is read first from `stat`, which does not touch the process's memory (reading
 * `environ` does, and can hang on a process stuck in a page fault): most are never opened.
 */
export const killMarked = (trace: SpawnTrace): ReadonlyArray<number> => {
  const entry = Buffer.from(`${trace.marker}\0`)
  const signalled = new Set<number>()
  for (let pass = 0; pass < MARKED_SWEEPS; pass++) {
    const names = Either.try(() => NodeFs.readdirSync("/proc"))
    if (Either.isLeft(names)) break
    let found = 0
    for (const name of names.right) {
      const pid = Number(name)
      if (!/^[0-9]+$/.test(name) || pid === process.pid || signalled.has(pid)) continue
      const started = processStartTicks(pid)
      if (started === null || started < trace.startTicks) continue
      const environ = Either.try(() => NodeFs.readFileSync(`/proc/${name}/environ`))
      if (Either.isLeft(environ) || !holdsEntry(environ.right, entry)) continue
      found++
      if (Either.isRight(Either.try(() => process.kill(pid, "SIGKILL")))) signalled.add(pid)
    }
    if (found === 0) break
  }
  return [...signalled]
}

/** Whether a NUL-separated environment block holds `entry` (which ends in NUL) as a whole variable. */
const holdsEntry = (environ: Buffer, entry: Buffer): boolean => {
  for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true
  }
  return false
}

// Windows has no process groups for console children: taskkill /T walks the tree from the pid.
// It is started by absolute path from SystemRoot, like every other program here.
const killWindowsTree = (live: LiveChild, env: Readonly<Record<string, string>>): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const systemRoot = Object.entries(env).find(([key]) => key.toLowerCase() === "systemroot")?.[1]
    let done = false
    const finish = () => {
      if (done) return
      done = true
      live.child.kill("SIGKILL")
      resume(Effect.void)
    }
    if (systemRoot === undefined) return finish()
    const killer = Either.try(() =>
      ChildProcess.spawn(
        NodePath.win32.join(systemRoot, "System32", "taskkill.exe"),
        ["/T", "/F", "/PID", String(live.pid)],
        { stdio: "ignore", windowsHide: true, shell: false, env: { ...env } }
      )
    )
    if (Either.isLeft(killer)) return finish()
    killer.right.once("error", finish)
    killer.right.once("exit", finish)
  })

const toSpawnFailed = (command: string, error: unknown): SpawnFailed => {
  const code = hasCode(error) ? error.code : null
  const reason = error instanceof Error ? error.message : String(error)
  return new SpawnFailed({ command, code, reason })
}

const hasCode = (error: unknown): error is { readonly code: string } =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
