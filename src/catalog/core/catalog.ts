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
import { type DefinitionFacts, definitionFacts, sha256 } from "./definitions.js"
import { classifyTool, indexAnnotations, metaFor, orderClassifiers, segmentName } from "./classify.js"
import type {
  AliasNode,
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
import { assessRisk, type RiskAssessment } from "./risk.js"
import { MAX_DESCRIPTION_LENGTH, type Sanitized, sanitizeDescription } from "./sanitize.js"

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
export const shortName = (name: string): string => shortNameAfter(name, structuralGroup(name))

/** {@link shortName} when the name's structural group (its MCP server) is already known. */
const shortNameAfter = (name: string, server: string | undefined): string =>
  server === undefined ? name : name.slice(MCP_PREFIX.length + server.length + SEPARATOR.length)

/** Longest summary, in UTF-16 code units, including the final "…" of a cut one. */
export const SUMMARY_MAX_LENGTH = 120

// How much of a long first line `summary` looks at (when whitespace runs leave enough of it).
const SUMMARY_WINDOW = 160

const ABBREVIATION = /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|ex|\S)\.$/i
// ABBREVIATION only looks at the end of a sentence: a space, at most 6 characters and the
// dot. Tested on the last 9 characters, `^` can only match where the text really starts
// (no alternative is 8 characters long), so the answer is the same as on the whole head.
const ABBREVIATION_TAIL = 9
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
  if (line.length > SUMMARY_WINDOW) {
    // Only the first SUMMARY_MAX_LENGTH + 1 characters of the collapsed line decide the
    // summary (see below), and collapsing whitespace runs works left to right, so a collapsed
    // prefix of the line is a prefix of the collapsed line: when it is long enough, it will do.
    let window = line.slice(0, SUMMARY_WINDOW)
    if (hasUnusualSpace(window)) window = window.replace(/\s+/g, " ")
    if (window.length > SUMMARY_MAX_LENGTH + 1) line = window
    else if (hasUnusualSpace(line)) line = line.replace(/\s+/g, " ")
  } else if (hasUnusualSpace(line)) {
    line = line.replace(/\s+/g, " ")
  }
  // The first sentence end at i < SUMMARY_MAX_LENGTH gives a short enough summary; any later
  // one, or none, gives a text cut at SUMMARY_MAX_LENGTH - 1 characters.
  let text = line
  const end = sentenceEnd(line)
  if (end >= 0) text = line.slice(0, end + 1)
  if (text.length <= SUMMARY_MAX_LENGTH) return text
  const cut = text.slice(0, SUMMARY_MAX_LENGTH - 1)
  // Cut at the last whole word, unless the cut already ends one.
  const space = text.charCodeAt(cut.length) === 32 ? cut.length : cut.lastIndexOf(" ")
  return `${(space > SUMMARY_MAX_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/** UNUSUAL_SPACE.test(line), quicker on printable ASCII, where only "  " can match. */
const hasUnusualSpace = (line: string): boolean =>
  NOT_PRINTABLE_ASCII.test(line) ? UNUSUAL_SPACE.test(line) : line.includes("  ")

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/

/**
 * The first `i` where `line` has ".", "!" or "?" followed by a space, not counting a "."
 * that ends an abbreviation (ABBREVIATION); -1 when there is none.
 */
const sentenceEnd = (line: string): number => {
  let dot = line.indexOf(". ")
  while (dot >= 0 && ABBREVIATION.test(line.slice(Math.max(0, dot + 1 - ABBREVIATION_TAIL), dot + 1))) {
    dot = line.indexOf(". ", dot + 1)
  }
  let end = dot
  for (const mark of ["! ", "? "]) {
    const at = line.indexOf(mark)
    if (at >= 0 && (end < 0 || at < end)) end = at
  }
  return end
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

interface Draft {
  readonly schema: ToolSchema
  readonly facts: DefinitionFacts
  readonly sanitized: Sanitized
  readonly summary: string
  readonly risk: RiskAssessment
  readonly shortName: string
  readonly meta: ToolMeta
  readonly explicitCategory: string | undefined
  readonly group: string
  category: string
  segment: string
}

/**
 * Search keys, built on the first search of a catalog and kept with it. Tool `i` (its
 * position in `catalog.tools`) owns the text `name\u0001group\ncategory\u0001description\u0001`,
 * lowercase, in chunk `i >> CHUNK_BITS` of `all`: a query word never holds `\u0001` or
 * whitespace, so it is found in that text exactly when it is found in one of the tool's
 * fields, and one `indexOf` over a chunk passes over every tool without a match at native
 * speed. `named` holds only `name\u0001group\ncategory\u0001`, to tell the tools whose name or
 * place holds a word (they rank above the rest) without looking at every hit.
 */
interface SearchIndex {
  readonly name: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
  /** `group\ncategory` */
  readonly place: ReadonlyArray<string>
  readonly all: ChunkedText
  readonly named: ChunkedText
  /** How often each ASCII character occurs in a sample of `all`. */
  readonly frequency: Uint32Array
}

/** One lowercase text per tool, concatenated by chunks of CHUNK_SIZE tools. */
interface ChunkedText {
  readonly chunks: ReadonlyArray<SearchChunk>
  /** Average text length of a tool, to choose between scanning chunks and testing tools. */
  readonly averageLength: number
}

interface SearchChunk {
  readonly text: string
  /** Where each tool's text starts in `text`, and `text.length` last. */
  readonly starts: Int32Array
}

// Chunks of 256 tools: few `indexOf` calls, and a tool with a character beyond Latin-1 makes
// only its own chunk a two-byte string.
const CHUNK_BITS = 8
const CHUNK_SIZE = 1 << CHUNK_BITS

const searchIndexes = new WeakMap<Catalog, SearchIndex>()
/** Catalogs `buildCatalog` made (their tools are in tree order). */
const builtCatalogs = new WeakSet<Catalog>()
const positionIndexes = new WeakMap<Catalog, ReadonlyMap<ToolEntry, number>>()

/** Each tool's position in `catalog.tools`, computed once per catalog. */
const positionsOf = (catalog: Catalog): ReadonlyMap<ToolEntry, number> => {
  let positions = positionIndexes.get(catalog)
  if (positions === undefined) {
    const map = new Map<ToolEntry, number>()
    for (let i = 0; i < catalog.tools.length; i++) map.set(catalog.tools[i]!, i)
    positionIndexes.set(catalog, positions = map)
  }
  return positions
}

const searchIndexOf = (catalog: Catalog): SearchIndex => {
  let index = searchIndexes.get(catalog)
  if (index === undefined) searchIndexes.set(catalog, index = makeSearchIndex(catalog.tools))
  return index
}

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
  return keyOfHashes(hashes)
}

/**
 * SHA-256 of definition hashes sorted (by code unit) and joined by newlines: the tool-set key
 * of tools with these hashes (exported for tests). Sorting tens of thousands of strings
 * costs more than everything else here, so lowercase hex hashes are sorted as numbers: each
 * hash's leading hex digits and its index packed into one double (53 bits), sorted
 * natively; hashes that share those digits are then ordered as strings. It may reorder
 * `hashes`.
 */
export const keyOfHashes = (hashes: Array<string>): string => {
  const n = hashes.length
  const indexBits = Math.max(1, Math.ceil(Math.log2(n + 1)))
  const digits = Math.floor((53 - indexBits) / 4)
  if (n < 64 || digits < 4) return sha256(hashes.sort().join("\n"))
  const scale = 2 ** indexBits
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const hash = hashes[i]!
    let prefix = 0
    for (let d = 0; d < digits; d++) {
      const c = hash.charCodeAt(d)
      const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
      // Not a lowercase hex hash (never from `definitionFacts`): sort as strings.
      if (digit < 0) return sha256(hashes.sort().join("\n"))
      prefix = prefix * 16 + digit
    }
    keys[i] = prefix * scale + i
  }
  keys.sort()
  const sorted: Array<string> = new Array(n)
  for (let i = 0; i < n;) {
    const prefix = Math.floor(keys[i]! / scale)
    let end = i + 1
    while (end < n && Math.floor(keys[end]! / scale) === prefix) end += 1
    if (end - i === 1) {
      sorted[i] = hashes[keys[i]! % scale]!
    } else {
      const run: Array<string> = []
      for (let k = i; k < end; k++) run.push(hashes[keys[k]! % scale]!)
      run.sort()
      for (let k = 0; k < run.length; k++) sorted[i + k] = run[k]!
    }
    i = end
  }
  return sha256(sorted.join("\n"))
}

/**
 * Builds the catalog tree from tool schemas (see the module comment for the rules).
 * `knownToolSetKey` is `toolSetKey(tools)` when the caller computed it already (the `Catalog`
 * service keys its cache by it): its sort is the costliest step of a large build.
 */
export const buildCatalog = (
  tools: ReadonlyArray<ToolSchema>,
  options: BuildOptions = {},
  knownToolSetKey?: string
): Catalog => {
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
    const server = structuralGroup(schema.name)
    const group = segmentName(merged.meta.group) ?? classification?.group?.value ?? segmentName(server) ??
      MISC_GROUP
    const explicitCategory = segmentName(merged.meta.category) ?? classification?.category?.value
    const short = shortNameAfter(schema.name, server)
    // Everything a tool's entry derives from its schema alone is computed here, in input
    // order (the order the schemas sit in memory), not later in tree order.
    const sanitized = sanitizeDescription(schema.description ?? "", maxDescription)
    const { meta } = merged
    const highRiskLayer = merged.origin.highRisk
    const declaredSummary = meta.summary === undefined
      ? undefined
      : summary(sanitizeDescription(meta.summary, maxDescription).text)
    drafts.push({
      schema,
      facts: definitionFacts(schema),
      sanitized,
      summary: declaredSummary !== undefined && declaredSummary.length > 0 ? declaredSummary : summary(sanitized.text),
      risk: assessRisk({
        shortName: short,
        listed: listedHighRisk.has(schema.name),
        annotated: meta.highRisk === undefined || highRiskLayer === undefined
          ? undefined
          : { value: meta.highRisk, layer: highRiskLayer },
        hints: schema.annotations
      }),
      shortName: short,
      meta,
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
      const groupPath = `${categoryPath}/${groupName}`
      const children: Array<ToolEntry> = []
      let groupTokens = 0
      for (const draft of members) {
        const entry = makeEntry(draft, categoryName, `${groupPath}/${draft.segment}`)
        children.push(entry)
        entries.push(entry)
        if (knownToolSetKey === undefined) hashes.push(entry.definitionHash)
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
    toolSetKey: knownToolSetKey ?? keyOfHashes(hashes),
    diagnostics
  }
  builtCatalogs.add(catalog)
  return catalog
}

/**
 * Path segments inside one group: the short name, or the full name for every tool whose
 * short name another tool of the group shares (so no segment depends on input order). A
 * `/` in a name is written `%2F`; a residual clash gets `~2`, `~3`, ….
 */
const assignSegments = (members: Array<Draft>): void => {
  // The usual group: distinct short names without a "/", so each segment is its short name
  // (as drafts start) and sorting by short name sorts by segment.
  sortByShortName(members)
  let plain = true
  for (let i = 0; i < members.length && plain; i++) {
    const short = members[i]!.shortName
    plain = short.indexOf("/") < 0 && (i === 0 || members[i - 1]!.shortName !== short)
  }
  if (plain) return
  assignClashingSegments(members)
  members.sort((a, b) => compare(a.segment, b.segment))
}

/** Sorts drafts by short name, stably: by insertion for a small group (most of them). */
const sortByShortName = (members: Array<Draft>): void => {
  if (members.length > 32) {
    members.sort((a, b) => compare(a.shortName, b.shortName))
    return
  }
  for (let i = 1; i < members.length; i++) {
    const draft = members[i]!
    let j = i - 1
    while (j >= 0 && members[j]!.shortName > draft.shortName) {
      members[j + 1] = members[j]!
      j -= 1
    }
    members[j + 1] = draft
  }
}

const assignClashingSegments = (members: Array<Draft>): void => {
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

const makeEntry = (draft: Draft, category: string, path: string): ToolEntry => ({
  kind: "tool",
  name: draft.schema.name,
  shortName: draft.shortName,
  path,
  category,
  group: draft.group,
  summary: draft.summary,
  description: draft.sanitized.text,
  highRisk: draft.risk.highRisk,
  riskEvidence: draft.risk.evidence,
  tokens: draft.facts.tokens,
  definitionHash: draft.facts.hash,
  flags: draft.sanitized.flags,
  meta: draft.meta,
  toolCount: 1
})

const makeSearchIndex = (entries: ReadonlyArray<ToolEntry>): SearchIndex => {
  const n = entries.length
  const name: Array<string> = new Array(n)
  const short: Array<string> = new Array(n)
  const place: Array<string> = new Array(n)
  // group → category → `group\ncategory` lowercase: one string per group node.
  const places = new Map<string, Map<string, string>>()
  for (let i = 0; i < n; i++) {
    const entry = entries[i]!
    let byCategory = places.get(entry.group)
    if (byCategory === undefined) places.set(entry.group, byCategory = new Map())
    let lowerPlace = byCategory.get(entry.category)
    if (lowerPlace === undefined) byCategory.set(entry.category, lowerPlace = `${entry.group}\n${entry.category}`.toLowerCase())
    name[i] = entry.name.toLowerCase()
    short[i] = entry.shortName.toLowerCase()
    place[i] = lowerPlace
  }
  const all = chunkedText(
    n,
    (i, parts) => {
      const entry = entries[i]!
      parts.push(entry.name, "\u0001", entry.group, "\n", entry.category, "\u0001", entry.description, "\u0001")
      return entry.name.length + entry.group.length + entry.category.length + entry.description.length + 4
    },
    (i) => `${name[i]}\u0001${place[i]}\u0001${entries[i]!.description.toLowerCase()}\u0001`
  )
  const named = chunkedText(
    n,
    (i, parts) => {
      parts.push(name[i]!, "\u0001", place[i]!, "\u0001")
      return name[i]!.length + place[i]!.length + 2
    },
    (i) => `${name[i]}\u0001${place[i]}\u0001`
  )
  // Character frequencies from the start of up to FREQUENCY_SAMPLES chunks spread over the
  // catalog.
  const frequency = new Uint32Array(128)
  const step = Math.max(1, Math.floor(all.chunks.length / FREQUENCY_SAMPLES))
  for (let c = 0; c < all.chunks.length; c += step) {
    const { text } = all.chunks[c]!
    const sample = Math.min(text.length, FREQUENCY_SAMPLE_LENGTH)
    for (let i = 0; i < sample; i++) {
      const code = text.charCodeAt(i)
      if (code < 128) frequency[code]! += 1
    }
  }
  return { name, short, place, all, named, frequency }
}

/**
 * Lowercase texts of `n` tools by chunks: `raw` appends tool `i`'s text as pieces and returns
 * its length, and a chunk is joined and lowercased at once. Lowercasing the whole gives each
 * tool's text the same result as lowercasing it alone (a final sigma only looks across
 * letters and case-ignorable characters, and every text ends with a control character); it
 * can only lengthen text (U+0130 becomes two units), and then `lower` gives each tool's
 * lowercase text, one by one.
 */
const chunkedText = (
  n: number,
  raw: (i: number, parts: Array<string>) => number,
  lower: (i: number) => string
): ChunkedText => {
  const chunks: Array<SearchChunk> = []
  let totalLength = 0
  for (let first = 0; first < n; first += CHUNK_SIZE) {
    const end = Math.min(n, first + CHUNK_SIZE)
    const parts: Array<string> = []
    const starts = new Int32Array(end - first + 1)
    let length = 0
    for (let i = first; i < end; i++) {
      starts[i - first] = length
      length += raw(i, parts)
    }
    starts[end - first] = length
    let text = parts.join("").toLowerCase()
    if (text.length !== length) {
      parts.length = 0
      length = 0
      for (let i = first; i < end; i++) {
        starts[i - first] = length
        const own = lower(i)
        parts.push(own)
        length += own.length
      }
      starts[end - first] = length
      text = parts.join("")
    }
    totalLength += length
    chunks.push({ text, starts })
  }
  return { chunks, averageLength: n === 0 ? 0 : totalLength / n }
}

const FREQUENCY_SAMPLES = 4
const FREQUENCY_SAMPLE_LENGTH = 16_384

/**
 * Where in `word` its rarest character sits (the first of equally rare ones; a character
 * beyond ASCII counts as rarest). `indexOf` looks for a pattern's first character and then
 * compares the rest, so searching from the rarest character stops at far fewer places.
 */
const anchorOf = (index: SearchIndex, word: string): number => {
  let best = 0
  let bestCount = Infinity
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i)
    const count = code < 128 ? index.frequency[code]! : 0
    if (count < bestCount) {
      best = i
      bestCount = count
    }
  }
  return best
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
  const set = new Set<ToolEntry>()
  for (const list of lists) for (const tool of list) set.add(tool)
  const all = [...set]
  if (builtCatalogs.has(catalog)) {
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

/** The score of a word found somewhere in tool `i`'s search text. */
const wordScore = (index: SearchIndex, i: number, word: string): number => {
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
  // Found in the search text but not in the name or the place: in the description.
  return SEARCH_SCORES.description
}

/**
 * The positions, ascending, of the tools whose text in `texts` holds `word`: of all tools when
 * `among` is undefined, else of those in `among` (ascending). Few candidates are tested one
 * by one; otherwise each chunk is scanned with `indexOf`, resuming at the next candidate.
 */
const toolsWith = (
  index: SearchIndex,
  texts: ChunkedText,
  word: string,
  among: ReadonlyArray<number> | undefined
): Array<number> => {
  const out: Array<number> = []
  const { chunks, averageLength } = texts
  if (among !== undefined && among.length * (averageLength + 64) < chunks.length * CHUNK_SIZE * averageLength / 4) {
    for (const i of among) {
      const chunk = chunks[i >> CHUNK_BITS]!
      const local = i & (CHUNK_SIZE - 1)
      if (chunk.text.slice(chunk.starts[local]!, chunk.starts[local + 1]!).includes(word)) out.push(i)
    }
    return out
  }
  // Search from the rarest character of the word: `anchor` at `a` is the word at `a - shift`
  // when the text there starts with the word.
  const shift = anchorOf(index, word)
  const anchor = shift === 0 ? word : word.slice(shift)
  let next = 0
  for (let c = 0; c < chunks.length; c++) {
    const { text, starts } = chunks[c]!
    const first = c << CHUNK_BITS
    const count = starts.length - 1
    let local: number
    if (among === undefined) {
      local = 0
    } else {
      while (next < among.length && among[next]! < first) next += 1
      if (next === among.length) break
      local = among[next]! - first
      if (local >= count) continue
    }
    let at = findIn(text, word, anchor, shift, starts[local]!)
    while (at >= 0) {
      while (starts[local + 1]! <= at) local += 1
      if (among === undefined) {
        out.push(first + local)
        local += 1
      } else {
        // Skip the candidates before the tool the word was found in.
        while (next < among.length && among[next]! < first + local) next += 1
        if (next === among.length) break
        if (among[next] === first + local) {
          out.push(first + local)
          next += 1
          if (next === among.length) break
        }
        local = among[next]! - first
      }
      if (local >= count) break
      at = findIn(text, word, anchor, shift, starts[local]!)
    }
  }
  return out
}

/** The first place at or after `from` where `text` holds `word` (found by its `anchor`), or -1. */
const findIn = (text: string, word: string, anchor: string, shift: number, from: number): number => {
  if (shift === 0) return text.indexOf(word, from)
  for (let at = text.indexOf(anchor, from + shift); at >= 0; at = text.indexOf(anchor, at + 1)) {
    if (text.startsWith(word, at - shift)) return at - shift
  }
  return -1
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
  if (words.length === 0) return { tools: [], total: 0 }
  const index = searchIndexOf(catalog)
  // The tools that hold every word, narrowed word by word (the rarest first: the others are
  // then looked for in fewer tools), in tree order.
  let matches = candidatePositions(catalog, options.under)
  for (const word of words.length === 1 ? words : byRarity(index, words)) {
    matches = toolsWith(index, index.all, word, matches)
    if (matches.length === 0) break
  }
  const total = matches!.length
  if (total === 0) return { tools: [], total: 0 }
  // A tool whose name or place holds no word scores 10 per word, the least there is, and
  // every other tool scores more: only those others are scored, the rest follow in tree order.
  const named = new Set<number>()
  for (const word of words) for (const i of toolsWith(index, index.named, word, matches)) named.add(i)
  // Scores are small integers: bucket by score, which keeps tree order inside a bucket.
  const buckets = new Map<number, Array<number>>()
  for (const i of matches!) {
    if (!named.has(i)) continue
    let score = 0
    for (const word of words) score += wordScore(index, i, word)
    const bucket = buckets.get(score)
    if (bucket === undefined) buckets.set(score, [i])
    else bucket.push(i)
  }
  const limit = options.limit ?? total
  const out: Array<ToolEntry> = []
  for (const score of [...buckets.keys()].sort((a, b) => b - a)) {
    for (const i of buckets.get(score)!) {
      if (out.length >= limit) break
      out.push(catalog.tools[i]!)
    }
    if (out.length >= limit) break
  }
  for (let k = 0; k < matches!.length && out.length < limit; k++) {
    const i = matches![k]!
    if (!named.has(i)) out.push(catalog.tools[i]!)
  }
  return { tools: out, total }
}

/** The words, the ones found in fewer tools of a sample of the catalog first. */
const byRarity = (index: SearchIndex, words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const { chunks } = index.all
  const sample: Array<number> = []
  const step = Math.max(1, Math.floor(chunks.length / RARITY_SAMPLES))
  for (let c = 0; c < chunks.length && sample.length < RARITY_SAMPLES * CHUNK_SIZE; c += step) {
    const size = chunks[c]!.starts.length - 1
    for (let i = 0; i < size; i++) sample.push((c << CHUNK_BITS) + i)
  }
  const found = words.map((word, order) => ({ word, order, count: toolsWith(index, index.all, word, sample).length }))
  return found.sort((a, b) => a.count - b.count || a.order - b.order).map(({ word }) => word)
}

const RARITY_SAMPLES = 2

/** Positions in tree order of the tools under `under`; undefined for the whole catalog. */
const candidatePositions = (catalog: Catalog, under: CatalogNode | undefined): Array<number> | undefined => {
  if (under === undefined || under.kind === "root") return undefined
  const tools = toolsUnder(under)
  const position = positionsOf(catalog)
  const positions: Array<number> = []
  for (const tool of tools) {
    const at = position.get(tool)
    if (at !== undefined && catalog.tools[at] === tool) positions.push(at)
  }
  return under.kind === "alias" ? positions.sort((a, b) => a - b) : positions
}
