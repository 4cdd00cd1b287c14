import { FileSystem } from "@effect/platform"
import { Clock, Context, Duration, Effect, Either, Layer, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { VersionReport } from "../domain/inventory.js"
import { findProbeSpec, parseVersion, PROBE_TABLE, type ProbeSpec } from "../domain/probeTable.js"
import { looksSecret, redactSecrets } from "../domain/secrets.js"
import type { OsFamily } from "../domain/machine.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { ProcessSpawner, type SpawnFailed, type SpawnedProcess } from "./ProcessSpawner.js"
import { pyenvShimTarget } from "./pyenvShim.js"
import { readVersionSource } from "./versionSources.js"

/** A request to probe one program: its allow-listed name and the absolute path the walk resolved. */
export interface ProbeRequest {
  readonly name: string
  readonly path: string | null
  /**
   * When the caller's probing began (`Clock` milliseconds). The probes of one scan share it: each
   * must end by then plus the timeout, so probes started late (many at once on a loaded machine,
   * or after the walk) do not stretch the scan past one timeout; one that would start after that
   * is not started. Without it a probe gets the whole timeout from its spawn.
   */
  readonly since?: number
}

/** The name is not in the probe allowlist: nothing was spawned. */
export class ProbeRefused extends Schema.TaggedError<ProbeRefused>()("ProbeRefused", {
  name: Schema.String,
  path: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  get message() {
    return `Refused to probe ${this.name}: ${this.reason}`
  }
}

/** The probe did not exit within its timeout; its process group was killed. */
export class ProbeTimedOut extends Schema.TaggedError<ProbeTimedOut>()("ProbeTimedOut", {
  name: Schema.String,
  path: Schema.String,
  timeoutMs: Schema.Number
}) {
  get message() {
    return `${this.name} (${this.path}) did not exit within ${this.timeoutMs} ms; its process group was killed`
  }
}

/** The probing of the request's scan had used its timeout before this probe could start: nothing was spawned. */
export class ProbeDeadlinePassed extends Schema.TaggedError<ProbeDeadlinePassed>()("ProbeDeadlinePassed", {
  name: Schema.String,
  timeoutMs: Schema.Number
}) {}

/** Tunables of the probe runner; tests shorten the timeout. */
export interface VersionProbeOptions {
  /** Hard limit per probe, from spawn to exit (default 5 s). */
  readonly timeout?: Duration.DurationInput
  /** Bytes kept per output stream (default 8 KiB). */
  readonly outputCap?: number
  /** How long to wait for the pipes to close after the probe exited (default 200 ms). */
  readonly exitGrace?: Duration.DurationInput
  /** Probes run at once, across all calls of the service (default: twice the probe table's size, so a scan's probes never wait). */
  readonly concurrency?: number
}

/** Defaults of {@link VersionProbeOptions}. */
export const PROBE_DEFAULTS = {
  timeout: Duration.seconds(5),
  outputCap: 8 * 1024,
  exitGrace: Duration.millis(200)
} as const

/** Runs the allow-listed version probes; every outcome but a refused name is a report, never a failure. */
export class VersionProbe extends Context.Tag("tool-map/VersionProbe")<VersionProbe, {
  /** Probes one program; fails only with {@link ProbeRefused}, before anything is spawned. */
  readonly probe: (request: ProbeRequest) => Effect.Effect<VersionReport, ProbeRefused>
  /** Probes all; results in request order, refused names as status "refused". */
  readonly probeAll: (requests: ReadonlyArray<ProbeRequest>) => Effect.Effect<ReadonlyArray<VersionReport>>
}>() {
  /** With options, over a given {@link ProcessSpawner} (tests spy on or replace the spawner). */
  static readonly layerWithSpawner = (
    options: VersionProbeOptions = {}
  ): Layer.Layer<VersionProbe, never, MachineEnvironment | ProcessSpawner | FileSystem.FileSystem> =>
    Layer.effect(this, make(options))

  /** With options, over the live Node spawner. */
  static readonly layerWith = (
    options: VersionProbeOptions = {}
  ): Layer.Layer<VersionProbe, never, MachineEnvironment | FileSystem.FileSystem> =>
    VersionProbe.layerWithSpawner(options).pipe(Layer.provide(ProcessSpawner.layer))

  /** The live layer: 5 s timeout, 8 KiB per stream, every probe of a scan at once. */
  static readonly layer: Layer.Layer<VersionProbe, never, MachineEnvironment | FileSystem.FileSystem> = VersionProbe
    .layerWith()
}

// A function declaration: hoisted, because the static layers above call it at class definition.
function make(options: VersionProbeOptions) {
  return Effect.gen(function*() {
    const host = yield* MachineEnvironment
    const spawner = yield* ProcessSpawner
    const fs = yield* FileSystem.FileSystem
    const timeout = Duration.decode(options.timeout ?? PROBE_DEFAULTS.timeout)
    const exitGrace = Duration.decode(options.exitGrace ?? PROBE_DEFAULTS.exitGrace)
    const outputCap = options.outputCap ?? PROBE_DEFAULTS.outputCap
    // Every probe of a scan runs at once, so a scan ends within about one probe timeout whatever
    // the PATH holds (at 4 at a time, 27 hanging programs took 35 s). The cap is the table twice
    // over: an early probe the walk discards may still be dying while its replacement starts.
    const concurrency = Math.max(1, options.concurrency ?? PROBE_TABLE.length * 2)
    const env = sanitizeEnv(host.os, host.env)
    // One bound for the whole service: probes started by separate calls still share it.
    const permits = yield* Effect.makeSemaphore(concurrency)

    const report = (
      name: string,
      path: string | null,
      fields: Pick<VersionReport, "status" | "version" | "detail">,
      duration: Duration.Duration = Duration.zero
    ) =>
      new VersionReport({
        name,
        path,
        version: fields.version,
        status: fields.status,
        durationMs: Math.round(Duration.toMillis(duration)),
        detail: fields.detail === null ? null : redactSecrets(fields.detail)
      })

    const run = (spec: ProbeSpec, path: string, invocation: Invocation, since: number | undefined) =>
      Effect.scoped(
        Effect.gen(function*() {
          const allowedMs = since === undefined
            ? Duration.toMillis(timeout)
            : Math.min(Duration.toMillis(timeout), since + Duration.toMillis(timeout) - (yield* Clock.currentTimeMillis))
          if (allowedMs <= 0) return yield* new ProbeDeadlinePassed({ name: spec.name, timeoutMs: Duration.toMillis(timeout) })
          const child: SpawnedProcess = yield* spawner.spawn({
            command: invocation.command,
            args: invocation.args,
            env,
            windowsVerbatimArguments: invocation.windowsVerbatimArguments,
            outputCap
          })
          const exit = yield* child.exit.pipe(
            Effect.timeoutFail({
              duration: Duration.millis(allowedMs),
              onTimeout: () => new ProbeTimedOut({ name: spec.name, path, timeoutMs: allowedMs })
            })
          )
          // A forked daemon may keep the pipes open forever: the probe's own exit is what counts.
          const drained = yield* Effect.timeoutOption(child.outputClosed, exitGrace)
          const output = yield* child.output
          return { exit, output, heldOpen: Option.isNone(drained) }
        })
      )

    /** Runs the probe of `spec` as the file at `executable`: its outcome and how long it took. */
    const attempt = (spec: ProbeSpec, executable: string, since: number | undefined) => {
      const plan = planInvocation(host.os, host.env, executable, spec)
      if (Either.isLeft(plan)) {
        return Effect.succeed([Duration.zero, { status: "refused" as const, version: null, detail: plan.left }] as const)
      }
      return run(spec, executable, plan.right, since).pipe(
        Effect.map(({ exit, heldOpen, output }) => {
          const found = parseVersion(spec, { stdout: output.stdout.text, stderr: output.stderr.text })
          const version = found !== null && looksSecret(found) ? null : found
          const notes = [
            exit.code !== null && exit.code !== 0 ? `exited with code ${exit.code}` : null,
            exit.signal !== null ? `ended by ${exit.signal}` : null,
            version === null ? `no version found on ${streamLabel(spec)}` : null,
            heldOpen ? "a child kept the output open after exit; process group killed" : null,
            output.stdout.truncated || output.stderr.truncated ? `output cut at ${outputCap} bytes` : null
          ].filter((note): note is string => note !== null)
          return {
            status: version === null ? "error" as const : "ok" as const,
            version,
            detail: notes.length === 0 ? null : notes.join("; ")
          }
        }),
        Effect.catchTags({
          ProbeTimedOut: (timedOut) =>
            Effect.succeed({
              status: "timeout" as const,
              version: null,
              detail: `no exit within ${timedOut.timeoutMs} ms; process group killed`
            }),
          ProbeDeadlinePassed: (passed) =>
            Effect.succeed({ status: "timeout" as const, version: null, detail: `not started: the scan's probes had used their ${passed.timeoutMs} ms` }),
          SpawnFailed: (failed) => Effect.succeed(spawnFailure(failed))
        }),
        Effect.timed,
        permits.withPermits(1)
      )
    }

    const probe = Effect.fn("VersionProbe.probe")(function*(request: ProbeRequest) {
      const spec = findProbeSpec(request.name)
      if (spec === undefined) {
        return yield* new ProbeRefused({
          name: redactSecrets(request.name),
          path: request.path === null ? null : redactSecrets(request.path),
          reason: "not in the probe allowlist"
        })
      }
      const path = request.path
      if (path === null) {
        return report(spec.name, null, { status: "missing", version: null, detail: "not found on PATH or in the roots" })
      }
      const [readIn, stated] = yield* Effect.timed(readVersionSource(fs, host, spec, path))
      if (Option.isSome(stated)) {
        return report(spec.name, path, { status: "ok", ...stated.value }, readIn)
      }
      // A pyenv shim's choice read from its files: the interpreter is probed without the shim,
      // and the shim is still run when that gives no version (a hang would hang through it too).
      const shim = yield* pyenvShimTarget(fs, host, path)
      if (Option.isSome(shim)) {
        const [duration, fields] = yield* attempt(spec, shim.value.command, request.since)
        if (fields.status === "ok" || fields.status === "timeout") {
          return report(spec.name, path, { ...fields, detail: [shim.value.detail, fields.detail].filter((note) => note !== null).join("; ") }, duration)
        }
      }
      const [duration, fields] = yield* attempt(spec, path, request.since)
      return report(spec.name, path, fields, duration)
    })

    const probeAll = Effect.fn("VersionProbe.probeAll")(function*(requests: ReadonlyArray<ProbeRequest>) {
      return yield* Effect.forEach(
        requests,
        (request) =>
          probe(request).pipe(
            Effect.catchTag("ProbeRefused", (refused) =>
              Effect.succeed(report(refused.name, refused.path, {
                status: "refused",
                version: null,
                detail: refused.reason
              })))
          ),
        { concurrency: "unbounded" }
      )
    })

    return VersionProbe.of({ probe, probeAll })
  })
}

const streamLabel = (spec: ProbeSpec): string =>
  spec.stream === "either" ? "stdout or stderr" : spec.stream

const spawnFailure = (failed: SpawnFailed): Pick<VersionReport, "status" | "version" | "detail"> =>
  failed.code === "ENOENT"
    ? { status: "missing", version: null, detail: "the file or its interpreter does not exist (ENOENT)" }
    : { status: "error", version: null, detail: `could not start: ${failed.code ?? failed.reason}` }

const POSIX_ENV_ALLOWLIST: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TZ"
]

// What Windows programs need to start at all (SystemRoot, PATHEXT…) and to find the user's dirs.
const WINDOWS_ENV_ALLOWLIST: ReadonlyArray<string> = [
  "PATH",
  "PATHEXT",
  "SystemRoot",
  "SystemDrive",
  "windir",
  "COMSPEC",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "USERNAME",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "ProgramFiles(x86)",
  "ProgramW6432",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
  "OS",
  "LANG",
  "TERM"
]

/**
 * Set for every probe: a version probe must not reach the network (update checks, cluster queries,
 * installs of a pinned release by a version manager), write into a project, or color its output.
 */
export const PROBE_ENV_CONSTANTS: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  NO_UPDATE_NOTIFIER: "1",
  npm_config_update_notifier: "false",
  GH_NO_UPDATE_NOTIFIER: "1",
  // HashiCorp CLIs (terraform -version) otherwise ask checkpoint.hashicorp.com for updates.
  CHECKPOINT_DISABLE: "1",
  // gcloud's kubectl (a dispatcher) asks the current context's API server for its version before
  // it answers `version --client`: with the user's credentials, and up to 5 s on an unreachable
  // cluster. An empty kubeconfig (a missing one on Windows) leaves it no cluster to ask; upstream
  // kubectl reads none for `version --client`.
  KUBECONFIG: "/dev/null",
  // Corepack's pnpm and yarn shims download the package manager from the npm registry when it is
  // not in their cache (pnpm's latest, tens of MB, seconds), and older Corepacks pin it into the
  // working directory's package.json. Without network a cached one still answers.
  COREPACK_ENABLE_NETWORK: "0",
  COREPACK_ENABLE_AUTO_PIN: "0",
  // pnpm 10 in a project that pins another pnpm release installs that release before it answers
  // `--version` (from the registry, into HOME). Offline, an installed one still answers.
  npm_config_offline: "true",
  // A mise shim installs the version the working directory's config pins when it is missing.
  MISE_OFFLINE: "1"
}

