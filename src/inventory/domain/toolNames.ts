import { baseToolName } from "./categories.js"
import type { RootReport, Tool } from "./inventory.js"
import { pathModule } from "./roots.js"

/** One name under which a file can be run: the tool's own path or one of its `alsoAt` paths. */
export interface NamedCopy {
  readonly name: string
  readonly path: string
  /** Index of the copy's dir in PATH, or null when it is not on PATH. */
  readonly pathIndex: number | null
  readonly tool: Tool
}

/**
 * Every (name, path) pair by which the inventory's files can be called, keyed by the name as
 * the OS compares it, each list in PATH order then walk order. The walker records a file
 * reached twice once, with the other paths in `alsoAt` — and those paths may carry other
 * names (`python3` → `python3.12`), which must still answer `which python3`.
 */
export const namedCopies = (
  tools: ReadonlyArray<Tool>,
  pathRoots: ReadonlyArray<RootReport>,
  os: "linux" | "darwin" | "win32"
): ReadonlyMap<string, ReadonlyArray<NamedCopy>> => {
  const path = pathModule(os)
  const key = (name: string) => (os === "win32" ? baseToolName(name) : name)
  const dirIndex = new Map<string, number>()
  for (const root of pathRoots) {
    if (root.pathIndex !== null && !dirIndex.has(root.path)) dirIndex.set(root.path, root.pathIndex)
  }
  const byName = new Map<string, Array<NamedCopy & { readonly order: number }>>()
  let order = 0
  const add = (tool: Tool, copyPath: string, pathIndex: number | null) => {
    const name = path.basename(copyPath)
    const list = byName.get(key(name)) ?? []
    list.push({ name, path: copyPath, pathIndex, tool, order: order++ })
    byName.set(key(name), list)
  }
  for (const tool of tools) {
    add(tool, tool.path, tool.pathIndex)
    for (const alias of tool.alsoAt) add(tool, alias, dirIndex.get(path.dirname(alias)) ?? null)
  }
  const rank = (copy: { readonly pathIndex: number | null }) => copy.pathIndex ?? Number.MAX_SAFE_INTEGER
  const sorted = new Map<string, ReadonlyArray<NamedCopy>>()
  for (const [name, list] of byName) {
    sorted.set(name, list.sort((a, b) => rank(a) - rank(b) || a.order - b.order).map(({ order: _order, ...copy }) => copy))
  }
  return sorted
}

/** The copies called by `name` (as the OS compares names), in the order of {@link namedCopies}. */
export const copiesNamed = (
  copies: ReadonlyMap<string, ReadonlyArray<NamedCopy>>,
  name: string,
  os: "linux" | "darwin" | "win32"
): ReadonlyArray<NamedCopy> => copies.get(os === "win32" ? baseToolName(name) : name) ?? []

/** The copy a user gets by typing the name: the first on PATH, else the first anywhere. */
export const winningCopy = (copies: ReadonlyArray<NamedCopy>): NamedCopy | undefined =>
  copies.find((copy) => copy.pathIndex !== null) ?? copies[0]
