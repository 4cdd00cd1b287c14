/**
 * Ranking a task against the index: BM25F over the weighted fields, then the evidence a plain
 * BM25 does not use —
 * - server-level evidence: a tool whose server's tools together match more of the task than
 *   the tool alone is lifted in proportion (the task names the server's domain);
 * - intents: a tool that does what the task's verbs ask (see `intents.ts`) is lifted;
 * - exact names: a task that is a tool's name (or holds it as a word) puts that tool first, and
 *   a one-word task that starts a name lifts it;
 * - pseudo-relevance feedback: the terms that best characterize the first pass's top tools are
 *   added to the task with a small weight (the catalog's own vocabulary bridges the words of a
 *   task and of a description), and the catalog is ranked again.
 * Deterministic: equal scores are ordered by name.
 */
import { nameKey, terms, words } from "./analyze.js"
import { FIELDS, type Field } from "./document.js"
import { queryIntents } from "./intents.js"
import { FIELD_COUNT, type RouterIndex, unpackCounts } from "./invertedIndex.js"

/** The knobs of the ranking. */
export interface RankParameters {
  /** BM25 saturation. */
  readonly k1: number
  /** Weight of each field. */
  readonly weights: Readonly<Record<Field, number>>
  /** Length normalization of each field (0: none, 1: full). */
  readonly b: Readonly<Record<Field, number>>
  /** How much a server's wider match lifts its tools (0: off). */
  readonly groupEvidence: number
  /** How much a tool doing what the task asks is lifted (0: off). */
  readonly intentBoost: number
  /** How much a one-word task that starts a tool's name lifts it. */
  readonly prefixBoost: number
  /** Feedback: how many top tools, how many terms taken, and their weight against the task's (0: off). */
  readonly feedbackDocuments: number
  readonly feedbackTerms: number
  readonly feedbackWeight: number
  /** Whether feedback may bring in tools that hold none of the task's own terms (else it only reorders). */
  readonly feedbackNewDocuments: boolean
}

/** The parameters the router ranks with. */
export const DEFAULT_RANK_PARAMETERS: RankParameters = {
  k1: 1.2,
  weights: { name: 3, group: 1.5, category: 0.5, description: 1, parameters: 0.5, values: 0.3 },
  b: { name: 0.3, group: 0, category: 0, description: 0.75, parameters: 0.5, values: 0.5 },
  groupEvidence: 0.5,
  intentBoost: 0.15,
  prefixBoost: 0.3,
  // Feedback from the best hit only: terms from the second and third lifted them above the
  // first in the development sets (Recall@1 fell by 6 to 15 points).
  feedbackDocuments: 1,
  feedbackTerms: 8,
  feedbackWeight: 0.2,
  // A tool that holds no word of the task is noise in a listing, and did not lift recall.
  feedbackNewDocuments: false
}

/** How a hit matched the task exactly: 2 the task is its name, 1 the task holds its name, 0 neither. */
export type ExactMatch = 0 | 1 | 2

/** One ranked document. */
export interface RankedDocument {
  /** Its position in the index. */
  readonly position: number
  readonly score: number
  readonly exact: ExactMatch
}

/** What to rank. */
export interface RankRequest {
  readonly query: string
  /** At most this many hits. */
  readonly limit: number
  /** Only documents this keeps (a path, a host); all by default. */
  readonly keep?: ((position: number) => boolean) | undefined
}

/** Per-document field weights over length normalization, kept per index until it grows. */
const normCache = new WeakMap<RouterIndex, { readonly documents: number; readonly norms: Float32Array; readonly parameters: RankParameters }>()

const normsOf = (index: RouterIndex, parameters: RankParameters): Float32Array => {
  const n = index.documents.length
  const cached = normCache.get(index)
  if (cached !== undefined && cached.documents === n && cached.parameters === parameters) return cached.norms
  const norms = new Float32Array(n * FIELD_COUNT)
  for (let f = 0; f < FIELD_COUNT; f++) {
    const field = FIELDS[f]!
    const average = n === 0 ? 0 : index.totals[f]! / n
    const weight = parameters.weights[field]
    const b = parameters.b[field]
    for (let d = 0; d < n; d++) {
      const length = index.lengths[d * FIELD_COUNT + f]!
      const normalizer = average === 0 ? 1 : 1 - b + b * (length / average)
      norms[d * FIELD_COUNT + f] = weight / normalizer
    }
  }
  normCache.set(index, { documents: n, norms, parameters })
  return norms
}

/** Inverse document frequency (BM25's, never negative). */
export const idf = (documents: number, frequency: number): number =>
  Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))

