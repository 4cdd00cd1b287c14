import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Either, Option } from "effect"
import { printParseErrorCode, visit } from "jsonc-parser"
import { createHash } from "node:crypto"
import * as NodePath from "node:path"
import { parse as parseToml, TomlError } from "smol-toml"
import {
  AgentHostDiagnostic,
  type AgentHostName,
  AgentHostRoot,
  type AgentHostRootStatus,
  type AgentItemScope
} from "../../domain/agentHosts.js"
import { jsonErrorLine, lineAt } from "../../domain/jsonText.js"
import type { ClaudeListingModel } from "../../domain/ledger.js"
import { redactSecrets } from "../../domain/secrets.js"
import type { MachineEnvironmentShape } from "../../domain/machine.js"
import { readRegularFile } from "../../../services/fileRead.js"
import { turnIsDue, yieldIfDue, yieldToEventLoop } from "../../../services/eventLoop.js"
import { isSynchronous, readPlainFileNow } from "../../../platform/SyncNodeFileSystem.js"
import { InodeMap } from "../Walker.js"
import {
  type FrontmatterDialect,
  type FrontmatterFields,
  type FrontmatterParser,
  type FrontmatterValue,
  type ParsedMarkdown,
  readToolList
} from "../FrontmatterParser.js"
import type { ItemDraft } from "./precedence.js"
import type { FileRead, ScanMemo } from "./scanMemo.js"

/** Caps of files that are not markdown (JSON, TOML). `~/.claude.json` is state and grows large. */
export interface HostFileLimits {
  readonly maxConfigBytes: number
  readonly maxStateBytes: number
  /** Deepest directory recursion (agents and commands may sit in subfolders). */
  readonly maxDirDepth: number
}

/** The limits of the live scanner. */
export const defaultHostFileLimits: HostFileLimits = {
  maxConfigBytes: 1024 * 1024,
  maxStateBytes: 32 * 1024 * 1024,
  maxDirDepth: 6
}

/** What every host reader gets: the file system, the host facts, the frontmatter parser. */
export interface HostReadContext {
  readonly fs: FileSystem.FileSystem
  readonly env: MachineEnvironmentShape
  readonly parser: FrontmatterParser["Type"]
  readonly limits: HostFileLimits
  /** `node:path` for the OS of `env` (win32 rules when the environment says Windows). */
  readonly path: NodePath.PlatformPath
  /** What this scan has read already (one per scan; without it every reader reads for itself). */
  readonly memo?: ScanMemo
}

/** What one host reader returns. */
export interface HostReadResult {
  readonly host: AgentHostName
  readonly drafts: ReadonlyArray<ItemDraft>
  readonly roots: ReadonlyArray<AgentHostRoot>
  readonly diagnostics: ReadonlyArray<AgentHostDiagnostic>
  readonly watched: ReadonlyArray<string>
  /**
   * False when none of the host's own locations exists (folders it shares with other hosts, such
   * as `~/.claude/skills` for opencode, do not count); absent when the reader leaves it to the scanner.
   */
  readonly detected?: boolean
  /** Claude Code: the model the ledger assumes for the session and its skill-listing budget (issue 28). */
  readonly listing?: ClaudeListingModel
}

/** A file read within its cap (defined beside the memo that keeps it). */
export type { FileRead } from "./scanMemo.js"

/** A markdown file read and its frontmatter parsed. */
export interface MarkdownRead {
  readonly file: FileRead
  readonly doc: ParsedMarkdown
}

/** A directory entry with the type of what it points to (links followed). */
export interface DirEntry {
  readonly name: string
  readonly path: string
  readonly isFile: boolean
  readonly isDirectory: boolean
}

type Probe =
  | { readonly _tag: "file"; readonly size: number; readonly mtime: string | null }
  | { readonly _tag: "directory" }
  | { readonly _tag: "other" }
  | { readonly _tag: "missing" }
  | { readonly _tag: "unreadable"; readonly reason: string }

/** How a host walks a folder of item files; every rule is off by default (the walk most hosts share). */
export interface FileWalk {
  /** The extension matches in its exact case only (`.md`, not `.MD`). */
  readonly exactCase?: boolean
  /** Every entry that is not a matching file is tried as a folder, dotted and hidden names too. */
  readonly dottedFolders?: boolean
  /** Links are skipped, to files and folders alike (a walk of directory entries that never follows one). */
  readonly skipLinks?: boolean
}

/** A file's modification time as the inventory writes it, or null when the platform does not say. */
const isoTime = (info: FileSystem.File.Info): string | null => Option.match(info.mtime, { onNone: () => null, onSome: (date) => date.toISOString() })

