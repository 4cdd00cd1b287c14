import { FileSystem } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import {
  type FileStat,
  type FsFault,
  fromPathBytes,
  hasEscapedBytes,
  type MemoryNode,
  toPathBytes,
  WalkerFs,
  type WalkerFsError
} from "../../src/platform/WalkerFs.js"
import * as NodeWalkerFs from "../../src/platform/NodeWalkerFs.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "node-walker-fs-")))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

/** A bin dir with every kind of entry a walk meets, and a dir whose listing a fault makes unreadable. */
const layTree = (base: string) => {
  const bin = NodePath.join(base, "bin")
  NodeFs.mkdirSync(NodePath.join(bin, "sub"), { recursive: true })
  NodeFs.mkdirSync(NodePath.join(base, "locked"))
  NodeFs.writeFileSync(NodePath.join(base, "locked", "inside"), "x", { mode: 0o755 })
  NodeFs.writeFileSync(NodePath.join(bin, "tool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  NodeFs.writeFileSync(NodePath.join(bin, "data"), "data\n", { mode: 0o644 })
  NodeFs.writeFileSync(NodePath.join(bin, "sub", "inner"), "#!/bin/sh\n", { mode: 0o700 })
  NodeFs.writeFileSync(Buffer.concat([Buffer.from(`${bin}/caf`), Buffer.of(0xe9)]), "latin-1 name\n", { mode: 0o755 })
  NodeFs.linkSync(NodePath.join(bin, "tool"), NodePath.join(bin, "hard"))
  NodeFs.symlinkSync("tool", NodePath.join(bin, "link"))
  NodeFs.symlinkSync("../locked/inside", NodePath.join(bin, "outward"))
  NodeFs.symlinkSync("nowhere", NodePath.join(bin, "dangling"))
  NodeFs.symlinkSync("loop-b", NodePath.join(bin, "loop-a"))
  NodeFs.symlinkSync("loop-a", NodePath.join(bin, "loop-b"))
  NodeFs.symlinkSync("..", NodePath.join(bin, "up"))
  const fifo = spawnSync("mkfifo", [NodePath.join(bin, "fifo")])
  if (fifo.status !== 0) throw new Error(`mkfifo failed: ${fifo.stderr}`)
}

/** The same tree as a `MemoryTree`, from lstat of the real one (hard links by inode). */
const mirror = (base: string): Record<string, MemoryNode> => {
  const nodes: Record<string, MemoryNode> = {}
  const byInode = new Map<number, string>()
  const visit = (dir: Buffer) => {
    for (const name of NodeFs.readdirSync(dir, { encoding: "buffer" })) {
      const path = Buffer.concat([dir, Buffer.from("/"), name])
      const key = fromPathBytes(path)
      const stat = NodeFs.lstatSync(path)
      if (stat.isSymbolicLink()) nodes[key] = { type: "symlink", target: fromPathBytes(NodeFs.readlinkSync(path, { encoding: "buffer" })) }
      else if (stat.isDirectory()) {
        nodes[key] = { type: "dir", mode: stat.mode & 0o7777 }
        visit(path)
      } else if (stat.isFile()) {
        const first = byInode.get(stat.ino)
        if (first !== undefined) nodes[key] = { type: "hardlink", to: first }
        else {
          byInode.set(stat.ino, key)
          nodes[key] = { type: "file", mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid, size: stat.size, mtimeMs: stat.mtimeMs }
        }
      } else nodes[key] = { type: "other" }
    }
  }
  nodes[base] = { type: "dir", mode: NodeFs.statSync(base).mode & 0o7777 }
  visit(Buffer.from(base))
  return nodes
}

type Outcome<A> = { readonly ok: A } | { readonly code: string }

const outcome = <A>(effect: Effect.Effect<A, WalkerFsError>): Effect.Effect<Outcome<A>> =>
  Effect.map(Effect.either(effect), Either.match({ onLeft: (error) => ({ code: error.code }), onRight: (ok) => ({ ok }) }))

/** The stat facts every implementation can state; `sameFile` names the first path seen with that inode. */
const statFacts = (stat: FileStat, sameFile: string) =>
  stat.kind === "file"
    ? { kind: stat.kind, mode: stat.mode, uid: stat.uid, gid: stat.gid, size: stat.size, mtimeMs: stat.mtimeMs, sameFile }
    : stat.kind === "directory"
    ? { kind: stat.kind, mode: stat.mode & 0o7777 }
    : { kind: stat.kind }

/** Every call of the port on every entry of `bin`, plus the misses, as comparable facts. */
const observe = (base: string) =>
  Effect.gen(function*() {
    const fs = yield* WalkerFs
    const bin = `${base}/bin`
    const listing = yield* fs.readDirectory(bin)
    const names = listing.map((entry) => entry.name).sort()
    const paths = [...names.map((name) => `${bin}/${name}`), `${bin}/missing`, `${bin}/tool/below`, bin, `${base}/locked`]
    const inodes = new Map<string, string>()
    const sameFile = (stat: FileStat, path: string) => {
      const key = `${stat.dev}:${stat.ino}`
      if (!inodes.has(key)) inodes.set(key, path)
      return inodes.get(key)!
    }
    const calls = yield* Effect.forEach(paths, (path) =>
      Effect.gen(function*() {
        const stat = yield* outcome(fs.stat(path))
        return {
          path,
          stat: "ok" in stat ? { ok: statFacts(stat.ok, sameFile(stat.ok, path)) } : stat,
          realpath: yield* outcome(fs.realpath(path)),
          readlink: yield* outcome(fs.readlink(path)),
          readDirectory: yield* outcome(Effect.map(fs.readDirectory(path), (entries) => entries.map((entry) => entry.name).sort()))
        }
      }))
    const batch = yield* fs.inspectAll(paths.map((path) => ({ path, realpath: true })))
    return {
      listing: [...listing].sort((a, b) => (a.name < b.name ? -1 : 1)).map((entry) => [entry.name, entry.kind, entry.utf8]),
      calls,
      batch: batch.map((result, index) =>
        Either.match(result, {
          onLeft: (error) => ({ code: error.code, op: error.op }),
          onRight: ({ realPath, stat }) => ({ stat: statFacts(stat, sameFile(stat, paths[index]!)), realPath })
        })
      ),
      user: fs.user
    }
  })

/** What @effect/platform-node's FileSystem says of the same paths (those a string can name). */
const observePlain = (paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const inodes = new Map<string, string>()
    const plainOutcome = <A>(effect: Effect.Effect<A, unknown>) =>
      Effect.map(Effect.either(effect), Either.match({
        onLeft: (error): Outcome<A> => {
          const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
          const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
          return { code: typeof code === "string" ? code : "EIO" }
        },
        onRight: (ok): Outcome<A> => ({ ok })
      }))
    return yield* Effect.forEach(paths, (path) =>
      Effect.gen(function*() {
        const info = yield* plainOutcome(fs.stat(path))
        const kind = "ok" in info ? (info.ok.type === "File" ? "file" : info.ok.type === "Directory" ? "directory" : "other") : null
        return {
          path,
          stat: "ok" in info
            ? {
              ok: statFacts({
                kind: kind!,
                dev: info.ok.dev,
                ino: Option.getOrElse(info.ok.ino, () => -1),
                mode: info.ok.mode,
                uid: Option.getOrElse(info.ok.uid, () => -1),
                gid: Option.getOrElse(info.ok.gid, () => -1),
                size: Number(info.ok.size),
                mtimeMs: Option.match(info.ok.mtime, { onNone: () => -1, onSome: (date) => date.getTime() })
              }, (() => {
                const key = `${info.ok.dev}:${Option.getOrElse(info.ok.ino, () => -1)}`
                if (!inodes.has(key)) inodes.set(key, path)
                return inodes.get(key)!
              })())
            }
            : info,
          realpath: yield* plainOutcome(fs.realPath(path)),
          readlink: yield* plainOutcome(fs.readLink(path)),
          readDirectory: yield* plainOutcome(Effect.map(fs.readDirectory(path), (entries) => [...entries].sort()))
        }
      }))
  })

/** The plain path's mtime is a `Date`, which Node rounds to whole milliseconds. */
const wholeMilliseconds = <A>(value: A): A =>
  JSON.parse(JSON.stringify(value, (key, field: unknown) => (key === "mtimeMs" && typeof field === "number" ? Math.round(field) : field)))

const LOCKED: (base: string) => ReadonlyArray<FsFault> = (base) => [
  { op: "readDirectory", path: `${base}/locked`, code: "EACCES" },
  { op: "stat", path: `${base}/bin/data`, code: "EIO" }
]

describe("NodeWalkerFs", () => {
  it.scopedLive("lists, stats and resolves a real tree as the in-memory port does over the same tree, faults included", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      layTree(base)
      const tree = { nodes: mirror(base), user: NodeWalkerFs.makeNodeWalkerFs().user, faults: LOCKED(base) }
      const viaSync = yield* observe(base).pipe(
        Effect.provide(NodeWalkerFs.layerWith({ strategy: "sync" }))
      )
      const viaFaults = yield* observe(base).pipe(Effect.provide(NodeWalkerFs.layerWithFaults(LOCKED(base))))
      const viaMemory = yield* observe(base).pipe(Effect.provide(WalkerFs.layerMemory(tree)))
      expect(viaFaults).toEqual(viaMemory)
      // Without faults, only the faulted calls differ.
      const call = (observed: typeof viaSync, path: string) => observed.calls.find((entry) => entry.path === path)
      expect(call(viaSync, `${base}/locked`)?.readDirectory).toEqual({ ok: ["inside"] })
      expect(call(viaFaults, `${base}/locked`)?.readDirectory).toEqual({ code: "EACCES" })
      expect(call(viaFaults, `${base}/bin/data`)?.stat).toEqual({ code: "EIO" })
      expect(viaFaults.calls.filter((entry) => !entry.path.endsWith("/locked") && !entry.path.endsWith("/data"))).toEqual(
        viaSync.calls.filter((entry) => !entry.path.endsWith("/locked") && !entry.path.endsWith("/data"))
      )
      // The tree does reach the interesting cases.
      const bin = `${base}/bin`
      expect(viaSync.listing).toEqual([
        ["caf\uDCE9", "file", false],
        ["dangling", "symlink", true],
        ["data", "file", true],
        ["fifo", "other", true],
        ["hard", "file", true],
        ["link", "symlink", true],
        ["loop-a", "symlink", true],
        ["loop-b", "symlink", true],
        ["outward", "symlink", true],
        ["sub", "directory", true],
        ["tool", "file", true],
        ["up", "symlink", true]
      ])
      expect(viaSync.calls.map((entry) => [NodePath.basename(entry.path), "ok" in entry.stat ? entry.stat.ok.kind : entry.stat.code])).toEqual([
        ["caf\uDCE9", "file"],
        ["dangling", "ENOENT"],
        ["data", "file"],
        ["fifo", "other"],
        ["hard", "file"],
        ["link", "file"],
        ["loop-a", "ELOOP"],
        ["loop-b", "ELOOP"],
        ["outward", "file"],
        ["sub", "directory"],
        ["tool", "file"],
        ["up", "directory"],
        ["missing", "ENOENT"],
        ["below", "ENOTDIR"],
        ["bin", "directory"],
        ["locked", "directory"]
      ])
      expect(call(viaSync, `${bin}/link`)).toMatchObject({ realpath: { ok: `${bin}/tool` }, readlink: { ok: "tool" } })
      expect(call(viaSync, `${bin}/hard`)?.stat).toMatchObject({ ok: { sameFile: `${bin}/hard` } })
      expect(call(viaSync, `${bin}/tool`)?.stat).toMatchObject({ ok: { sameFile: `${bin}/hard` } })
      expect(call(viaSync, `${bin}/tool`)?.readlink).toEqual({ code: "EINVAL" })
    }))

  it.scopedLive("answers every call as @effect/platform-node's FileSystem does, and its sync and async batches alike", () =>
    Effect.gen(function*() {
      const base = yield* tempDir
      layTree(base)
      const viaSync = yield* observe(base).pipe(Effect.provide(NodeWalkerFs.layerWith({ strategy: "sync" })))
      const viaAsync = yield* observe(base).pipe(Effect.provide(NodeWalkerFs.layerWith({ strategy: "async", concurrency: 3 })))
      const viaAuto = yield* observe(base).pipe(Effect.provide(NodeWalkerFs.layer))
      expect(viaAsync).toEqual(viaSync)
      expect(viaAuto).toEqual(viaSync)
      // A batch answers what single calls answer.
      expect(viaSync.batch).toEqual(viaSync.calls.map((entry) =>
        "code" in entry.stat
          ? { code: entry.stat.code, op: "stat" }
          : "code" in entry.realpath
          ? { code: entry.realpath.code, op: "realpath" }
          : { stat: entry.stat.ok, realPath: entry.realpath.ok }
      ))
      const named = viaSync.calls.filter((entry) => !hasEscapedBytes(entry.path))
      const plain = yield* observePlain(named.map((entry) => entry.path)).pipe(Effect.provide(NodeFileSystem.layer))
      // The plain path lists the non-UTF-8 name as Node decodes it; the port keeps its bytes.
      const undecodable = viaSync.calls.find((entry) => hasEscapedBytes(entry.path))!
      expect(toPathBytes(undecodable.path)).toEqual(Buffer.concat([Buffer.from(`${base}/bin/caf`), Buffer.of(0xe9)]))
      const decodedAsNode = (entry: (typeof named)[number]) =>
        "ok" in entry.readDirectory
          ? { ...entry, readDirectory: { ok: entry.readDirectory.ok.map((name) => (hasEscapedBytes(name) ? Buffer.from(toPathBytes(name)).toString("utf8") : name)).sort() } }
          : entry
      expect(wholeMilliseconds(plain)).toEqual(wholeMilliseconds(named.map(decodedAsNode)))
    }))
})