/**
 * The probe environment: only allow-listed variables of the parent (plus `LC_*`), then the
 * constants. Anything else — NODE_OPTIONS, BASH_ENV, ENV, PYTHONSTARTUP, PERL5OPT, RUBYOPT,
 * GIT_CONFIG_* and every token — never reaches a probe. Windows names match case-insensitively.
 */
export const sanitizeEnv = (
  os: OsFamily,
  parent: Readonly<Record<string, string | undefined>>
): Readonly<Record<string, string>> => {
  const windows = os === "win32"
  const allowed = new Set((windows ? WINDOWS_ENV_ALLOWLIST : POSIX_ENV_ALLOWLIST).map((key) =>
    windows ? key.toUpperCase() : key
  ))
  const isAllowed = (key: string) => {
    const normalized = windows ? key.toUpperCase() : key
    return allowed.has(normalized) || normalized.startsWith("LC_")
  }
  const kept = Object.entries(parent).filter((entry): entry is [string, string] =>
    entry[1] !== undefined && !entry[1].includes("\0") && isAllowed(entry[0])
  )
  return { ...Object.fromEntries(kept), ...PROBE_ENV_CONSTANTS }
}

/** The exact program and argv to spawn for one probe. */
export interface Invocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly windowsVerbatimArguments: boolean
}

