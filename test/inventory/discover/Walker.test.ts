import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Root, type RootDepth } from "../../../src/inventory/domain/inventory.js"
import type { InspectRequest, Inspected } from "../../../src/platform/WalkerFs.js"
import * as NodeWalkerFs from "../../../src/platform/NodeWalkerFs.js"
import {
  type FileStat,
  type FsFault,
  fromPathBytes,
  isoTimestamp,
  type MemoryNode,
  type MemoryTree,
  toPathBytes,
  type WalkedTool,
  Walker,
  type WalkOptions,
  type WalkResult
} from "../../../src/inventory/discover/Walker.js"

const LINUX: WalkOptions = { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: "/work" }

/** A fresh temp dir per test, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "walker-test-")))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

type Spec = Record<string, { readonly mode: number; readonly body?: string } | { readonly link: string } | "dir">

/** Lays out files (`{ mode }`), symlinks (`{ link }`) and dirs under `base`. */
const lay = (base: string, spec: Spec) => {
  for (const [relative, node] of Object.entries(spec)) {
    const path = NodePath.join(base, relative)
    NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
    if (node === "dir") NodeFs.mkdirSync(path, { recursive: true })
    else if ("link" in node) NodeFs.symlinkSync(node.link, path)
    else {
      NodeFs.writeFileSync(path, node.body ?? "#!/bin/sh\n")
      NodeFs.chmodSync(path, node.mode)
    }
  }
}

const EXEC = { mode: 0o755 } as const
const DATA = { mode: 0o644 } as const

const pathRoots = (dirs: ReadonlyArray<string>): ReadonlyArray<Root> =>
  dirs.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))

const otherRoot = (path: string, depth: RootDepth) => new Root({ path, kind: "well-known", depth, pathIndex: null })

const walk = (roots: ReadonlyArray<Root>, options: WalkOptions = LINUX) =>
  Effect.flatMap(Walker, (walker) => walker.walk(roots, options))

/** The facts of a tool that do not depend on the clock or file sizes. */
const brief = (tool: WalkedTool) => ({
  path: tool.path,
  linkTarget: tool.linkTarget,
  shadowedBy: tool.shadowedBy,
  alsoAt: tool.alsoAt,
  sameFileAs: tool.sameFileAs
})
const statuses = (result: WalkResult) => result.roots.map((root) => [root.path, root.status, root.reason, root.toolCount])
const diagnostics = (result: WalkResult) => result.diagnostics.map((d) => [d.path, d.message])

const withFaults = (faults: ReadonlyArray<FsFault>) =>
  Walker.layerWithoutFs.pipe(Layer.provide(NodeWalkerFs.layerWithFaults(faults)))

const ELOOP = "symlink loop or a chain longer than the OS limit (ELOOP); skipped"

