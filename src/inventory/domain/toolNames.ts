import type { RootReport, Tool } from "./inventory.js"
import { type OsFamily, pathModule } from "./machine.js"

/**
 * The extensions a name is looked up without on Windows when the PATHEXT of the scan is not at
 * hand (a bundle read back does not record it): Windows' default PATHEXT first, in its order,
 * then the script kinds users type without extension too.
 */
export const WINDOWS_EXECUTABLE_EXTENSIONS: ReadonlyArray<string> = [".COM", ".EXE", ".BAT", ".CMD", ".VBS", ".MSC", ".PS1"]

/** The extension of a Windows file name, upper-cased with its dot, or "" when it has none. */
export const windowsExtension = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? "" : name.slice(dot).toUpperCase()
}

/**
 * The directory of a root as it is joined with names: separators unified and collapsed, `.`
 * segments and trailing separators dropped. `..` stays: across a symlink it is not lexical.
 */
export const normalizeDirectory = (path: string, os: OsFamily): string => {
  if (os === "win32") {
    const text = path.replace(/\//g, "\\")
    const unc = text.startsWith("\\\\")
    const body = text.split("\\").filter((part) => part !== "" && part !== ".").join("\\")
    if (unc) return `\\\\${body}`
    return /^[A-Za-z]:$/.test(body) ? `${body}\\` : text.startsWith("\\") ? `\\${body}` : body
  }
  const body = path.split("/").filter((part) => part !== "" && part !== ".").join("/")
  return path.startsWith("/") ? `/${body}` : body
}

/** How the OS finds a command by name on PATH: which names it takes as one, and in which order. */
export interface PathLookup {
  /**
   * The name a lookup compares: the file name itself on POSIX; on Windows, where `git` finds
   * `Git.EXE`, the name without its executable extension, in lower case.
   */
  readonly key: (fileName: string) => string
  /**
   * Among files of one directory with the same key, the OS's preference, lower first: the
   * extension's place in PATHEXT on Windows (an extension outside it comes last), 0 on POSIX.
   */
  readonly rank: (fileName: string) => number
}

const POSIX_LOOKUP: PathLookup = { key: (fileName) => fileName, rank: () => 0 }

/**
 * The PATH lookup of `os`. `pathExt` is the scan's PATHEXT (ignored on POSIX); without it,
 * {@link WINDOWS_EXECUTABLE_EXTENSIONS}.
 */
export const pathLookup = (os: OsFamily, pathExt: ReadonlyArray<string> = WINDOWS_EXECUTABLE_EXTENSIONS): PathLookup => {
  if (os !== "win32") return POSIX_LOOKUP
  const ranks = new Map<string, number>()
  // The first place of an extension listed twice is where Windows tries it.
  for (const ext of pathExt) if (!ranks.has(ext.toUpperCase())) ranks.set(ext.toUpperCase(), ranks.size)
  return {
    key: (fileName) => {
      const ext = windowsExtension(fileName)
      return (ranks.has(ext) ? fileName.slice(0, -ext.length) : fileName).toLowerCase()
    },
    rank: (fileName) => ranks.get(windowsExtension(fileName)) ?? ranks.size
  }
}

/** Where a copy of a command stands in the PATH lookup of its name. */
export interface PathPlace {
  /** The position of its directory in the lookup (its PATH index), or null when it is not on PATH. */
  readonly pathIndex: number | null
  /** Its {@link PathLookup.rank} among the same-named files of its directory. */
  readonly rank: number
}

/**
 * THE rule of which copy runs when a name is typed: `a` runs before `b` when both are on PATH
 * and `a`'s directory comes first, or they share the directory and the OS prefers `a` (PATHEXT
 * order on Windows). A copy not on PATH runs before nothing.
 */
export const runsBefore = (a: PathPlace, b: PathPlace): boolean =>
  a.pathIndex !== null &&
  (b.pathIndex === null || a.pathIndex < b.pathIndex || (a.pathIndex === b.pathIndex && a.rank < b.rank))

/**
 * The copy a shell runs among copies of one name given in walk order (which breaks a tie), by
 * {@link runsBefore}: the first PATH directory holding the name wins. None when no copy is on PATH.
 */
export const pathWinner = <C extends PathPlace>(copies: Iterable<C>): C | undefined => {
  let winner: C | undefined
  for (const copy of copies) {
    if (copy.pathIndex !== null && (winner === undefined || runsBefore(copy, winner))) winner = copy
  }
  return winner
}

/** One name under which a file can be run: the tool's own path or one of its `alsoAt` paths. */
export interface NamedCopy extends PathPlace {
  readonly name: string
  readonly path: string
  /** Index of the copy's dir in PATH, or null when it is not on PATH. */
  readonly pathIndex: number | null
  readonly tool: Tool
}

/**
 * Every (name, path) pair by which the inventory's files can be called, keyed by the name as
 * the OS compares it, each list in PATH order then walk order. The walker records a name
 * reached twice at one file once, with the other paths in `alsoAt`; in bundles written before
 * every name had its record, those paths may carry other names (`python3` → `python3.12`),
 * which must still answer `which python3`.
 */
export const namedCopies = (
  tools: ReadonlyArray<Tool>,
  pathRoots: ReadonlyArray<RootReport>,
  os: OsFamily
): ReadonlyMap<string, ReadonlyArray<NamedCopy>> => {
  const path = pathModule(os)
  const lookup = pathLookup(os)
  const dirIndex = new Map<string, number>()
  for (const root of pathRoots) {
    // As the walk joins names to it: `/usr/bin/` and `/usr/bin` hold the same copies.
    const dir = normalizeDirectory(root.path, os)
    if (root.pathIndex !== null && !dirIndex.has(dir)) dirIndex.set(dir, root.pathIndex)
  }
  const byName = new Map<string, Array<NamedCopy & { readonly order: number }>>()
  let order = 0
  const add = (tool: Tool, copyPath: string, pathIndex: number | null) => {
    const name = path.basename(copyPath)
    const key = lookup.key(name)
    const list = byName.get(key) ?? []
    list.push({ name, path: copyPath, pathIndex, rank: lookup.rank(name), tool, order: order++ })
    byName.set(key, list)
  }
  for (const tool of tools) {
    add(tool, tool.path, tool.pathIndex)
    for (const alias of tool.alsoAt) add(tool, alias, dirIndex.get(path.dirname(alias)) ?? null)
  }
  const position = (copy: { readonly pathIndex: number | null }) => copy.pathIndex ?? Number.MAX_SAFE_INTEGER
  const sorted = new Map<string, ReadonlyArray<NamedCopy>>()
  for (const [name, list] of byName) {
    sorted.set(name, list.sort((a, b) => position(a) - position(b) || a.order - b.order).map(({ order: _order, ...copy }) => copy))
  }
  return sorted
}

/** The copies called by `name` (as the OS compares names), in the order of {@link namedCopies}. */
export const copiesNamed = (
  copies: ReadonlyMap<string, ReadonlyArray<NamedCopy>>,
  name: string,
  os: OsFamily
): ReadonlyArray<NamedCopy> => copies.get(pathLookup(os).key(name)) ?? []

/** The copy a user gets by typing the name ({@link pathWinner}), else the first copy anywhere. */
export const winningCopy = (copies: ReadonlyArray<NamedCopy>): NamedCopy | undefined => pathWinner(copies) ?? copies[0]