/** SHA-256 of bytes or text, hex. */
export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/**
 * Collects what one host reader finds: the roots it read, per-file diagnostics, the watched
 * paths, and item drafts. Every file access goes through the platform FileSystem.
 */
export class HostCollector {
  readonly drafts: Array<ItemDraft> = []
  readonly roots: Array<AgentHostRoot> = []
  readonly diagnostics: Array<AgentHostDiagnostic> = []
  private readonly watchedPaths = new Set<string>()
  private readonly sharedDirs: Array<string> = []
  private readonly synchronous: boolean

  constructor(readonly host: AgentHostName, readonly ctx: HostReadContext) {
    this.synchronous = isSynchronous(ctx.fs)
  }

  /** How many files to read at once: `wanted`, or one by one over a file system whose calls are synchronous (fibers would only add cost). */
  concurrency(wanted: number): number {
    return this.synchronous ? 1 : wanted
  }

  /** `fs.stat`, answered from this scan's memo when another reader asked already. */
  stat(path: string): Effect.Effect<FileSystem.File.Info, PlatformError> {
    const memo = this.ctx.memo
    if (memo === undefined) return this.ctx.fs.stat(path)
    return Effect.suspend(() => {
      const known = memo.stat(path)
      if (known !== undefined) return known
      return Effect.flatMap(Effect.either(this.ctx.fs.stat(path)), (result) => {
        memo.rememberStat(path, result)
        return result
      })
    })
  }

  /** `fs.readDirectory`, answered from this scan's memo when another reader listed it already (failures are not kept). */
  private readDirectory(path: string): Effect.Effect<ReadonlyArray<string>, PlatformError> {
    const memo = this.ctx.memo
    if (memo === undefined) return this.ctx.fs.readDirectory(path)
    return Effect.suspend(() => {
      const known = memo.listing(path)
      return known !== undefined ? Effect.succeed(known) : Effect.tap(this.ctx.fs.readDirectory(path), (names) => memo.rememberListing(path, names))
    })
  }

  get env(): MachineEnvironmentShape {
    return this.ctx.env
  }

  get path(): NodePath.PlatformPath {
    return this.ctx.path
  }

  result(): HostReadResult {
    const read = {
      host: this.host,
      drafts: this.drafts,
      roots: this.roots,
      diagnostics: this.diagnostics,
      watched: Array.from(this.watchedPaths)
    }
    if (this.sharedDirs.length === 0 || this.hasOwnRoot()) return read
    // A host that is not there loads nothing, not even what sits in the folders it would share.
    return {
      ...read,
      drafts: this.drafts.filter((draft) => !this.inSharedDir(draft.fields.path)),
      diagnostics: this.diagnostics.filter((diagnostic) => !this.inSharedDir(diagnostic.path)),
      detected: false
    }
  }

  /** True when a root outside the folders this host shares is there: the host is, and what it reads from shared folders counts. */
  hasOwnRoot(): boolean {
    return this.roots.some((root) => root.status !== "missing" && !this.inSharedDir(root.path))
  }

  private inSharedDir(path: string | null): boolean {
    return path !== null && this.sharedDirs.some((dir) => path === dir || path.startsWith(`${dir}${this.path.sep}`))
  }

  /** Marks a folder this host reads but shares with other hosts: it alone does not make the host detected. */
  shareDir(dir: string): void {
    this.sharedDirs.push(dir)
  }

  add(draft: ItemDraft): void {
    this.drafts.push(draft)
  }

  watch(path: string): void {
    this.watchedPaths.add(path)
  }

  root(path: string, role: string, status: AgentHostRootStatus, reason: string | null = null): void {
    this.roots.push(new AgentHostRoot({ path, role, status, reason }, true))
  }

  diagnostic(path: string | null, line: number | null, message: string): void {
    this.diagnostics.push(new AgentHostDiagnostic({ source: `agent-hosts/${this.host}`, path, line, message }, true))
  }

  /** What is at `path` (links followed); recorded as watched. */
  probe(path: string): Effect.Effect<Probe> {
    this.watch(path)
    return this.stat(path).pipe(
      Effect.map((info): Probe =>
        info.type === "File"
          ? { _tag: "file", size: Number(info.size), mtime: isoTime(info) }
          : info.type === "Directory"
          ? { _tag: "directory" }
          : { _tag: "other" }
      ),
      Effect.catchAll((error): Effect.Effect<Probe> =>
        Effect.succeed(
          error._tag === "SystemError" && error.reason === "NotFound"
            ? { _tag: "missing" }
            : { _tag: "unreadable", reason: error._tag === "SystemError" ? error.reason : error.message }
        )
      )
    )
  }

