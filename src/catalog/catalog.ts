/**
 * The catalog tree `/category/group/tool`: building it from tool schemas, resolving load and
 * listing targets against it, and searching it.
 *
 * Placement of one tool, first answer wins per field:
 * - group: the merged annotation's `group`, else the first classifier (by priority) that
 *   names a group, else the structural group of an `mcp__server__tool` name (`server`),
 *   else `MISC_GROUP`.
 * - category: the merged annotation's `category`, else the first classifier that names a
 *   category, else the category whose definition claims the tool's group (`groups`), else
 *   the category most of the group's placed tools have (ties: the smaller name; not for
 *   `MISC_GROUP`, whose tools are unrelated), else `UNCATEGORIZED`.
 * Annotations win over classifiers because they name one tool, while a classifier is a
 * rule over many. Category and group names are made path-safe by `segmentName`.
 *
 * Every tool lives under exactly one group of exactly one category (its home). Alias
 * categories (definitions with `tools`) are views: `/alias` lists and loads the named tools,
 * but they stay at home, are counted once, and `toolsUnder(root)` never repeats them. A
 * group name may sit in several categories when annotations split a group; its paths differ
 * and a bare group name stands for all of them.
 *
 * Order is fixed so a build does not depend on input order: categories as defined
 * (`DEFAULT_CATEGORIES`, then `options.categories`), then undefined ones by name, then
 * `UNCATEGORIZED` (always present, even empty, so a missing classifier shows); groups by
 * name; tools by path segment. Names compare by UTF-16 code units. Of two tools with one
 * name, the first given is kept and the other reported in `diagnostics`.
 */
import { definitionFacts, sha256 } from "./definitions.js"
import { classifyTool, indexAnnotations, metaFor, orderClassifiers, segmentName } from "./classify.js"
import type {
  AliasNode,
  AnnotationLayer,
  Catalog,
  CatalogDiagnostic,
  CatalogNode,
  CategoryDefinition,
  CategoryNode,
  Classifier,
  GroupNode,
  Resolution,
  Resolver,
  RootNode,
  ToolEntry,
  ToolMeta,
  ToolSchema,
  AnnotationLayers
} from "./model.js"
import { MISC_GROUP, UNCATEGORIZED } from "./model.js"
import { assessRisk } from "./risk.js"
import { MAX_DESCRIPTION_LENGTH, sanitizeDescription } from "./sanitize.js"

export { MISC_GROUP, OVERRIDE_PRIORITY, UNCATEGORIZED } from "./model.js"

/** Category descriptions known out of the box; a definition with the same name replaces one. */
export const DEFAULT_CATEGORIES: ReadonlyArray<CategoryDefinition> = [
  { name: UNCATEGORIZED, description: "Groups no classifier or annotation has placed yet" }
]

/** How a catalog is built. */
export interface BuildOptions {
  /** Placement rules, run by descending priority. */
  readonly classifiers?: ReadonlyArray<Classifier> | undefined
  /** Metadata per layer: package declarations, runtime annotations, user edits. */
  readonly annotations?: AnnotationLayers | undefined
  /** Category descriptions, group claims and alias categories, in listing order. */
  readonly categories?: ReadonlyArray<CategoryDefinition> | undefined
  /** Names the operator marks high risk (config): always high risk. */
  readonly highRisk?: Iterable<string> | undefined
  /** Cap of a sanitized description, in UTF-16 code units (default 1,024). */
  readonly maxDescriptionLength?: number | undefined
}

/** Options of `searchCatalog`. */
export interface SearchOptions {
  /** Search only under this node (default: the whole tree). */
  readonly under?: CatalogNode | undefined
  /** At most this many tools in `tools` (default: all). */
  readonly limit?: number | undefined
}

/** Ranked search hits and how many matched in all. */
export interface SearchResult {
  readonly tools: ReadonlyArray<ToolEntry>
  readonly total: number
}

const MCP_PREFIX = "mcp__"
const SEPARATOR = "__"

