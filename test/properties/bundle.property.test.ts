import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, FastCheck as fc, Logger, LogLevel, type Scope } from "effect"
import * as NodePath from "node:path"
import { type BundlePaths, bundlePathsForRedirect } from "../../src/inventory/bundle/location.js"
import { Fault, makeFaultyFileSystem } from "../../src/layers/FaultyFileSystem.js"
import { type BundleFiles, BundleWriter } from "../../src/inventory/bundle/BundleWriter.js"
import { LockOwner, type LockOwnerShape } from "../../src/services/FileLock.js"
import { readGeneration } from "../../src/inventory/bundle/format.js"

/** A directory's content: name → bytes as latin1, so that equality is byte equality. */
type DirState = Readonly<Record<string, string>>

/** Any subset of the three files, with any content: a partial old bundle is kept exactly too. */
type PartialBundle = { readonly [K in keyof Omit<BundleFiles, "history">]: string | null }

const latin1 = (text: string) => Buffer.from(text, "utf8").toString("latin1")

const stateOf = (paths: BundlePaths, files: PartialBundle): DirState => {
  const state: Record<string, string> = {}
  if (files.json !== null) state[NodePath.basename(paths.json)] = latin1(files.json)
  if (files.markdown !== null) state[NodePath.basename(paths.markdown)] = latin1(files.markdown)
  if (files.summary !== null) state[NodePath.basename(paths.summary)] = latin1(files.summary)
  return state
}

const snapshot = (fs: FileSystem.FileSystem, dir: string) =>
  Effect.gen(function* () {
    const names = yield* fs.readDirectory(dir).pipe(
      Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeed([]))
    )
    const state: Record<string, string> = {}
    for (const name of names.sort()) state[name] = Buffer.from(yield* fs.readFile(NodePath.join(dir, name))).toString("latin1")
    return state as DirState
  })

const generationArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)
const bodyArb = fc.string({ maxLength: 400, unit: "grapheme" })
const contentArb = fc.oneof(bodyArb, fc.constant(""), fc.string({ minLength: 5000, maxLength: 20_000, unit: "binary" }))

const filesArb = (generation: string) =>
  fc.record({ json: bodyArb, markdown: contentArb, summary: bodyArb }).map(({ json, markdown, summary }): BundleFiles => ({
    json: `${JSON.stringify({ generation, body: json })}\n`,
    markdown: `<!-- tool-map generation=${generation} -->\n${markdown}`,
    summary: `<!-- tool-map generation=${generation} -->\n${summary}`
  }))

/** A generation id with files that carry it. */
const bundleArb = generationArb.chain((generation) => filesArb(generation).map((files) => ({ generation, files })))

const oldArb: fc.Arbitrary<PartialBundle> = fc.record({
  json: fc.option(contentArb, { nil: null }),
  markdown: fc.option(contentArb, { nil: null }),
  summary: fc.option(contentArb, { nil: null })
})

/** A fault anywhere in (or a little past) a whole commit and its cleanup. */
const faultArb = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 1, max: 45 }).map((n) => Fault.once(n)),
  fc.integer({ min: 1, max: 45 }).map((n) => Fault.persistent(n)),
  fc.tuple(fc.integer({ min: 1, max: 45 }), fc.constantFrom<"before" | "after" | "torn">("before", "after", "torn")).map(([n, when]) => Fault.crash(n, when))
)

const makeProcesses = () => {
  const alive = new Set<number>()
  let next = 52_000
  return {
    spawn: () => {
      const pid = next++
      alive.add(pid)
      return pid
    },
    kill: (pid: number) => alive.delete(pid),
    owner: (pid: number): LockOwnerShape => ({ pid, isAlive: (other) => Effect.sync(() => alive.has(other)) })
  }
}

const writerOver = (fs: FileSystem.FileSystem, owner: LockOwnerShape) =>
  BundleWriter.make({ lockWait: "500 millis", lockRetryInterval: "5 millis", unreadableLockGrace: 0 }).pipe(
    Effect.provideService(FileSystem.FileSystem, fs),
    Effect.provideService(LockOwner, owner)
  )

const onDisk = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Scope.Scope>) =>
  Effect.scoped(effect).pipe(Effect.provide(NodeFileSystem.layer), Logger.withMinimumLogLevel(LogLevel.Error))

/**
 * One run of tool-map: a commit through a file system with `fault`, then the process "exits"
 * (its pid dies), then the next run's recover through a healthy one. Returns whether the
 * commit succeeded and the directory afterwards.
 */
