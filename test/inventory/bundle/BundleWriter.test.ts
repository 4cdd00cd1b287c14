import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Either, Exit, Fiber, Logger, LogLevel, Option, type Scope } from "effect"
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import { type BundlePaths, bundlePathsForDir, bundlePathsForRedirect } from "../../../src/inventory/bundle/location.js"
import { defaultDataDir } from "../../../src/inventory/domain/dataDir.js"
import { Fault, type FsCall, makeFaultyFileSystem } from "../../../src/layers/FaultyFileSystem.js"
import {
  type BundleFiles,
  BundleLocked,
  BundleWriteError,
  BundleWriter,
  type BundleWriterOptions,
  RecoveryReport
} from "../../../src/inventory/bundle/BundleWriter.js"
import { LockOwner, type LockOwnerShape } from "../../../src/services/FileLock.js"
import { readGeneration } from "../../../src/inventory/bundle/format.js"
import { processStartTicks } from "../../../src/services/processIdentity.js"

// == fixtures

const OLD = "20240101T000000Z-01d01d01"
const NEW = "20250202T020202Z-4e304e30"

/** Bundle files as the scan renders them, with multi-byte text so byte-exactness matters. */
const filesOf = (generation: string, flavour: string): BundleFiles => ({
  json: `${JSON.stringify({ schemaVersion: 1, generation, tools: [{ name: `tool-${flavour}`, note: "Ωmega ✓ 工具" }] }, null, 1)}\n`,
  markdown: `<!-- tool-map generation=${generation} -->\n# Tools (${flavour})\n\n| name | path |\n| --- | --- |\n| git | /usr/bin/git |\n`,
  summary: `<!-- tool-map generation=${generation} -->\n# Summary ${flavour}\n工具 ✓ ${"x".repeat(300)}\n`
})
const OLD_FILES = filesOf(OLD, "old")
const NEW_FILES = filesOf(NEW, "new")

/** The same with the fourth file, the digest of the generation each replaced (`inv.previous.json`). */
const withDigest = (files: BundleFiles, generation: string, before: string): BundleFiles => ({
  ...files,
  previous: `${JSON.stringify({ generation, previous: { generation: before, generatedAt: "2024-01-01T00:00:00.000Z", tools: [{ name: "git", path: "/usr/bin/git" }], versions: [], items: [] } }, null, 1)}\n`
})

/** A directory's content: file name → bytes as latin1 (one char per byte, so equality is byte equality). */
type DirState = Readonly<Record<string, string>>

const latin1 = (text: string) => Buffer.from(text, "utf8").toString("latin1")

/** The exact directory state of a complete bundle (or of none). */
const bundleState = (paths: BundlePaths, files: BundleFiles | null): DirState =>
  files === null
    ? {}
    : {
      [NodePath.basename(paths.json)]: latin1(files.json),
      [NodePath.basename(paths.markdown)]: latin1(files.markdown),
      [NodePath.basename(paths.summary)]: latin1(files.summary),
      ...(files.previous === undefined ? {} : { [`${paths.stem}.previous.json`]: latin1(files.previous) })
    }

const snapshot = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* fs.readDirectory(dir).pipe(
      Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeed([]))
    )
    const state: Record<string, string> = {}
    for (const name of names.sort()) state[name] = Buffer.from(yield* fs.readFile(NodePath.join(dir, name))).toString("latin1")
    return state as DirState
  })

const writeBundle = (paths: BundlePaths, files: BundleFiles) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(paths.dir, { recursive: true })
    yield* fs.writeFileString(paths.json, files.json)
    yield* fs.writeFileString(paths.markdown, files.markdown)
    yield* fs.writeFileString(paths.summary, files.summary)
    if (files.previous !== undefined) yield* fs.writeFileString(NodePath.join(paths.dir, `${paths.stem}.previous.json`), files.previous)
  })

/** Simulated processes: each writer gets a pid; a "killed" pid is dead for the others. */
const makeProcesses = () => {
  const alive = new Set<number>()
  let next = 41_000
  return {
    spawn: (): number => {
      const pid = next++
      alive.add(pid)
      return pid
    },
    kill: (pid: number) => {
      alive.delete(pid)
    },
    owner: (pid: number): LockOwnerShape => ({ pid, isAlive: (other) => Effect.sync(() => alive.has(other)) })
  }
}

const FAST: Partial<BundleWriterOptions> = { lockWait: "200 millis", lockRetryInterval: "5 millis", unreadableLockGrace: 0 }

const writerOver = (fs: FileSystem.FileSystem, owner: LockOwnerShape, options: Partial<BundleWriterOptions> = FAST) =>
  BundleWriter.make(options).pipe(
    Effect.provideService(FileSystem.FileSystem, fs),
    Effect.provideService(LockOwner, owner)
  )

const inv = (dir: string): BundlePaths => Either.getOrThrow(bundlePathsForRedirect(NodePath.join(dir, "inv.md")))

/** Runs a test on the real file system, in real time, with warnings from failed cleanups silenced. */
const onDisk = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Scope.Scope>) =>
  effect.pipe(Effect.provide(NodeFileSystem.layer), Logger.withMinimumLogLevel(LogLevel.Error))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

// == the call log of a clean commit, and what each call is for

/** Where in a clean commit's calls the protocol's milestones are (1-based call numbers). */
interface Milestones {
  readonly total: number
  /** The rename that publishes the forward journal: the commit point for a crash. */
  readonly journalPublish: number
  /** The dir fsync after the swap: the last call of the commit proper (the rest is cleanup). */
  readonly committed: number
  /** The removal of the lock's temp file once it is linked into place: the last call of taking the lock. */
  readonly lockTaken: number
}

/** The 1-based number of the last call matching, or 0. */
const lastCall = (log: ReadonlyArray<FsCall>, matches: (call: FsCall) => boolean): number => {
  for (let i = log.length - 1; i >= 0; i--) if (matches(log[i]!)) return i + 1
  return 0
}

/** The calls of the shared bounded read of one small file (services/fileRead.ts): checked on the path and on the open file. */
const boundedRead = (name: string) => [`stat ${name}`, `open ${name}`, `File.stat ${name}`, `File.read ${name}`, `File.read ${name}`]

const milestones = (log: ReadonlyArray<FsCall>): Milestones => {
  const base = (call: FsCall) => NodePath.basename(call.path)
  const journalPublish = log.findIndex((call) => call.method === "rename" && base(call) === ".inv.journal.tmp") + 1
  const lastSwap = lastCall(log, (call) => call.method === "rename" && base(call).endsWith(".stage"))
  const lockTaken = log.findIndex((call) => call.method === "remove" && withoutNonce(base(call)) === ".inv.lock.NONCE.tmp") + 1
  return { total: log.length, journalPublish, committed: lastSwap + 2, lockTaken }
}

