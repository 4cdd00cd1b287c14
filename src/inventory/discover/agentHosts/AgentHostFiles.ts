import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Either, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type * as NodePath from "node:path"
import type { AgentHostRootStatus } from "../../domain/agentHosts.js"
import { readRegularFile } from "../../../services/fileRead.js"
import { turnIsDue, yieldIfDue, yieldToEventLoop } from "../../../services/eventLoop.js"
import { readPlainFileNow } from "../../../platform/SyncNodeFileSystem.js"
import { InodeMap } from "../Walker.js"
import type { FrontmatterDialect, FrontmatterParser, ParsedMarkdown } from "../FrontmatterParser.js"
import { decodeUtf8, MAX_JSONC_DEPTH, parseJsoncConfig, parseJsonText, type ParsedConfig, type ParseProblem, parseTomlText } from "./configText.js"
import { type FindingsBuilder, findingsBuilder, type Found } from "./findings.js"
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

/** What a read needs besides the path: the path rules of the host OS, the caps, the parser, this scan's memo. */
export interface HostFilesScope {
  /** `node:path` for the OS of the environment (win32 rules when it says Windows). */
  readonly path: NodePath.PlatformPath
  readonly limits: HostFileLimits
  readonly parser: FrontmatterParser["Type"]
  /** What this scan has read already (one per scan; without it every reader reads for itself). */
  readonly memo?: ScanMemo
}

/** A file read within its cap (defined beside the memo that keeps it). */
export type { FileRead } from "./scanMemo.js"

/** A markdown file read and its frontmatter parsed. */
export interface MarkdownRead {
  readonly file: FileRead
  readonly doc: ParsedMarkdown
}

/** A config file read and parsed into a value. */
export interface ConfigRead {
  readonly file: FileRead
  readonly value: unknown
}

/** A directory entry with the type of what it points to (links followed). */
export interface DirEntry {
  readonly name: string
  readonly path: string
  readonly isFile: boolean
  readonly isDirectory: boolean
}

/** What is at a path, links followed. */
export type Probe =
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

/** SHA-256 of bytes or text, hex. */
export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/**
 * The file access of the agent-host readers. Every method returns its value with what it found
 * (roots, problems, watched paths); nothing is recorded in shared state. A root is recorded when
 * the caller names its `role`; without one, problems other than absence are reported.
 */
