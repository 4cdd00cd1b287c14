/**
 * Building the catalog tree `/category/group/tool` from tool schemas.
 *
 * Placement of one tool, first answer wins per field:
 * - group: the merged annotation's `group`, else the first classifier (by priority) that
 *   names a group, else the structural group of an `mcp__server__tool` name (`server`),
 *   else `MISC_GROUP`.
 * - category: the merged annotation's `category`, else the first classifier that names a
 *   category, else the category whose definition claims the tool's group (`groups`), else
 *   the category most of the group's placed tools have (ties: the smaller name; not for
 *   `MISC_GROUP`, whose tools are unrelated), else the default classifier's answer for the
 *   group (`builtinPlacement.ts`; for a tool of `MISC_GROUP`, its answer for that tool), else
 *   `UNCATEGORIZED`. The default classifier comes after the claims and votes: a plugin's rule
 *   always wins over it.
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
 * (`options.categories`, then the `DEFAULT_CATEGORIES` they do not redefine), then undefined ones by name, then
 * `UNCATEGORIZED` (always present, even empty, so a missing classifier shows); groups by
 * name; tools by path segment. Names compare by UTF-16 code units. Of two tools with one
 * name, the first given is kept and the other reported in `diagnostics`.
 */
import { type DefinitionFacts, definitionFacts, sha256 } from "./definitions.js"
import { classifyTool, indexAnnotations, metaFor, orderClassifiers, segmentName } from "./classify.js"
import type {
  AliasNode,
  AnnotationLayers,
  Catalog,
  CatalogDiagnostic,
  CatalogNode,
  CategoryDefinition,
  CategoryNode,
  Classifier,
  GroupNode,
  RootNode,
  ToolEntry,
  ToolMeta,
  ToolSchema
} from "./model.js"
import { MISC_GROUP, UNCATEGORIZED } from "./model.js"
import { assessRisk, type RiskAssessment } from "./risk.js"
import { BUILTIN_CATEGORIES, groupCategory as builtinGroupCategory, toolCategory as builtinToolCategory } from "./builtinPlacement.js"
import { MAX_DESCRIPTION_LENGTH, type Sanitized, sanitizeDescription } from "./sanitize.js"
import { markBuilt } from "./tree.js"

/**
 * Category descriptions known out of the box (the default classifier's, then `UNCATEGORIZED`);
 * a definition with the same name replaces one.
 */
export const DEFAULT_CATEGORIES: ReadonlyArray<CategoryDefinition> = [
  ...BUILTIN_CATEGORIES,
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
  /**
   * False turns the default classifier off (`builtinPlacement.ts`): groups nothing else
   * places go to `UNCATEGORIZED` instead of the default categories. On by default.
   */
  readonly builtinPlacement?: boolean | undefined
}

/** Options of `searchCatalog`. */
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
 * The identity of a tool set: SHA-256 of the sorted definition hashes of the tools, deduplicated
 * by name (the first of a name wins, as in the build). Equal to `catalog.toolSetKey`.
 */
export const toolSetKey = (tools: ReadonlyArray<ToolSchema>): string => {
  const primed = primedSetKeys.get(tools)
  if (primed !== undefined) return primed
  const seen = new Set<string>()
  const hashes: Array<string> = []
  for (const tool of tools) {
    if (tool.name.length === 0 || seen.has(tool.name)) continue
    seen.add(tool.name)
    hashes.push(factsOf(tool).hash)
  }
  // The same tools in the same order (the host's list, asked for again) skip the sort: the
  // hashes in input order name the list exactly.
  const ordered = sha256(hashes.join("\n"))
  const known = setKeys.get(ordered)
  if (known !== undefined) return known
  const key = keyOfHashes(hashes)
  if (setKeys.size >= SET_KEYS_KEPT) setKeys.clear()
  setKeys.set(ordered, key)
  return key
}

// A host asks for the key of a few lists (its whole tool set, an agent's), again and again.
const SET_KEYS_KEPT = 16
const setKeys = new Map<string, string>()