/** The step and path a commit reports when `call` fails. */
const expectedFailure = (call: FsCall, paths: BundlePaths): { readonly step: string; readonly path: string } => {
  const base = NodePath.basename(call.path)
  const here = NodePath.join(paths.dir, base)
  if (call.method === "makeDirectory") return { step: "create-dir", path: paths.dir }
  if (call.method === "readDirectory") return { step: "recover", path: paths.dir }
  if (base === ".inv.lock" || withoutNonce(base) === ".inv.lock.NONCE.tmp") return { step: "lock", path: NodePath.join(paths.dir, ".inv.lock") }
  if (call.method === "link") return { step: "backup", path: here }
  if (!base.startsWith(".")) return { step: "sync-dir", path: paths.dir }
  if (call.method === "rename" && base.endsWith(".stage")) {
    return { step: "swap", path: NodePath.join(paths.dir, base.slice(1).replace(/\.[^.]+\.stage$/, "")) }
  }
  if (base.endsWith(".stage")) return { step: "stage", path: here }
  if (call.method === "rename" && base === ".inv.journal.tmp") return { step: "journal", path: NodePath.join(paths.dir, ".inv.journal") }
  if (base === ".inv.journal.tmp") return { step: "journal", path: here }
  throw new Error(`no step for ${call.method} ${call.path}`)
}

/** Commits NEW (`next`) over `old` with a fault-free counting fs and returns its call log. */
const cleanCommitLog = (root: string, old: BundleFiles | null, next: BundleFiles = NEW_FILES) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const processes = makeProcesses()
    const paths = inv(NodePath.join(root, "clean"))
    if (old !== null) yield* writeBundle(paths, old)
    const { controller, fs: counting } = makeFaultyFileSystem(fs)
    const writer = yield* writerOver(counting, processes.owner(processes.spawn()))
    yield* writer.commit(paths, NEW, next)
    expect(yield* snapshot(paths.dir)).toEqual(bundleState(paths, next))
    return yield* controller.log
  })

/** The temp file a lock or break marker is written to before it is linked into place, its random nonce as NONCE. */
const LOCK_TEMP = /\.lock(\.[^.]+\.break)?\.[A-Za-z0-9_-]+\.tmp$/
const withoutNonce = (name: string) => name.replace(LOCK_TEMP, ".lock$1.NONCE.tmp")

const relativeLog = (log: ReadonlyArray<FsCall>, dir: string) =>
  log.map((call) => `${call.method} ${withoutNonce(NodePath.relative(dir, call.path)) || "."}`)

const baseLog = (log: ReadonlyArray<FsCall>) => log.map((call) => `${call.method} ${withoutNonce(NodePath.basename(call.path))}`)

// == tests

describe("bundle paths", () => {
  it("derives inv.md, inv.json and inv.summary.md from a redirect", () => {
    expect(bundlePathsForRedirect("some/dir/inv.md", "/work")).toEqual(
      Either.right({
        dir: "/work/some/dir",
        json: "/work/some/dir/inv.json",
        markdown: "/work/some/dir/inv.md",
        summary: "/work/some/dir/inv.summary.md",
        stem: "inv"
      })
    )
    expect(bundlePathsForRedirect("/abs/x.y.md", "/work")).toEqual(
      Either.right({ dir: "/abs", json: "/abs/x.y.json", markdown: "/abs/x.y.md", summary: "/abs/x.y.summary.md", stem: "x.y" })
    )
  })

  it("refuses a path that does not name a .md file, with a reason", () => {
    expect(bundlePathsForRedirect("inv.txt", "/work")).toEqual(
      Either.left(
        "the output path inv.txt does not end in .md; the bundle needs a markdown path such as inv.md, from which inv.json and inv.summary.md are derived"
      )
    )
    expect(bundlePathsForRedirect("out/", "/work")).toEqual(
      Either.left("the output path out/ names a directory; give a file name ending in .md, such as out/inv.md")
    )
    expect(bundlePathsForRedirect("out/.md", "/work")).toEqual(
      Either.left("the output path out/.md has no name before .md; give a name such as inv.md")
    )
    expect(bundlePathsForRedirect("", "/work")).toEqual(
      Either.left("the output path is empty; give a file name ending in .md, such as inv.md")
    )
  })

  it("puts the default bundle in tools.json, tools.md, tools.summary.md", () => {
    expect(bundlePathsForDir("/data/tool-map")).toEqual({
      dir: "/data/tool-map",
      json: "/data/tool-map/tools.json",
      markdown: "/data/tool-map/tools.md",
      summary: "/data/tool-map/tools.summary.md",
      stem: "tools"
    })
  })

  it("resolves the default data dir: $PLUGIN_DATA, else $XDG_DATA_HOME/tool-map, else ~/.local/share/tool-map", () => {
    expect(defaultDataDir({ PLUGIN_DATA: "/p", XDG_DATA_HOME: "/x" }, "/home/u")).toBe("/p")
    expect(defaultDataDir({ XDG_DATA_HOME: "/x" }, "/home/u")).toBe("/x/tool-map")
    expect(defaultDataDir({}, "/home/u")).toBe("/home/u/.local/share/tool-map")
    expect(defaultDataDir({ PLUGIN_DATA: "", XDG_DATA_HOME: "relative/x" }, "/home/u")).toBe("/home/u/.local/share/tool-map")
  })
})

describe("readGeneration", () => {
  it("reads the marker line of a markdown file and the generation of tools.json", () => {
    expect(readGeneration(NEW_FILES.markdown)).toBe(NEW)
    expect(readGeneration(`\uFEFF<!-- tool-map generation=${OLD} -->\r\n# x\r\n`)).toBe(OLD)
    expect(readGeneration(NEW_FILES.json)).toBe(NEW)
    expect(readGeneration("# no marker\n<!-- tool-map generation=abc -->\n")).toBe(null)
    expect(readGeneration(`{"generation":`)).toBe(null)
    expect(readGeneration(`{"generation":42}`)).toBe(null)
    expect(readGeneration("")).toBe(null)
  })
})

