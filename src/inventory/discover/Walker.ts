import { Context, Effect, Either, Layer } from "effect"
import * as NodePath from "node:path"
import { Diagnostic, type Root, type RootKind, RootReport, type RootStatus } from "../domain/inventory.js"
import type { OsFamily } from "../domain/machine.js"
import { normalizeDirectory, pathLookup, type PathPlace, runsBefore, windowsExtension } from "../domain/toolNames.js"
import * as NodeWalkerFs from "../../platform/NodeWalkerFs.js"
import {
  type DirEntry,
  type FileStat,
  type InspectRequest,
  toPathBytes,
  type UserIdentity,
  WalkerFs,
  type WalkerFsError,
  type WalkerFsShape
} from "../../platform/WalkerFs.js"

export {
  type DirEntry,
  type FileStat,
  type FsFault,
  fromPathBytes,
  type MemoryNode,
  type MemoryTree,
  toPathBytes,
  WalkerFs,
  WalkerFsError,
  type WalkerFsShape
} from "../../platform/WalkerFs.js"

/**
 * One command name found by the walk (a `Tool` of tools.json before its category is known): a
 * name and the file it runs. Every name gets its own record, as the shell calls each by its own
 * name (`cargo` and `rustc` are links to `rustup`, which dispatches on the name it is called by).
 */
export interface WalkedTool {
  /** The file name; bytes that are not UTF-8 appear as surrogate escapes (see `WalkerFs`). */
  readonly name: string
  /** Absolute path where it was found (the link itself when it is a link). */
  readonly path: string
  /** The real path when `path` is or goes through a symlink, else null. */
  readonly linkTarget: string | null
  readonly size: number
  /** Modification time, ISO 8601 UTC. */
  readonly mtime: string
  /** The root, verbatim as given, it was found under. */
  readonly root: string
  readonly rootKind: RootKind
  readonly pathIndex: number | null
  /** Path of the earlier PATH entry with the same command name that wins, or null. */
  readonly shadowedBy: string | null
  /**
   * Other paths at which the same name reaches the very same file (device + inode), in walk
   * order: a later PATH dir holding the name as a link or hard link to it, or a dir alias.
   */
  readonly alsoAt: ReadonlyArray<string>
  /** The `path`s of the other records of the very same file (other names of it), in walk order. */
  readonly sameFileAs: ReadonlyArray<string>
}

/** Everything a walk found: tools in walk order, one report per root, and the problems met. */
export interface WalkResult {
  readonly tools: ReadonlyArray<WalkedTool>
  /** One report per root, in the order given. */
  readonly roots: ReadonlyArray<RootReport>
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Every directory whose entries were read (ok roots and entered subdirectories), in walk order. */
  readonly directories: ReadonlyArray<string>
}

/** How to walk: the OS rules to apply and the limits. */
export interface WalkOptions {
  readonly os: OsFamily
  /** Windows `PATHEXT`, e.g. [".EXE", ".CMD"], in priority order; ignored on POSIX. */
  readonly pathExt: ReadonlyArray<string>
  /** Directory levels entered below a recursive root (0: only the root's own entries). */
  readonly recursiveDepthCap: number
  /** The working directory, named in the reason of empty and relative PATH entries. */
  readonly cwd: string
}