  /** True when `path` exists (any type). */
  exists(path: string): Effect.Effect<boolean> {
    return Effect.map(this.probe(path), (probe) => probe._tag !== "missing" && probe._tag !== "unreadable")
  }

  /**
   * The names in a directory (sorted), or none when it is missing or unreadable. With a `role`,
   * the directory is recorded as a root. `assumeDirectory` skips the stat: an entry found in a
   * listing is read directly, and one that turns out not to be a directory is quietly skipped.
   */
  listNames(path: string, role: string | null, assumeDirectory = false): Effect.Effect<Option.Option<ReadonlyArray<string>>> {
    // Combinators, not a generator: this runs for every skill folder of every home.
    return Effect.suspend(() => {
      if (assumeDirectory) {
        this.watch(path)
        return this.listing(path, role, true)
      }
      return Effect.flatMap(this.probe(path), (probe) => {
        if (probe._tag === "directory") return this.listing(path, role, false)
        if (role !== null) {
          this.root(
            path,
            role,
            probe._tag === "missing" ? "missing" : probe._tag === "unreadable" ? "unreadable" : "not-a-directory",
            probe._tag === "unreadable" ? probe.reason : null
          )
        }
        return Effect.succeed(Option.none())
      })
    })
  }

  /** The sorted names of a directory known (or assumed) to be one; see {@link listNames}. */
  private listing(path: string, role: string | null, assumeDirectory: boolean): Effect.Effect<Option.Option<ReadonlyArray<string>>> {
    return Effect.map(Effect.either(this.readDirectory(path)), (names) => {
      if (names._tag === "Left") {
        const error = names.left
        const reason = error._tag === "SystemError" ? error.reason : error.message
        if (role !== null) this.root(path, role, "unreadable", reason)
        else if (!assumeDirectory || reason === "PermissionDenied") this.diagnostic(path, null, `cannot list directory: ${reason}`)
        return Option.none()
      }
      if (role !== null) this.root(path, role, "ok")
      return Option.some([...names.right].sort())
    })
  }

  /** The entries of a directory with their types (one stat each, links followed). */
  listDir(path: string, role: string | null): Effect.Effect<Option.Option<ReadonlyArray<DirEntry>>> {
    const self = this
    return Effect.flatMap(this.listNames(path, role), (names) =>
      Option.isNone(names)
        ? Effect.succeed(Option.none())
        : Effect.map(
            Effect.forEach(
              names.value,
              (name) => {
                const full = self.path.join(path, name)
                return Effect.map(
                  self.stat(full).pipe(Effect.option),
                  (info): DirEntry => ({
                    name,
                    path: full,
                    isFile: Option.isSome(info) && info.value.type === "File",
                    isDirectory: Option.isSome(info) && info.value.type === "Directory"
                  })
                )
              },
              { concurrency: self.concurrency(16) }
            ),
            Option.some
          )
    )
  }