describe("BundleWriter.commit", () => {
  it.scopedLive("makes exactly these calls, in this order, over an old bundle", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const log = yield* cleanCommitLog(root, OLD_FILES)
      const stage = (name: string) => `.${name}.${NEW}.stage`
      const backup = (name: string) => `.${name}.${NEW}.bak`
      expect(relativeLog(log, NodePath.join(root, "clean"))).toEqual([
        "makeDirectory .",
        // The lock is written to a temp file and linked into place: it never exists empty.
        "writeFile .inv.lock.NONCE.tmp",
        "link .inv.lock.NONCE.tmp",
        "remove .inv.lock.NONCE.tmp",
        "readDirectory .",
        ...["inv.json", "inv.md", "inv.summary.md"].flatMap((name) => [
          `open ${stage(name)}`,
          `File.writeAll ${stage(name)}`,
          `File.sync ${stage(name)}`
        ]),
        "link inv.json",
        "link inv.md",
        "link inv.summary.md",
        "open .",
        "File.sync .",
        "open .inv.journal.tmp",
        "File.writeAll .inv.journal.tmp",
        "File.sync .inv.journal.tmp",
        "rename .inv.journal.tmp",
        "open .",
        "File.sync .",
        `rename ${stage("inv.json")}`,
        `rename ${stage("inv.md")}`,
        `rename ${stage("inv.summary.md")}`,
        "open .",
        "File.sync .",
        "readDirectory .",
        ...boundedRead(".inv.journal"),
        `remove ${backup("inv.json")}`,
        `remove ${backup("inv.md")}`,
        `remove ${backup("inv.summary.md")}`,
        "remove .inv.journal",
        "open .",
        "File.sync .",
        // The release removes the lock only while it still holds this writer's nonce.
        ...boundedRead(".inv.lock"),
        "remove .inv.lock"
      ])
    })))

  it.scopedLive("writes a bundle into a new directory and replaces it with the next generation", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(NodePath.join(root, "a", "b"))
      const writer = yield* BundleWriter.make(FAST).pipe(Effect.provideService(LockOwner, LockOwner.live))
      yield* writer.commit(paths, OLD, OLD_FILES)
      expect(yield* snapshot(paths.dir)).toEqual(bundleState(paths, OLD_FILES))
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(paths.dir)).toEqual(bundleState(paths, NEW_FILES))
      expect(readGeneration(yield* fs.readFileString(paths.summary))).toBe(NEW)
    })))

  it.scopedLive("restores a partial old bundle exactly when the swap fails", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* fs.writeFileString(paths.markdown, OLD_FILES.markdown)
      const { controller, fs: faulty } = makeFaultyFileSystem(fs)
      const processes = makeProcesses()
      const writer = yield* writerOver(faulty, processes.owner(processes.spawn()))
      // Calls: 1 mkdir, 2-4 lock, 5 list, 6-14 stage, 15 link, 16-17 fsync dir, 18-21 journal, 22-23 fsync, 24 first swap.
      yield* controller.arm(Fault.once(25))
      const exit = yield* Effect.exit(writer.commit(paths, NEW, NEW_FILES))
      expect(failureOf(exit)).toEqual(new BundleWriteError({ step: "swap", path: paths.markdown, reason: "Unknown: FileSystem.rename (" + NodePath.join(root, `.inv.md.${NEW}.stage`) + "): injected fault at call #25: one failure" }))
      expect(yield* snapshot(root)).toEqual({ "inv.md": latin1(OLD_FILES.markdown) })
    })))

  it.scopedLive("names the directory when it cannot be created", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      yield* fs.writeFileString(NodePath.join(root, "file"), "x")
      const writer = yield* BundleWriter.make(FAST).pipe(Effect.provideService(LockOwner, LockOwner.live))

      const underFile = inv(NodePath.join(root, "file", "out"))
      const notDir = failureOf(yield* Effect.exit(writer.commit(underFile, NEW, NEW_FILES)))
      expect(notDir).toBeInstanceOf(BundleWriteError)
      expect(notDir?.message).toBe(
        `Cannot write the tool-map bundle: creating the output directory ${underFile.dir} failed: a component of the path is not a directory (ENOTDIR). Make ${underFile.dir} a writable directory, or write the bundle elsewhere with \`tool-map scan <writable dir>/inv.md\`.`
      )

      const isFile = inv(NodePath.join(root, "file"))
      const exists = failureOf(yield* Effect.exit(writer.commit(isFile, NEW, NEW_FILES)))
      expect(exists?.message).toBe(
        `Cannot write the tool-map bundle: creating the output directory ${isFile.dir} failed: it exists and is not a directory (EEXIST). Make ${isFile.dir} a writable directory, or write the bundle elsewhere with \`tool-map scan <writable dir>/inv.md\`.`
      )
      expect(yield* snapshot(root)).toEqual({ file: "x" })
    })))

  it.scopedLive("names the directory when it is not writable (EACCES, EROFS)", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      for (const [code, text] of [["EACCES", "permission denied"], ["EROFS", "the file system is read-only"]] as const) {
        // Call 2 is the write of the lock's temp file: the first file the commit creates.
        const { fs: faulty } = makeFaultyFileSystem(fs, Fault.once(2, code))
        const writer = yield* writerOver(faulty, processes.owner(processes.spawn()))
        const error = failureOf(yield* Effect.exit(writer.commit(paths, NEW, NEW_FILES)))
        expect(error).toEqual(
          new BundleWriteError({
            step: "lock",
            path: NodePath.join(root, ".inv.lock"),
            reason: `cannot create files in ${root}: ${text} (${code}). Make ${root} a writable directory, or write the bundle elsewhere with \`tool-map scan <writable dir>/inv.md\`.`
          })
        )
      }
      expect(yield* snapshot(root)).toEqual({})
    })))

  it.scopedLive("refuses a generation id that cannot be part of a file name", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const writer = yield* BundleWriter.make(FAST).pipe(Effect.provideService(LockOwner, LockOwner.live))
      const error = failureOf(yield* Effect.exit(writer.commit(paths, "../../etc", NEW_FILES)))
      expect(error).toEqual(
        new BundleWriteError({
          step: "validate",
          path: paths.markdown,
          reason: `the generation id "../../etc" is not 1 to 128 letters, digits, "-" or "_"`
        })
      )
      expect(yield* snapshot(root)).toEqual({})
    })))

  it.scopedLive("backs up by copy where hard links are refused, and skips a directory fsync the OS refuses", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const log = yield* cleanCommitLog(root, OLD_FILES)
      const lockLink = log.findIndex((call) => call.method === "link") + 1
      const firstLink = log.findIndex((call, index) => call.method === "link" && index + 1 > lockLink) + 1
      const firstDirSync = log.findIndex((call) => call.method === "File.sync" && call.path === NodePath.join(root, "clean")) + 1
      const processes = makeProcesses()
      for (const fault of [Fault.once(lockLink, "EPERM"), Fault.once(firstLink, "EPERM"), Fault.once(firstDirSync, "EINVAL")]) {
        const paths = inv(NodePath.join(root, `case-${fault.at}`))
        yield* writeBundle(paths, OLD_FILES)
        const { controller, fs: faulty } = makeFaultyFileSystem(fs, fault)
        const writer = yield* writerOver(faulty, processes.owner(processes.spawn()))
        yield* writer.commit(paths, NEW, NEW_FILES)
        expect(yield* snapshot(paths.dir)).toEqual(bundleState(paths, NEW_FILES))
        // The copy fallback costs a copy and an fsync of the copy (open + sync) beyond the link; the
        // lock's fallback an exclusive open and a write.
        expect(yield* controller.calls).toBe(fault.at === firstLink ? log.length + 3 : fault.at === lockLink ? log.length + 2 : log.length)
      }
    })))

  it.scopedLive("keeps two bundles in one directory apart", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const processes = makeProcesses()
      const tools = bundlePathsForDir(root)
      const other = inv(root)
      const healthy = yield* writerOver(fs, processes.owner(processes.spawn()))
      yield* healthy.commit(tools, OLD, OLD_FILES)
      // Crash the inv bundle's first commit mid-swap (call 24 = the second rename of a staged file).
      const crashed = processes.spawn()
      const { fs: faulty } = makeFaultyFileSystem(fs, Fault.crash(24))
      yield* Effect.exit((yield* writerOver(faulty, processes.owner(crashed))).commit(other, NEW, NEW_FILES))
      processes.kill(crashed)
      const pending = yield* snapshot(root)
      expect(Object.keys(pending).filter((name) => name.startsWith(".inv.")).sort()).toEqual(
        [".inv.journal", ".inv.lock", `.inv.md.${NEW}.stage`, `.inv.summary.md.${NEW}.stage`]
      )
      expect(yield* healthy.recover(tools)).toEqual(
        RecoveryReport.make({ action: "none", interruptedGeneration: null, removed: [], lockHolder: null })
      )
      expect(yield* snapshot(root)).toEqual(pending)
      yield* healthy.commit(tools, NEW, NEW_FILES)
      const report = yield* healthy.recover(other)
      expect(report.action).toBe("rolled-forward")
      expect(yield* snapshot(root)).toEqual({ ...bundleState(tools, NEW_FILES), ...bundleState(other, NEW_FILES) })
    })))
})

