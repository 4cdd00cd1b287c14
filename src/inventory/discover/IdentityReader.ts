import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { Diagnostic, Identity } from "../domain/inventory.js"
import { looksSecret } from "../domain/secrets.js"
import { readUpTo } from "../../services/fileRead.js"
import type { MachineEnvironmentShape } from "../domain/machine.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"

/** The identity facts and the problems met while reading them. */
export interface IdentityResult {
  readonly identity: Identity
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** Bytes of `~/.gitconfig` read at most; a larger file is read up to here. */
export const GITCONFIG_READ_CAP = 256 * 1024

/** Longest user.name/user.email kept; anything longer is not a name. */
export const GIT_VALUE_MAX_LENGTH = 256

/**
 * Reads git's `user.name`/`user.email` from `~/.gitconfig` (nothing else from it) and the file
 * NAMES in `~/.ssh` (never opened). Missing files are fine; every other problem is a diagnostic.
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

const SOURCE = "identity"

const make = (host: MachineEnvironmentShape, fs: FileSystem.FileSystem) => {
  const path = host.os === "win32" ? NodePath.win32 : NodePath.posix
  const gitconfigPath = path.join(host.homedir, ".gitconfig")
  const sshPath = path.join(host.homedir, ".ssh")

  const diagnostic = (at: string, message: string, line: number | null = null) =>
    new Diagnostic({ source: SOURCE, path: at, line, message })

  const readGitUser = Effect.gen(function*() {
    const diagnostics: Array<Diagnostic> = []
    const info = yield* fs.stat(gitconfigPath)
    if (info.type !== "File") {
      return { name: null, email: null, diagnostics: [diagnostic(gitconfigPath, "not a regular file; not read")] }
    }
    if (Number(info.size) > GITCONFIG_READ_CAP) {
      diagnostics.push(diagnostic(gitconfigPath, `larger than ${GITCONFIG_READ_CAP} bytes; only the start was read`))
    }
    const bytes = yield* Effect.scoped(
      Effect.flatMap(fs.open(gitconfigPath, { flag: "r" }), (file) => readUpTo(file, GITCONFIG_READ_CAP))
    )
    const parsed = parseGitUser(new TextDecoder("utf-8").decode(bytes))
    for (const line of parsed.malformedLines.slice(0, MAX_LINE_DIAGNOSTICS)) {
      diagnostics.push(diagnostic(gitconfigPath, "malformed line; git itself would reject this file", line))
    }
    if (parsed.malformedLines.length > MAX_LINE_DIAGNOSTICS) {
      const more = parsed.malformedLines.length - MAX_LINE_DIAGNOSTICS
      diagnostics.push(diagnostic(gitconfigPath, `and ${more} more malformed lines`))
    }
    const keep = (key: string, value: string | null): string | null => {
      if (value === null) return null
      if (looksSecret(value)) {
        diagnostics.push(diagnostic(gitconfigPath, `user.${key} looks like a secret; not recorded`))
        return null
      }
      if (value.length > GIT_VALUE_MAX_LENGTH || /[\x00-\x1f\x7f]/.test(value)) {
        diagnostics.push(diagnostic(gitconfigPath, `user.${key} is not a plausible ${key}; not recorded`))
        return null
      }
      return value
    }
    return { name: keep("name", parsed.name), email: keep("email", parsed.email), diagnostics }
  }).pipe(
    Effect.catchAll((error) =>
      Effect.succeed({
        name: null,
        email: null,
        diagnostics: isNotFound(error) ? [] : [diagnostic(gitconfigPath, `cannot read: ${reasonOf(error)}`)]
      })
    )
  )

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
        diagnostics: [...git.diagnostics, ...ssh.diagnostics]
      })),
      Effect.withSpan("IdentityReader.read")
    )
  })
}

const MAX_LINE_DIAGNOSTICS = 5

const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

const reasonOf = (error: PlatformError): string => error._tag === "SystemError" ? error.reason : "bad argument"

/** What {@link parseGitUser} found: the last `user.name`/`user.email` and the malformed lines. */
export interface GitUser {
  readonly name: string | null
  readonly email: string | null
  readonly malformedLines: ReadonlyArray<number>
}

const ESCAPES: Readonly<Record<string, string>> = { "\"": "\"", "\\": "\\", n: "\n", t: "\t", b: "\b" }

/**
 * Reads `user.name` and `user.email` from git-config text, following git's syntax: sections
 * and keys case-insensitive, `[section] key = v` on one line, quotes, escapes, `#`/`;`
 * comments, backslash continuations, last value wins. Every other section and key is skipped
 * without being kept, so a `[url "https://user:token@host"]` never reaches the result.
 */
export const parseGitUser = (input: string): GitUser => {
  const text = input.replace(/^\uFEFF/, "")
  const malformed = new Set<number>()
  let pos = 0
  let line = 1
  let section: string | null = null
  let name: string | null = null
  let email: string | null = null

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
      const header = /^([A-Za-z0-9.-]+)(\s+"(?:[^"\\\n]|\\.)*")?$/.exec(text.slice(pos + 1, close).trim())
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
      // A bare key is boolean true in git; for user.name/email it is a missing value.
      if (section === "user" && ["name", "email"].includes(key.toLowerCase())) malformed.add(keyLine)
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
    if (section !== "user") continue
    const lowered = key.toLowerCase()
    const trimmed = value.trim()
    if (lowered === "name") name = trimmed === "" ? null : trimmed
    if (lowered === "email") email = trimmed === "" ? null : trimmed
  }
  return { name, email, malformedLines: [...malformed].sort((a, b) => a - b) }
}