export class AgentHostFiles extends Context.Tag("tool-map/AgentHostFiles")<AgentHostFiles, {
  /** What is at `path` (links followed); watched. */
  readonly probe: (on: HostFilesScope, path: string) => Effect.Effect<Found<Probe>>
  /**
   * `device:inode` of the entry at `path` itself, as the host's lstat tells one file from another
   * (a hard link is the same file, a symbolic link is a file of its own and has none here); none
   * when the platform does not tell or the path cannot be stat-ed.
   */
  readonly entryIdentity: (on: HostFilesScope, path: string) => Effect.Effect<Option.Option<string>>
  /** True when `path` itself is a symbolic link (not followed). */
  readonly isLink: (path: string) => Effect.Effect<boolean>
  /** The sorted names in a directory, or none (missing, unreadable, not a directory); `assumeDirectory` skips the stat. */
  readonly listNames: (on: HostFilesScope, path: string, role: string | null, assumeDirectory?: boolean) => Effect.Effect<Found<Option.Option<ReadonlyArray<string>>>>
  /** {@link listNames} of each directory found in a listing (no role, assumed directories), in order. */
  readonly listEach: (on: HostFilesScope, paths: ReadonlyArray<string>) => Effect.Effect<Found<ReadonlyArray<Option.Option<ReadonlyArray<string>>>>>
  /** The entries of a directory with their types (one stat each, links followed). */
  readonly listDir: (on: HostFilesScope, path: string, role: string | null) => Effect.Effect<Found<Option.Option<ReadonlyArray<DirEntry>>>>
  /**
   * Files with `extension` under `dir` (recursively up to the depth cap, sorted, files of a
   * directory before its subdirectories), with the directory recorded as a root. Entries are not
   * stat-ed as files: a name with the extension is read (the read checks it is a file), any
   * other name without a dot is tried as a subdirectory (any other name at all with
   * `rules.dottedFolders`). A directory already entered (by device and inode, as the walker guards
   * its roots) is not entered again: a link to `.` or to a parent is a loop.
   */
  readonly filesWithExtension: (
    on: HostFilesScope,
    dir: string,
    role: string | null,
    recursive: boolean,
    extension?: string,
    rules?: FileWalk
  ) => Effect.Effect<Found<ReadonlyArray<string>>>
  /**
   * Files named `fileName` under `dir` at any depth (up to the depth cap), sorted by path, as a
   * recursive glob for the name finds them: `dot` says whether directories whose name starts with `.`
   * are entered. Links are followed; a directory already entered (by device and inode) is not
   * entered again. With a `role`, `dir` is recorded as a root.
   */
  readonly filesNamed: (
    on: HostFilesScope,
    dir: string,
    fileName: string,
    options: { readonly role: string | null; readonly dot: boolean }
  ) => Effect.Effect<Found<ReadonlyArray<string>>>
  /** A regular file within `maxBytes`, or none (missing, unreadable, not a file, too large). */
  readonly readFile: (on: HostFilesScope, path: string, role: string | null, maxBytes: number) => Effect.Effect<Found<Option.Option<FileRead>>>
  /** A JSON (or JSONC) file parsed; a parse error names the line only (parser messages can quote secrets). */
  readonly readJson: (
    on: HostFilesScope,
    path: string,
    role: string | null,
    options: { readonly jsonc: boolean; readonly maxBytes?: number }
  ) => Effect.Effect<Found<Option.Option<ConfigRead>>>
  /** A TOML file parsed; errors as in `readJson`. */
  readonly readToml: (on: HostFilesScope, path: string, role: string | null) => Effect.Effect<Found<Option.Option<ConfigRead>>>
  /** A markdown file read and its frontmatter parsed in the host's `dialect`; a malformed file is a problem. */
  readonly readMarkdown: (on: HostFilesScope, path: string, dialect?: FrontmatterDialect) => Effect.Effect<Found<Option.Option<MarkdownRead>>>
  /** {@link readMarkdown} of each path, in order. */
  readonly readMarkdownEach: (
    on: HostFilesScope,
    paths: ReadonlyArray<string>,
    dialect?: FrontmatterDialect
  ) => Effect.Effect<Found<ReadonlyArray<Option.Option<MarkdownRead>>>>
}>() {
  /** Over the platform FileSystem: reads run concurrently (what the fault-injection tests run). */
  static readonly layer = Layer.effect(this, Effect.map(FileSystem.FileSystem, (fs) => makeAgentHostFiles(fs, "concurrent")))
  /**
   * Over the CLI's synchronous FileSystem (`SyncNodeFileSystemLayer`): one read at a time (fibers
   * would only add cost) and a regular file read as a plain call; anything else (a FIFO, a file
   * too large, a failure) takes the checked path of {@link layer}. Over another FileSystem it
   * reads as {@link layer} does, one by one.
   */
  static readonly layerSync = Layer.effect(this, Effect.map(FileSystem.FileSystem, (fs) => makeAgentHostFiles(fs, "sync")))
}

/** How the file system is read: concurrently through effects, or one by one with plain reads of regular files. */
type ReadMode = "concurrent" | "sync"

/** A file's modification time as the inventory writes it, or null when the platform does not say. */
const isoTime = (info: FileSystem.File.Info): string | null => Option.match(info.mtime, { onNone: () => null, onSome: (date) => date.toISOString() })

const reasonOf = (error: PlatformError): string => (error._tag === "SystemError" ? error.reason : error.message)

