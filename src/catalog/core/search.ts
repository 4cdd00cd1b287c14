/**
 * Ranked search over a built catalog: every word of the query must be found in a tool's name,
 * group, category or description, and where it is found decides its score (`SEARCH_SCORES`).
 * The search keys are built on a catalog's first search and kept with it.
 */
import type { Catalog, CatalogNode, ToolEntry } from "./model.js"
import { positionsOf, toolsUnder } from "./tree.js"

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

const searchIndexOf = (catalog: Catalog): SearchIndex => {
  let index = searchIndexes.get(catalog)
  if (index === undefined) searchIndexes.set(catalog, index = makeSearchIndex(catalog.tools))
  return index
}

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
