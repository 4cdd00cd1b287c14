import { FastCheck as fc } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { hasEscapedBytes, toPathBytes } from "../src/platform/WalkerFs.js"

/**
 * Synthetic PATH trees: a model (plain data, so fast-check can generate and shrink it), a
 * fast-check arbitrary for property tests, a seeded large tree for the bench, and a
 * materializer that lays a model out under a directory.
 *
 * Layout of a materialized tree under `base`: the PATH dirs `d0`, `d1`, …, a dir `outside`
 * (not on PATH) holding link targets, a dir link `alias -> d0`, and a plain file `file`.
 */

/** A named entry of a PATH dir (names are unique within a dir; lossless strings, see WalkerFs). */
export type NamedEntry =
  /** A regular file with an x bit for its owner. */
  | { readonly kind: "exec"; readonly name: string; readonly mode: number }
  /** A regular file with no x bit at all. */
  | { readonly kind: "junk"; readonly name: string; readonly mode: number }
  /** A relative symlink to the `ref`-th target file (modulo the number of targets). */
  | { readonly kind: "link"; readonly name: string; readonly ref: number }
  /** A hard link to the `ref`-th target file. */
  | { readonly kind: "hardlink"; readonly name: string; readonly ref: number }

/** An entry whose name the materializer derives (`dangling-3`, `self-3`, …), so it never clashes. */
export type SpecialEntry =
  | { readonly kind: "dangling" }
  | { readonly kind: "selfLink" }
  /** Two links pointing at each other: `loop-N-a` and `loop-N-b`. */
  | { readonly kind: "loopPair" }
  | { readonly kind: "subdir" }
  /** A link to the parent directory. */
  | { readonly kind: "parentLink" }

/** One PATH dir of the model. */
export interface SyntheticDir {
  readonly entries: ReadonlyArray<NamedEntry>
  readonly specials: ReadonlyArray<SpecialEntry>
}

/** An entry of the PATH variable: a dir of the model, or one of the odd kinds of entry. */
export type PathItem =
  | { readonly kind: "dir"; readonly index: number }
  | { readonly kind: "alias" }
  | { readonly kind: "missing" }
  | { readonly kind: "file" }
  | { readonly kind: "empty" }
  | { readonly kind: "relative" }

/** A whole synthetic PATH tree. */
export interface SyntheticPathTree {
  readonly dirs: ReadonlyArray<SyntheticDir>
  /** Files of the `outside` dir (link targets that are not on PATH). */
  readonly outside: ReadonlyArray<NamedEntry>
  readonly path: ReadonlyArray<PathItem>
}

/** A materialized tree: the PATH entries as strings, in order. */
export interface MaterializedTree {
  readonly base: string
  /** The PATH entries, verbatim (empty and relative ones included). */
  readonly pathEntries: ReadonlyArray<string>
  /** How many executables (links and hard links to executables included) were laid out. */
  readonly executables: number
}

const EXEC_MODES = [0o755, 0o700, 0o744, 0o711, 0o500, 0o100] as const
const JUNK_MODES = [0o644, 0o600, 0o444, 0o400] as const

/**
 * Tool names: a pool that repeats across dirs (so names shadow), dotted names, a name with a
 * byte that is not UTF-8 (0xE9, Latin-1 é, as a surrogate escape), and random short names.
 * None contains `-`, so none clashes with the derived names of special entries.
 */
export const toolName: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("git", "node", "python3", "python3.12", "ls", "a.b.c", "caf\uDCE9", "é") },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{1,5}(\.[0-9]{1,2})?$/) }
)

const namedEntry = (name: fc.Arbitrary<string>): fc.Arbitrary<NamedEntry> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("exec" as const), name, mode: fc.constantFrom(...EXEC_MODES) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("junk" as const), name, mode: fc.constantFrom(...JUNK_MODES) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("link" as const), name, ref: fc.nat(50) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("hardlink" as const), name, ref: fc.nat(50) }) }
  )