/** A query as term ids and their weights. */
type WeightedTerms = Map<number, number>

const queryTerms = (index: RouterIndex, query: string): WeightedTerms => {
  const out: WeightedTerms = new Map()
  for (const term of terms(query)) {
    const id = index.terms.get(term)
    if (id !== undefined) out.set(id, (out.get(id) ?? 0) + 1)
  }
  return out
}

/** Scores of one BM25F pass: every document touched, its score and the idf mass of the terms it matched. */
interface Pass {
  readonly scores: Float64Array
  readonly covered: Float64Array
  readonly touched: Array<number>
  /** The idf mass of the terms any document of each group matched. */
  readonly groupCovered: Float64Array
  readonly totalWeight: number
}

const bm25f = (
  index: RouterIndex,
  query: WeightedTerms,
  parameters: RankParameters,
  keep: ((position: number) => boolean) | undefined
): Pass => {
  const n = index.documents.length
  const norms = normsOf(index, parameters)
  const scores = new Float64Array(n)
  const covered = new Float64Array(n)
  const groupCovered = new Float64Array(index.groups.length)
  const groupSeen = new Int32Array(index.groups.length).fill(-1)
  const touched: Array<number> = []
  const { k1 } = parameters
  let totalWeight = 0
  for (const [id, weight] of query) {
    const postings = index.postings[id]!
    const termWeight = weight * idf(n, postings.size)
    totalWeight += termWeight
    const { docs, counts, size } = postings
    for (let p = 0; p < size; p++) {
      const d = docs[p]!
      if (keep !== undefined && !keep(d)) continue
      const packed = counts[p]!
      let tf = 0
      for (let f = 0, base = d * FIELD_COUNT; f < FIELD_COUNT; f++) {
        const count = (packed >>> (f * 5)) & 31
        if (count !== 0) tf += count * norms[base + f]!
      }
      if (scores[d] === 0) touched.push(d)
      scores[d]! += termWeight * (tf * (k1 + 1)) / (tf + k1)
      covered[d]! += termWeight
      const group = index.documents[d]!.group
      if (group >= 0 && groupSeen[group] !== id) {
        groupSeen[group] = id
        groupCovered[group]! += termWeight
      }
    }
  }
  return { scores, covered, touched, groupCovered, totalWeight }
}

/** Applies server evidence and intents to a pass's scores, in place. */
const adjust = (index: RouterIndex, pass: Pass, intents: number, parameters: RankParameters): void => {
  const { scores, covered, touched, groupCovered, totalWeight } = pass
  for (const d of touched) {
    const document = index.documents[d]!
    let factor = 1
    if (document.group >= 0 && totalWeight > 0) {
      factor += parameters.groupEvidence * Math.max(0, groupCovered[document.group]! - covered[d]!) / totalWeight
    }
    if ((document.document.intents & intents) !== 0) factor += parameters.intentBoost
    scores[d]! *= factor
  }
}

const byScoreThenName = (index: RouterIndex) => (a: RankedDocument, b: RankedDocument): number =>
  b.exact - a.exact || b.score - a.score ||
  (index.documents[a.position]!.document.id < index.documents[b.position]!.document.id ? -1 : 1)

/** The `limit` best of `candidates`, best first (`candidates` is reordered). */
const topOf = (index: RouterIndex, candidates: Array<RankedDocument>, limit: number): Array<RankedDocument> => {
  if (candidates.length > limit * 4) {
    // The limit-th best score by a native numeric sort; only candidates at or above it are
    // compared by name (a comparator over tens of thousands of hits dominates a query).
    const scores = Float64Array.from(candidates, (hit) => (hit.exact > 0 ? Infinity : hit.score)).sort()
    const threshold = scores[scores.length - limit]!
    candidates = candidates.filter((hit) => hit.exact > 0 || hit.score >= threshold)
  }
  return candidates.sort(byScoreThenName(index)).slice(0, limit)
}

/** The feedback terms of the top documents (not in the query), weighted. */
const feedbackTerms = (
  index: RouterIndex,
  top: ReadonlyArray<RankedDocument>,
  query: WeightedTerms,
  parameters: RankParameters
): WeightedTerms => {
  const n = index.documents.length
  const mass = new Map<number, number>()
  let total = 0
  for (const hit of top) total += hit.score
  if (total <= 0) return new Map()
  for (const hit of top) {
    const document = index.documents[hit.position]!
    let length = 0
    for (let k = 0; k < document.termCounts.length; k++) length += document.termCounts[k]!
    if (length === 0) continue
    const share = hit.score / total
    for (let k = 0; k < document.termIds.length; k++) {
      const id = document.termIds[k]!
      if (query.has(id)) continue
      const frequency = index.postings[id]!.size
      // A term in most documents tells nothing.
      if (frequency * 2 > n) continue
      mass.set(id, (mass.get(id) ?? 0) + share * (document.termCounts[k]! / length) * idf(n, frequency))
    }
  }
  const chosen = [...mass].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, parameters.feedbackTerms)
  const best = chosen[0]?.[1] ?? 0
  return new Map(chosen.map(([id, weight]) => [id, parameters.feedbackWeight * weight / best]))
}