/** Reads the roots of a scan and lists the executables in them. */
export class Walker extends Context.Tag("tool-map/Walker")<Walker, {
  /**
   * Walks `roots` in the given order. Never fails: an unreadable root is a `RootReport`
   * status, a bad entry (dangling link, loop, vanished file) a `Diagnostic`.
   */
  readonly walk: (roots: ReadonlyArray<Root>, options: WalkOptions) => Effect.Effect<WalkResult>
  /**
   * The file a shell would run for each of `names`: the first executable of that name in the
   * PATH roots, by the walk's rules, without listing any directory. A name found nowhere on
   * PATH is absent. Empty on Windows, where the name on disk (its case, its PATHEXT
   * extension) is only known from a listing. Never fails: an unreadable entry is no match.
   */
  readonly resolveOnPath: (
    roots: ReadonlyArray<Root>,
    names: ReadonlyArray<string>,
    options: WalkOptions
  ) => Effect.Effect<ReadonlyMap<string, string>>
}>() {
  /** The walker over any `WalkerFs`. */
  static readonly layerWithoutFs: Layer.Layer<Walker, never, WalkerFs> = Layer.effect(
    this,
    Effect.map(WalkerFs, (fs) => Walker.of({ walk: makeWalk(fs), resolveOnPath: makeResolveOnPath(fs) }))
  )
  /** The live walker over `node:fs`. */
  static readonly layer: Layer.Layer<Walker> = this.layerWithoutFs.pipe(Layer.provide(NodeWalkerFs.layer))
  /** A walker over an in-memory tree (see `MemoryTree`): any OS, injected faults. */
  static readonly layerTest = (tree: Parameters<typeof WalkerFs.layerMemory>[0]): Layer.Layer<Walker> =>
    this.layerWithoutFs.pipe(Layer.provide(WalkerFs.layerMemory(tree)))
}

interface ToolRecord {
  name: string
  path: string
  linkTarget: string | null
  size: number
  mtime: string
  root: string
  rootKind: RootKind
  pathIndex: number | null
  shadowedBy: string | null
  alsoAt: Array<string>
  sameFileAs: ReadonlyArray<string>
}

/** The `sameFileAs` of a file recorded under one name only (most of them): shared, never changed. */
const NO_OTHER_NAMES: ReadonlyArray<string> = Object.freeze([])

/** A directory being read: where it is shown, where it really is, how deep below its root. */
interface DirContext {
  readonly path: string
  readonly real: string
  readonly depth: number
}

/** The per-root facts shared by every directory of the root. */
interface RootContext {
  readonly root: Root
  readonly recursive: boolean
  readonly realRoot: string
  /** The directories entered under this root, by device and inode (loop guard). */
  readonly visited: InodeMap<true>
  toolCount: number
  capped: Array<string>
}

/** An executable entry of one directory, before dedupe and shadowing. */
interface Candidate {
  readonly entry: DirEntry
  readonly path: string
  readonly real: string
  readonly stat: FileStat
}

/** An entry of a directory that could not be inspected, and why in words. */
interface EntryFailure {
  readonly name: string
  readonly message: string
}

/** What reading one directory gave: its executables and the entries it skipped. */
interface DirectoryOutcome {
  readonly candidates: ReadonlyArray<Candidate>
  readonly failures: ReadonlyArray<EntryFailure>
}

/** The fields are typed by construction: skip the run-time validation of the Schema classes. */
const TYPED = { disableValidation: true } as const

const MAX_DATE_MS = 8.64e15
/** 10000-01-01T00:00:00Z: from here on ISO 8601 needs an expanded year. */
const YEAR_10000_MS = 253402300800000

const pad2 = (value: number) => (value < 10 ? `0${value}` : `${value}`)

/**
 * `new Date(ms).toISOString()` without the Date (3x faster; it runs once per tool): days to a
 * civil date after H. Hinnant's `civil_from_days`. Out of range or NaN falls back to Date, and
 * to the epoch where even Date cannot represent it.
 */