const primedFacts = new WeakMap<ToolSchema, DefinitionFacts>()
const primedSetKeys = new WeakMap<ReadonlyArray<ToolSchema>, string>()

/**
 * Hands over the `toolSetKey` of a list of schemas computed by an earlier run (kept with the
 * primed facts), so that the build of that very list neither hashes nor sorts. The caller
 * vouches that `key` is `toolSetKey(tools)` and that the list is not changed afterwards.
 * Kept as long as the list lives.
 */
export const primeToolSetKey = (tools: ReadonlyArray<ToolSchema>, key: string): void => {
  primedSetKeys.set(tools, key)
}

/**
 * Hands over the `definitionFacts` of schema objects computed by an earlier run (a cache the
 * caller kept next to the schemas), so that builds and tool-set keys take them instead of
 * canonicalizing and hashing every definition again: at tens of thousands of tools that is
 * most of a build. The caller vouches that `facts[i]` is `definitionFacts(schemas[i])`, e.g.
 * because both came from a file whose exact bytes it checked. Kept as long as each object lives.
 */
export const primeDefinitionFacts = (schemas: ReadonlyArray<ToolSchema>, facts: ReadonlyArray<DefinitionFacts>): void => {
  const n = Math.min(schemas.length, facts.length)
  for (let i = 0; i < n; i++) primedFacts.set(schemas[i]!, facts[i]!)
}

/** The definition facts of a schema: primed ones first, else computed (and kept) by `definitionFacts`. */
export const factsOf = (schema: ToolSchema): DefinitionFacts => primedFacts.get(schema) ?? definitionFacts(schema)

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

  // Category definitions: later ones replace earlier ones of the same name; the host's come
  // first, then the defaults it did not define.
  const definitions = new Map<string, CategoryDefinition>()
  for (const definition of options.categories ?? []) {
    const name = segmentName(definition.name)
    if (name === undefined) continue
    definitions.delete(name)
    definitions.set(name, { ...definition, name })
  }
  for (const definition of DEFAULT_CATEGORIES) if (!definitions.has(definition.name)) definitions.set(definition.name, definition)
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
      facts: factsOf(schema),
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
  // The default classifier's answers, for the groups (and the misc tools) nothing else placed.
  const builtin = options.builtinPlacement === false ? undefined : builtinAnswers(drafts, claims, votes)
  const groupCategory = (draft: Draft): string => {
    const group = draft.group
    const claimed = claims.get(group)
    if (claimed !== undefined) return claimed
    const tally = votes.get(group)
    if (tally === undefined) {
      return (group === MISC_GROUP ? builtin?.tools.get(draft) : builtin?.groups.get(group)) ?? UNCATEGORIZED
    }
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
    draft.category = draft.explicitCategory ?? groupCategory(draft)
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
  markBuilt(catalog)
  return catalog
}

/**
 * What the default classifier says of the drafts no annotation, classifier, claim or vote
 * placed: a category per group of such drafts, and per draft of `MISC_GROUP`.
 */
const builtinAnswers = (
  drafts: ReadonlyArray<Draft>,
  claims: ReadonlyMap<string, string>,
  votes: ReadonlyMap<string, unknown>
) => {
  const groups = new Map<string, string>()
  const tools = new Map<Draft, string>()
  const members = new Map<string, Array<Draft>>()
  for (const draft of drafts) {
    if (draft.explicitCategory !== undefined || claims.has(draft.group) || votes.has(draft.group)) continue
    if (draft.group === MISC_GROUP) {
      const category = builtinToolCategory({ shortName: draft.shortName, annotations: draft.schema.annotations })
      if (category !== undefined) tools.set(draft, category)
      continue
    }
    let list = members.get(draft.group)
    if (list === undefined) members.set(draft.group, list = [])
    list.push(draft)
  }
  for (const [group, list] of members) {
    const category = builtinGroupCategory(
      group,
      list.map((draft) => ({ shortName: draft.shortName, annotations: draft.schema.annotations }))
    )
    if (category !== undefined) groups.set(group, category)
  }
  return { groups, tools }
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