  /**
   * Files with `extension` under `dir` (recursively up to the depth cap, sorted, files of a
   * directory before its subdirectories), with the directory recorded as a root. Entries are not
   * stat-ed as files: a name with the extension is read (the read checks it is a file), any
   * other name without a dot is tried as a subdirectory (any other name at all with
   * `rules.dottedFolders`). A directory already entered (by device and inode, as the walker guards
   * its roots) is not entered again: a link to `.` or to a parent is a loop.
   */
  filesWithExtension(dir: string, role: string | null, recursive: boolean, extension = ".md", rules: FileWalk = {}): Effect.Effect<ReadonlyArray<string>> {
    const self = this
    const entered = new InodeMap<true>()
    // True when `path` is a directory not entered yet (one whose inode the platform does not tell is entered).
    const enter = (path: string): Effect.Effect<boolean> =>
      Effect.map(Effect.option(self.stat(path)), (info) => {
        if (Option.isNone(info) || info.value.type !== "Directory") return Option.isNone(info)
        if (Option.isNone(info.value.ino)) return true
        const key = { dev: info.value.dev, ino: info.value.ino.value }
        if (entered.has(key)) return false
        entered.set(key, true)
        return true
      })
    const walk = (path: string, depth: number, rootRole: string | null, assume: boolean): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        if (recursive && !(yield* enter(path))) return []
        const listed = yield* self.listNames(path, rootRole, assume)
        if (Option.isNone(listed)) return []
        const names = rules.skipLinks === true ? yield* Effect.filter(listed.value, (name) => self.isNotLink(self.path.join(path, name))) : listed.value
        const matches = (name: string) => (rules.exactCase === true ? name : name.toLowerCase()).endsWith(extension)
        const files = names.filter(matches).map((name) => self.path.join(path, name))
        if (!recursive || depth >= self.ctx.limits.maxDirDepth) return files
        const nested = yield* Effect.forEach(
          names.filter((name) => !matches(name) && (rules.dottedFolders === true || (!name.startsWith(".") && !name.includes(".")))),
          (name) => walk(self.path.join(path, name), depth + 1, null, true),
          { concurrency: self.concurrency(4) }
        )
        return [...files, ...nested.flat()]
      })
    return walk(dir, 0, role, false)
  }

  /** False when `path` is a symbolic link (readLink answers for links only). */
  private isNotLink(path: string): Effect.Effect<boolean> {
    return this.ctx.fs.readLink(path).pipe(Effect.as(false), Effect.orElseSucceed(() => true))
  }

  /**
   * Files named `fileName` under `dir` at any depth (up to the depth cap), sorted by path, as a
   * recursive glob for the name finds them: `dot` says whether directories whose name starts with `.`
   * are entered. Links are followed; a directory already entered (by device and inode) is not
   * entered again. With a `role`, `dir` is recorded as a root.
   */
  filesNamed(dir: string, fileName: string, options: { readonly role: string | null; readonly dot: boolean }): Effect.Effect<ReadonlyArray<string>> {
    const self = this
    const entered = new InodeMap<true>()
    const walk = (path: string, depth: number, role: string | null): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        const info = yield* Effect.option(self.stat(path))
        if (Option.isSome(info) && Option.isSome(info.value.ino)) {
          const key = { dev: info.value.dev, ino: info.value.ino.value }
          if (entered.has(key)) return []
          entered.set(key, true)
        }
        const entries = yield* self.listDir(path, role)
        if (Option.isNone(entries)) return []
        const found = entries.value.filter((entry) => entry.isFile && entry.name === fileName).map((entry) => entry.path)
        if (depth >= self.ctx.limits.maxDirDepth) return found
        const nested = yield* Effect.forEach(
          entries.value.filter((entry) => entry.isDirectory && (options.dot || !entry.name.startsWith("."))),
          (entry) => walk(entry.path, depth + 1, null),
          { concurrency: self.concurrency(4) }
        )
        return [...found, ...nested.flat()]
      })
    return Effect.map(walk(dir, 0, options.role), (files) => [...files].sort())
  }

  /**
   * Reads a file within `maxBytes`, or none (missing, unreadable, not a file, too large). With a
   * `role`, the file is recorded as a root; without one, problems become diagnostics.
   */
  readFile(path: string, role: string | null, maxBytes: number): Effect.Effect<Option.Option<FileRead>> {
    return Effect.zipRight(
      yieldIfDue,
      Effect.suspend(() => {
        const read = this.readFileNow(path, role, maxBytes)
        return read === undefined ? this.readChecked(path, role, maxBytes) : Effect.succeed(read)
      })
    )
  }

  /**
   * {@link readFile} without an effect where it needs none: the memo's read, or the plain read
   * of a regular file on the synchronous file system. Undefined for anything else (missing, a
   * FIFO, too large…, or another file system): the checked path says what and why.
   */
  private readFileNow(path: string, role: string | null, maxBytes: number): Option.Option<FileRead> | undefined {
    const known = this.ctx.memo?.file(path, maxBytes)
    if (known !== undefined) return this.readDone(known, role)
    const plain = readPlainFileNow(this.ctx.fs, path, maxBytes)
    if (plain === undefined) return undefined
    const read: FileRead = { path, bytes: plain.bytes, mtime: plain.mtime.toISOString(), sha256: sha256(plain.bytes) }
    this.ctx.memo?.rememberFile(read)
    return this.readDone(read, role)
  }

  /** A file read (or found in the memo): watched, and recorded as a root with `role`. */
  private readDone(read: FileRead, role: string | null): Option.Option<FileRead> {
    this.watch(read.path)
    if (role !== null) this.root(read.path, role, "ok")
    return Option.some(read)
  }

  /** {@link readFile} step by step through the FileSystem: probe, then the shared bounded read. */
  private readChecked(path: string, role: string | null, maxBytes: number): Effect.Effect<Option.Option<FileRead>> {
    const self = this
    return Effect.gen(function* () {
      const probe = yield* self.probe(path)
      const problem = (status: AgentHostRootStatus, reason: string | null) => {
        if (role !== null) self.root(path, role, status, reason)
        else if (status !== "missing") self.diagnostic(path, null, reason ?? status)
        return Option.none<FileRead>()
      }
      if (probe._tag === "missing") return problem("missing", null)
      if (probe._tag === "unreadable") return problem("unreadable", probe.reason)
      if (probe._tag !== "file") return problem("not-a-file", "not a regular file")
      if (probe.size > maxBytes) return problem("too-large", `file is ${probe.size} bytes, over the ${maxBytes}-byte cap`)
      // The probe stat'ed the path; the shared bounded read checks type and size again on the
      // open file: the path may have become a FIFO, or the file grown, since.
      const read = yield* Effect.either(
        Effect.provideService(readRegularFile(path, maxBytes, { statedAsRegular: true }), FileSystem.FileSystem, self.ctx.fs)
      )
      if (read._tag === "Left") {
        const error = read.left
        return error._tag === "FileRefused" ? problem(error.refusal, error.reason) : problem("unreadable", error._tag === "SystemError" ? error.reason : error.message)
      }
      if (Option.isNone(read.right)) return problem("missing", null)
      const bytes = read.right.value
      const file: FileRead = { path, bytes, mtime: probe.mtime, sha256: sha256(bytes) }
      self.ctx.memo?.rememberFile(file)
      return self.readDone(file, role)
    })
  }

  /**
   * Reads a JSON (or JSONC) file into a value. Parse errors are diagnostics that name the line
   * only: parser messages can quote the text, and the text can hold secrets.
   */
  readJson(
    path: string,
    role: string | null,
    options: { readonly jsonc: boolean; readonly maxBytes?: number }
  ): Effect.Effect<Option.Option<{ readonly file: FileRead; readonly value: unknown }>> {
    return this.readParsed(path, role, options.maxBytes ?? this.ctx.limits.maxConfigBytes, (text) => {
      const source = text.startsWith("\uFEFF") ? text.slice(1) : text
      return options.jsonc ? parseJsoncConfig(source) : Effect.map(parseJsonText(source), (value) => ({ value, tooDeep: [] }))
    })
  }

  /** Reads a TOML file into a value; errors as in `readJson`. */
  readToml(path: string, role: string | null): Effect.Effect<Option.Option<{ readonly file: FileRead; readonly value: unknown }>> {
    return this.readParsed(path, role, this.ctx.limits.maxConfigBytes, (text) => Effect.map(parseTomlText(text), (value) => ({ value, tooDeep: [] })))
  }

  private readParsed(
    path: string,
    role: string | null,
    maxBytes: number,
    parse: (text: string) => Effect.Effect<ParsedConfig, ParseProblem>
  ): Effect.Effect<Option.Option<{ readonly file: FileRead; readonly value: unknown }>> {
    const self = this
    return Effect.gen(function* () {
      const file = yield* self.readFile(path, role, maxBytes)
      if (Option.isNone(file)) return Option.none()
      const parsed = yield* Effect.either(Effect.flatMap(decodeUtf8(file.value.bytes), parse))
      if (parsed._tag === "Left") return self.invalid(path, role, parsed.left.line, parsed.left.reason)
      for (const line of parsed.right.tooDeep) self.diagnostic(path, line, `a value nests deeper than ${MAX_JSONC_DEPTH} levels; it is read as null`)
      return Option.some({ file: file.value, value: parsed.right.value })
    })
  }

  /** Reads and parses a markdown file with frontmatter (in the host's `dialect`); malformed files are diagnostics. */
  readMarkdown(path: string, dialect: FrontmatterDialect = "yaml"): Effect.Effect<Option.Option<MarkdownRead>> {
    return Effect.map(this.readFile(path, null, this.ctx.parser.limits.maxFileBytes), (file) => this.markdownOf(path, file, dialect))
  }

  /**
   * {@link readMarkdown} of each path, in order. On the synchronous file system the files are
   * read and parsed as plain calls, yielding to the event loop whenever its turn is due (a folder
   * of thousands of agents would otherwise cost a dozen effects a file); a file that is not plain
   * takes the checked path, as on any other file system.
   */
  readMarkdownEach(paths: ReadonlyArray<string>, dialect: FrontmatterDialect = "yaml"): Effect.Effect<ReadonlyArray<Option.Option<MarkdownRead>>> {
    if (!this.synchronous) return Effect.forEach(paths, (path) => this.readMarkdown(path, dialect), { concurrency: this.concurrency(16) })
    const maxBytes = this.ctx.parser.limits.maxFileBytes
    return Effect.suspend(() => {
      const reads: Array<Option.Option<MarkdownRead>> = []
      // Reads on from the first path not read, until the turn is due or a file needs the checked path.
      const readOn: Effect.Effect<ReadonlyArray<Option.Option<MarkdownRead>>> = Effect.suspend(() => {
        while (reads.length < paths.length) {
          const path = paths[reads.length]!
          const file = this.readFileNow(path, null, maxBytes)
          if (file === undefined) {
            return Effect.flatMap(this.readChecked(path, null, maxBytes), (checked) => {
              reads.push(this.markdownOf(path, checked, dialect))
              return readOn
            })
          }
          reads.push(this.markdownOf(path, file, dialect))
          if (turnIsDue()) return Effect.zipRight(yieldToEventLoop, readOn)
        }
        return Effect.succeed(reads)
      })
      return readOn
    })
  }

  /** The parse of a file read (the scan's memo asked first); malformed files are diagnostics. */
  private markdownOf(path: string, file: Option.Option<FileRead>, dialect: FrontmatterDialect): Option.Option<MarkdownRead> {
    if (Option.isNone(file)) return Option.none()
    const memo = this.ctx.memo
    let doc = memo?.markdown(file.value, dialect)
    if (doc === undefined) {
      doc = this.ctx.parser.parseBytes(path, file.value.bytes, dialect)
      memo?.rememberMarkdown(file.value, dialect, doc)
    }
    if (Either.isLeft(doc)) {
      this.diagnostic(path, doc.left.line, doc.left.reason)
      return Option.none()
    }
    for (const warning of doc.right.warnings) this.diagnostic(path, warning.line, warning.message)
    return Option.some({ file: file.value, doc: doc.right })
  }

  private invalid<A>(path: string, role: string | null, line: number | null, reason: string): Option.Option<A> {
    if (role !== null) {
      // The root was recorded as ok when the bytes were read; a parse failure makes it invalid.
      const index = this.roots.findIndex((root) => root.path === path && root.role === role)
      if (index !== -1) this.roots.splice(index, 1)
      this.root(path, role, "invalid", reason)
    }
    this.diagnostic(path, line, reason)
    return Option.none()
  }

  /** Reads one field of frontmatter as a string; other types become a diagnostic and null. */
  stringField(fields: FrontmatterFields, key: string, path: string): string | null {
    const value = fields[key]
    if (value === undefined || value === null) return null
    if (typeof value === "string") return value
    if (typeof value === "number" || typeof value === "boolean") return String(value)
    this.diagnostic(path, null, `field \`${key}\` is not a string; ignored`)
    return null
  }

  /** Reads a tool-list field (first of `keys` present); an invalid value is a diagnostic and null. */
  toolListField(fields: FrontmatterFields, keys: ReadonlyArray<string>, path: string): ReadonlyArray<string> | null {
    for (const key of keys) {
      const read = readToolList(fields[key])
      if (read._tag === "list") return read.tools
      if (read._tag === "invalid") {
        this.diagnostic(path, null, `field \`${key}\` is ${read.reason}; treated as absent`)
        return null
      }
    }
    return null
  }

  /** Reads a boolean field (`true`/`false`, also as strings). */
  booleanField(fields: FrontmatterFields, key: string, path: string): boolean | null {
    const value = fields[key]
    if (value === undefined || value === null) return null
    if (typeof value === "boolean") return value
    if (value === "true" || value === "false") return value === "true"
    this.diagnostic(path, null, `field \`${key}\` is not a boolean; ignored`)
    return null
  }

  /** Reads a whole-number field (also from a numeric string). */
  integerField(fields: FrontmatterFields, key: string, path: string): number | null {
    const value = fields[key]
    if (value === undefined || value === null) return null
    const number = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN
    if (Number.isInteger(number) && number >= 0) return number
    this.diagnostic(path, null, `field \`${key}\` is not a whole number; ignored`)
    return null
  }
}