const commitThenRecover = (
  fs: FileSystem.FileSystem,
  processes: ReturnType<typeof makeProcesses>,
  paths: BundlePaths,
  generation: string,
  files: BundleFiles,
  fault: Fault | null
) =>
  Effect.gen(function* () {
    const pid = processes.spawn()
    const { fs: faulty } = fault === null ? makeFaultyFileSystem(fs) : makeFaultyFileSystem(fs, fault)
    const exit = yield* Effect.exit((yield* writerOver(faulty, processes.owner(pid))).commit(paths, generation, files))
    processes.kill(pid)
    yield* (yield* writerOver(fs, processes.owner(processes.spawn()))).recover(paths)
    return { committed: Exit.isSuccess(exit), after: yield* snapshot(fs, paths.dir) }
  })

describe("bundle properties", () => {
  it.live.prop(
    "a commit with any fault, then a recover, leaves exactly the old files or exactly the new bundle",
    { old: oldArb, bundle: bundleArb, fault: faultArb },
    ({ bundle: { files, generation }, fault, old }) =>
      onDisk(Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const root = yield* fs.makeTempDirectoryScoped()
        const paths = Either.getOrThrow(bundlePathsForRedirect(NodePath.join(root, "out", "inv.md")))
        yield* fs.makeDirectory(paths.dir)
        if (old.json !== null) yield* fs.writeFileString(paths.json, old.json)
        if (old.markdown !== null) yield* fs.writeFileString(paths.markdown, old.markdown)
        if (old.summary !== null) yield* fs.writeFileString(paths.summary, old.summary)
        const { after, committed } = yield* commitThenRecover(fs, makeProcesses(), paths, generation, files, fault)
        const newState = stateOf(paths, files)
        if (committed) expect(after).toEqual(newState)
        else expect([stateOf(paths, old), newState]).toContainEqual(after)
        if (fault === null) expect(committed).toBe(true)
      })),
    { timeout: 120_000, fastCheck: { numRuns: 150 } }
  )

  it.live.prop(
    "a sequence of commits with random faults always holds one complete generation, never a mix",
    {
      steps: fc.array(
        fc.tuple(bundleArb, faultArb).map(([{ files, generation }, fault]) => ({ generation, fault, files })),
        { minLength: 2, maxLength: 6 }
      )
    },
    ({ steps }) =>
      onDisk(Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const root = yield* fs.makeTempDirectoryScoped()
        const paths = Either.getOrThrow(bundlePathsForRedirect(NodePath.join(root, "inv.md")))
        const processes = makeProcesses()
        let current: DirState = {}
        for (const step of steps) {
          const { after, committed } = yield* commitThenRecover(fs, processes, paths, step.generation, step.files, step.fault)
          const next = stateOf(paths, step.files)
          if (committed) expect(after).toEqual(next)
          else expect([current, next]).toContainEqual(after)
          // Whatever is there is one generation: every present file names the same one.
          const generations = new Set(
            Object.values(after).map((bytes) => readGeneration(Buffer.from(bytes, "latin1").toString("utf8")))
          )
          expect(generations.size).toBeLessThanOrEqual(1)
          current = after
        }
      })),
    { timeout: 120_000, fastCheck: { numRuns: 40 } }
  )

  it.prop(
    "a redirect x/<stem>.md puts the three files side by side with that stem",
    {
      dirs: fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { maxLength: 4 }),
      stem: fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,20}$/)
    },
    ({ dirs, stem }) => {
      const dir = NodePath.join("/cwd", ...dirs)
      expect(bundlePathsForRedirect([...dirs, `${stem}.md`].join("/"), "/cwd")).toEqual(
        Either.right({
          dir,
          json: NodePath.join(dir, `${stem}.json`),
          markdown: NodePath.join(dir, `${stem}.md`),
          summary: NodePath.join(dir, `${stem}.summary.md`),
          stem
        })
      )
    }
  )

  it.prop(
    "a path whose name does not end in .md is refused",
    { name: fc.string({ minLength: 1, maxLength: 30 }).filter((name) => !name.endsWith(".md") && !/[\\/]$/.test(name)) },
    ({ name }) => {
      expect(Either.isLeft(bundlePathsForRedirect(name, "/cwd"))).toBe(true)
    }
  )

  it.prop(
    "readGeneration reads back the id from every file of a rendered bundle",
    { bundle: bundleArb },
    ({ bundle: { files, generation } }) => {
      expect([files.json, files.markdown, files.summary].map(readGeneration)).toEqual([generation, generation, generation])
    }
  )
})