/** The server part of an `mcp__server__tool` name, or undefined for any other name. */
export const structuralGroup = (name: string): string | undefined => {
  if (!name.startsWith(MCP_PREFIX)) return undefined
  const end = name.indexOf(SEPARATOR, MCP_PREFIX.length)
  if (end <= MCP_PREFIX.length || end + SEPARATOR.length >= name.length) return undefined
  return name.slice(MCP_PREFIX.length, end)
}

/** A tool's name without its `mcp__server__` prefix (other names are returned as they are). */
export const shortName = (name: string): string => {
  const server = structuralGroup(name)
  return server === undefined ? name : name.slice(MCP_PREFIX.length + server.length + SEPARATOR.length)
}

/** Longest summary, in UTF-16 code units, including the final "…" of a cut one. */
export const SUMMARY_MAX_LENGTH = 120

const ABBREVIATION = /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|ex|\S)\.$/i
const UNUSUAL_SPACE = /\s{2}|[^\S ]/

/**
 * One line from a description: its first non-empty line, cut after the first sentence
 * (a `.`, `!` or `?` followed by a space; not after "e.g.", "etc.", a lone letter and the
 * like), whitespace collapsed, and at most `SUMMARY_MAX_LENGTH` long (cut at a word, "…").
 */
export const summary = (description: string): string => {
  let line = ""
  for (let start = 0; start < description.length;) {
    let end = description.indexOf("\n", start)
    if (end < 0) end = description.length
    const candidate = description.slice(start, end).trim()
    if (candidate.length > 0) {
      line = candidate
      break
    }
    start = end + 1
  }
  if (UNUSUAL_SPACE.test(line)) line = line.replace(/\s+/g, " ")
  let text = line
  for (let i = 0; i < line.length - 1; i++) {
    const c = line.charCodeAt(i)
    if ((c !== 46 && c !== 33 && c !== 63) || line.charCodeAt(i + 1) !== 32) continue
    const head = line.slice(0, i + 1)
    if (c === 46 && ABBREVIATION.test(head)) continue
    text = head
    break
  }
  if (text.length <= SUMMARY_MAX_LENGTH) return text
  const cut = text.slice(0, SUMMARY_MAX_LENGTH - 1)
  // Cut at the last whole word, unless the cut already ends one.
  const space = text.charCodeAt(cut.length) === 32 ? cut.length : cut.lastIndexOf(" ")
  return `${(space > SUMMARY_MAX_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

interface Draft {
  readonly schema: ToolSchema
  readonly shortName: string
  readonly meta: ToolMeta
  readonly highRiskLayer: AnnotationLayer | undefined
  readonly explicitCategory: string | undefined
  readonly group: string
  category: string
  segment: string
}

/** Search keys precomputed at build, by position in `catalog.tools`. */
interface SearchIndex {
  readonly position: ReadonlyMap<ToolEntry, number>
  readonly name: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
  /** `group\ncategory` */
  readonly place: ReadonlyArray<string>
  /** `name\u0001group\ncategory\u0001description`: one scan rules a tool out. */
  readonly all: ReadonlyArray<string>
}

const searchIndexes = new WeakMap<Catalog, SearchIndex>()

/**
 * The identity of a tool set: SHA-256 of the sorted definition hashes of the tools, deduplicated
 * by name (the first of a name wins, as in the build). Equal to `catalog.toolSetKey`.
 */
export const toolSetKey = (tools: ReadonlyArray<ToolSchema>): string => {
  const seen = new Set<string>()
  const hashes: Array<string> = []
  for (const tool of tools) {
    if (tool.name.length === 0 || seen.has(tool.name)) continue
    seen.add(tool.name)
    hashes.push(definitionFacts(tool).hash)
  }
  return sha256(hashes.sort().join("\n"))
}

/** Builds the catalog tree from tool schemas (see the module comment for the rules). */
export const buildCatalog = (tools: ReadonlyArray<ToolSchema>, options: BuildOptions = {}): Catalog => {
  const diagnostics: Array<CatalogDiagnostic> = []
  const annotationIndex = indexAnnotations(options.annotations)
  const classifiers = orderClassifiers(options.classifiers ?? [])
  const listedHighRisk = new Set(options.highRisk ?? [])
  const maxDescription = options.maxDescriptionLength ?? MAX_DESCRIPTION_LENGTH

  // Category definitions: later ones replace earlier ones of the same name.
  const definitions = new Map<string, CategoryDefinition>()
  for (const definition of [...DEFAULT_CATEGORIES, ...(options.categories ?? [])]) {
    const name = segmentName(definition.name)
    if (name === undefined) continue
    definitions.delete(name)
    definitions.set(name, { ...definition, name })
  }
  const claims = new Map<string, string>()
  for (const definition of definitions.values()) {
    if (definition.tools !== undefined) continue
    for (const raw of definition.groups ?? []) {
      const group = segmentName(raw)
      if (group !== undefined && !claims.has(group)) claims.set(group, definition.name)
    }
  }

  // Pass 1: placement.
  const seen = new Set<string>()
  const drafts: Array<Draft> = []
  const failedClassifiers = new Set<string>()
  for (const schema of tools) {
    if (schema.name.length === 0) {
      diagnostics.push({ kind: "empty-name", name: "", detail: "a tool without a name was left out" })
      continue
    }
    if (seen.has(schema.name)) {
      diagnostics.push({
        kind: "duplicate-name",
        name: schema.name,
        detail: "two tools have this name; the first one given was kept"
      })
      continue
    }
    seen.add(schema.name)
    const merged = metaFor(annotationIndex, schema.name)
    const classification = classifiers.length === 0 ? undefined : classifyTool(classifiers, schema)
    for (const failure of classification?.failed ?? []) {
      if (failedClassifiers.has(failure.id)) continue
      failedClassifiers.add(failure.id)
      diagnostics.push({
        kind: "classifier-failed",
        name: failure.id,
        detail: `classifier threw on ${schema.name}: ${failure.error}; its answers were skipped`
      })
    }
    const group = segmentName(merged.meta.group) ?? classification?.group?.value ??
      segmentName(structuralGroup(schema.name)) ?? MISC_GROUP
    const explicitCategory = segmentName(merged.meta.category) ?? classification?.category?.value
    const short = shortName(schema.name)
    drafts.push({
      schema,
      shortName: short,
      meta: merged.meta,
      highRiskLayer: merged.origin.highRisk,
      explicitCategory,
      group,
      category: UNCATEGORIZED,
      segment: short
    })
  }

  // A group's default category: its claim, else the most common explicit category of its tools.
  const votes = new Map<string, Map<string, number>>()
  for (const draft of drafts) {
    if (draft.explicitCategory === undefined || draft.group === MISC_GROUP) continue
    let tally = votes.get(draft.group)
    if (tally === undefined) votes.set(draft.group, tally = new Map())
    tally.set(draft.explicitCategory, (tally.get(draft.explicitCategory) ?? 0) + 1)
  }
  const groupCategory = (group: string): string => {
    const claimed = claims.get(group)
    if (claimed !== undefined) return claimed
    const tally = votes.get(group)
    if (tally === undefined) return UNCATEGORIZED
    let best = UNCATEGORIZED
    let bestCount = 0
    for (const [category, count] of tally) {
      if (count > bestCount || (count === bestCount && compare(category, best) < 0)) {
        best = category
        bestCount = count
      }
    }
    return best
  }

  // Group the drafts: category → group → drafts.
  const tree = new Map<string, Map<string, Array<Draft>>>()
  for (const draft of drafts) {
    draft.category = draft.explicitCategory ?? groupCategory(draft.group)
    let groups = tree.get(draft.category)
    if (groups === undefined) tree.set(draft.category, groups = new Map())
    let members = groups.get(draft.group)
    if (members === undefined) groups.set(draft.group, members = [])
    members.push(draft)
  }

  // Category order: defined (non-alias) ones as defined, then the rest by name, uncategorized last.
  const categoryOrder: Array<string> = []
  for (const definition of definitions.values()) {
    if (definition.tools === undefined && definition.name !== UNCATEGORIZED && tree.has(definition.name)) {
      categoryOrder.push(definition.name)
    }
  }
  const undefinedCategories = [...tree.keys()].filter((name) =>
    name !== UNCATEGORIZED && (definitions.get(name) === undefined || definitions.get(name)?.tools !== undefined)
  ).sort(compare)
  categoryOrder.push(...undefinedCategories, UNCATEGORIZED)

  // Pass 2: entries, in tree order.
  const entries: Array<ToolEntry> = []
  const hashes: Array<string> = []
  const categories = new Map<string, CategoryNode>()
  const byPath = new Map<string, CatalogNode>()
  const groupsByName = new Map<string, Array<GroupNode>>()
  let totalTokens = 0
  let totalTools = 0
  for (const categoryName of categoryOrder) {
    const groups = tree.get(categoryName) ?? new Map<string, Array<Draft>>()
    const categoryPath = `/${categoryName}`
    const groupNodes: Array<GroupNode> = []
    let categoryTokens = 0
    let categoryTools = 0
    for (const groupName of [...groups.keys()].sort(compare)) {
      const members = groups.get(groupName)!
      assignSegments(members)
      members.sort((a, b) => compare(a.segment, b.segment))
      const groupPath = `${categoryPath}/${groupName}`
      const children: Array<ToolEntry> = []
      let groupTokens = 0
      for (const draft of members) {
        const entry = makeEntry(draft, categoryName, `${groupPath}/${draft.segment}`, listedHighRisk, maxDescription)
        children.push(entry)
        entries.push(entry)
        hashes.push(entry.definitionHash)
        byPath.set(entry.path, entry)
        groupTokens += entry.tokens
      }
      const groupNode: GroupNode = {
        kind: "group",
        name: groupName,
        category: categoryName,
        path: groupPath,
        children,
        toolCount: children.length,
        tokens: groupTokens
      }
      groupNodes.push(groupNode)
      byPath.set(groupPath, groupNode)
      const sameName = groupsByName.get(groupName)
      if (sameName === undefined) groupsByName.set(groupName, [groupNode])
      else sameName.push(groupNode)
      categoryTokens += groupTokens
      categoryTools += children.length
    }
    const categoryNode: CategoryNode = {
      kind: "category",
      name: categoryName,
      description: definitions.get(categoryName)?.description ?? "",
      path: categoryPath,
      children: groupNodes,
      toolCount: categoryTools,
      tokens: categoryTokens
    }
    categories.set(categoryName, categoryNode)
    byPath.set(categoryPath, categoryNode)
    totalTokens += categoryTokens
    totalTools += categoryTools
  }
  const root: RootNode = {
    kind: "root",
    name: "",
    path: "/",
    children: [...categories.values()],
    toolCount: totalTools,
    tokens: totalTokens
  }
  byPath.set("/", root)

  const byName = new Map<string, ToolEntry>()
  for (const entry of entries) byName.set(entry.name, entry)

  // Alias categories: views over exact tools, never homes.
  const aliases = new Map<string, AliasNode>()
  for (const definition of definitions.values()) {
    if (definition.tools === undefined) continue
    const children: Array<ToolEntry> = []
    const missing: Array<string> = []
    for (const name of definition.tools) {
      const entry = byName.get(name)
      if (entry === undefined) missing.push(name)
      else if (!children.includes(entry)) children.push(entry)
    }
    const alias: AliasNode = {
      kind: "alias",
      name: definition.name,
      description: definition.description,
      path: `/${definition.name}`,
      children,
      missing,
      toolCount: children.length,
      tokens: children.reduce((sum, tool) => sum + tool.tokens, 0)
    }
    aliases.set(definition.name, alias)
    if (byPath.has(alias.path)) {
      diagnostics.push({
        kind: "alias-name-taken",
        name: definition.name,
        detail: `a home category has this name, so ${alias.path} lists the category; the alias is in catalog.aliases`
      })
    } else {
      byPath.set(alias.path, alias)
    }
  }

  const catalog: Catalog = {
    root,
    byName,
    byPath,
    categories,
    aliases,
    groups: groupsByName,
    tools: entries,
    totalTokens,
    toolSetKey: sha256(hashes.sort().join("\n")),
    diagnostics
  }
  searchIndexes.set(catalog, makeSearchIndex(entries))
  return catalog
}

/**
 * Path segments inside one group: the short name, or the full name for every tool whose
 * short name another tool of the group shares (so no segment depends on input order). A
 * `/` in a name is written `%2F`; a residual clash gets `~2`, `~3`, ….
 */
const assignSegments = (members: Array<Draft>): void => {
  const counts = new Map<string, number>()
  for (const draft of members) counts.set(draft.shortName, (counts.get(draft.shortName) ?? 0) + 1)
  const escape = (s: string) => s.replaceAll("/", "%2F")
  for (const draft of members) {
    draft.segment = escape(counts.get(draft.shortName)! > 1 ? draft.schema.name : draft.shortName)
  }
  const taken = new Set<string>()
  for (const draft of [...members].sort((a, b) => compare(a.schema.name, b.schema.name))) {
    let segment = draft.segment
    for (let n = 2; taken.has(segment); n++) segment = `${draft.segment}~${n}`
    draft.segment = segment
    taken.add(segment)
  }
}

const makeEntry = (
  draft: Draft,
  category: string,
  path: string,
  listedHighRisk: ReadonlySet<string>,
  maxDescription: number
): ToolEntry => {
  const { schema } = draft
  const description = schema.description ?? ""
  const sanitized = sanitizeDescription(description, maxDescription)
  const definition = definitionFacts(schema)
  const risk = assessRisk({
    shortName: draft.shortName,
    listed: listedHighRisk.has(schema.name),
    annotated: draft.meta.highRisk === undefined || draft.highRiskLayer === undefined
      ? undefined
      : { value: draft.meta.highRisk, layer: draft.highRiskLayer },
    hints: schema.annotations
  })
  const declaredSummary = draft.meta.summary === undefined
    ? undefined
    : summary(sanitizeDescription(draft.meta.summary, maxDescription).text)
  return {
    kind: "tool",
    name: schema.name,
    shortName: draft.shortName,
    path,
    category,
    group: draft.group,
    summary: declaredSummary !== undefined && declaredSummary.length > 0 ? declaredSummary : summary(sanitized.text),
    description: sanitized.text,
    highRisk: risk.highRisk,
    riskEvidence: risk.evidence,
    tokens: definition.tokens,
    definitionHash: definition.hash,
    flags: sanitized.flags,
    meta: draft.meta,
    toolCount: 1
  }
}

const makeSearchIndex = (entries: ReadonlyArray<ToolEntry>): SearchIndex => {
  const position = new Map<ToolEntry, number>()
  const name: Array<string> = []
  const short: Array<string> = []
  const place: Array<string> = []
  const all: Array<string> = []
  entries.forEach((entry, i) => {
    position.set(entry, i)
    const lowerName = entry.name.toLowerCase()
    const lowerPlace = `${entry.group}\n${entry.category}`.toLowerCase()
    name.push(lowerName)
    short.push(entry.shortName.toLowerCase())
    place.push(lowerPlace)
    all.push(`${lowerName}\u0001${lowerPlace}\u0001${entry.description.toLowerCase()}`)
  })
  return { position, name, short, place, all }
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

const unionInTreeOrder = (catalog: Catalog, lists: ReadonlyArray<ReadonlyArray<ToolEntry>>): ReadonlyArray<ToolEntry> => {
  if (lists.length === 1) return lists[0]!
  const index = searchIndexes.get(catalog)
  const set = new Set<ToolEntry>()
  for (const list of lists) for (const tool of list) set.add(tool)
  const all = [...set]
  if (index !== undefined) all.sort((a, b) => index.position.get(a)! - index.position.get(b)!)
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

/** Points a query word earns where it is found; a tool must match every word somewhere. */
export const SEARCH_SCORES = {
  exactName: 100,
  namePrefix: 70,
  nameWord: 60,
  nameSubstring: 50,
  groupOrCategory: 30,
  description: 10
} as const

const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127

const wordScore = (index: SearchIndex, i: number, word: string): number => {
  if (!index.all[i]!.includes(word)) return 0
  const short = index.short[i]!
  const name = index.name[i]!
  if (short === word || name === word) return SEARCH_SCORES.exactName
  if (short.startsWith(word) || name.startsWith(word)) return SEARCH_SCORES.namePrefix
  let at = name.indexOf(word)
  if (at >= 0) {
    for (; at >= 0; at = name.indexOf(word, at + 1)) {
      if (!isAlnum(name.charCodeAt(at - 1))) return SEARCH_SCORES.nameWord
    }
    return SEARCH_SCORES.nameSubstring
  }
  if (index.place[i]!.includes(word)) return SEARCH_SCORES.groupOrCategory
  // Found in `all` but not in the name or the place: in the description.
  return SEARCH_SCORES.description
}

/**
 * Tools matching every word of `query` (case-insensitive substrings of the name, group,
 * category or description), ranked: each word scores where it is found best
 * (`SEARCH_SCORES`: exact name, name prefix, a word of the name, inside the name, group or
 * category, description) and a tool's score is the sum; equal scores keep tree order. So
 * for one word, every name match ranks above every description match.
 */
export const searchCatalog = (catalog: Catalog, query: string, options: SearchOptions = {}): SearchResult => {
  // Separators of the search keys cannot be part of a word.
  const words = query.toLowerCase().replace(/[\u0001]/g, "").split(/\s+/).filter((word) => word.length > 0)
  const index = searchIndexes.get(catalog) ?? makeSearchIndex(catalog.tools)
  if (words.length === 0) return { tools: [], total: 0 }
  const positions = candidatePositions(catalog, index, options.under)
  // Scores are small integers: bucket by score, which keeps tree order inside a bucket.
  const buckets = new Map<number, Array<number>>()
  let total = 0
  const scan = (i: number) => {
    let score = 0
    for (const word of words) {
      const s = wordScore(index, i, word)
      if (s === 0) return
      score += s
    }
    total += 1
    const bucket = buckets.get(score)
    if (bucket === undefined) buckets.set(score, [i])
    else bucket.push(i)
  }
  if (positions === undefined) for (let i = 0; i < catalog.tools.length; i++) scan(i)
  else for (const i of positions) scan(i)
  const limit = options.limit ?? total
  const out: Array<ToolEntry> = []
  for (const score of [...buckets.keys()].sort((a, b) => b - a)) {
    for (const i of buckets.get(score)!) {
      if (out.length >= limit) break
      out.push(catalog.tools[i]!)
    }
    if (out.length >= limit) break
  }
  return { tools: out, total }
}

/** Positions in tree order of the tools under `under`; undefined for the whole catalog. */
const candidatePositions = (
  catalog: Catalog,
  index: SearchIndex,
  under: CatalogNode | undefined
): ReadonlyArray<number> | undefined => {
  if (under === undefined || under.kind === "root") return undefined
  const tools = toolsUnder(under)
  const positions: Array<number> = []
  for (const tool of tools) {
    const at = index.position.get(tool)
    if (at !== undefined && catalog.tools[at] === tool) positions.push(at)
  }
  return under.kind === "alias" ? positions.sort((a, b) => a - b) : positions
}