/** Why a config file could not be parsed: a line and a reason of our own (never the parser's text). */
export class ParseProblem {
  readonly _tag = "ParseProblem"
  constructor(readonly line: number | null, readonly reason: string) {}
}

/** Strict UTF-8 decoding. */
export const decodeUtf8 = (bytes: Uint8Array): Effect.Effect<string, ParseProblem> =>
  Effect.try({
    try: () => new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    catch: () => new ParseProblem(null, "file is not valid UTF-8")
  })

/**
 * Strict JSON. JSON.parse creates `__proto__` as an own property, so parsed objects cannot reach
 * a prototype. V8's messages quote the text, so only the position is kept.
 */
export const parseJsonText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new ParseProblem(jsonErrorLine(error, text), "invalid JSON")
  })

/** How deep a JSONC value may nest; a deeper one is read as null (a hash or a render of it would exhaust the stack). */
export const MAX_JSONC_DEPTH = 64

/** A parsed config: the value, and the lines of values nested too deep (each read as null). */
export interface ParsedConfig {
  readonly value: unknown
  readonly tooDeep: ReadonlyArray<number>
}

/**
 * JSON with comments and trailing commas (opencode, Gemini CLI), built into null-prototype
 * objects: a `__proto__` key is a key like any other (jsonc-parser's own `parse` sets the
 * prototype instead). A value nested deeper than {@link MAX_JSONC_DEPTH} is read as null and
 * reported, so one bad field does not cost the rest of the file.
 */
