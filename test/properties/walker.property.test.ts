import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { materializePathTree, pathTreeArbitrary } from "../../bench/generators.js"
import { whichTool } from "../../src/inventory/domain/which.js"
import { HostInfo, Inventory, Root, Tool } from "../../src/inventory/domain/inventory.js"
import { copiesNamed, namedCopies, pathWinner, winningCopy } from "../../src/inventory/domain/toolNames.js"
import { fromPathBytes, toPathBytes, Walker, type WalkResult } from "../../src/inventory/discover/Walker.js"
import { inventoryOf } from "../support/inventory.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "walker-prop-")))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

/** What `find -L <dirs> -maxdepth 1 -type f -perm -u+x` prints, as lossless strings. */
const findExecutables = (dirs: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (dirs.length === 0) return []
  const found = spawnSync("find", ["-L", ...dirs, "-maxdepth", "1", "-type", "f", "-perm", "-u+x", "-print0"])
  return splitNul(found.stdout).map(fromPathBytes)
}

const splitNul = (bytes: Buffer): Array<Buffer> => {
  const parts: Array<Buffer> = []
  let start = 0
  for (let at = bytes.indexOf(0); at !== -1; at = bytes.indexOf(0, start)) {
    parts.push(bytes.subarray(start, at))
    start = at + 1
  }
  return parts
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The expected walk, computed independently of the walker: PATH dirs first-listed once, each
 * dir's executables (as find prints them) in name order, a record per name and file (device +
 * inode): the name met again at the same file is one more path of its record (`alsoAt`), other
 * names of the file are records that name each other (`sameFileAs`); the first path of a name wins.
 */
const oracle = (pathEntries: ReadonlyArray<string>) => {
  const dirs: Array<string> = []
  const seen = new Set<string>()
  const roots = pathEntries.map((entry) => {
    if (entry === "") return [entry, "empty"]
    if (!entry.startsWith("/")) return [entry, "relative"]
    if (seen.has(entry)) return [entry, "duplicate"]
    seen.add(entry)
    if (!NodeFs.existsSync(entry)) return [entry, "missing"]
    if (!NodeFs.statSync(entry).isDirectory()) return [entry, "not-a-directory"]
    dirs.push(entry)
    return [entry, "ok"]
  })
  const found = findExecutables(dirs)
  const order = dirs.flatMap((dir) => found.filter((path) => NodePath.dirname(path) === dir).sort(byName))
  type Expected = { name: string; path: string; linkTarget: string | null; shadowedBy: string | null; alsoAt: Array<string>; sameFileAs: Array<string> }
  const tools: Array<Expected> = []
  const byInode = new Map<string, Array<Expected>>()
  const winners = new Map<string, string>()
  const counts = new Map<string, number>()
  for (const path of order) {
    const stat = NodeFs.statSync(toPathBytes(path))
    const key = `${stat.dev}:${stat.ino}`
    const name = NodePath.basename(path)
    const winner = winners.get(name) ?? path
    winners.set(name, winner)
    const sameFile = byInode.get(key) ?? []
    byInode.set(key, sameFile)
    const sameName = sameFile.find((tool) => tool.name === name)
    if (sameName !== undefined) {
      sameName.alsoAt.push(path)
      continue
    }
    const real = fromPathBytes(NodeFs.realpathSync.native(toPathBytes(path), { encoding: "buffer" }))
    const tool = { name, path, linkTarget: real === path ? null : real, shadowedBy: winner === path ? null : winner, alsoAt: [], sameFileAs: [] }
    sameFile.push(tool)
    tools.push(tool)
    const dir = NodePath.dirname(path)
    counts.set(dir, (counts.get(dir) ?? 0) + 1)
  }
  for (const sameFile of byInode.values()) {
    for (const tool of sameFile) tool.sameFileAs = sameFile.filter((other) => other !== tool).map((other) => other.path)
  }
  return {
    found,
    tools,
    winners,
    roots: roots.map(([path, status]) => [path, status, status === "ok" ? counts.get(path!) ?? 0 : 0])
  }
}

/**
 * A model of the shell's PATH lookup (what `command -v NAME` does): each entry in order, an
 * empty or relative one against the working directory, and the first `entry/NAME` that is,
 * links followed, a regular file this user may execute.
 */
const shellLookup = (pathEntries: ReadonlyArray<string>, cwd: string, name: string): string | null => {
  for (const entry of pathEntries) {
    const candidate = entry === "" ? name : `${entry}/${name}`
    const onDisk = toPathBytes(NodePath.resolve(cwd, candidate))
    try {
      // ENOENT, ENOTDIR, ELOOP (a link loop) and EACCES alike: no command here.
      if (!NodeFs.statSync(onDisk).isFile()) continue
      NodeFs.accessSync(onDisk, NodeFs.constants.X_OK)
      return candidate
    } catch {
      continue
    }
  }
  return null
}

/** What `/bin/sh -c 'command -v NAME'` prints for each name (one shell for all), "" when nothing. */
const commandV = (pathEntries: ReadonlyArray<string>, cwd: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const input = Buffer.concat(names.map((name) => Buffer.concat([toPathBytes(name), Buffer.from("\n")])))
  const shell = spawnSync("/bin/sh", ["-c", "while IFS= read -r n; do command -v \"$n\" || echo; done"], {
    cwd,
    env: { PATH: pathEntries.join(":") },
    input
  })
  const lines = splitNul(Buffer.from(shell.stdout.map((byte) => (byte === 0x0a ? 0 : byte)))).map(fromPathBytes)
  expect(lines.length).toBe(names.length)
  return lines
}

