/**
 * Resolving a load or listing target against a built catalog: prefix resolvers, paths and
 * bare names (see `resolveTarget` for the order), with suggestions for what names nothing.
 */
import type { Catalog, CatalogNode, Resolution, Resolver, ToolEntry } from "./model.js"
import { searchCatalog } from "./search.js"
import { isBuilt, positionsOf, toolsUnder } from "./tree.js"

const unionInTreeOrder = (catalog: Catalog, lists: ReadonlyArray<ReadonlyArray<ToolEntry>>): ReadonlyArray<ToolEntry> => {
  if (lists.length === 1) return lists[0]!
  const set = new Set<ToolEntry>()
  for (const list of lists) for (const tool of list) set.add(tool)
  const all = [...set]
  if (isBuilt(catalog)) {
    const position = positionsOf(catalog)
    all.sort((a, b) => position.get(a)! - position.get(b)!)
  }
  return all
}

/** Resolves a target without prefix resolvers; undefined when it names nothing. */
const resolveOrdinary = (catalog: Catalog, target: string): Exclude<Resolution, { kind: "unknown" | "resolver" }> | undefined => {
  if (target === "" || target === "/") return { kind: "root", target, node: catalog.root, tools: catalog.tools }
  if (target.startsWith("/")) {
    const path = `/${target.split("/").filter((part) => part.length > 0).join("/")}`
    const node = catalog.byPath.get(path)
    if (node !== undefined) return nodeResolution(target, node)
    // `/category/group/full_tool_name` names the tool too.
    const parts = path.split("/")
    if (parts.length === 4) {
      const tool = catalog.byName.get(parts[3]!)
      if (tool !== undefined && tool.category === parts[1] && tool.group === parts[2]) {
        return { kind: "tool", target, node: tool, tools: [tool] }
      }
    }
    return undefined
  }
  const tool = catalog.byName.get(target)
  if (tool !== undefined) return { kind: "tool", target, node: tool, tools: [tool] }
  const groups = catalog.groups.get(target)
  if (groups !== undefined) {
    return {
      kind: "group",
      target,
      node: groups[0]!,
      nodes: groups,
      tools: unionInTreeOrder(catalog, groups.map((group) => group.children))
    }
  }
  const category = catalog.categories.get(target)
  if (category !== undefined) return nodeResolution(target, category)
  const alias = catalog.aliases.get(target)
  if (alias !== undefined) return nodeResolution(target, alias)
  return undefined
}

const nodeResolution = (target: string, node: CatalogNode): Exclude<Resolution, { kind: "unknown" | "resolver" }> => {
  switch (node.kind) {
    case "root":
      return { kind: "root", target, node, tools: toolsUnder(node) }
    case "category":
      return { kind: "category", target, node, tools: toolsUnder(node) }
    case "alias":
      return { kind: "alias", target, node, tools: node.children }
    case "group":
      return { kind: "group", target, node, nodes: [node], tools: node.children }
    case "tool":
      return { kind: "tool", target, node, tools: [node] }
  }
}

/** How many suggestions an unknown target gets at most. */
export const MAX_SUGGESTIONS = 5

const suggestionsFor = (catalog: Catalog, target: string): ReadonlyArray<string> => {
  const word = target.split("/").filter((part) => part.length > 0).at(-1)?.toLowerCase() ?? ""
  if (word.length === 0) return []
  const out: Array<string> = []
  const add = (path: string) => {
    if (out.length < MAX_SUGGESTIONS && !out.includes(path)) out.push(path)
  }
  for (const category of catalog.categories.values()) if (category.name.toLowerCase() === word) add(category.path)
  for (const [name, groups] of catalog.groups) {
    if (name.toLowerCase() === word) for (const group of groups) add(group.path)
  }
  for (const tool of searchCatalog(catalog, word, { limit: MAX_SUGGESTIONS }).tools) add(tool.path)
  return out
}

/**
 * Resolves a target, in this order:
 * 1. a registered prefix (longest first): the resolver's targets, resolved as ordinary
 *    targets (not through resolvers again); a resolver returning undefined passes;
 * 2. `/` or empty: the root;
 * 3. a path: `/category`, `/category/group`, `/category/group/tool` (the segment, or the
 *    tool's full name), `/alias`; repeated or trailing slashes are ignored;
 * 4. a bare name: an exact tool name, then a group name (every group of that name), then a
 *    category name, then an alias name.
 * Anything else is unknown, with up to five suggested paths.
 */
export const resolveTarget = (
  catalog: Catalog,
  target: string,
  resolvers: ReadonlyArray<Resolver> = []
): Resolution => {
  const trimmed = target.trim()
  const byPrefix = resolvers
    .filter((resolver) => resolver.prefix.length > 0 && trimmed.startsWith(resolver.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length)
  for (const resolver of byPrefix) {
    const targets = resolver.resolve(trimmed.slice(resolver.prefix.length), catalog)
    if (targets === undefined) continue
    const unresolved: Array<string> = []
    const lists: Array<ReadonlyArray<ToolEntry>> = []
    for (const inner of targets) {
      const resolution = resolveOrdinary(catalog, inner.trim())
      if (resolution === undefined) unresolved.push(inner)
      else lists.push(resolution.tools)
    }
    return {
      kind: "resolver",
      target: trimmed,
      prefix: resolver.prefix,
      targets,
      unresolved,
      tools: lists.length === 0 ? [] : unionInTreeOrder(catalog, lists)
    }
  }
  return resolveOrdinary(catalog, trimmed) ?? {
    kind: "unknown",
    target: trimmed,
    suggestions: suggestionsFor(catalog, trimmed)
  }
}