/**
 * The fault sweep: every call of a whole commit fails in turn, once or persistently, starting
 * from an old bundle and from none. After the failed commit and a recover with a healthy fs (as
 * the next run does), the directory holds exactly the old or the new bundle and nothing else.
 */
describe("a failure at every call of a commit", () => {
  for (const start of ["an old bundle", "no bundle"] as const) {
    for (const persistent of [false, true]) {
      it.scopedLive(`${persistent ? "persistent" : "one-off"} failure, starting from ${start}`, () =>
        onDisk(Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const root = yield* fs.makeTempDirectoryScoped()
          const old = start === "an old bundle" ? OLD_FILES : null
          const log = yield* cleanCommitLog(root, old)
          const at = milestones(log)
          expect(at.total).toBe(old === null ? 42 : 48)
          const processes = makeProcesses()
          const recoverer = yield* writerOver(fs, processes.owner(processes.spawn()))
          for (let n = 1; n <= at.total; n++) {
            const paths = inv(NodePath.join(root, `n${n}`, "out"))
            if (old !== null) yield* writeBundle(paths, old)
            const pid = processes.spawn()
            const { controller, fs: faulty } = makeFaultyFileSystem(fs, persistent ? Fault.persistent(n) : Fault.once(n))
            const writer = yield* writerOver(faulty, processes.owner(pid))
            const exit = yield* Effect.exit(writer.commit(paths, NEW, NEW_FILES))
            const context = `call #${n} (${log[n - 1]?.method} ${log[n - 1]?.path})`
            // The removal of the lock's temp file may fail: the lock is held, and the recovery under
            // it removes the temp file as a stray. A persistent failure fails the next call.
            const ignored = n === at.lockTaken
            const fails = n <= at.committed && !(ignored && !persistent)

            // The commit fails exactly when the fault hits the commit proper, with the step and path of that call.
            if (fails) {
              const expected = expectedFailure(log[ignored ? n : n - 1]!, paths)
              const error = failureOf(exit)
              expect(error, context).toBeInstanceOf(BundleWriteError)
              expect({ step: (error as BundleWriteError).step, path: (error as BundleWriteError).path }, context).toEqual(expected)
            } else {
              expect(Exit.isSuccess(exit), context).toBe(true)
            }
            // Same call sequence as the clean commit up to the fault.
            expect((yield* controller.log).slice(0, n).map((call) => call.method), context).toEqual(
              log.slice(0, n).map((call) => call.method)
            )
            if (!persistent) {
              // A one-off failure is fully undone in process: the lock is released, nothing is left over.
              const expectedNow = fails ? bundleState(paths, old) : null
              const now = yield* snapshot(paths.dir)
              expect(Object.keys(now).includes(".inv.lock"), context).toBe(false)
              if (expectedNow !== null) expect(now, context).toEqual(expectedNow)
            }
            processes.kill(pid)
            yield* recoverer.recover(paths)
            const outcome = persistent ? (n <= at.journalPublish ? old : NEW_FILES) : (fails ? old : NEW_FILES)
            expect(yield* snapshot(paths.dir), context).toEqual(bundleState(paths, outcome))
          }
        })), 120_000)
    }
  }
})

/**
 * SIGKILL at every call: from call N on the disk is frozen (the dying process's finalizers
 * cannot touch it), the call itself landing not at all, fully, or half-written. The next run's
 * recover repairs the bundle to exactly one generation.
 */
