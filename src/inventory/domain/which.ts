/** The answer of `query which NAME`: every copy of a name in PATH order, and which one runs (a pure rule over the inventory). */
import type { Inventory } from "./inventory.js"
import { toOsFamily } from "./machine.js"
import { copiesNamed, type NamedCopy, namedCopies, pathWinner } from "./toolNames.js"

/** One copy of a name in the answer of {@link whichTool}. */
export interface WhichCopy {
  readonly path: string
  /** Where the link at `path` resolves to, or null when it is no link (or an alias of another path). */
  readonly linkTarget: string | null
  readonly pathIndex: number | null
  readonly root: string
  /** The path recorded for the same file when this copy is one of its aliases, else null. */
  readonly sameFileAs: string | null
  readonly version: string | null
  readonly wins: boolean
}

/** The answer of `query which NAME`. */
export interface WhichAnswer {
  readonly name: string
  /** The path that runs when NAME is typed, or null when no copy is on PATH. */
  readonly winner: string | null
  readonly copies: ReadonlyArray<WhichCopy>
}

/** What {@link whichTool} answers for a name, apart from the name itself. */
export type WhichCopies = Omit<WhichAnswer, "name">

/** The answer for the copies of one name (in the order of `namedCopies`), with the versions the scan found by path. */
const copiesAnswer = (copies: ReadonlyArray<NamedCopy>, versions: ReadonlyMap<string, string | null>): WhichCopies => {
  const winner = pathWinner(copies) ?? null
  return {
    winner: winner?.path ?? null,
    copies: copies.map((copy) => ({
      path: copy.path,
      // An alias's own link, if it is one, is not recorded: only that it is the same file.
      linkTarget: copy.path === copy.tool.path ? copy.tool.linkTarget : null,
      pathIndex: copy.pathIndex,
      root: copy.tool.root,
      sameFileAs: copy.path === copy.tool.path ? null : copy.tool.path,
      version: versions.get(copy.path) ?? versions.get(copy.tool.path) ?? null,
      wins: copy === winner
    }))
  }
}

const versionsByPath = (inventory: Inventory): ReadonlyMap<string, string | null> =>
  new Map(inventory.versions.flatMap((report) => (report.path === null ? [] : [[report.path, report.version] as const])))

/** Every copy of a name in PATH order (aliases of one file included), which one wins, and known versions. */
export const whichTool = (inventory: Inventory, name: string): WhichAnswer => {
  const os = toOsFamily(inventory.host.os)
  const copies = copiesNamed(namedCopies(inventory.tools, inventory.path, os), name, os)
  return { name, ...copiesAnswer(copies, versionsByPath(inventory)) }
}

/**
 * What {@link whichTool} answers for every name of the inventory, keyed by the name as the OS
 * compares names (`pathLookup(os).key`): the bundle's which index (bundle/whichIndex.ts).
 */
export const whichAnswers = (inventory: Inventory): ReadonlyMap<string, WhichCopies> => {
  const versions = versionsByPath(inventory)
  const answers = new Map<string, WhichCopies>()
  for (const [key, copies] of namedCopies(inventory.tools, inventory.path, toOsFamily(inventory.host.os))) answers.set(key, copiesAnswer(copies, versions))
  return answers
}
