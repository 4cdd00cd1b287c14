import { Effect, Option, Schema } from "effect"
import { forEachSliced } from "../../services/eventLoop.js"
import type { Inventory, Tool } from "../domain/inventory.js"
import { pathModule, toOsFamily } from "../domain/machine.js"
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