/** The service over `fs`; see {@link AgentHostFiles.layer} and {@link AgentHostFiles.layerSync}. */
export const makeAgentHostFiles = (fs: FileSystem.FileSystem, mode: ReadMode): AgentHostFiles["Type"] => {
  const sync = mode === "sync"
  const concurrency = (wanted: number): number => (sync ? 1 : wanted)

  const stat = (on: HostFilesScope, path: string): Effect.Effect<FileSystem.File.Info, PlatformError> => {
    const memo = on.memo
    if (memo === undefined) return fs.stat(path)
    return Effect.suspend(() => {
      const known = memo.stat(path)
      if (known !== undefined) return known
      return Effect.flatMap(Effect.either(fs.stat(path)), (result) => {
        memo.rememberStat(path, result)
        return result
      })
    })
  }

  // Failures are not kept in the memo.
  const readDirectory = (on: HostFilesScope, path: string): Effect.Effect<ReadonlyArray<string>, PlatformError> => {
    const memo = on.memo
    if (memo === undefined) return fs.readDirectory(path)
    return Effect.suspend(() => {
      const known = memo.listing(path)
      return known !== undefined ? Effect.succeed(known) : Effect.tap(fs.readDirectory(path), (names) => memo.rememberListing(path, names))
    })
  }

  const probe = (on: HostFilesScope, b: FindingsBuilder, path: string): Effect.Effect<Probe> => {
    b.watch(path)
    return stat(on, path).pipe(
      Effect.map((info): Probe =>
        info.type === "File"
          ? { _tag: "file", size: Number(info.size), mtime: isoTime(info) }
          : info.type === "Directory"
          ? { _tag: "directory" }
          : { _tag: "other" }
      ),
      Effect.catchAll((error): Effect.Effect<Probe> =>
        Effect.succeed(error._tag === "SystemError" && error.reason === "NotFound" ? { _tag: "missing" } : { _tag: "unreadable", reason: reasonOf(error) })
      )
    )
  }

  const isNotLink = (path: string): Effect.Effect<boolean> => fs.readLink(path).pipe(Effect.as(false), Effect.orElseSucceed(() => true))

  const listing = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null, assumeDirectory: boolean): Effect.Effect<Option.Option<ReadonlyArray<string>>> =>
    Effect.map(Effect.either(readDirectory(on, path)), (names) => {
      if (names._tag === "Left") {
        const reason = reasonOf(names.left)
        if (role !== null) b.root(path, role, "unreadable", reason)
        else if (!assumeDirectory || reason === "PermissionDenied") b.problem(path, null, `cannot list directory: ${reason}`)
        return Option.none()
      }
      if (role !== null) b.root(path, role, "ok")
      return Option.some([...names.right].sort())
    })

  // Combinators, not a generator: this runs for every skill folder of every home.
  const listNames = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null, assumeDirectory: boolean): Effect.Effect<Option.Option<ReadonlyArray<string>>> =>
    Effect.suspend(() => {
      if (assumeDirectory) {
        b.watch(path)
        return listing(on, b, path, role, true)
      }
      return Effect.flatMap(probe(on, b, path), (found) => {
        if (found._tag === "directory") return listing(on, b, path, role, false)
        if (role !== null) {
          b.root(
            path,
            role,
            found._tag === "missing" ? "missing" : found._tag === "unreadable" ? "unreadable" : "not-a-directory",
            found._tag === "unreadable" ? found.reason : null
          )
        }
        return Effect.succeed(Option.none())
      })
    })

  // Each of `items` with its own findings, added to `b` in the order of `items` (not of completion).
  const each = <I, A>(b: FindingsBuilder, items: ReadonlyArray<I>, wanted: number, one: (item: I, b: FindingsBuilder) => Effect.Effect<A>): Effect.Effect<ReadonlyArray<A>> => {
    if (sync) return Effect.forEach(items, (item) => one(item, b))
    return Effect.map(
      Effect.forEach(items, (item) => {
        const own = findingsBuilder()
        return Effect.map(one(item, own), (value) => ({ value, findings: own.done() }))
      }, { concurrency: wanted }),
      (results) =>
        results.map((result) => {
          b.add(result.findings)
          return result.value
        })
    )
  }

  const listDir = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null): Effect.Effect<Option.Option<ReadonlyArray<DirEntry>>> =>
    Effect.flatMap(listNames(on, b, path, role, false), (names) =>
      Option.isNone(names)
        ? Effect.succeed(Option.none())
        : Effect.map(
            Effect.forEach(
              names.value,
              (name) => {
                const full = on.path.join(path, name)
                return Effect.map(
                  Effect.option(stat(on, full)),
                  (info): DirEntry => ({
                    name,
                    path: full,
                    isFile: Option.isSome(info) && info.value.type === "File",
                    isDirectory: Option.isSome(info) && info.value.type === "Directory"
                  })
                )
              },
              { concurrency: concurrency(16) }
            ),
            Option.some
          )
    )

  const filesWithExtension = (
    on: HostFilesScope,
    b: FindingsBuilder,
    dir: string,
    role: string | null,
    recursive: boolean,
    extension: string,
    rules: FileWalk
  ): Effect.Effect<ReadonlyArray<string>> => {
    const entered = new InodeMap<true>()
    // True when `path` is a directory not entered yet (one whose inode the platform does not tell is entered).
    const enter = (path: string): Effect.Effect<boolean> =>
      Effect.map(Effect.option(stat(on, path)), (info) => {
        if (Option.isNone(info) || info.value.type !== "Directory") return Option.isNone(info)
        if (Option.isNone(info.value.ino)) return true
        const key = { dev: info.value.dev, ino: info.value.ino.value }
        if (entered.has(key)) return false
        entered.set(key, true)
        return true
      })
    const walk = (path: string, depth: number, rootRole: string | null, assume: boolean, b: FindingsBuilder): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        if (recursive && !(yield* enter(path))) return []
        const listed = yield* listNames(on, b, path, rootRole, assume)
        if (Option.isNone(listed)) return []
        const names = rules.skipLinks === true ? yield* Effect.filter(listed.value, (name) => isNotLink(on.path.join(path, name))) : listed.value
        const matches = (name: string) => (rules.exactCase === true ? name : name.toLowerCase()).endsWith(extension)
        const files = names.filter(matches).map((name) => on.path.join(path, name))
        if (!recursive || depth >= on.limits.maxDirDepth) return files
        const nested = yield* each(
          b,
          names.filter((name) => !matches(name) && (rules.dottedFolders === true || (!name.startsWith(".") && !name.includes(".")))),
          4,
          (name, own) => walk(on.path.join(path, name), depth + 1, null, true, own)
        )
        return [...files, ...nested.flat()]
      })
    return walk(dir, 0, role, false, b)
  }

  const filesNamed = (
    on: HostFilesScope,
    b: FindingsBuilder,
    dir: string,
    fileName: string,
    options: { readonly role: string | null; readonly dot: boolean }
  ): Effect.Effect<ReadonlyArray<string>> => {
    const entered = new InodeMap<true>()
    const walk = (path: string, depth: number, role: string | null, b: FindingsBuilder): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        const info = yield* Effect.option(stat(on, path))
        if (Option.isSome(info) && Option.isSome(info.value.ino)) {
          const key = { dev: info.value.dev, ino: info.value.ino.value }
          if (entered.has(key)) return []
          entered.set(key, true)
        }
        const entries = yield* listDir(on, b, path, role)
        if (Option.isNone(entries)) return []
        const found = entries.value.filter((entry) => entry.isFile && entry.name === fileName).map((entry) => entry.path)
        if (depth >= on.limits.maxDirDepth) return found
        const nested = yield* each(
          b,
          entries.value.filter((entry) => entry.isDirectory && (options.dot || !entry.name.startsWith("."))),
          4,
          (entry, own) => walk(entry.path, depth + 1, null, own)
        )
        return [...found, ...nested.flat()]
      })
    return Effect.map(walk(dir, 0, options.role, b), (files) => [...files].sort())
  }

  /** A file read (or found in the memo): watched, and recorded as a root with `role`. */
  const readDone = (b: FindingsBuilder, read: FileRead, role: string | null): Option.Option<FileRead> => {
    b.watch(read.path)
    if (role !== null) b.root(read.path, role, "ok")
    return Option.some(read)
  }

  /**
   * The read of `path` without an effect where it needs none: the memo's read, or (sync mode) the
   * plain read of a regular file. Undefined for anything else (missing, a FIFO, too large…): the
   * checked path says what and why.
   */
  const readFileNow = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null, maxBytes: number): Option.Option<FileRead> | undefined => {
    const known = on.memo?.file(path, maxBytes)
    if (known !== undefined) return readDone(b, known, role)
    if (!sync) return undefined
    const plain = readPlainFileNow(fs, path, maxBytes)
    if (plain === undefined) return undefined
    const read: FileRead = { path, bytes: plain.bytes, mtime: plain.mtime.toISOString(), sha256: sha256(plain.bytes) }
    on.memo?.rememberFile(read)
    return readDone(b, read, role)
  }

  /** The read step by step through the FileSystem: probe, then the shared bounded read. */
  const readChecked = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null, maxBytes: number): Effect.Effect<Option.Option<FileRead>> =>
    Effect.gen(function* () {
      const found = yield* probe(on, b, path)
      const problem = (status: AgentHostRootStatus, reason: string | null) => {
        if (role !== null) b.root(path, role, status, reason)
        else if (status !== "missing") b.problem(path, null, reason ?? status)
        return Option.none<FileRead>()
      }
      if (found._tag === "missing") return problem("missing", null)
      if (found._tag === "unreadable") return problem("unreadable", found.reason)
      if (found._tag !== "file") return problem("not-a-file", "not a regular file")
      if (found.size > maxBytes) return problem("too-large", `file is ${found.size} bytes, over the ${maxBytes}-byte cap`)
      // The probe stat'ed the path; the shared bounded read checks type and size again on the
      // open file: the path may have become a FIFO, or the file grown, since.
      const read = yield* Effect.either(Effect.provideService(readRegularFile(path, maxBytes, { statedAsRegular: true }), FileSystem.FileSystem, fs))
      if (read._tag === "Left") {
        const error = read.left
        return error._tag === "FileRefused" ? problem(error.refusal, error.reason) : problem("unreadable", reasonOf(error))
      }
      if (Option.isNone(read.right)) return problem("missing", null)
      const bytes = read.right.value
      const file: FileRead = { path, bytes, mtime: found.mtime, sha256: sha256(bytes) }
      on.memo?.rememberFile(file)
      return readDone(b, file, role)
    })

  const readFile = (on: HostFilesScope, b: FindingsBuilder, path: string, role: string | null, maxBytes: number): Effect.Effect<Option.Option<FileRead>> =>
    Effect.zipRight(
      yieldIfDue,
      Effect.suspend(() => {
        const read = readFileNow(on, b, path, role, maxBytes)
        return read === undefined ? readChecked(on, b, path, role, maxBytes) : Effect.succeed(read)
      })
    )

  const readParsed = (
    on: HostFilesScope,
    b: FindingsBuilder,
    path: string,
    role: string | null,
    maxBytes: number,
    parse: (text: string) => Effect.Effect<ParsedConfig, ParseProblem>
  ): Effect.Effect<Option.Option<ConfigRead>> =>
    Effect.gen(function* () {
      const file = yield* readFile(on, b, path, role, maxBytes)
      if (Option.isNone(file)) return Option.none()
      const parsed = yield* Effect.either(Effect.flatMap(decodeUtf8(file.value.bytes), parse))
      if (parsed._tag === "Left") {
        // The root was recorded as ok when the bytes were read; a parse failure makes it invalid.
        if (role !== null) b.replaceRoot(path, role, "invalid", parsed.left.reason)
        b.problem(path, parsed.left.line, parsed.left.reason)
        return Option.none()
      }
      for (const line of parsed.right.tooDeep) b.problem(path, line, `a value nests deeper than ${MAX_JSONC_DEPTH} levels; it is read as null`)
      return Option.some({ file: file.value, value: parsed.right.value })
    })

  /** The parse of a file read (the scan's memo asked first); a malformed file is a problem. */
  const markdownOf = (on: HostFilesScope, b: FindingsBuilder, path: string, file: Option.Option<FileRead>, dialect: FrontmatterDialect): Option.Option<MarkdownRead> => {
    if (Option.isNone(file)) return Option.none()
    const memo = on.memo
    let doc = memo?.markdown(file.value, dialect)
    if (doc === undefined) {
      doc = on.parser.parseBytes(path, file.value.bytes, dialect)
      memo?.rememberMarkdown(file.value, dialect, doc)
    }
    if (Either.isLeft(doc)) {
      b.problem(path, doc.left.line, doc.left.reason)
      return Option.none()
    }
    for (const warning of doc.right.warnings) b.problem(path, warning.line, warning.message)
    return Option.some({ file: file.value, doc: doc.right })
  }

  const readMarkdown = (on: HostFilesScope, b: FindingsBuilder, path: string, dialect: FrontmatterDialect): Effect.Effect<Option.Option<MarkdownRead>> =>
    Effect.map(readFile(on, b, path, null, on.parser.limits.maxFileBytes), (file) => markdownOf(on, b, path, file, dialect))

  /**
   * In sync mode the files are read and parsed as plain calls, yielding to the event loop
   * whenever its turn is due (a folder of thousands of agents would otherwise cost a dozen
   * effects a file); a file that is not plain takes the checked path.
   */
  const readMarkdownEach = (on: HostFilesScope, b: FindingsBuilder, paths: ReadonlyArray<string>, dialect: FrontmatterDialect): Effect.Effect<ReadonlyArray<Option.Option<MarkdownRead>>> => {
    if (!sync) return each(b, paths, 16, (path, own) => readMarkdown(on, own, path, dialect))
    const maxBytes = on.parser.limits.maxFileBytes
    return Effect.suspend(() => {
      const reads: Array<Option.Option<MarkdownRead>> = []
      // Reads on from the first path not read, until the turn is due or a file needs the checked path.
      const readOn: Effect.Effect<ReadonlyArray<Option.Option<MarkdownRead>>> = Effect.suspend(() => {
        while (reads.length < paths.length) {
          const path = paths[reads.length]!
          const file = readFileNow(on, b, path, null, maxBytes)
          if (file === undefined) {
            return Effect.flatMap(readChecked(on, b, path, null, maxBytes), (checked) => {
              reads.push(markdownOf(on, b, path, checked, dialect))
              return readOn
            })
          }
          reads.push(markdownOf(on, b, path, file, dialect))
          if (turnIsDue()) return Effect.zipRight(yieldToEventLoop, readOn)
        }
        return Effect.succeed(reads)
      })
      return readOn
    })
  }

  // Each method gathers what it finds in a builder of its own and returns it with the value.
  const found = <A>(run: (b: FindingsBuilder) => Effect.Effect<A>): Effect.Effect<Found<A>> =>
    Effect.suspend(() => {
      const b = findingsBuilder()
      return Effect.map(run(b), (value) => ({ value, findings: b.done() }))
    })

  return AgentHostFiles.of({
    probe: Effect.fnUntraced(function* (on, path) {
      return yield* found((b) => probe(on, b, path))
    }),
    isLink: (path) => Effect.map(isNotLink(path), (notLink) => !notLink),
    entryIdentity: Effect.fnUntraced(function* (_on, path) {
      if (!(yield* isNotLink(path))) return Option.none()
      const info = yield* Effect.option(fs.stat(path))
      return Option.flatMap(info, (stat) => Option.map(stat.ino, (ino) => `${stat.dev}:${ino}`))
    }),
    listNames: (on, path, role, assumeDirectory = false) => found((b) => listNames(on, b, path, role, assumeDirectory)),
    listEach: Effect.fn("AgentHostFiles.listEach")(function* (on, paths) {
      return yield* found((b) => each(b, paths, 16, (path, own) => listNames(on, own, path, null, true)))
    }),
    listDir: Effect.fn("AgentHostFiles.listDir")(function* (on, path, role) {
      return yield* found((b) => listDir(on, b, path, role))
    }),
    filesWithExtension: Effect.fn("AgentHostFiles.filesWithExtension")(function* (on, dir, role, recursive, extension = ".md", rules = {}) {
      return yield* found((b) => filesWithExtension(on, b, dir, role, recursive, extension, rules))
    }),
    filesNamed: Effect.fn("AgentHostFiles.filesNamed")(function* (on, dir, fileName, options) {
      return yield* found((b) => filesNamed(on, b, dir, fileName, options))
    }),
    readFile: (on, path, role, maxBytes) => found((b) => readFile(on, b, path, role, maxBytes)),
    readJson: Effect.fn("AgentHostFiles.readJson")(function* (on, path, role, options) {
      return yield* found((b) =>
        readParsed(on, b, path, role, options.maxBytes ?? on.limits.maxConfigBytes, (text) => {
          const source = text.startsWith("\uFEFF") ? text.slice(1) : text
          return options.jsonc ? parseJsoncConfig(source) : Effect.map(parseJsonText(source), (value) => ({ value, tooDeep: [] }))
        })
      )
    }),
    readToml: Effect.fn("AgentHostFiles.readToml")(function* (on, path, role) {
      return yield* found((b) => readParsed(on, b, path, role, on.limits.maxConfigBytes, (text) => Effect.map(parseTomlText(text), (value) => ({ value, tooDeep: [] }))))
    }),
    readMarkdown: (on, path, dialect = "yaml") => found((b) => readMarkdown(on, b, path, dialect)),
    readMarkdownEach: Effect.fn("AgentHostFiles.readMarkdownEach")(function* (on, paths, dialect = "yaml") {
      return yield* found((b) => readMarkdownEach(on, b, paths, dialect))
    })
  })
}