const specialEntry: fc.Arbitrary<SpecialEntry> = fc.constantFrom<SpecialEntry>(
  { kind: "dangling" },
  { kind: "selfLink" },
  { kind: "loopPair" },
  { kind: "subdir" },
  { kind: "parentLink" }
)

const uniqueEntries = (maxLength: number, minLength = 0) =>
  fc.uniqueArray(namedEntry(toolName), { selector: (entry) => entry.name, minLength, maxLength })

/** Small PATH trees for property tests: up to `maxDirs` dirs of up to `maxEntries` entries. */
export const pathTreeArbitrary = (
  options: { readonly maxDirs?: number; readonly maxEntries?: number } = {}
): fc.Arbitrary<SyntheticPathTree> => {
  const maxDirs = options.maxDirs ?? 4
  const maxEntries = options.maxEntries ?? 8
  return fc.integer({ min: 1, max: maxDirs }).chain((dirCount) =>
    fc.record({
      dirs: fc.array(
        fc.record({ entries: uniqueEntries(maxEntries), specials: fc.array(specialEntry, { maxLength: 3 }) }),
        { minLength: dirCount, maxLength: dirCount }
      ),
      // Plain files only, so that every link and hard link has a real target.
      outside: fc.uniqueArray(
        fc.oneof(
          fc.record({ kind: fc.constant("exec" as const), name: toolName, mode: fc.constantFrom(...EXEC_MODES) }),
          fc.record({ kind: fc.constant("junk" as const), name: toolName, mode: fc.constantFrom(...JUNK_MODES) })
        ),
        { selector: (entry) => entry.name, minLength: 1, maxLength: 4 }
      ),
      path: fc.array(
        fc.oneof(
          { weight: 8, arbitrary: fc.nat(dirCount - 1).map((index): PathItem => ({ kind: "dir", index })) },
          {
            weight: 3,
            arbitrary: fc.constantFrom<PathItem>(
              { kind: "alias" },
              { kind: "missing" },
              { kind: "file" },
              { kind: "empty" },
              { kind: "relative" }
            )
          }
        ),
        { minLength: 1, maxLength: dirCount + 4 }
      )
    })
  )
}

/** A seeded PRNG (mulberry32) so that the large trees of the bench are the same every run. */
const prng = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A large PATH tree for the bench: `executables` executables spread over `dirs` dirs, of which
 * about 10% are symlinks to files outside PATH, 3% hard links, 5% names that shadow a name of
 * an earlier dir; plus 10% junk files and a dangling link, a self-link and a link loop per dir.
 */
export const scaledPathTree = (
  options: { readonly executables: number; readonly dirs?: number; readonly seed?: number }
): SyntheticPathTree => {
  const dirCount = Math.max(1, options.dirs ?? 16)
  const random = prng(options.seed ?? 42)
  const outsideCount = Math.max(1, Math.floor(options.executables / 10))
  const outside: Array<NamedEntry> = Array.from({ length: outsideCount }, (_, i) => ({
    kind: "exec",
    name: `target${i}`,
    mode: 0o755
  }))
  const perDir = Math.ceil(options.executables / dirCount)
  let made = 0
  const dirs: Array<SyntheticDir> = []
  for (let d = 0; d < dirCount; d++) {
    const entries: Array<NamedEntry> = []
    const names = new Set<string>()
    for (let i = 0; i < perDir && made < options.executables; i++, made++) {
      const roll = random()
      const shadow = d > 0 && roll < 0.05
      let name = shadow ? `tool${Math.floor(random() * perDir)}` : `tool${d}_${i}`
      if (names.has(name)) name = `tool${d}_${i}`
      names.add(name)
      if (roll >= 0.05 && roll < 0.15) {
        entries.push({ kind: "link", name, ref: Math.floor(random() * outsideCount) })
      } else if (roll >= 0.15 && roll < 0.18) {
        entries.push({ kind: "hardlink", name, ref: Math.floor(random() * outsideCount) })
      } else {
        entries.push({ kind: "exec", name, mode: 0o755 })
      }
    }
    for (let j = 0; j < Math.floor(perDir / 10); j++) entries.push({ kind: "junk", name: `junk${d}_${j}.txt`, mode: 0o644 })
    dirs.push({ entries, specials: [{ kind: "dangling" }, { kind: "selfLink" }, { kind: "loopPair" }] })
  }
  return {
    dirs,
    outside,
    path: dirs.map((_, index): PathItem => ({ kind: "dir", index }))
  }
}