describe("Walker over node:fs", () => {
  it.scoped("skips a self-link with a diagnostic and keeps the rest", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "bin/self": { link: "self" }, "bin/tool": EXEC })
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin]))
      expect(result.tools.map(brief)).toEqual([{ path: `${bin}/tool`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] }])
      expect(diagnostics(result)).toEqual([[`${bin}/self`, ELOOP]])
      expect(statuses(result)).toEqual([[bin, "ok", null, 1]])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("does not list a link to the parent dir in a bin dir", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "bin/up": { link: ".." }, "bin/tool": EXEC, "runme": EXEC })
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin]))
      expect(result.tools.map((tool) => tool.path)).toEqual([`${bin}/tool`])
      expect(result.diagnostics).toEqual([])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("does not loop through links to the parent or above in a recursive root", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        ".claude/hooks/run.sh": EXEC,
        ".claude/hooks/up": { link: ".." },
        ".claude/hooks/here": { link: "." },
        ".claude/out": { link: ".." },
        ".claude/rootlink": { link: "/" },
        ".claude/skills/x/tool": EXEC,
        "secret-tool": EXEC
      })
      const home = `${base}/.claude`
      const result = yield* walk([otherRoot(home, "recursive")])
      expect(result.tools.map((tool) => tool.path)).toEqual([`${home}/hooks/run.sh`, `${home}/skills/x/tool`])
      expect(diagnostics(result)).toEqual([
        [`${home}/hooks/here`, `directory already walked at ${home}/hooks (a link loop or alias); not entered`],
        [`${home}/hooks/up`, `directory already walked at ${home} (a link loop or alias); not entered`],
        [`${home}/out`, `link leads above the root to ${base}; not entered`],
        [`${home}/rootlink`, "link leads above the root to /; not entered"]
      ])
      expect(result.directories).toEqual([home, `${home}/hooks`, `${home}/skills`, `${home}/skills/x`])
      expect(statuses(result)).toEqual([[home, "ok", null, 2]])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("skips mutual links and a dangling link with diagnostics", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "bin/a": { link: "b" },
        "bin/b": { link: "a" },
        "bin/dead": { link: "../nowhere" },
        "bin/ok": EXEC
      })
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin]))
      expect(result.tools.map((tool) => tool.name)).toEqual(["ok"])
      expect(diagnostics(result)).toEqual([
        [`${bin}/a`, ELOOP],
        [`${bin}/b`, ELOOP],
        [`${bin}/dead`, "dangling symlink to ../nowhere (ENOENT); skipped"]
      ])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("follows a chain of 40 links and skips a chain of 41 (ELOOP)", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      const spec: Spec = { "chain/c0": EXEC }
      for (let i = 1; i <= 40; i++) spec[`chain/c${i}`] = { link: `c${i - 1}` }
      // deep40 is itself a link: deep40 -> c39 -> … -> c1 -> c0 is 40 links; deep41 is 41.
      spec["bin/deep40"] = { link: "../chain/c39" }
      spec["bin/deep41"] = { link: "../chain/c40" }
      lay(base, spec)
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin]))
      expect(result.tools.map(brief)).toEqual([
        { path: `${bin}/deep40`, linkTarget: `${base}/chain/c0`, shadowedBy: null, alsoAt: [], sameFileAs: [] }
      ])
      expect(diagnostics(result)).toEqual([[`${bin}/deep41`, ELOOP]])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("reads a dir listed twice on PATH once; the second entry is a duplicate", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "bin/tool": EXEC })
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin, `${bin}/`, `${base}//bin/.`]))
      expect(result.tools.map(brief)).toEqual([{ path: `${bin}/tool`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] }])
      expect(statuses(result)).toEqual([
        [bin, "ok", null, 1],
        [`${bin}/`, "duplicate", "same directory as PATH entry 0", 0],
        [`${base}//bin/.`, "duplicate", "same directory as PATH entry 0", 0]
      ])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("records empty, relative, missing and file PATH entries without reading them", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "bin/tool": EXEC, "afile": EXEC })
      const result = yield* walk(pathRoots(["", "rel/bin", `${base}/afile`, `${base}/missing`, `${base}/afile/sub`, `${base}/bin`]))
      expect(statuses(result)).toEqual([
        ["", "empty", "an empty entry means the working directory at run time (now /work); not read", 0],
        [
          "rel/bin",
          "relative",
          "a relative entry resolves against the working directory at run time (now /work/rel/bin); not read",
          0
        ],
        [`${base}/afile`, "not-a-directory", "a file, not a directory", 0],
        [`${base}/missing`, "missing", "ENOENT", 0],
        [`${base}/afile/sub`, "missing", "ENOTDIR", 0],
        [`${base}/bin`, "ok", null, 1]
      ])
      expect(result.tools.map((tool) => [tool.path, tool.pathIndex, tool.root, tool.rootKind])).toEqual([
        [`${base}/bin/tool`, 5, `${base}/bin`, "path"]
      ])
      expect(result.directories).toEqual([`${base}/bin`])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("counts dotted names and dotfiles, never non-executables, dirs or fifos", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "bin/python3.12": { mode: 0o755, body: "#!/bin/sh\nexit 0\n" },
        "bin/a.b.c": { mode: 0o700 },
        "bin/.hidden": { mode: 0o500 },
        "bin/README.md": DATA,
        "bin/x-only-group": { mode: 0o650 },
        "bin/subdir.d": "dir"
      })
      const bin = `${base}/bin`
      execFileSync("mkfifo", [`${bin}/pipe`])
      NodeFs.chmodSync(`${bin}/pipe`, 0o755)
      const mtime = new Date("2024-02-03T04:05:06.789Z")
      NodeFs.utimesSync(`${bin}/python3.12`, mtime, mtime)
      const result = yield* walk(pathRoots([bin]))
      // Run as root, the kernel lets any x bit do; as another user only u+x counts here.
      const groupOnly = process.geteuid?.() === 0 ? [`${bin}/x-only-group`] : []
      expect(result.tools.map((tool) => tool.path)).toEqual(
        [`${bin}/.hidden`, `${bin}/a.b.c`, `${bin}/python3.12`, ...groupOnly]
      )
      const python = result.tools.find((tool) => tool.name === "python3.12")!
      expect([python.size, python.mtime]).toEqual([17, "2024-02-03T04:05:06.789Z"])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("keeps PATH order: a name in three PATH dirs is won by the first", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "one/git": EXEC,
        "two/git": EXEC,
        "two/zed": EXEC,
        "three/git": EXEC,
        "three/awk": EXEC
      })
      const result = yield* walk(pathRoots([`${base}/one`, `${base}/two`, `${base}/three`]))
      expect(result.tools.map(brief)).toEqual([
        { path: `${base}/one/git`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { path: `${base}/two/git`, linkTarget: null, shadowedBy: `${base}/one/git`, alsoAt: [], sameFileAs: [] },
        { path: `${base}/two/zed`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { path: `${base}/three/awk`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { path: `${base}/three/git`, linkTarget: null, shadowedBy: `${base}/one/git`, alsoAt: [], sameFileAs: [] }
      ])
      expect(result.tools.map((tool) => tool.pathIndex)).toEqual([0, 1, 1, 2, 2])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("a record per name: a dir alias (/bin -> usr/bin), a link across PATH, a link in the same dir, a hard link", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "usr/bin/ls": EXEC,
        "usr/bin/python3.12": EXEC,
        "usr/bin/python3": { link: "python3.12" },
        "bin": { link: "usr/bin" },
        "local/bin/ls2": { link: "../../usr/bin/ls" },
        "local/bin/own": EXEC
      })
      NodeFs.linkSync(`${base}/local/bin/own`, `${base}/local/bin/own-hard`)
      const result = yield* walk(pathRoots([`${base}/bin`, `${base}/usr/bin`, `${base}/local/bin`]))
      // The same name at the same file is one record (`alsoAt`); each other name is a record of its own.
      expect(result.tools.map(brief)).toEqual([
        {
          path: `${base}/bin/ls`,
          linkTarget: `${base}/usr/bin/ls`,
          shadowedBy: null,
          alsoAt: [`${base}/usr/bin/ls`],
          sameFileAs: [`${base}/local/bin/ls2`]
        },
        {
          path: `${base}/bin/python3`,
          linkTarget: `${base}/usr/bin/python3.12`,
          shadowedBy: null,
          alsoAt: [`${base}/usr/bin/python3`],
          sameFileAs: [`${base}/bin/python3.12`]
        },
        {
          path: `${base}/bin/python3.12`,
          linkTarget: `${base}/usr/bin/python3.12`,
          shadowedBy: null,
          alsoAt: [`${base}/usr/bin/python3.12`],
          sameFileAs: [`${base}/bin/python3`]
        },
        { path: `${base}/local/bin/ls2`, linkTarget: `${base}/usr/bin/ls`, shadowedBy: null, alsoAt: [], sameFileAs: [`${base}/bin/ls`] },
        { path: `${base}/local/bin/own`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [`${base}/local/bin/own-hard`] },
        { path: `${base}/local/bin/own-hard`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [`${base}/local/bin/own`] }
      ])
      expect(result.tools.map((tool) => tool.name)).toEqual(["ls", "python3", "python3.12", "ls2", "own", "own-hard"])
      expect(statuses(result)).toEqual([
        [`${base}/bin`, "ok", null, 3],
        [`${base}/usr/bin`, "ok", null, 0],
        [`${base}/local/bin`, "ok", null, 3]
      ])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("a record per name: busybox-style links, relative, absolute and chained links, a link to another PATH dir, hard links, shadowing, non-executables", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "opt/busybox": EXEC,
        "box/busybox": { link: "../opt/busybox" },
        "box/sh": { link: "../opt/busybox" },
        "box/ls": { link: `${base}/opt/busybox` },
        "box/cat": { link: "sh" },
        "a/ls": EXEC,
        "a/tool": EXEC,
        "a/notes": DATA,
        "a/data-link": { link: "notes" },
        "a/dead": { link: "nowhere" },
        "a/sh": { link: "../box/sh" },
        "b/notes": EXEC,
        "b/tool": { link: "../a/tool" },
        "b/tool2": { link: "../a/tool-hard" }
      })
      NodeFs.linkSync(`${base}/a/tool`, `${base}/a/tool-hard`)
      const [box, a, b] = [`${base}/box`, `${base}/a`, `${base}/b`]
      const result = yield* walk(pathRoots([box, a, b]))
      const busybox = `${base}/opt/busybox`
      expect(result.tools.map((tool) => ({ name: tool.name, ...brief(tool) }))).toEqual([
        { name: "busybox", path: `${box}/busybox`, linkTarget: busybox, shadowedBy: null, alsoAt: [], sameFileAs: [`${box}/cat`, `${box}/ls`, `${box}/sh`] },
        { name: "cat", path: `${box}/cat`, linkTarget: busybox, shadowedBy: null, alsoAt: [], sameFileAs: [`${box}/busybox`, `${box}/ls`, `${box}/sh`] },
        { name: "ls", path: `${box}/ls`, linkTarget: busybox, shadowedBy: null, alsoAt: [], sameFileAs: [`${box}/busybox`, `${box}/cat`, `${box}/sh`] },
        // a/sh is the same name at the same file, one PATH dir later.
        { name: "sh", path: `${box}/sh`, linkTarget: busybox, shadowedBy: null, alsoAt: [`${a}/sh`], sameFileAs: [`${box}/busybox`, `${box}/cat`, `${box}/ls`] },
        { name: "ls", path: `${a}/ls`, linkTarget: null, shadowedBy: `${box}/ls`, alsoAt: [], sameFileAs: [] },
        { name: "tool", path: `${a}/tool`, linkTarget: null, shadowedBy: null, alsoAt: [`${b}/tool`], sameFileAs: [`${a}/tool-hard`, `${b}/tool2`] },
        { name: "tool-hard", path: `${a}/tool-hard`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [`${a}/tool`, `${b}/tool2`] },
        // a/notes is no command (not executable): it shadows nothing.
        { name: "notes", path: `${b}/notes`, linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { name: "tool2", path: `${b}/tool2`, linkTarget: `${a}/tool-hard`, shadowedBy: null, alsoAt: [], sameFileAs: [`${a}/tool`, `${a}/tool-hard`] }
      ])
      expect(diagnostics(result)).toEqual([[`${a}/dead`, "dangling symlink to nowhere (ENOENT); skipped"]])
      expect(statuses(result)).toEqual([[box, "ok", null, 4], [a, "ok", null, 3], [b, "ok", null, 2]])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("replays a directory met again under another name instead of reading it twice", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, {
        "usr/bin/ls": EXEC,
        "usr/bin/vi": { link: "../lib/vim" },
        "usr/lib/vim": EXEC,
        "usr/bin/gone": { link: "nowhere" },
        "usr/bin/notes": DATA,
        "bin": { link: "usr/bin" }
      })
      const [usrBin, bin] = [`${base}/usr/bin`, `${base}/bin`]
      // Faults on the alias: a second read of the directory or of an entry would hit them.
      const result = yield* walk(pathRoots([usrBin, bin])).pipe(
        Effect.provide(withFaults([
          { op: "readDirectory", path: bin, code: "EACCES" },
          { op: "stat", path: `${bin}/ls`, code: "EIO" },
          { op: "realpath", path: `${bin}/vi`, code: "EIO" }
        ]))
      )
      expect(result.tools.map(brief)).toEqual([
        { path: `${usrBin}/ls`, linkTarget: null, shadowedBy: null, alsoAt: [`${bin}/ls`], sameFileAs: [] },
        { path: `${usrBin}/vi`, linkTarget: `${base}/usr/lib/vim`, shadowedBy: null, alsoAt: [`${bin}/vi`], sameFileAs: [] }
      ])
      expect(statuses(result)).toEqual([[usrBin, "ok", null, 2], [bin, "ok", null, 0]])
      expect(result.directories).toEqual([usrBin, bin])
      // The same outcome as reading the alias on its own, diagnostics included.
      const alone = yield* walk(pathRoots([bin]))
      expect(diagnostics(result)).toEqual([
        [`${usrBin}/gone`, "dangling symlink to nowhere (ENOENT); skipped"],
        ...diagnostics(alone)
      ])
      expect(alone.tools.map((tool) => [tool.path, tool.linkTarget])).toEqual([
        [`${bin}/ls`, `${usrBin}/ls`],
        [`${bin}/vi`, `${base}/usr/lib/vim`]
      ])
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("gives the same walk with the async batch as with the sync one", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      const spec: Spec = { "opt/real": EXEC, "bin/self": { link: "self" }, "bin/dead": { link: "nowhere" } }
      for (let i = 0; i < 300; i++) spec[`bin/t${i}`] = i % 3 === 0 ? { link: "../opt/real" } : i % 7 === 0 ? DATA : EXEC
      lay(base, spec)
      const roots = pathRoots([`${base}/bin`, `${base}/opt`])
      const viaSync = yield* walk(roots).pipe(
        Effect.provide(Walker.layerWithoutFs.pipe(Layer.provide(NodeWalkerFs.layerWith({ strategy: "sync" }))))
      )
      const viaAsync = yield* walk(roots).pipe(
        Effect.provide(Walker.layerWithoutFs.pipe(Layer.provide(NodeWalkerFs.layerWith({ strategy: "async", concurrency: 8 }))))
      )
      expect(viaAsync).toEqual(viaSync)
      // 100 links to one file are 100 names (`t0` first), each the same file as the 99 others and opt/real.
      expect([viaSync.tools.length, viaSync.tools[0]!.sameFileAs.length, viaSync.tools[0]!.alsoAt.length, viaSync.diagnostics.length])
        .toEqual([273, 100, 0, 2])
    }))

  it.scoped("keeps non-UTF-8 names losslessly, with a diagnostic", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      NodeFs.mkdirSync(`${base}/bin`)
      const raw = [Buffer.from([0x66, 0x6f, 0xff]), Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from("ok\u00e9", "utf8")]
      for (const name of raw) {
        const path = Buffer.concat([Buffer.from(`${base}/bin/`), name])
        NodeFs.writeFileSync(path, "#!/bin/sh\n")
        NodeFs.chmodSync(path, 0o755)
      }
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin]))
      expect(result.tools.map((tool) => tool.name)).toEqual(["caf\uDCE9", "fo\uDCFF", "ok\u00e9"])
      expect(result.tools.map((tool) => tool.path)).toEqual([`${bin}/caf\uDCE9`, `${bin}/fo\uDCFF`, `${bin}/ok\u00e9`])
      // The path turns back into the exact bytes on disk.
      expect(result.tools.map((tool) => NodeFs.statSync(toPathBytes(tool.path)).isFile())).toEqual([true, true, true])
      expect(toPathBytes(result.tools[1]!.path).subarray(-3)).toEqual(raw[0])
      expect(fromPathBytes(Buffer.concat([Buffer.from(`${bin}/`), raw[1]!]))).toBe(`${bin}/caf\uDCE9`)
      const escape = "each undecodable byte is shown as U+DC80..U+DCFF (surrogate escape, reversible)"
      expect(diagnostics(result)).toEqual([
        [`${bin}/caf\uDCE9`, `name is not valid UTF-8 (bytes 63 61 66 e9); ${escape}`],
        [`${bin}/fo\uDCFF`, `name is not valid UTF-8 (bytes 66 6f ff); ${escape}`]
      ])
      expect(JSON.parse(JSON.stringify(result.tools[0]!.path))).toBe(`${bin}/caf\uDCE9`)
    }).pipe(Effect.provide(Walker.layer)))

  it.scoped("records a root whose read fails (injected EACCES) and walks on", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "a/one": EXEC, "b/two": EXEC, "c/three": EXEC })
      const result = yield* walk(pathRoots([`${base}/a`, `${base}/b`, `${base}/c`])).pipe(
        Effect.provide(withFaults([{ op: "readDirectory", path: `${base}/b`, code: "EACCES" }]))
      )
      expect(result.tools.map((tool) => tool.path)).toEqual([`${base}/a/one`, `${base}/c/three`])
      expect(statuses(result)).toEqual([
        [`${base}/a`, "ok", null, 1],
        [`${base}/b`, "unreadable", "EACCES", 0],
        [`${base}/c`, "ok", null, 1]
      ])
    }))

  it.scoped("skips a file that vanishes between readdir and stat (injected ENOENT)", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      lay(base, { "bin/gone": EXEC, "bin/stays": EXEC })
      const bin = `${base}/bin`
      const result = yield* walk(pathRoots([bin])).pipe(
        Effect.provide(withFaults([{ op: "stat", path: `${bin}/gone`, code: "ENOENT" }]))
      )
      expect(result.tools.map((tool) => tool.path)).toEqual([`${bin}/stays`])
      expect(diagnostics(result)).toEqual([[`${bin}/gone`, "vanished between listing and stat (ENOENT); skipped"]])
    }))
})