const project = (result: WalkResult) => ({
  tools: result.tools.map(({ alsoAt, linkTarget, name, path, sameFileAs, shadowedBy }) => ({ name, path, linkTarget, shadowedBy, alsoAt, sameFileAs })),
  roots: result.roots.map((root) => [root.path, root.status, root.toolCount])
})

describe("Walker properties over generated PATH trees", () => {
  it.scopedLive.prop(
    "the record names are the names the shell finds on PATH, and `query which` names its winner (a model of the lookup, checked against /bin/sh's command -v)",
    [pathTreeArbitrary({ maxDirs: 4, maxEntries: 8 })],
    ([tree]) =>
      Effect.gen(function*() {
        const base = yield* tempDir
        const laid = materializePathTree(base, tree)
        // An empty working directory: empty and relative PATH entries find nothing there.
        const cwd = NodePath.join(base, "cwd")
        NodeFs.mkdirSync(cwd)
        const walker = yield* Walker
        const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
        const result = yield* walker.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd })
        const inventory = new Inventory({
          ...inventoryOf(result.tools.map((tool) => new Tool({ ...tool, category: "other" }))),
          path: result.roots
        })
        const listed = laid.pathEntries
          .filter((entry) => entry.startsWith("/") && NodeFs.statSync(entry, { throwIfNoEntry: false })?.isDirectory() === true)
          .flatMap((dir) => NodeFs.readdirSync(dir, { encoding: "buffer" }).map(fromPathBytes))
        const names = [...new Set([...listed, "no-such-tool"])]
        const model = new Map(names.flatMap((name) => {
          const winner = shellLookup(laid.pathEntries, cwd, name)
          return winner === null ? [] : [[name, winner] as const]
        }))
        expect(new Set(inventory.tools.map((tool) => tool.name))).toEqual(new Set(model.keys()))
        for (const name of names) expect([name, whichTool(inventory, name).winner]).toEqual([name, model.get(name) ?? null])
        // The model is the shell's: a builtin's name (`command -v` prints it bare) is not a file lookup.
        commandV(laid.pathEntries, cwd, names).forEach((answer, index) => {
          const name = names[index]!
          if (answer === "" || answer.startsWith("/")) expect([name, answer === "" ? null : answer]).toEqual([name, model.get(name) ?? null])
        })
      }).pipe(Effect.provide(Walker.layer)),
    { fastCheck: { numRuns: 60 } }
  )

  it.scopedLive.prop(
    "finds what find -L finds, each path once, a record per name and file, in PATH order, with correct shadowing; resolveOnPath agrees",
    [pathTreeArbitrary({ maxDirs: 4, maxEntries: 8 })],
    ([tree]) =>
      Effect.gen(function*() {
        const base = yield* tempDir
        const laid = materializePathTree(base, tree)
        const walker = yield* Walker
        const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
        const options = { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: base } as const
        const result = yield* walker.walk(roots, options)
        const expected = oracle(laid.pathEntries)
        const reached = result.tools.flatMap((tool) => [tool.path, ...tool.alsoAt])
        // Every executable exactly once, and the very set find prints.
        expect(reached.length).toBe(new Set(reached).size)
        expect(new Set(reached)).toEqual(new Set(expected.found))
        // PATH order: the PATH index never goes down along the tools.
        const indexes = result.tools.map((tool) => tool.pathIndex ?? -1)
        expect(indexes).toEqual([...indexes].sort((a, b) => a - b))
        expect(project(result)).toEqual({ tools: expected.tools, roots: expected.roots })
        // The lookup without listings names the same winners (a name nowhere on PATH: none).
        const names = [...expected.winners.keys(), "no-such-tool"].filter((name, at, all) => all.indexOf(name) === at)
        const resolved = yield* walker.resolveOnPath(roots, names, options)
        expect(new Map(resolved)).toEqual(expected.winners)
      }).pipe(Effect.provide(Walker.layer)),
    { fastCheck: { numRuns: 100 } }
  )

  it.scopedLive.prop(
    "the walker's shadowedBy, resolveOnPath, `query which` and the probes' winningCopy name the same winner for every name",
    [pathTreeArbitrary({ maxDirs: 4, maxEntries: 8 })],
    ([tree]) =>
      Effect.gen(function*() {
        const base = yield* tempDir
        const laid = materializePathTree(base, tree)
        const walker = yield* Walker
        const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
        const options = { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: base } as const
        const result = yield* walker.walk(roots, options)
        const tools = result.tools.map((tool) => new Tool({ ...tool, category: "other" }))
        const inventory = new Inventory({
          ...inventoryOf(tools),
          host: new HostInfo({ os: "linux", arch: "x64", node: "v20.20.2", toolMap: "0.1.0" }),
          path: result.roots
        })
        const copies = namedCopies(tools, result.roots, "linux")
        const names = [...new Set(tools.flatMap((tool) => [tool.name, ...tool.alsoAt.map((alias) => NodePath.basename(alias))]))]
        const resolved = yield* walker.resolveOnPath(roots, names, options)
        for (const name of names) {
          const winner = pathWinner(copiesNamed(copies, name, "linux"))?.path ?? null
          expect(winner).not.toBe(null)
          for (const tool of tools.filter((tool) => tool.name === name)) {
            expect(tool.shadowedBy).toBe(tool.path === winner ? null : winner)
          }
          expect(resolved.get(name)).toBe(winner)
          expect(whichTool(inventory, name).winner).toBe(winner)
          expect(winningCopy(copiesNamed(copies, name, "linux"))?.path).toBe(winner)
        }
        expect(resolved.size).toBe(names.length)
      }).pipe(Effect.provide(Walker.layer)),
    { fastCheck: { numRuns: 60 } }
  )
})
