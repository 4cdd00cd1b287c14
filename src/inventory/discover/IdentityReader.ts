import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { Diagnostic, Identity } from "../domain/inventory.js"
import { looksSecret } from "../domain/secrets.js"
import { readHead } from "../../services/fileRead.js"
import type { MachineEnvironmentShape } from "../domain/machine.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"

/** The identity facts, the problems met while reading them, and what was looked at. */
export interface IdentityResult {
  readonly identity: Identity
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Every path examined, missing ones too (git's config files, the includes followed, `~/.ssh`): a change to one makes the identity stale. */
  readonly watched: ReadonlyArray<string>
}

/** Bytes of one git config file read at most; a larger file is read up to here. */
export const GITCONFIG_READ_CAP = 256 * 1024

/** Longest user.name/user.email kept; anything longer is not a name. */
export const GIT_VALUE_MAX_LENGTH = 256

/** git's own limit on nested `[include]`s (MAX_INCLUDE_DEPTH): one more and git refuses to start. */
export const GIT_MAX_INCLUDE_DEPTH = 10

/** Config files read at most, includes counted: a file that includes thousands is cut here. */
export const GIT_MAX_CONFIG_FILES = 64

/**
 * Reads git's `user.name`/`user.email` from the user's own git configuration (nothing else from
 * it) and the file NAMES in `~/.ssh` (never opened). Missing files are fine; every other problem
 * is a diagnostic. The values are those `git config --includes user.name` prints outside any
 * repository without the system file ({@link gitConfigFiles}, {@link parseGitConfig}).
 */
export class IdentityReader extends Context.Tag("tool-map/IdentityReader")<IdentityReader, {
  /** Never fails: unreadable inputs become nulls, empty lists and diagnostics. */
  readonly read: Effect.Effect<IdentityResult>
}>() {
  /** Over the platform FileSystem and the host's home directory. */
  static readonly layer: Layer.Layer<IdentityReader, never, MachineEnvironment | FileSystem.FileSystem> = Layer
    .effect(this, Effect.map(Effect.all([MachineEnvironment, FileSystem.FileSystem]), ([host, fs]) => make(host, fs)))

  /** A fixed result. */
  static readonly layerTest = (result: IdentityResult): Layer.Layer<IdentityReader> =>
    Layer.succeed(this, IdentityReader.of({ read: Effect.succeed(result) }))
}

/**
 * The files git reads as the user's own configuration, in the order it reads them (a later value
 * wins): `$GIT_CONFIG_GLOBAL` alone when it is set (even empty: then none), else
 * `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config` when unset or empty) and then
 * `~/.gitconfig`. Relative variables are relative to the working directory, as for git.
 * Checked against git 2.39.
 */
export const gitConfigFiles = (host: MachineEnvironmentShape): ReadonlyArray<string> => {
  const path = pathOf(host)
  const fromEnv = (value: string) => path.resolve(host.cwd, value)
  const global = host.env["GIT_CONFIG_GLOBAL"]
  if (global !== undefined) return global === "" ? [] : [fromEnv(global)]
  const xdg = host.env["XDG_CONFIG_HOME"]
  const xdgFile = xdg !== undefined && xdg !== "" ? path.join(fromEnv(xdg), "git", "config") : path.join(host.homedir, ".config", "git", "config")
  return [xdgFile, path.join(host.homedir, ".gitconfig")]
}

const pathOf = (host: MachineEnvironmentShape): NodePath.PlatformPath => (host.os === "win32" ? NodePath.win32 : NodePath.posix)

const SOURCE = "identity"

/** Why git refuses its configuration: it then starts no command, and there is no user name or email. */
class GitRefuses extends Schema.TaggedError<GitRefuses>()("GitRefuses", {
  path: Schema.String,
  line: Schema.NullOr(Schema.Number),
  reason: Schema.String
}) {}

/** The last user.name and user.email seen, with the file each came from. */
interface GitUserState {
  name: { readonly value: string; readonly path: string } | null
  email: { readonly value: string; readonly path: string } | null
}

const make = (host: MachineEnvironmentShape, fs: FileSystem.FileSystem) => {
  const path = pathOf(host)
  const sshPath = path.join(host.homedir, ".ssh")

  const diagnostic = (at: string, message: string, line: number | null = null) =>
    new Diagnostic({ source: SOURCE, path: at, line, message })

  /**
   * Reads one config file into `state`, following its `[include] path`s in place, as git does:
   * a missing file is nothing; a top-level file that cannot be read is skipped (git warns); an
   * include that is not a readable file, a malformed line, an include without a path, or an
   * existing include nested deeper than {@link GIT_MAX_INCLUDE_DEPTH} make git refuse to start (a
   * loop ends there too).
   */
  const readConfig = (
    file: string,
    depth: number,
    state: GitUserState,
    diagnostics: Array<Diagnostic>,
    budget: { files: number; readonly examined: Set<string> }
  ): Effect.Effect<void, GitRefuses> =>
    Effect.gen(function*() {
      const included = depth > 0
      budget.examined.add(file)
      const info = yield* Effect.either(fs.stat(file))
      if (info._tag === "Left") {
        if (isNotFound(info.left)) return
        if (included) return yield* new GitRefuses({ path: file, line: null, reason: `an include cannot be read (${reasonOf(info.left)})` })
        diagnostics.push(diagnostic(file, `cannot read: ${reasonOf(info.left)}`))
        return
      }
      // git counts the depth of an include it can access, before it reads it.
      if (depth > GIT_MAX_INCLUDE_DEPTH) {
        return yield* new GitRefuses({ path: file, line: null, reason: `includes nest deeper than ${GIT_MAX_INCLUDE_DEPTH} (a loop?)` })
      }
      if (info.right.type !== "File") {
        if (included) return yield* new GitRefuses({ path: file, line: null, reason: "an include is not a regular file" })
        diagnostics.push(diagnostic(file, "not a regular file; not read"))
        return
      }
      if (--budget.files < 0) {
        diagnostics.push(diagnostic(file, `more than ${GIT_MAX_CONFIG_FILES} config files; not read`))
        return
      }
      if (Number(info.right.size) > GITCONFIG_READ_CAP) {
        diagnostics.push(diagnostic(file, `larger than ${GITCONFIG_READ_CAP} bytes; only the start was read`))
      }
      // The shared bounded read checks the type again on the open file: the path may have become a FIFO since the stat.
      const read = yield* readHead(file, GITCONFIG_READ_CAP).pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.either)
      if (read._tag === "Left" || Option.isNone(read.right)) {
        const reason = read._tag === "Right" ? "it disappeared while it was read" : read.left._tag === "FileRefused" ? read.left.reason : reasonOf(read.left)
        if (included) return yield* new GitRefuses({ path: file, line: null, reason: `an include cannot be read (${reason})` })
        diagnostics.push(diagnostic(file, `cannot read: ${reason}`))
        return
      }
      const parsed = parseGitConfig(new TextDecoder("utf-8").decode(read.right.value))
      if (parsed.malformedLines.length > 0) {
        for (const line of parsed.malformedLines.slice(0, MAX_LINE_DIAGNOSTICS)) {
          diagnostics.push(diagnostic(file, "malformed line; git itself would reject this file", line))
        }
        if (parsed.malformedLines.length > MAX_LINE_DIAGNOSTICS) {
          diagnostics.push(diagnostic(file, `and ${parsed.malformedLines.length - MAX_LINE_DIAGNOSTICS} more malformed lines`))
        }
        return yield* new GitRefuses({ path: file, line: parsed.malformedLines[0]!, reason: "a malformed line" })
      }
      for (const entry of parsed.entries) {
        if (entry.kind === "user") {
          state[entry.key] = entry.value === "" ? null : { value: entry.value, path: file }
          continue
        }
        if (entry.path === "") return yield* new GitRefuses({ path: file, line: entry.line, reason: "`include.path` has no value" })
        const target = includeTarget(entry.path, file)
        if (target === null) {
          diagnostics.push(diagnostic(file, "an include of another user's home (`~user/`) is not followed", entry.line))
          continue
        }
        yield* readConfig(target, depth + 1, state, diagnostics, budget)
      }
    })