export const parseJsoncConfig = (text: string): Effect.Effect<ParsedConfig, ParseProblem> =>
  Effect.try({
    try: () => buildJsonc(text),
    catch: () => new ParseProblem(null, "invalid JSONC (nesting too deep)")
  }).pipe(Effect.flatMap((built) => (built instanceof ParseProblem ? Effect.fail(built) : Effect.succeed(built))))

const buildJsonc = (text: string): ParsedConfig | ParseProblem => {
  const stack: Array<{ readonly container: Record<string, unknown> | Array<unknown>; key: string }> = []
  const tooDeep: Array<number> = []
  let root: unknown = undefined
  let depth = 0
  let problem: ParseProblem | null = null
  const put = (value: unknown) => {
    const top = stack[stack.length - 1]
    if (top === undefined) root = value
    else if (Array.isArray(top.container)) top.container.push(value)
    else top.container[top.key] = value
  }
  const begin = (container: () => Record<string, unknown> | Array<unknown>) => (_offset: number, _length: number, line: number) => {
    depth++
    if (depth === MAX_JSONC_DEPTH + 1) tooDeep.push(line + 1)
    if (depth <= MAX_JSONC_DEPTH) stack.push({ container: container(), key: "" })
  }
  const end = () => {
    if (depth === MAX_JSONC_DEPTH + 1) put(null)
    else if (depth <= MAX_JSONC_DEPTH) put(stack.pop()!.container)
    depth--
  }
  visit(text, {
    onObjectBegin: begin(() => Object.create(null) as Record<string, unknown>),
    onObjectEnd: end,
    onArrayBegin: begin(() => []),
    onArrayEnd: end,
    onObjectProperty: (name) => {
      const top = stack[stack.length - 1]
      if (depth <= MAX_JSONC_DEPTH && top !== undefined) top.key = name
    },
    onLiteralValue: (value: unknown) => {
      if (depth <= MAX_JSONC_DEPTH) put(value)
    },
    onError: (error, offset) => {
      problem ??= new ParseProblem(lineAt(text, offset), `invalid JSONC: ${printParseErrorCode(error)}`)
    }
  }, { allowTrailingComma: true, disallowComments: false })
  return problem ?? { value: root, tooDeep }
}