describe("a crash at every call of a commit", () => {
  for (const start of ["an old bundle", "no bundle"] as const) {
    for (const when of ["before", "after", "torn"] as const) {
      it.scopedLive(`killed ${when} the call, starting from ${start}`, () =>
        onDisk(Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const root = yield* fs.makeTempDirectoryScoped()
          const old = start === "an old bundle" ? OLD_FILES : null
          const log = yield* cleanCommitLog(root, old)
          const at = milestones(log)
          const processes = makeProcesses()
          const recoverer = yield* writerOver(fs, processes.owner(processes.spawn()))
          for (let n = 1; n <= at.total; n++) {
            const paths = inv(NodePath.join(root, `n${n}`, "out"))
            if (old !== null) yield* writeBundle(paths, old)
            const pid = processes.spawn()
            const { controller, fs: faulty } = makeFaultyFileSystem(fs, Fault.crash(n, when))
            yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).commit(paths, NEW, NEW_FILES))
            const context = `call #${n} (${log[n - 1]?.method} ${log[n - 1]?.path})`
            expect(yield* controller.frozen, context).toBe(true)
            processes.kill(pid)

            const left = yield* snapshot(paths.dir)
            const report = yield* recoverer.recover(paths)
            const aux = Object.keys(left).filter((name) => name.startsWith("."))
            expect(report.action, context).toBe(
              aux.includes(".inv.journal") ? "rolled-forward" : aux.length > 0 ? "cleaned" : "none"
            )
            const landed = when === "after" ? n >= at.journalPublish : n > at.journalPublish
            expect(yield* snapshot(paths.dir), context).toEqual(bundleState(paths, landed ? NEW_FILES : old))
            // The recover was complete: a second one has nothing to do.
            expect((yield* recoverer.recover(paths)).action, context).toBe("none")
          }
        })), 120_000)
    }
  }

  it.scopedLive("a crash at every call of the rollback of a failed swap leaves one generation", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const log = yield* cleanCommitLog(root, OLD_FILES)
      const at = milestones(log)
      const secondSwap = at.journalPublish + 4
      expect(log[secondSwap - 1]?.path.endsWith(`.inv.md.${NEW}.stage`)).toBe(true)
      // The in-process rollback after a failed second swap, without crash: its calls.
      const processes = makeProcesses()
      const probe = inv(NodePath.join(root, "probe"))
      yield* writeBundle(probe, OLD_FILES)
      const { controller, fs: failing } = makeFaultyFileSystem(fs, Fault.once(secondSwap))
      yield* Effect.exit((yield* writerOver(failing, processes.owner(processes.spawn()))).commit(probe, NEW, NEW_FILES))
      expect(yield* snapshot(probe.dir)).toEqual(bundleState(probe, OLD_FILES))
      const undoLog = yield* controller.log
      const rollbackPublish = lastCall(undoLog, (call) => call.method === "rename" && call.path.endsWith(".inv.journal.tmp"))
      expect(rollbackPublish).toBeGreaterThan(secondSwap)

      const recoverer = yield* writerOver(fs, processes.owner(processes.spawn()))
      for (let m = secondSwap + 1; m <= undoLog.length; m++) {
        for (const when of ["before", "after"] as const) {
          const paths = inv(NodePath.join(root, `m${m}-${when}`))
          yield* writeBundle(paths, OLD_FILES)
          const pid = processes.spawn()
          const { fs: faulty } = makeFaultyFileSystem(fs, Fault.once(secondSwap), Fault.crash(m, when))
          yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).commit(paths, NEW, NEW_FILES))
          processes.kill(pid)
          yield* recoverer.recover(paths)
          // Before the rollback decision is durable, the journal still says forward: roll forward.
          const decided = when === "after" ? m >= rollbackPublish : m > rollbackPublish
          expect(yield* snapshot(paths.dir), `crash ${when} call #${m} ${undoLog[m - 1]?.method} ${undoLog[m - 1]?.path}`)
            .toEqual(bundleState(paths, decided ? OLD_FILES : NEW_FILES))
        }
      }
    })), 120_000)

  it.scopedLive("a crash at every call of a recovery is repaired by the next one", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const log = yield* cleanCommitLog(root, OLD_FILES)
      const at = milestones(log)
      const processes = makeProcesses()
      // Kill points that leave a forward journal mid-swap, and one that leaves only staged files.
      for (const killAt of [at.journalPublish - 1, at.journalPublish + 3, at.journalPublish + 4]) {
        const setup = (dir: string) =>
          Effect.gen(function* () {
            const paths = inv(dir)
            yield* writeBundle(paths, OLD_FILES)
            const pid = processes.spawn()
            const { fs: faulty } = makeFaultyFileSystem(fs, Fault.crash(killAt))
            yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).commit(paths, NEW, NEW_FILES))
            processes.kill(pid)
            return paths
          })
        const expected = killAt > at.journalPublish ? NEW_FILES : OLD_FILES
        const probe = yield* setup(NodePath.join(root, `probe-${killAt}`))
        const { controller, fs: counting } = makeFaultyFileSystem(fs)
        yield* (yield* writerOver(counting, processes.owner(processes.spawn()))).recover(probe)
        const recoverCalls = yield* controller.calls
        expect(recoverCalls).toBeGreaterThan(5)
        for (let m = 1; m <= recoverCalls; m++) {
          for (const when of ["before", "after"] as const) {
            const paths = yield* setup(NodePath.join(root, `k${killAt}-m${m}-${when}`))
            const pid = processes.spawn()
            const { fs: faulty } = makeFaultyFileSystem(fs, Fault.crash(m, when))
            yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).recover(paths))
            processes.kill(pid)
            yield* (yield* writerOver(fs, processes.owner(processes.spawn()))).recover(paths)
            expect(yield* snapshot(paths.dir), `kill at ${killAt}, recover crashed ${when} call #${m}`)
              .toEqual(bundleState(paths, expected))
          }
        }
      }
    })), 120_000)
})

/**
 * The fourth file (issue 14): the digest of the replaced generation is committed with the three
 * others, so after a crash at any call the four files are of one generation. From an old bundle
 * with a digest file of its own, and from one without (the first scan after it had nothing to
 * compare with: no backup, so a rollback removes the new file).
 */
describe("a crash at every call of a commit with the digest file", () => {
  for (const oldHasDigest of [true, false]) {
    it.scopedLive(`killed before or after each call, over an old bundle ${oldHasDigest ? "with" : "without"} a digest file`, () =>
      onDisk(Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const root = yield* fs.makeTempDirectoryScoped()
        const old = oldHasDigest ? withDigest(OLD_FILES, OLD, "20231231T000000Z-00000000") : OLD_FILES
        const next = withDigest(NEW_FILES, NEW, OLD)
        const log = yield* cleanCommitLog(root, old, next)
        expect(baseLog(log).filter((call) => call.includes("inv.previous.json"))).toEqual([
          `open .inv.previous.json.${NEW}.stage`,
          `File.writeAll .inv.previous.json.${NEW}.stage`,
          `File.sync .inv.previous.json.${NEW}.stage`,
          ...(oldHasDigest ? ["link inv.previous.json"] : []),
          `rename .inv.previous.json.${NEW}.stage`,
          ...(oldHasDigest ? [`remove .inv.previous.json.${NEW}.bak`] : [])
        ])
        const at = milestones(log)
        const processes = makeProcesses()
        const recoverer = yield* writerOver(fs, processes.owner(processes.spawn()))
        for (const when of ["before", "after"] as const) {
          for (let n = 1; n <= at.total; n++) {
            const paths = inv(NodePath.join(root, `${when}${n}`, "out"))
            yield* writeBundle(paths, old)
            const pid = processes.spawn()
            const { controller, fs: faulty } = makeFaultyFileSystem(fs, Fault.crash(n, when))
            yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).commit(paths, NEW, next))
            const context = `killed ${when} call #${n} (${log[n - 1]?.method} ${log[n - 1]?.path})`
            expect(yield* controller.frozen, context).toBe(true)
            processes.kill(pid)
            yield* recoverer.recover(paths)
            const landed = when === "after" ? n >= at.journalPublish : n > at.journalPublish
            expect(yield* snapshot(paths.dir), context).toEqual(bundleState(paths, landed ? next : old))
          }
        }
      })), 120_000)
  }
})