  /** Where an `include.path` points: `~` and `~/` are the home, a relative path is relative to the including file. */
  const includeTarget = (value: string, from: string): string | null => {
    if (value === "~" || value.startsWith("~/")) return path.join(host.homedir, value.slice(1))
    if (value.startsWith("~")) return null
    return path.isAbsolute(value) ? value : path.join(path.dirname(from), value)
  }

  const readGitUser = Effect.gen(function*() {
    const diagnostics: Array<Diagnostic> = []
    const state: GitUserState = { name: null, email: null }
    const budget = { files: GIT_MAX_CONFIG_FILES, examined: new Set<string>() }
    const refused = yield* Effect.either(Effect.forEach(gitConfigFiles(host), (file) => readConfig(file, 0, state, diagnostics, budget), { discard: true }))
    const examined = [...budget.examined]
    if (refused._tag === "Left") {
      const { path: at, line, reason } = refused.left
      diagnostics.push(diagnostic(at, `git rejects its configuration (${reason}): no user name or email`, line))
      return { name: null, email: null, diagnostics, examined }
    }
    const keep = (key: "name" | "email"): string | null => {
      const found = state[key]
      if (found === null) return null
      if (looksSecret(found.value)) {
        diagnostics.push(diagnostic(found.path, `user.${key} looks like a secret; not recorded`))
        return null
      }
      if (found.value.length > GIT_VALUE_MAX_LENGTH || /[\x00-\x1f\x7f]/.test(found.value)) {
        diagnostics.push(diagnostic(found.path, `user.${key} is not a plausible ${key}; not recorded`))
        return null
      }
      return found.value
    }
    return { name: keep("name"), email: keep("email"), diagnostics, examined }
  })