export const isoTimestamp = (ms: number): string => {
  if (!(ms >= 0 && ms < YEAR_10000_MS)) {
    return new Date(Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : 0).toISOString()
  }
  const whole = Math.floor(ms)
  const days = Math.floor(whole / 86_400_000)
  let rest = whole - days * 86_400_000
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  const millis = rest - seconds * 1000
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${
    String(millis).padStart(3, "0")
  }Z`
}

/** Values keyed by device and inode, without building a string key per file (also the agent-host readers' loop guard). */
export class InodeMap<A> {
  private readonly devices = new Map<number, Map<number, A>>()
  get(stat: Pick<FileStat, "dev" | "ino">): A | undefined {
    return this.devices.get(stat.dev)?.get(stat.ino)
  }
  has(stat: Pick<FileStat, "dev" | "ino">): boolean {
    return this.get(stat) !== undefined
  }
  set(stat: Pick<FileStat, "dev" | "ino">, value: A): void {
    const inodes = this.devices.get(stat.dev)
    if (inodes === undefined) this.devices.set(stat.dev, new Map([[stat.ino, value]]))
    else inodes.set(stat.ino, value)
  }
}

const hexBytes = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ")

/**
 * Execute permission as the kernel decides it for the effective ids: root needs any x bit; the
 * owner class, else the group class, else others decides alone (ACLs are not consulted).
 */
export const canExecute = (stat: FileStat, user: UserIdentity | null): boolean => {
  const mode = stat.mode
  if ((mode & 0o111) === 0) return false
  if (user === null) return (mode & 0o100) !== 0
  if (user.uid === 0) return true
  if (stat.uid === user.uid) return (mode & 0o100) !== 0
  if (stat.gid === user.gid || user.groups.includes(stat.gid)) return (mode & 0o010) !== 0
  return (mode & 0o001) !== 0
}

/** Whether a PATH entry is absolute; on Windows a drive-less `\dir` depends on the current drive. */
const isAbsoluteEntry = (path: string, os: OsFamily): boolean =>
  os === "win32" ? /^[A-Za-z]:[\\/]|^[\\/]{2}[^\\/]/.test(path) : path.startsWith("/")

/** A directory and a name joined as the walk joins them (the path a tool is recorded under). */
const joinEntry = (dir: string, name: string, os: OsFamily): string => {
  const sep = os === "win32" ? "\\" : "/"
  return dir.endsWith(sep) ? dir + name : dir + sep + name
}

const makeResolveOnPath = (fs: WalkerFsShape) =>
  Effect.fn("Walker.resolveOnPath")(function*(
    roots: ReadonlyArray<Root>,
    names: ReadonlyArray<string>,
    options: WalkOptions
  ) {
    const found = new Map<string, string>()
    if (options.os === "win32" || names.length === 0) return found
    const directories = [
      ...new Set(
        roots
          .filter((root) => root.kind === "path" && isAbsoluteEntry(root.path, options.os))
          .map((root) => normalizeDirectory(root.path, options.os))
      )
    ]
    const requests = directories.flatMap((dir) =>
      names.map((name) => ({ path: joinEntry(dir, name, options.os), realpath: false }))
    )
    const results = yield* fs.inspectAll(requests)
    const winners = new Map<string, PathPlace & { readonly path: string }>()
    results.forEach((result, index) => {
      if (Either.isLeft(result)) return
      const { stat } = result.right
      if (stat.kind !== "file" || !canExecute(stat, fs.user)) return
      const name = names[index % names.length]!
      // On POSIX one directory holds a name once: its rank is 0.
      const copy = { path: requests[index]!.path, pathIndex: Math.floor(index / names.length), rank: 0 }
      const earlier = winners.get(name)
      if (earlier === undefined || runsBefore(copy, earlier)) winners.set(name, copy)
    })
    for (const [name, winner] of winners) found.set(name, winner.path)
    return found
  })

const makeWalk = (fs: WalkerFsShape) =>
  Effect.fn("Walker.walk")(function*(roots: ReadonlyArray<Root>, options: WalkOptions) {
    const win = options.os === "win32"
    const sep = win ? "\\" : "/"
    const pathApi = win ? NodePath.win32 : NodePath.posix
    const extensionRank = new Map(options.pathExt.map((ext, index) => [ext.toUpperCase(), index] as const))
    const depthCap = Math.max(0, Math.floor(options.recursiveDepthCap))
    const join = (dir: string, name: string) => joinEntry(dir, name, options.os)

    const tools: Array<ToolRecord> = []
    const reports: Array<RootReport> = []
    const diagnostics: Array<Diagnostic> = []
    const directories: Array<string> = []
    /** The first record of each file reached, by device and inode. */
    const byInode = new InodeMap<ToolRecord>()
    /** Every record of a file called by more than one name, by its first record (`sameFileAs` is set at the end). */
    const namesOfFile = new Map<ToolRecord, Array<ToolRecord>>()
    const lookup = pathLookup(options.os, options.pathExt)
    /** The copy of each command name (by `lookup.key`) that runs, among the PATH roots walked so far. */
    const winners = new Map<string, PathPlace & { readonly path: string }>()
    /**
     * The place of each PATH directory in the lookup: they are recorded in PATH order, and the
     * walk's own count keeps that order for roots given without an index.
     */
    let pathDirectoriesRecorded = 0
    const seenRoots = new Map<string, Root>()
    /** What each one-level root's directory gave, by its real path. */
    const flatDirectories = new Map<string, DirectoryOutcome>()

    const diagnose = (path: string | null, message: string) =>
      diagnostics.push(new Diagnostic({ source: "walker", path, line: null, message }, TYPED))
    const reportNonUtf8 = (entry: DirEntry, path: string) =>
      diagnose(
        path,
        `name is not valid UTF-8 (bytes ${hexBytes(toPathBytes(entry.name))}); ` +
          "each undecodable byte is shown as U+DC80..U+DCFF (surrogate escape, reversible)"
      )
    const isExecutable = (name: string, stat: FileStat) =>
      stat.kind === "file" && (win ? extensionRank.has(windowsExtension(name)) : canExecute(stat, fs.user))

    /** Why an entry could not be stat'ed, in words. */
    const explainFailure = (entry: DirEntry, path: string, error: WalkerFsError) =>
      Effect.gen(function*() {
        if (error.code === "ELOOP") {
          return "symlink loop or a chain longer than the OS limit (ELOOP); skipped"
        }
        if (error.code === "ENOENT" || error.code === "ENOTDIR") {
          const target = yield* Effect.either(fs.readlink(path))
          if (Either.isRight(target)) return `dangling symlink to ${target.right} (${error.code}); skipped`
          return entry.kind === "symlink"
            ? `symlink vanished during the walk (${error.code}); skipped`
            : `vanished between listing and stat (${error.code}); skipped`
        }
        return `cannot ${error.op} (${error.code}); skipped`
      })

    /**
     * A record per command name and file. The name reached again at the same file (a later
     * PATH dir, a dir alias) is one more path of its record (`alsoAt`); another name of the file
     * is a record of its own, the two related by `sameFileAs` when the walk ends. Shadowing among
     * PATH roots follows the domain's rule (`runsBefore`): the first dir wins; on Windows, within
     * one dir, PATHEXT order picks which of git.exe and git.cmd runs. The directory's winners are
     * settled before any of its candidates is recorded, as a later name of the directory may win
     * over an earlier one.
     */
    const record = (rootCtx: RootContext, candidates: ReadonlyArray<Candidate>) => {
      const onPath = rootCtx.root.kind === "path"
      const keys = candidates.map((candidate) => lookup.key(candidate.entry.name))
      if (onPath) {
        const pathIndex = pathDirectoriesRecorded++
        candidates.forEach((candidate, index) => {
          const copy = { path: candidate.path, pathIndex, rank: lookup.rank(candidate.entry.name) }
          const earlier = winners.get(keys[index]!)
          if (earlier === undefined || runsBefore(copy, earlier)) winners.set(keys[index]!, copy)
        })
      }
      for (let index = 0; index < candidates.length; index++) {
        const candidate = candidates[index]!
        const key = keys[index]!
        if (!candidate.entry.utf8) reportNonUtf8(candidate.entry, candidate.path)
        const first = byInode.get(candidate.stat)
        const others = first === undefined ? undefined : namesOfFile.get(first)
        const sameName = first === undefined || lookup.key(first.name) === key
          ? first
          : others?.find((tool) => lookup.key(tool.name) === key)
        if (sameName !== undefined) {
          sameName.alsoAt.push(candidate.path)
          // Windows: one file under two extensions of a dir, the one listed later preferred by PATHEXT.
          if (sameName.shadowedBy === candidate.path) sameName.shadowedBy = null
          continue
        }
        const runs = onPath ? winners.get(key)!.path : candidate.path
        const tool: ToolRecord = {
          name: candidate.entry.name,
          path: candidate.path,
          linkTarget: candidate.real === candidate.path ? null : candidate.real,
          size: candidate.stat.size,
          mtime: isoTimestamp(candidate.stat.mtimeMs),
          root: rootCtx.root.path,
          rootKind: rootCtx.root.kind,
          pathIndex: rootCtx.root.pathIndex,
          shadowedBy: runs === candidate.path ? null : runs,
          alsoAt: [],
          sameFileAs: NO_OTHER_NAMES
        }
        if (first === undefined) byInode.set(candidate.stat, tool)
        else if (others === undefined) namesOfFile.set(first, [first, tool])
        else others.push(tool)
        tools.push(tool)
        rootCtx.toolCount += 1
      }
    }

    /** Reads one directory, records its executables, and descends when the root is recursive. */
    const walkDirectory = (
      rootCtx: RootContext,
      dir: DirContext,
      listing: ReadonlyArray<DirEntry>
    ): Effect.Effect<DirectoryOutcome> =>
      Effect.gen(function*() {
        directories.push(dir.path)
        // Name order (UTF-16 code units, locale-free) makes the output the same on every run.
        const entries = [...listing].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        const wanted: Array<DirEntry> = []
        const requests: Array<InspectRequest> = []
        for (const entry of entries) {
          if (entry.kind === "other") continue
          if (entry.kind === "directory" && !rootCtx.recursive) continue
          // On Windows only a PATHEXT extension makes a tool: skip the stat of anything else.
          const mayBeDirectory = rootCtx.recursive && entry.kind !== "file"
          if (win && !mayBeDirectory && !extensionRank.has(windowsExtension(entry.name))) continue
          wanted.push(entry)
          requests.push({ path: join(dir.path, entry.name), realpath: entry.kind === "symlink" || entry.kind === "unknown" })
        }
        const results = yield* fs.inspectAll(requests)
        const candidates: Array<Candidate> = []
        const failures: Array<EntryFailure> = []
        const subdirectories: Array<{ readonly entry: DirEntry; readonly dir: DirContext; readonly stat: FileStat }> = []
        for (let index = 0; index < wanted.length; index++) {
          const entry = wanted[index]!
          const path = requests[index]!.path
          const result = results[index]!
          if (Either.isLeft(result)) {
            const message = yield* explainFailure(entry, path, result.left)
            failures.push({ name: entry.name, message })
            diagnose(path, message)
            continue
          }
          const { realPath, stat } = result.right
          const real = realPath ?? (dir.real === dir.path ? path : join(dir.real, entry.name))
          if (stat.kind === "directory") {
            if (rootCtx.recursive) subdirectories.push({ entry, stat, dir: { path, real, depth: dir.depth + 1 } })
          } else if (isExecutable(entry.name, stat)) {
            candidates.push({ entry, path, real, stat })
          }
        }
        record(rootCtx, candidates)
        for (const sub of subdirectories) {
          if (sub.dir.depth > depthCap) {
            rootCtx.capped.push(sub.dir.path)
            continue
          }
          if (rootCtx.visited.has(sub.stat)) {
            diagnose(sub.dir.path, `directory already walked at ${sub.dir.real} (a link loop or alias); not entered`)
            continue
          }
          // `/` (or `C:\`) already ends in the separator: it is above every root.
          if (rootCtx.realRoot.startsWith(sub.dir.real.endsWith(sep) ? sub.dir.real : sub.dir.real + sep)) {
            diagnose(sub.dir.path, `link leads above the root to ${sub.dir.real}; not entered`)
            continue
          }
          rootCtx.visited.set(sub.stat, true)
          const listed = yield* Effect.either(fs.readDirectory(sub.dir.path))
          if (Either.isLeft(listed)) {
            diagnose(sub.dir.path, `cannot read directory (${listed.left.code}); skipped`)
            continue
          }
          if (!sub.entry.utf8) reportNonUtf8(sub.entry, sub.dir.path)
          yield* walkDirectory(rootCtx, sub.dir, listed.right)
        }
        return { candidates, failures }
      })

    const walkRoot = (root: Root) =>
      Effect.gen(function*() {
        const report = (status: RootStatus, reason: string | null, toolCount = 0) =>
          reports.push(new RootReport({ ...root, status, reason, toolCount }, TYPED))
        if (root.path === "") {
          return report("empty", `an empty entry means the working directory at run time (now ${options.cwd}); not read`)
        }
        if (!isAbsoluteEntry(root.path, options.os)) {
          return report(
            "relative",
            `a relative entry resolves against the working directory at run time (now ${
              pathApi.resolve(options.cwd, root.path)
            }); not read`
          )
        }
        const dirPath = normalizeDirectory(root.path, options.os)
        const identity = win ? dirPath.toLowerCase() : dirPath
        const earlier = seenRoots.get(identity)
        if (earlier !== undefined) {
          const where = earlier.pathIndex === null ? `root ${earlier.path}` : `PATH entry ${earlier.pathIndex}`
          return report("duplicate", `same directory as ${where}`)
        }
        seenRoots.set(identity, root)
        const [inspected] = yield* fs.inspectAll([{ path: dirPath, realpath: true }])
        if (inspected === undefined || Either.isLeft(inspected)) {
          const code = inspected === undefined ? "EIO" : inspected.left.code
          return report(code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable", code)
        }
        const { realPath, stat } = inspected.right
        if (stat.kind !== "directory") {
          return report("not-a-directory", stat.kind === "file" ? "a file, not a directory" : "not a directory")
        }
        const real = realPath ?? dirPath
        const replayable = root.depth !== "recursive" && !win
        const walkedAs = replayable ? flatDirectories.get(real) : undefined
        if (walkedAs !== undefined) {
          // The very directory under another name (/bin -> usr/bin): every entry resolves as
          // it did there, so its outcome is replayed under this path instead of stat'ed again.
          directories.push(dirPath)
          for (const failure of walkedAs.failures) diagnose(join(dirPath, failure.name), failure.message)
          const rootCtx: RootContext = { root, recursive: false, realRoot: real, visited: new InodeMap<true>(), toolCount: 0, capped: [] }
          record(rootCtx, walkedAs.candidates.map((candidate) => ({ ...candidate, path: join(dirPath, candidate.entry.name) })))
          return report("ok", null, rootCtx.toolCount)
        }
        const listing = yield* Effect.either(fs.readDirectory(dirPath))
        if (Either.isLeft(listing)) return report("unreadable", listing.left.code)
        // `..` is resolved lexically here: the path only goes through a link if this still differs
        // (on Windows in any letter case, as realpath answers with the case on disk).
        const lexical = pathApi.normalize(dirPath)
        const throughLink = win ? lexical.toLowerCase() !== real.toLowerCase() : lexical !== real
        const rootCtx: RootContext = {
          root,
          recursive: root.depth === "recursive",
          realRoot: real,
          visited: new InodeMap<true>(),
          toolCount: 0,
          capped: []
        }
        rootCtx.visited.set(stat, true)
        const outcome = yield* walkDirectory(rootCtx, { path: dirPath, real: throughLink ? real : dirPath, depth: 0 }, listing.right)
        if (replayable) flatDirectories.set(real, outcome)
        if (rootCtx.capped.length > 0) {
          diagnose(
            root.path,
            `depth cap ${depthCap} reached: ${rootCtx.capped.length} directories not entered (first: ${rootCtx.capped[0]})`
          )
        }
        report("ok", null, rootCtx.toolCount)
      })

    for (const root of roots) yield* walkRoot(root)
    for (const records of namesOfFile.values()) {
      for (const tool of records) tool.sameFileAs = records.filter((other) => other !== tool).map((other) => other.path)
    }
    return { tools, roots: reports, diagnostics, directories } satisfies WalkResult
  })
