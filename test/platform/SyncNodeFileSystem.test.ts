import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { isSynchronous, readPlainFileNow, SyncNodeFileSystemLayer } from "../../src/platform/SyncNodeFileSystem.js"
import { readRegularFile } from "../../src/services/fileRead.js"

/** What a call gave, comparable across the two implementations (no timestamps that reads move). */
const outcome = <A>(effect: Effect.Effect<A, unknown, FileSystem.FileSystem>) =>
  Effect.map(Effect.exit(effect), (exit) =>
    Exit.match(exit, {
      onSuccess: (value): unknown => describeValue(value),
      onFailure: (cause) => {
        const error = cause._tag === "Fail" ? (cause.error as Record<string, unknown>) : { _tag: "defect" }
        return { _tag: error["_tag"], reason: error["reason"], method: error["method"], syscall: error["syscall"], pathOrDescriptor: error["pathOrDescriptor"] }
      }
    }))

const describeValue = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString("hex") }
  if (typeof value === "object" && value !== null && "type" in value && "ino" in value) {
    const info = value as FileSystem.File.Info
    // Each side has its own copy of the tree: inodes and times differ, the rest must not.
    return { type: info.type, size: info.size, mode: info.mode, nlink: info.nlink, uid: info.uid }
  }
  if (Array.isArray(value)) return [...value].sort()
  return value
}

/** The same script of calls, on a fresh copy of the same tree, through one FileSystem. */
const script = (base: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const at = (name: string) => NodePath.join(base, name)
    const results: Array<unknown> = []
    const record = function*<A>(effect: Effect.Effect<A, unknown, FileSystem.FileSystem>) {
      results.push(yield* outcome(effect))
    }
    yield* record(fs.stat(at("file.txt")))
    yield* record(fs.stat(at("missing")))
    yield* record(fs.stat(at("file.txt/below")))
    yield* record(fs.exists(at("file.txt")))
    yield* record(fs.exists(at("missing")))
    yield* record(fs.readDirectory(base))
    yield* record(fs.readDirectory(at("file.txt")))
    yield* record(fs.readFileString(at("file.txt")))
    yield* record(fs.readFileString(at("latin1.txt")))
    yield* record(fs.readFile(at("missing")))
    yield* record(fs.realPath(at("link")))
    yield* record(fs.realPath(at("dangling")))
    yield* record(fs.rename(at("missing"), at("other")))
    yield* record(fs.rename(at("file.txt"), at("moved.txt")))
    yield* record(fs.link(at("moved.txt"), at("hard.txt")))
    yield* record(fs.link(at("moved.txt"), at("hard.txt")))
    yield* record(fs.copyFile(at("moved.txt"), at("copy.txt")))
    yield* record(fs.remove(at("missing")))
    yield* record(fs.remove(at("missing"), { force: true }))
    yield* record(fs.remove(at("dir")))
    yield* record(fs.makeDirectory(at("dir/a/b")))
    yield* record(fs.makeDirectory(at("dir/a/b"), { recursive: true }))
    yield* record(fs.makeDirectory(at("dir"), { recursive: false }))
    yield* record(Effect.scoped(Effect.flatMap(fs.open(at("moved.txt"), { flag: "wx" }), (file) => file.writeAll(new Uint8Array([1])))))
    yield* record(Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(at("new.bin"), { flag: "w", mode: 0o600 })
      yield* file.writeAll(new TextEncoder().encode("hello, world"))
      yield* file.sync
      yield* file.truncate(5)
      yield* file.write(new TextEncoder().encode("!"))
      return (yield* file.stat).size
    })))
    yield* record(fs.readFileString(at("new.bin")))
    yield* record(Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(at("new.bin"))
      const first = yield* file.readAlloc(3)
      yield* file.seek(1, "current")
      const buffer = new Uint8Array(10)
      const read = yield* file.read(buffer)
      const end = yield* file.readAlloc(4)
      yield* file.seek(4, "start")
      const short = yield* file.readAlloc(10)
      return [
        Option.map(first, (bytes) => Buffer.from(bytes).toString()),
        read,
        Buffer.from(buffer.subarray(0, Number(read))).toString(),
        Option.isNone(end),
        Option.map(short, (bytes) => [Buffer.from(bytes).toString(), bytes.length, bytes.byteLength])
      ]
    })))
    yield* record(Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(at("log.txt"), { flag: "a" })
      yield* file.writeAll(new TextEncoder().encode("one "))
      yield* file.writeAll(new TextEncoder().encode("two"))
    })))
    yield* record(fs.readFileString(at("log.txt")))
    yield* record(Effect.map(fs.stat(at("new.bin")), (info) => info.mode & 0o777))
    yield* record(fs.readDirectory(base))
    return results
  })