/** The path at which the lossless `name` sits in `dir` (as bytes when it is not UTF-8). */
const at = (dir: string, name: string): string | Buffer => {
  const full = NodePath.join(dir, name)
  return hasEscapedBytes(full) ? toPathBytes(full) : full
}

/**
 * Lays out `tree` under `base` (an existing empty dir) with synchronous calls and returns the
 * PATH entries. Link and hard-link targets are the files of all dirs and of `outside`, in
 * order; a link to a non-executable target stays a non-executable.
 */
export const materializePathTree = (base: string, tree: SyntheticPathTree): MaterializedTree => {
  const dirName = (index: number) => `d${index}`
  const targets: Array<{ readonly dir: string; readonly entry: NamedEntry }> = []
  const mkdir = (dir: string) => NodeFs.mkdirSync(NodePath.join(base, dir), { recursive: true })
  const writeFile = (dir: string, entry: NamedEntry & { readonly mode: number }) => {
    const path = at(NodePath.join(base, dir), entry.name)
    NodeFs.writeFileSync(path, entry.kind === "exec" ? "#!/bin/sh\nexit 0\n" : "data\n")
    NodeFs.chmodSync(path, entry.mode)
    targets.push({ dir, entry })
  }
  mkdir("outside")
  for (const entry of tree.outside) if (entry.kind === "exec" || entry.kind === "junk") writeFile("outside", entry)
  tree.dirs.forEach((dir, index) => {
    mkdir(dirName(index))
    for (const entry of dir.entries) if (entry.kind === "exec" || entry.kind === "junk") writeFile(dirName(index), entry)
  })
  let executables = targets.filter((target) => target.entry.kind === "exec" && target.dir !== "outside").length
  tree.dirs.forEach((dir, index) => {
    const here = NodePath.join(base, dirName(index))
    for (const entry of dir.entries) {
      if (entry.kind !== "link" && entry.kind !== "hardlink") continue
      const target = targets[entry.ref % targets.length]!
      if (target.entry.kind === "exec") executables += 1
      if (entry.kind === "link") {
        NodeFs.symlinkSync(at(NodePath.join("..", target.dir), target.entry.name), at(here, entry.name))
      } else {
        NodeFs.linkSync(at(NodePath.join(base, target.dir), target.entry.name), at(here, entry.name))
      }
    }
    dir.specials.forEach((special, n) => {
      switch (special.kind) {
        case "dangling":
          return NodeFs.symlinkSync(`nowhere-${n}`, NodePath.join(here, `dangling-${n}`))
        case "selfLink":
          return NodeFs.symlinkSync(`self-${n}`, NodePath.join(here, `self-${n}`))
        case "loopPair":
          NodeFs.symlinkSync(`loop-${n}-b`, NodePath.join(here, `loop-${n}-a`))
          return NodeFs.symlinkSync(`loop-${n}-a`, NodePath.join(here, `loop-${n}-b`))
        case "subdir":
          return NodeFs.mkdirSync(NodePath.join(here, `sub-${n}`))
        case "parentLink":
          return NodeFs.symlinkSync("..", NodePath.join(here, `up-${n}`))
      }
    })
  })
  NodeFs.symlinkSync(dirName(0), NodePath.join(base, "alias"))
  NodeFs.writeFileSync(NodePath.join(base, "file"), "#!/bin/sh\n", { mode: 0o755 })
  const pathEntries = tree.path.map((item) => {
    switch (item.kind) {
      case "dir":
        return NodePath.join(base, dirName(item.index))
      case "alias":
        return NodePath.join(base, "alias")
      case "missing":
        return NodePath.join(base, "missing")
      case "file":
        return NodePath.join(base, "file")
      case "empty":
        return ""
      case "relative":
        return "relative/bin"
    }
  })
  return { base, pathEntries, executables }
}