describe("an interrupted commit", () => {
  it.scopedLive("is rolled back by its own finalizers at every interruptible call, with no recover needed", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const log = yield* cleanCommitLog(root, OLD_FILES)
      const at = milestones(log)
      const processes = makeProcesses()
      let swept = 0
      // Taking the lock is uninterruptible (a lock file must never leak); everything after is not.
      for (let n = at.lockTaken + 1; n <= at.committed; n++) {
        const paths = inv(NodePath.join(root, `n${n}`))
        yield* writeBundle(paths, OLD_FILES)
        const reached = yield* Deferred.make<void>()
        const { fs: faulty } = makeFaultyFileSystem(fs, Fault.hook(n, Effect.zipRight(Deferred.succeed(reached, undefined), Effect.never)))
        const writer = yield* writerOver(faulty, processes.owner(processes.spawn()))
        const fiber = yield* Effect.fork(writer.commit(paths, NEW, NEW_FILES))
        yield* Deferred.await(reached)
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(yield* snapshot(paths.dir), `interrupted at call #${n} ${log[n - 1]?.method} ${log[n - 1]?.path}`)
          .toEqual(bundleState(paths, OLD_FILES))
        swept++
      }
      expect(swept).toBe(at.committed - at.lockTaken)
    })), 60_000)
})