describe("adaptiveInspectAll", () => {
  const stat: FileStat = { kind: "file", dev: 1, ino: 1, mode: 0o100755, uid: 0, gid: 0, size: 0, mtimeMs: 0 }
  const requests = (count: number): ReadonlyArray<InspectRequest> =>
    Array.from({ length: count }, (_, i) => ({ path: `/bin/t${i}`, realpath: false }))
  /** A synchronous inspector whose calls take `sleepMs` each (a blocking sleep, not a busy loop). */
  const sleepy = (sleepMs: number, calls: Array<string>) => (request: InspectRequest) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleepMs)
    calls.push(`sync ${request.path}`)
    return Either.right<Inspected>({ stat, realPath: null })
  }
  const recordingAsync = (calls: Array<string>) => (batch: ReadonlyArray<InspectRequest>) =>
    Effect.sync(() => batch.map((request) => {
      calls.push(`async ${request.path}`)
      return Either.right<Inspected>({ stat, realPath: null })
    }))

  it.live("stays synchronous while calls are fast", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const inspect = NodeWalkerFs.adaptiveInspectAll({ strategy: "auto", chunk: 4, inspectSync: sleepy(0, calls), inspectAsync: recordingAsync(calls) })
      const results = yield* inspect(requests(10))
      yield* inspect(requests(2))
      expect(results.length).toBe(10)
      expect(calls.filter((call) => call.startsWith("async"))).toEqual([])
    }))

  it.live("moves the rest of the batch and later batches to the async pool once a chunk is slow", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const inspect = NodeWalkerFs.adaptiveInspectAll({ strategy: "auto", chunk: 8, inspectSync: sleepy(2, calls), inspectAsync: recordingAsync(calls) })
      const first = yield* inspect(requests(10))
      yield* inspect(requests(1))
      expect(first.length).toBe(10)
      expect(calls).toEqual([
        ...requests(8).map((request) => `sync ${request.path}`),
        "async /bin/t8",
        "async /bin/t9",
        "async /bin/t0"
      ])
    }))

  it.live("never switches under the sync strategy", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const inspect = NodeWalkerFs.adaptiveInspectAll({ strategy: "sync", chunk: 8, inspectSync: sleepy(2, calls), inspectAsync: recordingAsync(calls) })
      yield* inspect(requests(9))
      expect(calls.filter((call) => call.startsWith("async"))).toEqual([])
    }))
})