  const readSshNames = fs.readDirectory(sshPath).pipe(
    Effect.map((names) => {
      const secretLooking = names.filter(looksSecret)
      return {
        names: names.filter((name) => !looksSecret(name)).sort(),
        diagnostics: secretLooking.length === 0
          ? []
          : [diagnostic(sshPath, `${secretLooking.length} file name(s) look like secrets; not recorded`)]
      }
    }),
    Effect.catchAll((error) =>
      Effect.succeed({
        names: [],
        diagnostics: isNotFound(error) ? [] : [diagnostic(sshPath, `cannot list: ${reasonOf(error)}`)]
      })
    )
  )

  return IdentityReader.of({
    read: Effect.all([readGitUser, readSshNames], { concurrency: 2 }).pipe(
      Effect.map(([git, ssh]) => ({
        identity: new Identity({ gitUserName: git.name, gitUserEmail: git.email, sshFiles: ssh.names }),
        diagnostics: [...git.diagnostics, ...ssh.diagnostics],
        watched: [...git.examined, sshPath]
      })),
      Effect.withSpan("IdentityReader.read")
    )
  })
}

const MAX_LINE_DIAGNOSTICS = 5

const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

const reasonOf = (error: PlatformError): string => error._tag === "SystemError" ? error.reason : "bad argument"

/** A statement of a git config file that identity needs, in file order. */
export type GitConfigEntry =
  /** `user.name`/`user.email`; a bare key (git's boolean true) or an empty value is "". */
  | { readonly kind: "user"; readonly key: "name" | "email"; readonly value: string; readonly line: number }
  /** `[include] path`; "" when it has no value (git refuses that). */
  | { readonly kind: "include"; readonly path: string; readonly line: number }

/** What {@link parseGitConfig} found in one file. */
export interface GitConfigText {
  readonly entries: ReadonlyArray<GitConfigEntry>
  /** Lines git rejects (`bad config line N`): with any, git refuses the whole configuration. */
  readonly malformedLines: ReadonlyArray<number>
}

const ESCAPES: Readonly<Record<string, string>> = { "\"": "\"", "\\": "\\", n: "\n", t: "\t", b: "\b" }

/**
 * Reads `user.name`, `user.email` and `include.path` from git-config text, following git's
 * syntax: sections and keys case-insensitive, `[section] key = v` on one line, quotes, escapes,
 * `#`/`;` comments, backslash continuations. Every other section and key is skipped without
 * being kept, so a `[url "https://user:token@host"]` never reaches the result; `[includeIf …]`
 * is skipped too (its conditions need a repository). Checked against git 2.39.
 */