/** The value of {@link parseJsoncConfig}, for readers that need no report of what was too deep. */
export const parseJsoncText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.map(parseJsoncConfig(text), (parsed) => parsed.value)

/** TOML through smol-toml; its messages quote the text, so only line and column are kept. */
export const parseTomlText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.try({
    try: () => parseToml(text) as unknown,
    catch: (error) =>
      error instanceof TomlError
        ? new ParseProblem(error.line, `invalid TOML at column ${error.column}`)
        : new ParseProblem(null, "invalid TOML")
  })

/** A config file that holds a JSON object, with its scope and precedence rank. */
export interface ConfigFile {
  readonly file: FileRead
  readonly scope: AgentItemScope
  readonly rank: number
  readonly value: Readonly<Record<string, unknown>>
}

/**
 * Reads JSONC config files in order and keeps those that hold an object; any other value is a
 * diagnostic naming the file as `kind`. A file whose absence is not recorded is read only when
 * it exists.
 */
export const readConfigFiles = (
  c: HostCollector,
  candidates: ReadonlyArray<readonly [path: string, scope: AgentItemScope, rank: number, role: string, recordMissing: boolean]>,
  kind: string
): Effect.Effect<ReadonlyArray<ConfigFile>> =>
  Effect.gen(function* () {
    const configs: Array<ConfigFile> = []
    for (const [file, scope, rank, role, recordMissing] of candidates) {
      if (!recordMissing && !(yield* c.exists(file))) continue
      const json = yield* c.readJson(file, role, { jsonc: true })
      if (Option.isNone(json)) continue
      const value = asRecord(json.value.value)
      if (value === null) c.diagnostic(file, null, `${kind} is not a JSON object; ignored`)
      else configs.push({ file: json.value.file, scope, rank, value })
    }
    return configs
  })

