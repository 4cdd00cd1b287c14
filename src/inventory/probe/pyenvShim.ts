import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import * as NodePath from "node:path"
import type { MachineEnvironmentShape } from "../domain/machine.js"
import { readSmallFile } from "./versionSources.js"

// A pyenv shim (`~/.pyenv/shims/python`) is a bash script that runs pyenv, which runs a dozen
// more bash scripts to pick the interpreter: about 250 ms of CPU and a hundred processes per
// probe. The choice is written in files, so it can be read the way pyenv reads it, then the
// chosen interpreter probed directly. Only the plain cases are read: anything pyenv would treat
// specially (a version prefix to resolve, "system", a hook that can change the choice, a shim
// or a version file not in pyenv's own shape) is none, and the shim is run as before. Nothing
// here executes or evaluates what it reads.
//
// The probe's environment has no PYENV_* variable (see `sanitizeEnv`), so neither has this
// reading: no PYENV_VERSION, PYENV_DIR is the working directory, PYENV_HOOK_PATH pyenv's default.

/** The interpreter a shim would run, and where the choice came from. */
export interface ShimTarget {
  readonly command: string
  readonly detail: string
}

/** pyenv reads each line of a version file with `read -n 1024`: longer lines are not read here. */
const MAX_VERSION_LINE = 1024
/** A version name that neither pyenv's word splitting nor its globbing can change. */
const PLAIN_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/
/** The hook directories pyenv adds after PYENV_ROOT's own (libexec/pyenv, in this order). */
const SYSTEM_HOOK_DIRS = ["/usr/etc/pyenv.d", "/usr/local/etc/pyenv.d", "/etc/pyenv.d", "/usr/lib/pyenv/hooks"]
/**
 * The first statement of a `which` hook that changes nothing when the version's own command was
 * found (pyenv-virtualenv's three hooks all start so).
 */
const GUARD_COMMAND_MISSING = /^if \[ ! -x "\$\{PYENV_COMMAND_PATH\}" \](?: && .*)?; then$/

/** Whether `path` is a file or a directory (links followed, as bash's -f and -d); missing is false. */
const isKind = (fs: FileSystem.FileSystem, path: string, kind: "File" | "Directory") =>
  fs.stat(path).pipe(
    Effect.map((info) => info.type === kind),
    Effect.catchTag("SystemError", (error) =>
      error.reason === "NotFound" || errorCode(error.cause) === "ENOTDIR" ? Effect.succeed(false) : Effect.fail(error))
  )

const errorCode = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