export const parseGitConfig = (input: string): GitConfigText => {
  const text = input.replace(/^\uFEFF/, "")
  const malformed = new Set<number>()
  const entries: Array<GitConfigEntry> = []
  let pos = 0
  let line = 1
  let section: string | null = null

  const atEnd = () => pos >= text.length
  const skipToEndOfLine = () => {
    while (!atEnd() && text[pos] !== "\n") pos++
  }
  const skipBlanks = () => {
    while (!atEnd() && (text[pos] === " " || text[pos] === "\t" || text[pos] === "\r")) pos++
  }

  // The value after `=`, or null when it is malformed (the rest of the line is skipped).
  const readValue = (): string | null => {
    skipBlanks()
    let value = ""
    let pendingBlanks = ""
    let quoted = false
    while (!atEnd()) {
      const char = text[pos]!
      if (char === "\n" || (char === "\r" && text[pos + 1] === "\n")) {
        if (quoted) return null
        break
      }
      if (!quoted && (char === "#" || char === ";")) {
        skipToEndOfLine()
        break
      }
      if (char === "\\") {
        const next = text[pos + 1]
        if (next === "\n" || (next === "\r" && text[pos + 2] === "\n")) {
          pos += next === "\n" ? 2 : 3
          line++
          continue
        }
        const escaped = next === undefined ? undefined : ESCAPES[next]
        if (escaped === undefined) return null
        value += pendingBlanks + escaped
        pendingBlanks = ""
        pos += 2
        continue
      }
      pos++
      if (char === "\"") {
        quoted = !quoted
        value += pendingBlanks
        pendingBlanks = ""
      } else if (!quoted && (char === " " || char === "\t" || char === "\r")) {
        // Like git: each unquoted blank inside a value becomes one space; trailing ones are dropped.
        pendingBlanks += " "
      } else {
        value += pendingBlanks + char
        pendingBlanks = ""
      }
    }
    return quoted ? null : value
  }

  // The statement a `key = value` of the current section makes, if identity needs it.
  const entryOf = (key: string, value: string, at: number): GitConfigEntry | null => {
    const lowered = key.toLowerCase()
    if (section === "user" && (lowered === "name" || lowered === "email")) return { kind: "user", key: lowered, value: value.trim(), line: at }
    if (section === "include" && lowered === "path") return { kind: "include", path: value, line: at }
    return null
  }

  while (!atEnd()) {
    const char = text[pos]!
    if (char === "\n") {
      pos++
      line++
      continue
    }
    if (char === " " || char === "\t" || char === "\r") {
      pos++
      continue
    }
    if (char === "#" || char === ";") {
      skipToEndOfLine()
      continue
    }
    if (char === "[") {
      const close = text.indexOf("]", pos)
      const newline = text.indexOf("\n", pos)
      if (close === -1 || (newline !== -1 && newline < close)) {
        malformed.add(line)
        section = null
        skipToEndOfLine()
        continue
      }
      // git takes no blank right inside the brackets, only before a quoted subsection.
      const header = /^([A-Za-z0-9.-]+)(\s+"(?:[^"\\\n]|\\.)*")?$/.exec(text.slice(pos + 1, close))
      if (header === null) malformed.add(line)
      // `[user "x"]` and `[user.x]` are other sections (user.x.name), not `[user]`.
      section = header === null || header[2] !== undefined ? null : header[1]!.toLowerCase()
      pos = close + 1
      continue
    }
    const key = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(pos, pos + 128))?.[0]
    if (key === undefined) {
      malformed.add(line)
      skipToEndOfLine()
      continue
    }
    const keyLine = line
    pos += key.length
    skipBlanks()
    if (atEnd() || text[pos] === "\n" || text[pos] === "#" || text[pos] === ";") {
      // A bare key is boolean true in git: no name, and an include without a path.
      const entry = entryOf(key, "", keyLine)
      if (entry !== null) entries.push(entry)
      skipToEndOfLine()
      continue
    }
    if (text[pos] !== "=") {
      malformed.add(keyLine)
      skipToEndOfLine()
      continue
    }
    pos++
    const value = readValue()
    if (value === null) {
      malformed.add(keyLine)
      skipToEndOfLine()
      continue
    }
    const entry = entryOf(key, value, keyLine)
    if (entry !== null) entries.push(entry)
  }
  return { entries, malformedLines: [...malformed].sort((a, b) => a - b) }
}

/** What {@link parseGitUser} found: the last `user.name`/`user.email` of one file and its malformed lines. */
export interface GitUser {
  readonly name: string | null
  readonly email: string | null
  readonly malformedLines: ReadonlyArray<number>
}

/** The last `user.name` and `user.email` of one file's text (includes not followed); empty values are null. */
export const parseGitUser = (input: string): GitUser => {
  const { entries, malformedLines } = parseGitConfig(input)
  const last = (key: "name" | "email") => {
    const found = entries.filter((entry) => entry.kind === "user" && entry.key === key).at(-1)
    return found?.kind === "user" && found.value !== "" ? found.value : null
  }
  return { name: last("name"), email: last("email"), malformedLines }
}