/** A JSON object as a record, or null (arrays and primitives are not records). */
export const asRecord = (value: unknown): Readonly<Record<string, unknown>> | null =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null

/** An own property of a parsed object (never one reached through a prototype). */
export const own = (record: Readonly<Record<string, unknown>> | null, key: string): unknown =>
  record !== null && Object.hasOwn(record, key) ? record[key] : undefined

/** A string value or null. */
export const asString = (value: unknown): string | null => (typeof value === "string" ? value : null)

/** An array of strings (non-strings dropped), or null when not an array. */
export const asStringArray = (value: unknown): ReadonlyArray<string> | null =>
  Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : null

/** A boolean or null. */
export const asBoolean = (value: unknown): boolean | null => (typeof value === "boolean" ? value : null)

/** The directory, then its parents up to the root of the file system. */
export const ancestors = (path: NodePath.PlatformPath, dir: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = path.resolve(dir)
  for (;;) {
    out.push(current)
    const parent = path.dirname(current)
    if (parent === current) return out
    current = parent
  }
}

/** The working directory and its parents, without the home directory (that is user scope). */
export const projectDirs = (ctx: HostReadContext): ReadonlyArray<string> =>
  ancestors(ctx.path, ctx.env.cwd).filter((dir) => dir !== ctx.path.resolve(ctx.env.homedir))

/**
 * The working directory and its parents up to the nearest git root (a `.git` entry), or only the
 * working directory when it is in no repository; without the home directory.
 */
export const dirsToGitRoot = (collector: HostCollector): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    const dirs = projectDirs(collector.ctx)
    for (let index = 0; index < dirs.length; index++) {
      const dir = dirs[index]!
      if (yield* collector.exists(collector.path.join(dir, ".git"))) return dirs.slice(0, index + 1)
    }
    return dirs.slice(0, 1)
  })

/**
 * The working directory and its parents up to the nearest git root, or up to the root of the
 * file system when it is in no repository (opencode's worktree is `/` there); without the home
 * directory.
 */
export const dirsToWorktree = (collector: HostCollector): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    const dirs = projectDirs(collector.ctx)
    for (let index = 0; index < dirs.length; index++) {
      if (yield* collector.exists(collector.path.join(dirs[index]!, ".git"))) return dirs.slice(0, index + 1)
    }
    return dirs
  })

/** A description from frontmatter, else the first paragraph of the body; secrets redacted, capped. */
export const describe = (explicit: string | null, body: string | null): string | null => {
  // Redacting before the cap, so that a secret cut short by it is still recognized whole.
  const cap = (raw: string) => {
    const text = redactSecrets(raw)
    return text.length > 1024 ? `${text.slice(0, 1021)}...` : text
  }
  if (explicit !== null && explicit.trim().length > 0) return cap(explicit.trim())
  if (body === null) return null
  const paragraph = body
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .find((block) => block.length > 0 && !block.startsWith("```"))
  if (paragraph === undefined) return null
  return cap(paragraph.replace(/^#+\s*/, "").replace(/\s+/g, " "))
}

/** The file name without its extension. */
export const baseName = (path: NodePath.PlatformPath, file: string): string => {
  const name = path.basename(file)
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

/** A frontmatter value that is a list of names, or a mapping whose keys are the names. */
export const namesOf = (value: FrontmatterValue | undefined): ReadonlyArray<string> | null => {
  if (value === undefined || value === null) return null
  if (typeof value === "string") return readToolListNames(value)
  if (Array.isArray(value)) {
    const names = (value as ReadonlyArray<FrontmatterValue>).flatMap((entry) =>
      typeof entry === "string" ? [entry] : entry !== null && typeof entry === "object" && !Array.isArray(entry) ? Object.keys(entry) : []
    )
    return names.length === 0 ? null : names
  }
  if (typeof value === "object") {
    const keys = Object.keys(value)
    return keys.length === 0 ? null : keys
  }
  return null
}

const readToolListNames = (text: string): ReadonlyArray<string> | null => {
  const read = readToolList(text)
  return read._tag === "list" && read.tools.length > 0 ? read.tools : null
}
