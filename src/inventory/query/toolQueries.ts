import { Effect, Option, Schema } from "effect"
import { forEachSliced } from "../../services/eventLoop.js"
import type { Inventory, Tool } from "../domain/inventory.js"
import { pathModule, toOsFamily } from "../domain/machine.js"
import { copiesNamed, type NamedCopy, namedCopies, pathWinner } from "../domain/toolNames.js"
import { compileNameGlob } from "./nameGlob.js"

/** No copy of a name is on PATH or in the scanned roots (`query which`, the MCP `which` tool). */
export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()("ToolNotFound", {
  name: Schema.String
}) {
  get message() {
    return `No tool named ${this.name} is on PATH or in the scanned roots (run \`tool-map scan --force\` if it was just installed).`
  }
}

/** The filters of `query tools`. */
export interface ToolFilters {
  /** Only tools of this category. */
  readonly category: Option.Option<string>
  /** Only tools whose name (or the name of one of its `alsoAt` paths) matches this glob. */
  readonly name: Option.Option<string>
}

/**
 * The name by which a tool matches a `--name` glob (matched without backtracking, `nameGlob.ts`):
 * its own name, else the base name of one of its `alsoAt` paths; null when none matches.
 */
export const nameMatcher = (inventory: Inventory, glob: string): (tool: Tool) => string | null => {
  const matches = compileNameGlob(glob, { caseInsensitive: inventory.host.os === "win32" })
  const basename = pathModule(toOsFamily(inventory.host.os)).basename
  // Every name has its record; an `alsoAt` path differs from it only in letter case
  // (Windows), or is another name of the file in a bundle written before that was so.
  return (tool) => (matches(tool.name) ? tool.name : tool.alsoAt.map((alias) => basename(alias)).find(matches) ?? null)
}

/** Whether a tool passes the filters of `query tools`. */
const toolFilter = (inventory: Inventory, filters: ToolFilters): (tool: Tool) => boolean => {
  const matchName = Option.map(filters.name, (glob) => nameMatcher(inventory, glob))
  return (tool) =>
    Option.match(filters.category, { onNone: () => true, onSome: (category) => tool.category === category }) &&
    Option.match(matchName, { onNone: () => true, onSome: (matched) => matched(tool) !== null })
}

/** The tools matching the filters of `query tools`, in walk order. */
export const filterTools = (inventory: Inventory, filters: ToolFilters): ReadonlyArray<Tool> =>
  inventory.tools.filter(toolFilter(inventory, filters))

/**
 * {@link filterTools} as an effect that lets the event loop run every 50 ms, so that SIGTERM
 * stops a long filter of a large inventory (a long glob over long names) at once.
 */
export const filterToolsInterruptibly = (inventory: Inventory, filters: ToolFilters): Effect.Effect<ReadonlyArray<Tool>> =>
  Effect.suspend(() => {
    const keep = toolFilter(inventory, filters)
    const kept: Array<Tool> = []
    return Effect.as(forEachSliced(inventory.tools, (tool) => {
      if (keep(tool)) kept.push(tool)
    }), kept)
  })

/** A tool as `query tools` lists it: with a name glob, also the name by which it matched (another name of the same file counts). */
export type ListedTool = Tool | (Tool & { readonly matchedName: string })

/** The tools of `query tools` (CLI and MCP alike): {@link filterToolsInterruptibly}, with the name each matched by under a glob. */
export const listTools = (inventory: Inventory, filters: ToolFilters): Effect.Effect<ReadonlyArray<ListedTool>> =>
  Effect.map(filterToolsInterruptibly(inventory, filters), (tools) =>
    Option.match(filters.name, {
      onNone: (): ReadonlyArray<ListedTool> => tools,
      onSome: (glob) => {
        const matched = nameMatcher(inventory, glob)
        return tools.map((tool) => ({ ...tool, matchedName: matched(tool) ?? tool.name }))
      }
    }))

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