/**
 * Characters that refuse a batch shim's path. `%` and `!` expand even inside quotes (variables,
 * delayed expansion) and `"` flips cmd's quote state, so no quoting protects against them.
 * `& | < > ^ ( )` are operators outside quotes, and batch files reuse their own path unquoted
 * (`%~dp0`, `%0`) or inside `( … )` blocks, where these would split or end the command (the
 * BatBadBut class of bugs). Control characters, `*` and `?` cannot be in a Windows file name.
 */
export const CMD_METACHARACTERS = /[&|<>^%!"()*?\x00-\x1f]/

// cross-spawn's escaping (after https://qntm.org/cmd): caret before each of cmd's specials.
const CMD_SPECIALS = /([()\][%!^"`<>&|;, *?])/g
const NPM_CMD_SHIM = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i

/** A program path for cmd's command position: every special character caret-escaped. */
export const escapeCmdCommand = (command: string): string => command.replace(CMD_SPECIALS, "^$1")

/**
 * One argument for a program started by cmd: quoted for the C runtime's argv parser, then
 * caret-escaped for cmd; twice when cmd parses the line again (npm's `.cmd` shims forward `%*`).
 */
export const escapeCmdArgument = (arg: string, doubleEscape: boolean): string => {
  const quoted = `"${arg.replace(/(\\*)"/g, "$1$1\\\"").replace(/(\\*)$/, "$1$1")}"`
  const once = quoted.replace(CMD_SPECIALS, "^$1")
  return doubleEscape ? once.replace(CMD_SPECIALS, "^$1") : once
}

// Windows drops trailing dots and spaces from a file name: `npm.CMD. ` is `npm.CMD`.
const stripTrailingDotsAndSpaces = (path: string): string => path.replace(/[. ]+$/, "")

const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:\\|\\\\[^\\?.]+\\[^\\]+\\)/

const lookupEnv = (os: OsFamily, env: Readonly<Record<string, string | undefined>>, name: string) =>
  os === "win32"
    ? Object.entries(env).find(([key]) => key.toUpperCase() === name.toUpperCase())?.[1]
    : env[name]

/**
 * How to start the probe `spec` for the file at `resolvedPath` on `os`, or why it must not be
 * started. POSIX and Windows `.exe`/`.com`: the file itself with the table's argv. Windows
 * `.cmd`/`.bat` (by the resolved file, any case, trailing dots/spaces ignored): through
 * `%SystemRoot%\System32\cmd.exe /d /s /c "…"`, refused when the path holds a cmd metacharacter
 * or SystemRoot is unknown. Any other Windows extension is refused (CreateProcess cannot run it).
 */
export const planInvocation = (
  os: OsFamily,
  env: Readonly<Record<string, string | undefined>>,
  resolvedPath: string,
  spec: ProbeSpec
): Either.Either<Invocation, string> => {
  if (os !== "win32") {
    return NodePath.posix.isAbsolute(resolvedPath)
      ? Either.right({ command: resolvedPath, args: spec.args, windowsVerbatimArguments: false })
      : Either.left("path is not absolute")
  }
  if (!WINDOWS_ABSOLUTE.test(resolvedPath)) return Either.left("path is not absolute")
  const file = stripTrailingDotsAndSpaces(resolvedPath)
  const extension = NodePath.win32.extname(file).toLowerCase()
  if (extension === ".exe" || extension === ".com") {
    return Either.right({ command: resolvedPath, args: spec.args, windowsVerbatimArguments: false })
  }
  if (extension !== ".cmd" && extension !== ".bat") {
    return Either.left(`cannot start a ${extension === "" ? "file without extension" : `${extension} file`} directly`)
  }
  const metacharacter = CMD_METACHARACTERS.exec(file)?.[0]
  if (metacharacter !== undefined) {
    return Either.left(`batch file path holds the cmd metacharacter ${JSON.stringify(metacharacter)}`)
  }
  const systemRoot = lookupEnv(os, env, "SystemRoot")
  if (systemRoot === undefined || !/^[A-Za-z]:\\/.test(systemRoot) || CMD_METACHARACTERS.test(systemRoot)) {
    return Either.left("SystemRoot is not set to an absolute path; refusing to guess which cmd.exe to run")
  }
  const doubleEscape = NPM_CMD_SHIM.test(file)
  const line = [escapeCmdCommand(file), ...spec.args.map((arg) => escapeCmdArgument(arg, doubleEscape))].join(" ")
  return Either.right({
    command: NodePath.win32.join(systemRoot, "System32", "cmd.exe"),
    args: ["/d", "/s", "/c", `"${line}"`],
    windowsVerbatimArguments: true
  })
}
