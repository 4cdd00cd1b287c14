import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { Fault, FaultyFileSystem } from "../../src/layers/FaultyFileSystem.js"
import { SyncNodeFileSystemLayer } from "../../src/platform/SyncNodeFileSystem.js"
import { FileRefused, fileVersion, openRegularFile, readExactlyAt, readHead, readRegularFile } from "../../src/services/fileRead.js"

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

const text = (bytes: Option.Option<Uint8Array>) => Option.map(bytes, (value) => new TextDecoder().decode(value))

// The CLI's file system (synchronous calls: a blocked open would block the whole process) and
// @effect/platform-node's own.
const platforms = [
  ["the CLI's synchronous file system", Layer.provideMerge(SyncNodeFileSystemLayer, NodeContext.layer)],
  ["@effect/platform-node's file system", NodeContext.layer]
] as const

for (const [name, platform] of platforms) {
  describe(`readRegularFile over ${name}`, () => {
    it.scoped("reads a regular file (or one a link leads to) whole, and a missing one as None", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const dir = yield* tempDir
        yield* fs.writeFileString(path.join(dir, "a.json"), "{\"a\":1}")
        yield* fs.symlink(path.join(dir, "a.json"), path.join(dir, "link.json"))
        yield* fs.writeFileString(path.join(dir, "empty"), "")
        expect(text(yield* readRegularFile(path.join(dir, "a.json"), 7))).toEqual(Option.some("{\"a\":1}"))
        expect(text(yield* readRegularFile(path.join(dir, "link.json"), 100))).toEqual(Option.some("{\"a\":1}"))
        expect(text(yield* readRegularFile(path.join(dir, "empty"), 0))).toEqual(Option.some(""))
        expect(yield* readRegularFile(path.join(dir, "none.json"), 100)).toEqual(Option.none())
        expect(text(yield* readHead(path.join(dir, "a.json"), 4))).toEqual(Option.some("{\"a\""))
        expect(yield* readHead(path.join(dir, "none.json"), 4)).toEqual(Option.none())
      }).pipe(Effect.provide(platform)))

    it.scoped("reads exactly a span of an open file (false when the file ends before), and tells its versions apart", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const file = path.join(yield* tempDir, "a.bin")
        yield* fs.writeFileString(file, "0123456789")
        const opened = Option.getOrThrow(yield* openRegularFile(file, 100))
        expect(opened.size).toBe(10)
        expect(opened.info.size).toBe(BigInt(10))
        const span = new Uint8Array(4)
        expect(yield* readExactlyAt(opened.file, 3, span)).toBe(true)
        expect(new TextDecoder().decode(span)).toBe("3456")
        expect(yield* readExactlyAt(opened.file, 0, new Uint8Array(0))).toBe(true)
        expect(yield* readExactlyAt(opened.file, 8, span)).toBe(false)
        expect(yield* readExactlyAt(opened.file, 12, span)).toBe(false)
        const version = fileVersion(opened.info)
        expect(version).toBe(fileVersion(yield* fs.stat(file)))
        yield* fs.writeFileString(`${file}.new`, "0123456789")
        yield* fs.rename(`${file}.new`, file)
        expect(fileVersion(yield* fs.stat(file))).not.toBe(version)
      }).pipe(Effect.provide(platform)))

    it.scoped("refuses a FIFO, a link to /dev/zero and a directory without opening them, and a file over the cap from its size", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const dir = yield* tempDir
        const fifo = path.join(dir, "fifo.json")
        execFileSync("mkfifo", [fifo])
        const zero = path.join(dir, "zero.json")
        yield* fs.symlink("/dev/zero", zero)
        const big = path.join(dir, "big.json")
        // Sparse: 3 GiB that take no room, and would take 15 s to read.
        NodeFs.writeFileSync(big, "")
        NodeFs.truncateSync(big, 3 * 1024 ** 3)
        const refused = (file: string, refusal: "not-a-file" | "too-large", reason: string) => Exit.fail(new FileRefused({ path: file, refusal, reason }))
        expect(yield* Effect.exit(readRegularFile(fifo, 100))).toEqual(refused(fifo, "not-a-file", "it is not a regular file (fifo)"))
        expect(yield* Effect.exit(readHead(fifo, 100))).toEqual(refused(fifo, "not-a-file", "it is not a regular file (fifo)"))
        expect(yield* Effect.exit(readRegularFile(zero, 100))).toEqual(refused(zero, "not-a-file", "it is not a regular file (character device)"))
        expect(yield* Effect.exit(readRegularFile(dir, 100))).toEqual(refused(dir, "not-a-file", "it is not a regular file (directory)"))
        expect(yield* Effect.exit(readRegularFile(big, 256 * 1024 ** 2))).toEqual(
          refused(big, "too-large", "it is 3221225472 bytes, over the 268435456-byte cap")
        )
        expect(new FileRefused({ path: big, refusal: "too-large", reason: "r" }).message).toBe(`${big} was not read: r`)
      }).pipe(Effect.provide(platform)))
  })
}