const layTree = (base: string) => {
  NodeFs.writeFileSync(NodePath.join(base, "file.txt"), "héllo\n")
  NodeFs.writeFileSync(NodePath.join(base, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
  NodeFs.writeFileSync(NodePath.join(base, "log.txt"), "zero ")
  NodeFs.symlinkSync("file.txt", NodePath.join(base, "link"))
  NodeFs.symlinkSync("nowhere", NodePath.join(base, "dangling"))
  NodeFs.mkdirSync(NodePath.join(base, "dir"))
}

describe("SyncNodeFileSystem", () => {
  it.effect("answers every call tool-map makes exactly as @effect/platform-node does, errors included", () =>
    Effect.gen(function*() {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sync-fs-"))
      try {
        const run = (name: string, layer: typeof SyncNodeFileSystemLayer) => {
          const base = NodePath.join(root, name)
          NodeFs.mkdirSync(base)
          layTree(base)
          return Effect.map(script(base).pipe(Effect.provide(layer)), (results) =>
            JSON.parse(JSON.stringify(results, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value)).replaceAll(base, "<base>")) as unknown)
        }
        const asynchronous = yield* run("async", NodeFileSystem.layer)
        const synchronous = yield* run("sync", SyncNodeFileSystemLayer)
        expect(synchronous).toEqual(asynchronous)
        // The script does reach the interesting cases: a sample of what both answered.
        expect((asynchronous as ReadonlyArray<unknown>).slice(1, 3)).toEqual([
          { _tag: "SystemError", reason: "NotFound", method: "stat", syscall: "stat", pathOrDescriptor: "<base>/missing" },
          { _tag: "SystemError", reason: "BadResource", method: "stat", syscall: "stat", pathOrDescriptor: "<base>/file.txt/below" }
        ])
      } finally {
        NodeFs.rmSync(root, { recursive: true, force: true })
      }
    }))
})

describe("readPlainFileNow", () => {
  it.effect("reads what the checked bounded read reads, and leaves every other case (missing, FIFO, directory, over the cap) to it", () =>
    Effect.gen(function*() {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "plain-read-"))
      try {
        NodeFs.writeFileSync(NodePath.join(root, "agent.md"), "---\nname: a\n---\nBody.\n")
        NodeFs.writeFileSync(NodePath.join(root, "empty.md"), "")
        NodeFs.writeFileSync(NodePath.join(root, "big.md"), "x".repeat(65))
        NodeFs.writeFileSync(NodePath.join(root, "cap.md"), "y".repeat(64))
        NodeFs.symlinkSync("agent.md", NodePath.join(root, "link.md"))
        NodeFs.mkdirSync(NodePath.join(root, "dir.md"))
        spawnSync("mkfifo", [NodePath.join(root, "fifo.md")])
        NodeFs.symlinkSync("fifo.md", NodePath.join(root, "to-fifo.md"))
        NodeFs.symlinkSync("big.md", NodePath.join(root, "to-big.md"))
        const sync = yield* Effect.provide(FileSystem.FileSystem, SyncNodeFileSystemLayer)
        const plain = (name: string, fs: FileSystem.FileSystem = sync) =>
          Effect.sync(() => {
            const read = readPlainFileNow(fs, NodePath.join(root, name), 64)
            return read === undefined ? "checked path" : { text: Buffer.from(read.bytes).toString(), mtime: read.mtime.getTime() === NodeFs.statSync(NodePath.join(root, name)).mtime.getTime() }
          })
        const checked = (name: string) =>
          Effect.map(Effect.either(Effect.provideService(readRegularFile(NodePath.join(root, name), 64), FileSystem.FileSystem, sync)), (read) =>
            read._tag === "Left" ? read.left._tag : Option.map(read.right, (bytes) => Buffer.from(bytes).toString()))
        expect(yield* plain("agent.md")).toEqual({ text: "---\nname: a\n---\nBody.\n", mtime: true })
        expect(yield* checked("agent.md")).toEqual(Option.some("---\nname: a\n---\nBody.\n"))
        expect(yield* plain("link.md")).toEqual({ text: "---\nname: a\n---\nBody.\n", mtime: true })
        expect(yield* plain("empty.md")).toEqual({ text: "", mtime: true })
        expect(yield* checked("empty.md")).toEqual(Option.some(""))
        expect(yield* plain("cap.md")).toEqual({ text: "y".repeat(64), mtime: true })
        // A FIFO is opened without waiting for a writer, a link is stat'ed before it is opened: none of these hangs.
        for (const name of ["missing.md", "big.md", "dir.md", "fifo.md", "to-fifo.md", "to-big.md"]) expect([name, yield* plain(name)]).toEqual([name, "checked path"])
        expect(yield* checked("big.md")).toEqual("FileRefused")
        expect(yield* checked("fifo.md")).toEqual("FileRefused")
        // Any other FileSystem (a copy of this one, a test's fake) is never bypassed.
        expect(yield* plain("agent.md", { ...sync })).toEqual("checked path")
        expect(isSynchronous(sync)).toBe(true)
        expect(isSynchronous({ ...sync })).toBe(false)
      } finally {
        NodeFs.rmSync(root, { recursive: true, force: true })
      }
    }))
})