/**
 * The documents that hold the whole task as their name (2) or one of its whitespace-separated
 * words as their name (1).
 */
const exactMatches = (index: RouterIndex, query: string): Map<number, ExactMatch> => {
  const out = new Map<number, ExactMatch>()
  const whole = nameKey(query)
  for (const position of index.keys.get(whole) ?? []) out.set(position, 2)
  const pieces = query.split(/\s+/)
  if (pieces.length > 1) {
    for (const piece of pieces) {
      const key = nameKey(piece)
      if (key.length < 3) continue
      for (const position of index.keys.get(key) ?? []) if (!out.has(position)) out.set(position, 1)
    }
  }
  return out
}

/** Ranks the index's documents against a task: the best `limit`, best first. */
export const rankDocuments = (
  index: RouterIndex,
  request: RankRequest,
  parameters: RankParameters = DEFAULT_RANK_PARAMETERS
): ReadonlyArray<RankedDocument> => {
  if (request.limit <= 0 || index.documents.length === 0) return []
  const { keep } = request
  const query = queryTerms(index, request.query)
  const intents = queryIntents(request.query)
  const exact = exactMatches(index, request.query)
  const oneWord = words(request.query).length === 1 ? nameKey(request.query) : ""

  const run = (weighted: WeightedTerms, within: ((position: number) => boolean) | undefined): Array<RankedDocument> => {
    const pass = bm25f(index, weighted, parameters, within)
    adjust(index, pass, intents, parameters)
    const candidates: Array<RankedDocument> = []
    for (const d of pass.touched) {
      let score = pass.scores[d]!
      if (oneWord.length >= 3 && index.documents[d]!.shortKey.startsWith(oneWord)) score *= 1 + parameters.prefixBoost
      candidates.push({ position: d, score, exact: exact.get(d) ?? 0 })
    }
    for (const [d, match] of exact) {
      if (pass.scores[d] === 0 && (keep === undefined || keep(d))) candidates.push({ position: d, score: 0, exact: match })
    }
    return candidates
  }

  let candidates = run(query, keep)
  if (parameters.feedbackWeight > 0 && parameters.feedbackDocuments > 0 && query.size > 0) {
    const matched = new Set(candidates.map((hit) => hit.position))
    const top = topOf(index, [...candidates], parameters.feedbackDocuments)
    const expansion = feedbackTerms(index, top, query, parameters)
    if (expansion.size > 0) {
      candidates = run(new Map([...query, ...expansion]), parameters.feedbackNewDocuments ? keep : (position) => matched.has(position))
    }
  }
  return topOf(index, candidates, request.limit)
}

/** Where a document matched the task's words: each field and the task's words found in it. */
export type MatchedFields = ReadonlyArray<{ readonly field: Field; readonly words: ReadonlyArray<string> }>

/** The fields of document `position` that hold each of the task's words (as the task spells them). */
export const explainMatch = (index: RouterIndex, position: number, query: string): MatchedFields => {
  const byField = new Map<Field, Array<string>>()
  const counts = new Float64Array(FIELD_COUNT)
  const seen = new Set<string>()
  for (const word of words(query)) {
    const [term] = terms(word)
    if (term === undefined || seen.has(term)) continue
    seen.add(term)
    const id = index.terms.get(term)
    if (id === undefined) continue
    const postings = index.postings[id]!
    const at = binarySearch(postings.docs, postings.size, position)
    if (at < 0) continue
    unpackCounts(postings.counts[at]!, counts)
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (counts[f] === 0) continue
      const field = FIELDS[f]!
      const list = byField.get(field)
      if (list === undefined) byField.set(field, [word])
      else list.push(word)
    }
  }
  return FIELDS.flatMap((field) => {
    const found = byField.get(field)
    return found === undefined ? [] : [{ field, words: found }]
  })
}

const binarySearch = (docs: Int32Array, size: number, position: number): number => {
  let low = 0
  let high = size - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    const value = docs[middle]!
    if (value === position) return middle
    if (value < position) low = middle + 1
    else high = middle - 1
  }
  return -1
}