describe("readRegularFile checks the open descriptor too", () => {
  const faulty = FaultyFileSystem.layer().pipe(Layer.provideMerge(NodeContext.layer))

  /** Runs `read` with `swap` done right before its open: the path checked first is not the one opened. */
  const swappedBeforeOpen = <A, E>(read: Effect.Effect<A, E, FileSystem.FileSystem>, swap: Effect.Effect<void>) =>
    Effect.gen(function*() {
      const faults = yield* FaultyFileSystem
      yield* faults.reset
      yield* Effect.exit(read)
      const open = (yield* faults.log).findIndex((call) => call.method === "open")
      yield* faults.reset
      yield* faults.arm(Fault.hook(open + 1, swap))
      return yield* Effect.exit(read)
    })

  it.scoped("a file swapped for a link to /dev/zero after its stat is refused on its descriptor, not read forever", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "state.json")
      NodeFs.writeFileSync(file, "{}")
      const swap = Effect.sync(() => {
        NodeFs.rmSync(file)
        NodeFs.symlinkSync("/dev/zero", file)
      })
      expect(yield* swappedBeforeOpen(readRegularFile(file, 1024), swap)).toEqual(
        Exit.fail(new FileRefused({ path: file, refusal: "not-a-file", reason: "it is not a regular file (character device)" }))
      )
    }).pipe(Effect.provide(faulty)))

  it.scoped("a file that grew over the cap after its stat is refused on its descriptor", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "state.json")
      NodeFs.writeFileSync(file, "{}")
      const swap = Effect.sync(() => NodeFs.writeFileSync(file, "x".repeat(2000)))
      expect(yield* swappedBeforeOpen(readRegularFile(file, 1024), swap)).toEqual(
        Exit.fail(new FileRefused({ path: file, refusal: "too-large", reason: "it is 2000 bytes, over the 1024-byte cap" }))
      )
    }).pipe(Effect.provide(faulty)))

  it.scoped("a caller that stat'ed the path itself skips that stat; the open descriptor is still checked", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* tempDir
      const file = path.join(dir, "agent.md")
      NodeFs.writeFileSync(file, "x".repeat(2000))
      expect(yield* Effect.exit(readRegularFile(file, 1024, { statedAsRegular: true }))).toEqual(
        Exit.fail(new FileRefused({ path: file, refusal: "too-large", reason: "it is 2000 bytes, over the 1024-byte cap" }))
      )
      NodeFs.writeFileSync(file, "ok")
      expect(Option.map(yield* readRegularFile(file, 1024, { statedAsRegular: true }), (bytes) => Buffer.from(bytes).toString())).toEqual(Option.some("ok"))
    }).pipe(Effect.provide(faulty)))

  it.scoped("a file that grows while it is read is read whole up to the cap, and refused past it", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const faults = yield* FaultyFileSystem
      const dir = yield* tempDir
      const file = path.join(dir, "state.json")
      const grow = (bytes: number) =>
        Effect.gen(function*() {
          NodeFs.writeFileSync(file, "ab")
          yield* faults.reset
          yield* readRegularFile(file, 10)
          const firstRead = (yield* faults.log).findIndex((call) => call.method === "File.read")
          yield* faults.reset
          yield* faults.arm(Fault.hook(firstRead + 1, Effect.sync(() => NodeFs.appendFileSync(file, "c".repeat(bytes)))))
          return yield* Effect.exit(Effect.map(readRegularFile(file, 10), text))
        })
      expect(yield* grow(5)).toEqual(Exit.succeed(Option.some("abccccc")))
      expect(yield* grow(20)).toEqual(
        Exit.fail(new FileRefused({ path: file, refusal: "too-large", reason: "it grew over the 10-byte cap while it was read" }))
      )
    }).pipe(Effect.provide(faulty)))
})
