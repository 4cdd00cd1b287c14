import { Either, Option } from "effect"
import * as NodePath from "node:path"
import type { OsFamily } from "../domain/machine.js"
import { shellQuote } from "../domain/shellQuote.js"

/** Where the three files of one bundle live, as absolute paths, plus the stem they share. */
export interface BundlePaths {
  /** The output directory that holds the bundle and its auxiliary files. */
  readonly dir: string
  /** `tools.json` or `<stem>.json`. */
  readonly json: string
  /** `tools.md` or `<stem>.md`. */
  readonly markdown: string
  /** `tools.summary.md` or `<stem>.summary.md`. */
  readonly summary: string
  /** The shared base name (`tools`, or `inv` for `inv.md`); auxiliary file names derive from it. */
  readonly stem: string
}

/**
 * The digest file of bundles written before the history (`tools.previous.json` or
 * `<stem>.previous.json`): the digest of the generation the last commit replaced (issue 14,
 * drift). Read to start the history of such a bundle, and removed once the history is written.
 */
export const previousDigestPath = (paths: BundlePaths): string => NodePath.join(paths.dir, `${paths.stem}.previous.json`)

/**
 * The bundle's history, `tools.history.json` or `<stem>.history.json` (history.ts): the digests of
 * its last generations (issue 29). Kept out of tools.json, which every query and `--if-stale`
 * reads: only `query changes` and the next scan read it.
 */
export const historyPath = (paths: BundlePaths): string => NodePath.join(paths.dir, `${paths.stem}.history.json`)

/**
 * The command that refreshes a bundle, for the user to paste (the summary's refresh line, a stale
 * query's notice): `tool-map scan --if-stale`, with the redirect `target` quoted for the host's
 * shell when there is one.
 */
export const refreshCommand = (target: Option.Option<string>, os: OsFamily): string =>
  Option.match(target, {
    onNone: () => "tool-map scan --if-stale",
    onSome: (path) => `tool-map scan --if-stale ${shellQuote(path, os)}`
  })

/** The stem of the bundle in the default data directory. */
export const DEFAULT_STEM = "tools"

const pathsFor = (dir: string, stem: string): BundlePaths => ({
  dir,
  json: NodePath.join(dir, `${stem}.json`),
  markdown: NodePath.join(dir, `${stem}.md`),
  summary: NodePath.join(dir, `${stem}.summary.md`),
  stem
})

/**
 * The bundle in a directory: `tools.json`, `tools.md`, `tools.summary.md` (a relative `dir`
 * resolved against `cwd`; `Bundle.locate` passes the injected environment's).
 */
export const bundlePathsForDir = (dir: string, cwd: string = process.cwd()): BundlePaths =>
  pathsFor(NodePath.resolve(cwd, dir), DEFAULT_STEM)

/**
 * The bundle of a redirected scan: `some/dir/inv.md` gives `inv.md`, `inv.json` and
 * `inv.summary.md` in `some/dir` (resolved against `cwd`; `Bundle.locate` passes the injected
 * environment's). Left with a reason a user can act on when the path does not name a `.md` file.
 */
export const bundlePathsForRedirect = (mdPath: string, cwd: string = process.cwd()): Either.Either<BundlePaths, string> => {
  if (mdPath.trim() === "") return Either.left("the output path is empty; give a file name ending in .md, such as inv.md")
  if (/[\\/]$/.test(mdPath)) {
    return Either.left(`the output path ${mdPath} names a directory; give a file name ending in .md, such as ${mdPath}inv.md`)
  }
  const base = NodePath.basename(mdPath)
  if (!base.endsWith(".md")) {
    return Either.left(`the output path ${mdPath} does not end in .md; the bundle needs a markdown path such as inv.md, from which inv.json and inv.summary.md are derived`)
  }
  const stem = base.slice(0, -".md".length)
  if (stem === "" || stem === ".") {
    return Either.left(`the output path ${mdPath} has no name before .md; give a name such as inv.md`)
  }
  const markdown = NodePath.resolve(cwd, mdPath)
  return Either.right(pathsFor(NodePath.dirname(markdown), stem))
}

/**
 * The bundles a file given to `--from` may belong to, most likely first: `inv.md`, `inv.json`
 * and `inv.summary.md` each name the bundle of stem `inv` (and `inv.summary.md` is also the
 * markdown file of a bundle of stem `inv.summary`). Left with a reason when the path names no
 * file of a bundle.
 */
export const bundleCandidatesFor = (file: string, cwd: string = process.cwd()): Either.Either<ReadonlyArray<BundlePaths>, string> => {
  const absolute = NodePath.resolve(cwd, file)
  const base = NodePath.basename(absolute)
  const stems = [
    base.endsWith(".summary.md") ? base.slice(0, -".summary.md".length) : null,
    base.endsWith(".md") ? base.slice(0, -".md".length) : null,
    base.endsWith(".json") ? base.slice(0, -".json".length) : null
  ].filter((stem): stem is string => stem !== null && stem !== "" && stem !== ".")
  if (file.trim() === "" || /[\\/]$/.test(file) || stems.length === 0) {
    return Either.left(
      `${file} names no file of a tool-map bundle; give one of the three files \`tool-map scan PATH.md\` writes: PATH.md, PATH.json or PATH.summary.md`
    )
  }
  return Either.right(stems.map((stem) => pathsFor(NodePath.dirname(absolute), stem)))
}

/**
 * The bundle's which index, `tools.which.jsonl` or `<stem>.which.jsonl` (see whichIndex.ts):
 * every name's `query which` answer and the watch set, derived from tools.json at commit time,
 * so that the everyday commands read neither the whole of tools.json nor its classes.
 */
export const whichIndexPath = (paths: BundlePaths): string => NodePath.join(paths.dir, `${paths.stem}.which.jsonl`)
