/**
 * Walking a built catalog tree: the tools under a node, and each tool's position in tree
 * order, which resolving and searching both use to keep results in that order.
 */
import type { Catalog, CatalogNode, ToolEntry } from "./model.js"

/** Catalogs `buildCatalog` made (their tools are in tree order). */
const builtCatalogs = new WeakSet<Catalog>()

/** Marks a catalog as made by `buildCatalog`: its tools are in tree order. */
export const markBuilt = (catalog: Catalog): void => void builtCatalogs.add(catalog)

/** True for a catalog `buildCatalog` made. */
export const isBuilt = (catalog: Catalog): boolean => builtCatalogs.has(catalog)

const positionIndexes = new WeakMap<Catalog, ReadonlyMap<ToolEntry, number>>()

/** Each tool's position in `catalog.tools`, computed once per catalog. */
export const positionsOf = (catalog: Catalog): ReadonlyMap<ToolEntry, number> => {
  let positions = positionIndexes.get(catalog)
  if (positions === undefined) {
    const map = new Map<ToolEntry, number>()
    for (let i = 0; i < catalog.tools.length; i++) map.set(catalog.tools[i]!, i)
    positionIndexes.set(catalog, positions = map)
  }
  return positions
}

/** The tools under a node, in tree order, each once. */
export const toolsUnder = (node: CatalogNode): ReadonlyArray<ToolEntry> => {
  switch (node.kind) {
    case "tool":
      return [node]
    case "group":
    case "alias":
      return node.children
    case "category":
      return node.children.flatMap((group) => group.children)
    case "root":
      return node.children.flatMap((category) => category.children.flatMap((group) => group.children))
  }
}