describe("the lock", () => {
  /**
   * Starts a commit that holds the lock and waits at its first staged write (call `at`: 6
   * when the lock is free) until `go` is done.
   */
  const holdLock = (
    fs: FileSystem.FileSystem,
    owner: LockOwnerShape,
    paths: BundlePaths,
    files: BundleFiles,
    generation: string,
    at = 6
  ) =>
    Effect.gen(function* () {
      const reached = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      const { controller, fs: paused } = makeFaultyFileSystem(
        fs,
        Fault.hook(at, Effect.zipRight(Deferred.succeed(reached, undefined), Deferred.await(go)))
      )
      const writer = yield* writerOver(paused, owner)
      const fiber = yield* Effect.fork(writer.commit(paths, generation, files))
      yield* Deferred.await(reached)
      const log = yield* controller.log
      expect(log[at - 1]?.path.endsWith(".stage")).toBe(true)
      return { go, fiber, log }
    })

  it.scopedLive("a second commit while the first holds the lock fails with BundleLocked", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      const first = processes.spawn()
      const held = yield* holdLock(fs, processes.owner(first), paths, OLD_FILES, OLD)
      const lockFile = JSON.parse(yield* fs.readFileString(NodePath.join(root, ".inv.lock")))
      expect(Object.keys(lockFile).sort()).toEqual(["createdAt", "nonce", "pid"])
      expect(lockFile.pid).toBe(first)

      const second = yield* writerOver(fs, processes.owner(processes.spawn()))
      const started = Date.now()
      const error = failureOf(yield* Effect.exit(second.commit(paths, NEW, NEW_FILES)))
      expect(Date.now() - started).toBeGreaterThanOrEqual(190)
      expect(error).toEqual(new BundleLocked({ path: NodePath.join(root, ".inv.lock"), pid: first, since: lockFile.createdAt }))
      expect(error?.message).toBe(
        `The tool-map bundle is being written by another tool-map process (pid ${first}): ${NodePath.join(root, ".inv.lock")} is held. Wait for it to finish and retry; if no such process is running, delete ${NodePath.join(root, ".inv.lock")}.`
      )
      // A query's recover meanwhile touches nothing and says who holds the lock.
      expect(yield* second.recover(paths)).toEqual(
        RecoveryReport.make({ action: "busy", interruptedGeneration: null, removed: [], lockHolder: first })
      )

      yield* Deferred.succeed(held.go, undefined)
      yield* Fiber.join(held.fiber)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, OLD_FILES))
      yield* second.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  /** Writes a lock file by hand, as another process would have left it. */
  const plantLock = (root: string, content: Record<string, unknown>) =>
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.writeFileString(NodePath.join(root, ".inv.lock"), JSON.stringify(content)))

  it.scopedLive("a dangling symbolic link at the lock is broken at once, never waited on", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* fs.symlink(NodePath.join(root, "no-such-file"), NodePath.join(root, ".inv.lock"))
      const processes = makeProcesses()
      const writer = yield* writerOver(fs, processes.owner(processes.spawn()), { ...FAST, unreadableLockGrace: "10 seconds" })
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("a lock written under another pid scope is left alone until it is older than the foreign limit", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      const owner = { ...processes.owner(processes.spawn()), scope: "here/pid:[1]" }
      const writer = yield* writerOver(fs, owner, { ...FAST, foreignLockMaxAge: "1 minute" })
      // Its pid is dead here, which says nothing about a process on another host or namespace.
      const recent = new Date(Date.now() - 5_000).toISOString()
      yield* plantLock(root, { pid: 7, nonce: "foreign", createdAt: recent, scope: "elsewhere/pid:[2]", startTicks: 99 })
      expect(failureOf(yield* Effect.exit(writer.commit(paths, NEW, NEW_FILES)))).toEqual(
        new BundleLocked({ path: NodePath.join(root, ".inv.lock"), pid: 7, since: recent })
      )
      yield* plantLock(root, {
        pid: 7,
        nonce: "foreign",
        createdAt: new Date(Date.now() - 120_000).toISOString(),
        scope: "elsewhere/pid:[2]",
        startTicks: 99
      })
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("a lock naming a pid now held by a process started at another time is stale (the pid was reused)", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const now = new Date().toISOString()
      // This very process's pid and scope, but another start time: an earlier run that died.
      const earlierStart = (processStartTicks(process.pid) ?? 2) - 1
      yield* plantLock(root, { pid: process.pid, nonce: "earlier", createdAt: now, scope: LockOwner.live.scope, startTicks: earlierStart })
      const writer = yield* BundleWriter.make(FAST).pipe(Effect.provideService(LockOwner, LockOwner.live))
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
      // The same holds for another live pid: PID 1 always runs, but not since this later tick.
      const otherStart = (processStartTicks(1) ?? 0) + 1
      yield* plantLock(root, { pid: 1, nonce: "earlier", createdAt: now, scope: LockOwner.live.scope, startTicks: otherStart })
      yield* writer.commit(paths, OLD, OLD_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, OLD_FILES))
    })))

  it.scopedLive("waits for a live holder that finishes within the wait", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      const held = yield* holdLock(fs, processes.owner(processes.spawn()), paths, OLD_FILES, OLD)
      const second = yield* writerOver(fs, processes.owner(processes.spawn()), { ...FAST, lockWait: "5 seconds" })
      const waiting = yield* Effect.fork(second.commit(paths, NEW, NEW_FILES))
      yield* Effect.sleep("100 millis")
      yield* Deferred.succeed(held.go, undefined)
      yield* Fiber.join(held.fiber)
      yield* Fiber.join(waiting)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("breaks a stale lock whose pid is dead (a real process that exited)", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* writeBundle(paths, OLD_FILES)
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid
      expect(typeof dead).toBe("number")
      yield* fs.writeFileString(
        NodePath.join(root, ".inv.lock"),
        JSON.stringify({ pid: dead, nonce: "stale0nonce", createdAt: "2024-01-01T00:00:00.000Z" })
      )
      const writer = yield* BundleWriter.make({ lockWait: "1 second" }).pipe(Effect.provideService(LockOwner, LockOwner.live))
      expect(yield* writer.recover(paths)).toEqual(
        RecoveryReport.make({ action: "cleaned", interruptedGeneration: null, removed: [".inv.lock"], lockHolder: null })
      )
      expect(yield* snapshot(root)).toEqual(bundleState(paths, OLD_FILES))
      yield* fs.writeFileString(
        NodePath.join(root, ".inv.lock"),
        JSON.stringify({ pid: dead, nonce: "stale1nonce", createdAt: "2024-01-01T00:00:00.000Z" })
      )
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("treats a lock file without a pid as held for the grace period, then as stale", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock"), "")
      const patient = yield* writerOver(fs, processes.owner(processes.spawn()), { ...FAST, unreadableLockGrace: "10 seconds" })
      expect(failureOf(yield* Effect.exit(patient.commit(paths, NEW, NEW_FILES)))).toEqual(
        new BundleLocked({ path: NodePath.join(root, ".inv.lock"), pid: null, since: null })
      )
      const writer = yield* writerOver(fs, processes.owner(processes.spawn()), { ...FAST, unreadableLockGrace: "50 millis" })
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("a breaker that saw the stale lock before another broke it never removes the new lock", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const lockPath = NodePath.join(root, ".inv.lock")
      const processes = makeProcesses()
      const dead = processes.spawn()
      processes.kill(dead)
      yield* fs.writeFileString(lockPath, JSON.stringify({ pid: dead, nonce: "deadbeef", createdAt: "2024-01-01T00:00:00.000Z" }))

      // B: 1 mkdir, 2-4 create lock (exists), 5-9 read it (dead pid: stale), 10 create the break marker ← paused here.
      const bReached = yield* Deferred.make<void>()
      const bGo = yield* Deferred.make<void>()
      const { controller: bCalls, fs: bFs } = makeFaultyFileSystem(
        fs,
        Fault.hook(10, Effect.zipRight(Deferred.succeed(bReached, undefined), Deferred.await(bGo)))
      )
      const b = processes.spawn()
      const bFiber = yield* Effect.fork((yield* writerOver(bFs, processes.owner(b))).commit(paths, NEW, NEW_FILES))
      yield* Deferred.await(bReached)
      expect(baseLog(yield* bCalls.log)).toEqual([
        "makeDirectory " + NodePath.basename(root),
        "writeFile .inv.lock.NONCE.tmp",
        "link .inv.lock.NONCE.tmp",
        "remove .inv.lock.NONCE.tmp",
        ...boundedRead(".inv.lock"),
        "writeFile .inv.lock.deadbeef.break.NONCE.tmp"
      ])

      // A breaks the same stale lock, takes the lock and holds it.
      const a = processes.spawn()
      const held = yield* holdLock(fs, processes.owner(a), paths, OLD_FILES, OLD, 24)
      expect(baseLog(held.log).slice(1, 23)).toEqual([
        "writeFile .inv.lock.NONCE.tmp",
        "link .inv.lock.NONCE.tmp",
        "remove .inv.lock.NONCE.tmp",
        ...boundedRead(".inv.lock"),
        "writeFile .inv.lock.deadbeef.break.NONCE.tmp",
        "link .inv.lock.deadbeef.break.NONCE.tmp",
        "remove .inv.lock.deadbeef.break.NONCE.tmp",
        ...boundedRead(".inv.lock"),
        "remove .inv.lock",
        "remove .inv.lock.deadbeef.break",
        "writeFile .inv.lock.NONCE.tmp",
        "link .inv.lock.NONCE.tmp",
        "remove .inv.lock.NONCE.tmp",
        "readDirectory " + NodePath.basename(root)
      ])
      const aLock = yield* fs.readFileString(lockPath)
      expect(JSON.parse(aLock).pid).toBe(a)

      // B resumes: it wins the marker, rereads the lock, sees it is not the stale one, and waits.
      yield* Deferred.succeed(bGo, undefined)
      expect(failureOf(yield* Fiber.await(bFiber))).toEqual(
        new BundleLocked({ path: lockPath, pid: a, since: JSON.parse(aLock).createdAt })
      )
      expect(yield* fs.readFileString(lockPath)).toBe(aLock)

      yield* Deferred.succeed(held.go, undefined)
      yield* Fiber.join(held.fiber)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, OLD_FILES))
    })))

  it.scopedLive("a break marker left by a breaker that died is cleared with the stale lock", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      const processes = makeProcesses()
      const [deadHolder, deadBreaker] = [processes.spawn(), processes.spawn()]
      processes.kill(deadHolder)
      processes.kill(deadBreaker)
      const stamp = "2024-01-01T00:00:00.000Z"
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock"), JSON.stringify({ pid: deadHolder, nonce: "n1", createdAt: stamp }))
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock.n1.break"), JSON.stringify({ pid: deadBreaker, nonce: "n2", createdAt: stamp }))
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock.old9.break"), JSON.stringify({ pid: deadBreaker, nonce: "n3", createdAt: stamp }))
      const writer = yield* writerOver(fs, processes.owner(processes.spawn()))
      yield* writer.commit(paths, NEW, NEW_FILES)
      expect(yield* snapshot(root)).toEqual(bundleState(paths, NEW_FILES))
    })))

  it.scopedLive("concurrent commits, over a stale lock, never overlap and never corrupt", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const processes = makeProcesses()
      for (let round = 0; round < 15; round++) {
        const paths = inv(NodePath.join(root, `r${round}`))
        const lockPath = NodePath.join(paths.dir, ".inv.lock")
        yield* writeBundle(paths, OLD_FILES)
        const dead = processes.spawn()
        processes.kill(dead)
        yield* fs.writeFileString(lockPath, JSON.stringify({ pid: dead, nonce: `stale${round}`, createdAt: "2024-01-01T00:00:00.000Z" }))
        // Who holds the lock, observed through each writer's calls: a successful link of the lock
        // file into place starts a hold, the start of its removal by its holder ends it.
        const events: Array<string> = []
        const spy = (id: number): FileSystem.FileSystem => ({
          ...fs,
          link: (from, to) => to === lockPath ? Effect.tap(fs.link(from, to), () => events.push(`take ${id}`)) : fs.link(from, to),
          // Recorded as the removal starts and the link once done: the callbacks of two calls on
          // libuv's thread pool may arrive in another order than the calls took effect.
          remove: (path, options) =>
            path === lockPath ? Effect.zipRight(Effect.sync(() => events.push(`drop ${id}`)), fs.remove(path, options)) : fs.remove(path, options)
        })
        const writers = 6
        const generations = Array.from({ length: writers }, (_, id) => `gen-${round}-${id}`)
        const exits = yield* Effect.all(
          generations.map((generation, id) =>
            // No grace for a lock without readable content: a lock is linked into place with its
            // content, so none is ever seen empty.
            Effect.flatMap(writerOver(spy(id), processes.owner(processes.spawn()), { ...FAST, lockWait: "20 seconds", unreadableLockGrace: 0 }), (writer) =>
              Effect.exit(writer.commit(paths, generation, filesOf(generation, `w${id}`))))
          ),
          { concurrency: "unbounded" }
        )
        expect(exits.every(Exit.isSuccess)).toBe(true)
        // Holds alternate take/drop by the same writer: never two holders at once.
        // The first event is the one removal of the stale lock by whichever writer broke it.
        expect(events.length).toBe(1 + 2 * writers)
        expect(events[0]?.startsWith("drop ")).toBe(true)
        const holds = events.slice(1)
        for (let i = 0; i < holds.length; i += 2) {
          expect(holds[i]?.startsWith("take ")).toBe(true)
          expect(holds[i]?.replace("take", "drop")).toBe(holds[i + 1])
        }
        expect(new Set(holds).size).toBe(2 * writers)
        const last = Number(holds[holds.length - 1]?.split(" ")[1])
        expect(yield* snapshot(paths.dir)).toEqual(bundleState(paths, filesOf(generations[last]!, `w${last}`)))
      }
    })), 60_000)
})