describe("isoTimestamp", () => {
  it("matches Date#toISOString on edge values", () => {
    const values = [0, 0.9, 1.5, 951_782_400_000, 951_868_799_999.7, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000]
    expect(values.map(isoTimestamp)).toEqual(values.map((ms) => new Date(ms).toISOString()))
    expect([Number.NaN, Number.POSITIVE_INFINITY, 1e20].map(isoTimestamp)).toEqual([
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z"
    ])
  })

  it.prop("matches Date#toISOString on any time of years 0 to 9999", [FastCheck.double({ min: 0, max: 253_402_300_799_999, noNaN: true })], ([ms]) => {
    expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString())
  }, { fastCheck: { numRuns: 2000 } })
})

describe("Walker over a memory tree", () => {
  const run = (tree: MemoryTree, roots: ReadonlyArray<Root>, options: WalkOptions = LINUX) =>
    walk(roots, options).pipe(Effect.provide(Walker.layerTest(tree)))

  it.effect("applies the kernel's execute rule for a non-root user (owner, group, others)", () =>
    Effect.gen(function*() {
      const user = { uid: 1000, gid: 100, groups: [100, 20] }
      const nodes: MemoryTree["nodes"] = {
        "/bin/mine-ux": { type: "file", mode: 0o700, uid: 1000, gid: 5 },
        "/bin/mine-gx-only": { type: "file", mode: 0o070, uid: 1000, gid: 100 },
        "/bin/group-gx": { type: "file", mode: 0o750, uid: 0, gid: 20 },
        "/bin/group-ox-only": { type: "file", mode: 0o701, uid: 0, gid: 20 },
        "/bin/other-ox": { type: "file", mode: 0o751, uid: 0, gid: 0 },
        "/bin/other-none": { type: "file", mode: 0o750, uid: 0, gid: 0 }
      }
      const asUser = yield* run({ nodes, user }, pathRoots(["/bin"]))
      expect(asUser.tools.map((tool) => tool.name)).toEqual(["group-gx", "mine-ux", "other-ox"])
      const asRoot = yield* run({ nodes, user: { uid: 0, gid: 0, groups: [] } }, pathRoots(["/bin"]))
      expect(asRoot.tools.map((tool) => tool.name)).toEqual([
        "group-gx",
        "group-ox-only",
        "mine-gx-only",
        "mine-ux",
        "other-none",
        "other-ox"
      ])
    }))

  it.effect("applies PATHEXT on Windows: any case, shadowing by stem, PATHEXT order within a dir", () =>
    Effect.gen(function*() {
      const tree: MemoryTree = {
        style: "win32",
        user: null,
        nodes: {
          "C:\\Tools\\git.EXE": { type: "file", size: 10 },
          "C:\\Tools\\git.cmd": { type: "file", size: 11 },
          "C:\\Tools\\readme.txt": { type: "file" },
          "C:\\Tools\\python3.12": { type: "file" },
          "C:\\Tools\\sub.exe": { type: "dir" },
          "C:\\Other\\GIT.Bat": { type: "file" },
          "C:\\Other\\Node.Exe": { type: "file" }
        }
      }
      const options: WalkOptions = { os: "win32", pathExt: [".COM", ".EXE", ".BAT", ".CMD"], recursiveDepthCap: 3, cwd: "C:\\Users\\me" }
      const result = yield* run(tree, pathRoots(["C:\\Tools", "c:/tools/", "C:\\Other", "bin", "\\NoDrive"]), options)
      expect(result.tools.map(brief)).toEqual([
        { path: "C:\\Tools\\git.EXE", linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { path: "C:\\Tools\\git.cmd", linkTarget: null, shadowedBy: "C:\\Tools\\git.EXE", alsoAt: [], sameFileAs: [] },
        { path: "C:\\Other\\GIT.Bat", linkTarget: null, shadowedBy: "C:\\Tools\\git.EXE", alsoAt: [], sameFileAs: [] },
        { path: "C:\\Other\\Node.Exe", linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] }
      ])
      expect(statuses(result)).toEqual([
        ["C:\\Tools", "ok", null, 2],
        ["c:/tools/", "duplicate", "same directory as PATH entry 0", 0],
        ["C:\\Other", "ok", null, 2],
        [
          "bin",
          "relative",
          "a relative entry resolves against the working directory at run time (now C:\\Users\\me\\bin); not read",
          0
        ],
        [
          "\\NoDrive",
          "relative",
          "a relative entry resolves against the working directory at run time (now C:\\NoDrive); not read",
          0
        ]
      ])
    }))

  it.effect("Windows: one file under two PATHEXT extensions of a dir is one record of its name, run by the preferred one", () =>
    Effect.gen(function*() {
      const tree: MemoryTree = {
        style: "win32",
        user: null,
        nodes: {
          "C:\\Tools\\git.cmd": { type: "file", size: 10 },
          "C:\\Tools\\git.exe": { type: "hardlink", to: "C:\\Tools\\git.cmd" },
          "C:\\Tools\\g.exe": { type: "hardlink", to: "C:\\Tools\\git.cmd" },
          "C:\\Other\\GIT.EXE": { type: "hardlink", to: "C:\\Tools\\git.cmd" }
        }
      }
      const options: WalkOptions = { os: "win32", pathExt: [".COM", ".EXE", ".BAT", ".CMD"], recursiveDepthCap: 3, cwd: "C:\\" }
      const result = yield* run(tree, pathRoots(["C:\\Tools", "C:\\Other"]), options)
      expect(result.tools.map((tool) => ({ name: tool.name, ...brief(tool) }))).toEqual([
        { name: "g.exe", path: "C:\\Tools\\g.exe", linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: ["C:\\Tools\\git.cmd"] },
        {
          name: "git.cmd",
          path: "C:\\Tools\\git.cmd",
          linkTarget: null,
          shadowedBy: null,
          alsoAt: ["C:\\Tools\\git.exe", "C:\\Other\\GIT.EXE"],
          sameFileAs: ["C:\\Tools\\g.exe"]
        }
      ])
    }))

  it.effect("hard links: a busybox-style dir of names of one file, each a record of its own", () =>
    Effect.gen(function*() {
      const nodes: Record<string, MemoryNode> = { "/bin/busybox": { type: "file", mode: 0o755, uid: 1000 } }
      const applets = ["ash", "cat", "ls", "sh", "vi"]
      for (const applet of applets) nodes[`/bin/${applet}`] = { type: "hardlink", to: "/bin/busybox" }
      nodes["/usr/bin/vi"] = { type: "file", mode: 0o755, uid: 1000 }
      const result = yield* run({ nodes }, pathRoots(["/usr/bin", "/bin"]))
      const all = ["/bin/ash", "/bin/busybox", "/bin/cat", "/bin/ls", "/bin/sh", "/bin/vi"]
      expect(result.tools.map((tool) => [tool.name, tool.path, tool.shadowedBy, tool.sameFileAs])).toEqual([
        ["vi", "/usr/bin/vi", null, []],
        ...all.map((path) => [path.slice(5), path, path === "/bin/vi" ? "/usr/bin/vi" : null, all.filter((other) => other !== path)])
      ])
    }))

  it.effect("walks a recursive root up to the depth cap and says what it left out", () =>
    Effect.gen(function*() {
      const exec = { type: "file", mode: 0o755, uid: 1000 } as const
      const tree: MemoryTree = {
        nodes: {
          "/h/.claude/top": exec,
          "/h/.claude/a/one": exec,
          "/h/.claude/a/b/two": exec,
          "/h/.claude/a/b/c/three": exec,
          "/h/.claude/a/b/c/d/four": exec,
          "/h/.claude/z/e/f/g/five": exec
        }
      }
      const options = { ...LINUX, recursiveDepthCap: 2 }
      const result = yield* run(tree, [otherRoot("/h/.claude", "recursive")], options)
      expect(result.tools.map((tool) => [tool.path, tool.pathIndex, tool.rootKind, tool.shadowedBy])).toEqual([
        ["/h/.claude/top", null, "well-known", null],
        ["/h/.claude/a/one", null, "well-known", null],
        ["/h/.claude/a/b/two", null, "well-known", null]
      ])
      expect(diagnostics(result)).toEqual([
        ["/h/.claude", "depth cap 2 reached: 2 directories not entered (first: /h/.claude/a/b/c)"]
      ])
      expect(result.directories).toEqual(["/h/.claude", "/h/.claude/a", "/h/.claude/a/b", "/h/.claude/z", "/h/.claude/z/e"])
    }))

  it.effect("reports a subdirectory that fails to read inside a recursive root", () =>
    Effect.gen(function*() {
      const exec = { type: "file", mode: 0o755, uid: 1000 } as const
      const tree: MemoryTree = {
        nodes: { "/h/.codex/ok/tool": exec, "/h/.codex/locked/tool": exec },
        faults: [{ op: "readDirectory", path: "/h/.codex/locked", code: "EACCES" }]
      }
      const result = yield* run(tree, [otherRoot("/h/.codex", "recursive")])
      expect(result.tools.map((tool) => tool.path)).toEqual(["/h/.codex/ok/tool"])
      expect(diagnostics(result)).toEqual([["/h/.codex/locked", "cannot read directory (EACCES); skipped"]])
    }))

  it.effect("stats entries of unknown type (no d_type) and still resolves links", () =>
    Effect.gen(function*() {
      const tree: MemoryTree = {
        unknownEntryKinds: true,
        nodes: {
          "/bin/tool": { type: "file", mode: 0o755, uid: 1000 },
          "/bin/via": { type: "symlink", target: "/opt/real" },
          "/bin/dir": { type: "dir" },
          "/bin/fifo": { type: "other" },
          "/opt/real": { type: "file", mode: 0o755, uid: 1000 }
        }
      }
      const result = yield* run(tree, pathRoots(["/bin"]))
      expect(result.tools.map(brief)).toEqual([
        { path: "/bin/tool", linkTarget: null, shadowedBy: null, alsoAt: [], sameFileAs: [] },
        { path: "/bin/via", linkTarget: "/opt/real", shadowedBy: null, alsoAt: [], sameFileAs: [] }
      ])
      expect(result.diagnostics).toEqual([])
    }))

  it.effect("resolveOnPath: the first executable of each name on PATH, by the walk's rules, no listing", () =>
    Effect.gen(function*() {
      const exec = { type: "file", mode: 0o755, uid: 1000 } as const
      const tree: MemoryTree = {
        nodes: {
          "/a/git": { type: "file", mode: 0o644, uid: 1000 },
          "/a/node": { type: "dir" },
          "/a/npm": { type: "symlink", target: "/nowhere/npm" },
          "/b/git": { type: "symlink", target: "/opt/git" },
          "/b/node": exec,
          "/b/npm": exec,
          "/c/npm": exec,
          "/c/ruby": exec,
          "/opt/git": exec,
          "/rel/ruby": exec,
          "/home/me/.local/bin/uv": exec
        },
        faults: [{ op: "stat", path: "/b/npm", code: "EACCES" }]
      }
      const roots = [
        ...pathRoots(["", "rel", "/a", "/b/", "/b", "/c"]),
        otherRoot("/home/me/.local/bin", "one-level")
      ]
      const names = ["git", "node", "npm", "ruby", "uv", "go"]
      const resolved = yield* Effect.flatMap(Walker, (walker) => walker.resolveOnPath(roots, names, LINUX)).pipe(
        Effect.provide(Walker.layerTest(tree))
      )
      // Not executable, a dir, a dangling link and an entry that fails to stat are no match;
      // relative and empty entries and roots that are not PATH are not looked at.
      expect(new Map(resolved)).toEqual(new Map([["git", "/b/git"], ["node", "/b/node"], ["npm", "/c/npm"], ["ruby", "/c/ruby"]]))
      const onWindows = yield* Effect.flatMap(Walker, (walker) =>
        walker.resolveOnPath(pathRoots(["C:\\bin"]), ["git"], { os: "win32", pathExt: [".EXE"], recursiveDepthCap: 3, cwd: "C:\\" })
      ).pipe(Effect.provide(Walker.layerTest({ style: "win32", nodes: { "C:\\bin\\git.EXE": { type: "file" } } })))
      expect(onWindows.size).toBe(0)
    }))
})