/** PYENV_ROOT as the shim states it, when the file is exactly pyenv's shim for its own folder. */
export const shimRoot = (text: string, shimPath: string): string | null => {
  const lines = text.split("\n").filter((line) => line.trim() !== "")
  const root = /^export PYENV_ROOT="(\/[^"$`\\\n]*)"$/.exec(lines.find((line) => line.startsWith("export PYENV_ROOT=")) ?? "")?.[1]
  if (root === undefined || root.endsWith("/")) return null
  const expected = [
    "#!/usr/bin/env bash",
    "set -e",
    `[ -n "$PYENV_DEBUG" ] && set -x`,
    `program="\${0##*/}"`,
    `export PYENV_ROOT="${root}"`,
    // pyenv 2.4+: a shim run from a copy elsewhere tells pyenv to skip that folder.
    "SHIM_PATH=${0%/*}",
    `if [[ $SHIM_PATH != "${root}/shims" ]]; then`,
    `  export _PYENV_SHIM_PATH="$SHIM_PATH"`,
    "fi",
    `exec "${root}/libexec/pyenv" exec "$program" "$@"`
  ]
  const older = expected.filter((_, index) => index < 5 || index === expected.length - 1)
  const same = (shape: ReadonlyArray<string>) => shape.length === lines.length && shape.every((line, index) => line === lines[index])
  if (!same(expected) && !same(older)) return null
  return NodePath.posix.dirname(shimPath) === `${root}/shims` ? root : null
}

/** The versions a version file names, as pyenv-version-file-read joins them; null when not plain. */
export const versionFileNames = (text: string): ReadonlyArray<string> | null => {
  const names: Array<string> = []
  for (const line of text.split("\n")) {
    if (line.length > MAX_VERSION_LINE) return null
    const word = line.split(/[ \t\r]+/).find((part) => part !== "")
    if (word === undefined || word.startsWith("#")) continue
    if (!PLAIN_VERSION.test(word)) return null
    names.push(word)
  }
  return names
}

/**
 * Whether a hook file cannot change the command pyenv found: for `which`, one whose code is a
 * single `if` guarded by "the command was not found"; for `exec`, only pyenv's own pip hook,
 * which redirects pip and nothing else (unless a file of the program's name sits in its folder).
 */
const isInertHook = (
  fs: FileSystem.FileSystem,
  root: string,
  command: "which" | "exec",
  hook: string,
  program: string
) =>
  Effect.gen(function*() {
    if (command === "exec") {
      if (hook !== `${root}/pyenv.d/exec/pip-rehash.bash` || /^(?:pip|easy_install)/.test(program)) return false
      return !(yield* fs.exists(`${root}/pyenv.d/exec/pip-rehash/${program}`))
    }
    const text = yield* readSmallFile(fs, hook)
    if (Option.isNone(text)) return false
    const code = text.value.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"))
    if (code.length < 2 || !GUARD_COMMAND_MISSING.test(code[0]!) || code[code.length - 1] !== "fi") return false
    // The first `if` must close on the last line: count block openings and `fi`s line by line.
    let depth = 0
    for (const [index, line] of code.entries()) {
      if (/^(?:if|case|while|until|for)\b/.test(line)) depth += line.startsWith("case") ? 0 : 1
      if (line === "fi" || line === "done" || line.startsWith("fi ") || line.startsWith("done ")) depth -= 1
      if (depth <= 0 && index < code.length - 1) return false
    }
    return depth === 0
  })

/** The `*.bash` files of every hook directory for `command`, as pyenv-hooks lists them. */
const hookFiles = (fs: FileSystem.FileSystem, root: string, command: string) =>
  Effect.gen(function*() {
    const plugins = (yield* isKind(fs, `${root}/plugins`, "Directory"))
      ? (yield* fs.readDirectory(`${root}/plugins`)).filter((plugin) => !plugin.startsWith(".")).map((plugin) =>
        `${root}/plugins/${plugin}/etc/pyenv.d`
      )
      : []
    const files: Array<string> = []
    for (const dir of [`${root}/pyenv.d`, ...SYSTEM_HOOK_DIRS, ...plugins]) {
      const folder = `${dir}/${command}`
      if (!(yield* isKind(fs, folder, "Directory"))) continue
      for (const name of yield* fs.readDirectory(folder)) if (name.endsWith(".bash")) files.push(`${folder}/${name}`)
    }
    return files
  })

/**
 * The version files pyenv looks for from `cwd`, in its order: `.python-version` in `cwd` and
 * each folder above it (pyenv-version-file climbs with ${root%/*} until the empty string, so
 * `/.python-version` counts), then PYENV_ROOT's `version`.
 */
const versionFileCandidates = (root: string, cwd: string): ReadonlyArray<string> => {
  const candidates: Array<string> = []
  let dir = cwd.replace(/\/+$/, "")
  for (;;) {
    candidates.push(`${dir}/.python-version`)
    if (dir === "") break
    dir = dir.slice(0, dir.lastIndexOf("/"))
  }
  return [...candidates, `${root}/version`]
}

/** The version file pyenv would read from `cwd`: the nearest `.python-version`, else PYENV_ROOT's. */
const versionFile = (fs: FileSystem.FileSystem, root: string, cwd: string) =>
  Effect.gen(function*() {
    const candidates = versionFileCandidates(root, cwd)
    for (const candidate of candidates.slice(0, -1)) {
      if (yield* isKind(fs, candidate, "File")) return candidate
    }
    return candidates[candidates.length - 1]!
  })

/** PYENV_ROOT of the pyenv shim at `shimPath`, read from the shim; none for any other file. */
const rootOfShim = (fs: FileSystem.FileSystem, shimPath: string) =>
  NodePath.posix.basename(NodePath.posix.dirname(shimPath)) === "shims"
    ? Effect.map(readSmallFile(fs, shimPath), Option.flatMap((text) => Option.fromNullable(shimRoot(text, shimPath))))
    : Effect.succeedNone

/**
 * The files whose change can change what the pyenv shim at `shimPath` runs from the working
 * directory (every version file pyenv looks for), or none when it is no pyenv shim: a scan
 * watches them, so `scan --if-stale` sees a `pyenv global` or `pyenv local`.
 */
export const pyenvVersionFiles = (
  fs: FileSystem.FileSystem,
  host: MachineEnvironmentShape,
  shimPath: string
): Effect.Effect<ReadonlyArray<string>> =>
  host.os === "win32" || !NodePath.posix.isAbsolute(host.cwd)
    ? Effect.succeed([])
    : rootOfShim(fs, shimPath).pipe(
      Effect.map(Option.match({ onNone: () => [], onSome: (root) => versionFileCandidates(root, host.cwd) })),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )

/**
 * What the pyenv shim at `shimPath` would run in the probe's environment, or none when the shim,
 * pyenv's files or hooks are not plain enough to be sure (then the probe runs the shim itself).
 */
export const pyenvShimTarget = (
  fs: FileSystem.FileSystem,
  host: MachineEnvironmentShape,
  shimPath: string
): Effect.Effect<Option.Option<ShimTarget>> => {
  if (host.os === "win32" || !NodePath.posix.isAbsolute(host.cwd)) return Effect.succeedNone
  return Effect.gen(function*() {
    const found = yield* rootOfShim(fs, shimPath)
    if (Option.isNone(found)) return Option.none<ShimTarget>()
    const root = found.value
    const program = NodePath.posix.basename(shimPath)
    // pyenv's install prefix (its own hook dir) is PYENV_ROOT only when libexec/pyenv is no link.
    const launcher = `${root}/libexec/pyenv`
    if ((yield* fs.realPath(launcher)) !== NodePath.posix.join(yield* fs.realPath(`${root}/libexec`), "pyenv")) {
      return Option.none<ShimTarget>()
    }
    if ((yield* hookFiles(fs, root, "version-name")).length > 0) return Option.none<ShimTarget>()
    for (const command of ["which", "exec"] as const) {
      for (const hook of yield* hookFiles(fs, root, command)) {
        if (!(yield* isInertHook(fs, root, command, hook, program))) return Option.none<ShimTarget>()
      }
    }
    const file = yield* versionFile(fs, root, host.cwd)
    // A missing PYENV_ROOT/version fails the read: none, as for "system".
    const content = yield* readSmallFile(fs, file)
    const names = Option.isSome(content) ? versionFileNames(content.value) : null
    // An empty or missing file means "system": pyenv then searches PATH, which is not read here.
    if (names === null || names.length === 0 || names.includes("system")) return Option.none<ShimTarget>()
    for (const name of names) {
      // A name that is not an installed version pyenv resolves as a prefix (3.12 → 3.12.7).
      if (!(yield* isKind(fs, `${root}/versions/${name}`, "Directory"))) return Option.none<ShimTarget>()
    }
    for (const name of names) {
      const command = `${root}/versions/${name}/bin/${program}`
      const info = yield* fs.stat(command).pipe(Effect.option)
      if (Option.isSome(info) && info.value.type === "File" && (info.value.mode & 0o111) !== 0) {
        return Option.some({ command, detail: `pyenv's ${name} (${file}), run without the shim` })
      }
    }
    return Option.none<ShimTarget>()
  }).pipe(Effect.orElseSucceed(() => Option.none<ShimTarget>()))
}