describe("BundleWriter.recover", () => {
  it.scopedLive("costs one directory listing when nothing is pending, and none when there is no directory", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* writeBundle(paths, OLD_FILES)
      const processes = makeProcesses()
      const { controller, fs: counting } = makeFaultyFileSystem(fs)
      const writer = yield* writerOver(counting, processes.owner(processes.spawn()))
      const none = RecoveryReport.make({ action: "none", interruptedGeneration: null, removed: [], lockHolder: null })
      expect(yield* writer.recover(paths)).toEqual(none)
      expect((yield* controller.log).map((call) => call.method)).toEqual(["readDirectory"])
      yield* controller.reset
      expect(yield* writer.recover(inv(NodePath.join(root, "missing")))).toEqual(none)
      expect(yield* controller.calls).toBe(1)
    })))

  it.scopedLive("deletes stray staged files that have no journal and leaves the bundle alone", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* writeBundle(paths, OLD_FILES)
      yield* fs.writeFileString(NodePath.join(root, `.inv.md.${NEW}.stage`), "half a file")
      yield* fs.writeFileString(NodePath.join(root, `.inv.json.${NEW}.bak`), OLD_FILES.json)
      yield* fs.writeFileString(NodePath.join(root, ".inv.journal.tmp"), "{\"format\":")
      yield* fs.writeFileString(NodePath.join(root, ".other.md.x.stage"), "not ours")
      // The temp files of a lock and of a break marker whose takers died before linking them.
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock.n0nce.tmp"), "{}")
      yield* fs.writeFileString(NodePath.join(root, ".inv.lock.h0lder.break.n0nce.tmp"), "{}")
      yield* fs.writeFileString(NodePath.join(root, ".other.lock.n0nce.tmp"), "not ours")
      const processes = makeProcesses()
      const writer = yield* writerOver(fs, processes.owner(processes.spawn()))
      const report = yield* writer.recover(paths)
      expect({ ...report, removed: [...report.removed].sort() }).toEqual({
        action: "cleaned",
        interruptedGeneration: null,
        removed: [".inv.journal.tmp", `.inv.json.${NEW}.bak`, ".inv.lock.h0lder.break.n0nce.tmp", ".inv.lock.n0nce.tmp", `.inv.md.${NEW}.stage`],
        lockHolder: null
      })
      expect(yield* snapshot(root)).toEqual({ ...bundleState(paths, OLD_FILES), ".other.md.x.stage": "not ours", ".other.lock.n0nce.tmp": "not ours" })
    })))

  it.scopedLive("refuses a journal it cannot trust, naming it", () =>
    onDisk(Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped()
      const paths = inv(root)
      yield* writeBundle(paths, OLD_FILES)
      const journalPath = NodePath.join(root, ".inv.journal")
      const hostile = { format: "tool-map-journal/1", generation: NEW, state: "forward", files: [{ target: "../../etc/passwd", stage: `.inv.md.${NEW}.stage`, backup: null }] }
      for (const content of ["{not json", JSON.stringify(hostile)]) {
        yield* fs.writeFileString(journalPath, content)
        const processes = makeProcesses()
        const writer = yield* writerOver(fs, processes.owner(processes.spawn()))
        expect(failureOf(yield* Effect.exit(writer.recover(paths)))).toEqual(
          new BundleWriteError({
            step: "recover",
            path: journalPath,
            reason: `the commit journal is not a valid tool-map journal, so the interrupted write cannot be repaired safely. Check the three bundle files in ${root}, then delete ${journalPath} and scan again.`
          })
        )
      }
      expect(Object.keys(yield* snapshot(root))).toEqual([".inv.journal", "inv.json", "inv.md", "inv.summary.md"])
    })))
})
