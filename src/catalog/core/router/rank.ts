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
 *   task and of a description), and the catalog is ranked again;
 * - co-occurrence: before the first pass, each rare task term brings the terms the catalog's
 *   documents use most with it (Dice), with a small weight;
 * - derivations: a task term the catalog does not hold counts as its longest known prefix;
 * - the lexicon: the terms a general-English lexicon relates to the task's join it with a
 *   small weight (see `lexicon.ts`).
 * Deterministic: equal scores are ordered by name. An index read from a file piece by piece
 * (`RankIndex`) is ranked by `rankSteps`, which asks for the postings and document terms each
 * stage needs before it runs; the result is the same as over the index built in memory.
 */
import { nameKey, STOP_WORDS, terms, words } from "./analyze.js"
import { FIELDS, type Field } from "./document.js"
import { queryIntents } from "./intents.js"
import { relatedTerms } from "./lexicon.js"
import { FIELD_COUNT, type RouterIndex, unpackCounts } from "./invertedIndex.js"
import { asRankIndex, type Needs, type RankIndex } from "./rankIndex.js"

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
  /**
   * A task's term the catalog does not hold counts as its longest known prefix (at least this
   * share of its letters, and 4) with this weight (0: off).
   */
  readonly prefixTermWeight: number
  readonly prefixTermShare: number
  /** Co-occurrence expansion (see `cooccurring`; weight 0: off). */
  readonly cooccurrenceWeight: number
  readonly cooccurrenceTerms: number
  readonly cooccurrenceMinDice: number
  readonly cooccurrenceMaxShare: number
  /** Weight of the terms the lexicon relates to a task's terms (see `lexicon.ts`; 0: off). */
  readonly lexiconWeight: number
  /**
   * Sibling diversity (see `diversify`), for a task that joins needs (`severalNeeds`): how much
   * a hit whose matched task terms the hits above it already hold is lowered (0: off), over the
   * first `diversityWindow` hits.
   */
  readonly diversity: number
  readonly diversityWindow: number
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
  feedbackNewDocuments: false,
  prefixTermWeight: 0.5,
  prefixTermShare: 0.4,
  cooccurrenceWeight: 0.3,
  cooccurrenceTerms: 3,
  cooccurrenceMinDice: 0.15,
  cooccurrenceMaxShare: 0.05,
  // Measured with 0.15-0.4 on both development sets: 0.25 lifted MetaTool's Recall@5 by 1 to 1.6
  // points and the own set's by 2.8; more pulls in too many loose relatives.
  lexiconWeight: 0.25,
  // Measured 0.1-0.6 on the development sets (issue 30): 0.2 lifted BFCL multi-tool Recall@5
  // from 85.0% to 86.7% (above plain BM25's 85.2%) and left MetaTool within ±0.1 point; 0.4 and
  // more cost the own MCP set 2.5 points or more. Only for a task that joins needs
  // (`severalNeeds`): on every task it cost 0.8 point on BFCL's held-out live single-tool tasks.
  diversity: 0.2,
  diversityWindow: 10
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
  /**
   * Words to add to the task's, each with its weight (an embedder's nearest catalog words to a
   * task word the catalog lacks, `nearestWords`): a word whose term the task already has, or that
   * the catalog lacks, adds nothing.
   */
  readonly related?: ReadonlyArray<{ readonly word: string; readonly weight: number }> | undefined
}

/**
 * What ranking derives from an index and the parameters, kept until the index grows (the
 * average field lengths change with every document): per-document field weights over length
 * normalization, each document's group as a flat array, and per term, lazily, the saturated
 * BM25F term frequency of each of its postings (its "impact"), so that a query adds one
 * product per posting.
 */
interface Derived {
  readonly documents: number
  readonly parameters: RankParameters
  readonly norms: Float32Array
  readonly groups: Int32Array
  /** Each document's `INTENT_BITS`. */
  readonly intents: Int32Array
  readonly impacts: Array<Float64Array | undefined>
}

const derivedCache = new WeakMap<RankIndex, Derived>()

const derivedOf = (index: RankIndex, parameters: RankParameters): Derived => {
  const n = index.documentCount
  const cached = derivedCache.get(index)
  if (cached !== undefined && cached.documents === n && cached.parameters === parameters) return cached
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
  const derived: Derived = { documents: n, parameters, norms, groups: index.groups, intents: index.intents, impacts: [] }
  derivedCache.set(index, derived)
  return derived
}

/** The impact of each posting of term `id` (see {@link Derived}). */
const impactsOf = (index: RankIndex, derived: Derived, id: number): Float64Array => {
  const known = derived.impacts[id]
  if (known !== undefined) return known
  const { docs, counts, size } = heldPostings(index, id)
  const { norms } = derived
  const { k1 } = derived.parameters
  const impacts = new Float64Array(size)
  for (let p = 0; p < size; p++) {
    const packed = counts[p]!
    let tf = 0
    for (let f = 0, base = docs[p]! * FIELD_COUNT; f < FIELD_COUNT; f++) {
      const count = (packed >>> (f * 5)) & 31
      if (count !== 0) tf += count * norms[base + f]!
    }
    impacts[p] = (tf * (k1 + 1)) / (tf + k1)
  }
  derived.impacts[id] = impacts
  return impacts
}

/** Inverse document frequency (BM25's, never negative). */
export const idf = (documents: number, frequency: number): number =>
  Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))

/** A query as term ids and their weights. */
type WeightedTerms = Map<number, number>

/**
 * The catalog's term that a task's term unknown to the catalog derives from: its longest prefix
 * of at least `minimum` letters that is a term (`rental` → `rent`, `scholarly` → `scholar`), or
 * none. Porter leaves many derivations (-al, -ly, -er, -ship) apart.
 */
const knownPrefix = (index: RankIndex, term: string, minimum: number): number | undefined => {
  if (DIGIT.test(term)) return undefined
  for (let length = term.length - 1; length >= minimum; length--) {
    const id = index.termId(term.slice(0, length))
    if (id !== undefined) return id
  }
  return undefined
}

const DIGIT = /\p{N}/u

const queryTerms = (index: RankIndex, query: string, parameters: RankParameters, related: RankRequest["related"] = []): WeightedTerms => {
  const out: WeightedTerms = new Map()
  const own = terms(query)
  if (parameters.lexiconWeight > 0) {
    const distinct = new Set(own)
    for (const word of words(query)) {
      if (STOP_WORDS.has(word)) continue
      for (const other of relatedTerms(word)) {
        const id = distinct.has(other) ? undefined : index.termId(other)
        if (id !== undefined) out.set(id, parameters.lexiconWeight)
      }
    }
  }
  // After the lexicon's, so that a word both give keeps the larger weight.
  const ownIds = new Set(own.map((term) => index.termId(term)))
  for (const { word, weight } of related) {
    for (const term of terms(word)) {
      const id = index.termId(term)
      if (id !== undefined && !ownIds.has(id)) out.set(id, Math.max(out.get(id) ?? 0, weight))
    }
  }
  for (const term of own) {
    const id = index.termId(term)
    if (id !== undefined) out.set(id, (out.get(id) ?? 0) + 1)
    else if (parameters.prefixTermWeight > 0) {
      const near = knownPrefix(index, term, Math.max(PREFIX_MINIMUM, Math.ceil(term.length * parameters.prefixTermShare)))
      if (near !== undefined) out.set(near, (out.get(near) ?? 0) + parameters.prefixTermWeight)
    }
  }
  return out
}

const PREFIX_MINIMUM = 4

/** The task's words (no stop words, each once) none of whose terms the catalog holds: those an embedder's neighbours may stand in for. */
export const wordsUnknownTo = (index: RouterIndex | RankIndex, query: string): Array<string> => {
  const rankIndex = asRankIndex(index)
  return [...new Set(words(query))].filter((word) => !STOP_WORDS.has(word) && terms(word).every((term) => rankIndex.termId(term) === undefined))
}

/**
 * Terms the catalog uses together with the task's own (learned from the catalog, no list): for
 * each task term held by at most `cooccurrenceMaxShare` of the documents, the terms of its
 * documents ranked by their Dice coefficient with it (2·both / (its documents + theirs)); the
 * best `cooccurrenceTerms` of those at `cooccurrenceMinDice` or more join the task, weighted
 * `cooccurrenceWeight` × Dice × the term's weight in the task. "folder" meets "directory" where
 * descriptions say both.
 */
const cooccurring = (index: RankIndex, query: WeightedTerms, parameters: RankParameters): WeightedTerms => {
  const out: WeightedTerms = new Map()
  const n = index.documentCount
  let counts = cooccurrenceCounts.get(index)
  if (counts === undefined || counts.length < index.termCount) {
    counts = new Int32Array(Math.max(1024, index.termCount * 2))
    cooccurrenceCounts.set(index, counts)
  }
  const seen: Array<number> = []
  for (const [id, weight] of query) {
    if (!isRare(index, id, parameters)) continue
    const { docs, size } = heldPostings(index, id)
    for (let p = 0; p < size; p++) {
      const { terms, from, to } = heldDocumentTerms(index, docs[p]!)
      for (let k = from; k < to; k++) {
        const other = terms[k]!
        if (counts[other]++ === 0) seen.push(other)
      }
    }
    const ranked: Array<[number, number]> = []
    for (const other of seen) {
      const count = counts[other]!
      counts[other] = 0
      // A term in most documents tells nothing (as in feedback).
      if (count < 2 || other === id || query.has(other) || index.postingsSize(other) * 2 > n) continue
      const dice = (2 * count) / (size + index.postingsSize(other))
      if (dice >= parameters.cooccurrenceMinDice) ranked.push([other, dice])
    }
    seen.length = 0
    ranked.sort((a, b) => b[1] - a[1] || a[0] - b[0])
    for (const [other, dice] of ranked.slice(0, parameters.cooccurrenceTerms)) {
      out.set(other, Math.max(out.get(other) ?? 0, parameters.cooccurrenceWeight * dice * weight))
    }
  }
  return out
}

/** Whether co-occurrence expands term `id`: held by at least 2 and at most `cooccurrenceMaxShare` of the documents. */
const isRare = (index: RankIndex, id: number, parameters: RankParameters): boolean => {
  // No floor: a catalog of a few dozen documents has no statistics to learn from.
  const size = index.postingsSize(id)
  return size >= 2 && size <= Math.floor(index.documentCount * parameters.cooccurrenceMaxShare)
}

/** Per index, one counter per term for `cooccurring`, zero between calls (it runs without a pause). */
const cooccurrenceCounts = new WeakMap<RankIndex, Int32Array>()

/** The postings of a term the ranking has made sure are held (see `wanted`). */
const heldPostings = (index: RankIndex, id: number) => {
  const postings = index.postings(id)
  if (postings === undefined) throw new Error(`the postings of term ${id} are not held`)
  return postings
}

/** The terms of a document the ranking has made sure are held. */
const heldDocumentTerms = (index: RankIndex, position: number) => {
  const terms = index.documentTerms(position)
  if (terms === undefined) throw new Error(`the terms of document ${position} are not held`)
  return terms
}

/** What of `terms` and `documents` the index does not hold yet, undefined when it holds all. */
const wanted = (index: RankIndex, terms: Iterable<number>, documents: Iterable<number>): Needs | undefined => {
  const missingTerms: Array<number> = []
  const missingDocuments: Array<number> = []
  for (const id of terms) if (index.postings(id) === undefined) missingTerms.push(id)
  for (const position of documents) if (index.documentTerms(position) === undefined) missingDocuments.push(position)
  return missingTerms.length === 0 && missingDocuments.length === 0 ? undefined : { terms: missingTerms, documents: missingDocuments }
}

/** Asks for what of `terms` and `documents` the index does not hold, until it holds all. */
function* want(index: RankIndex, terms: ReadonlyArray<number>, documents: ReadonlyArray<number>): Generator<Needs, void, void> {
  for (let needs = wanted(index, terms, documents); needs !== undefined; needs = wanted(index, terms, documents)) yield needs
}

/**
 * The buffers of one ranking, one slot per document, kept per index and reused: a query touches
 * a few thousand documents of tens of thousands, and allocating (and zeroing) the arrays, or an
 * object per touched document, would cost more than the scoring itself. A ranking takes a set
 * from its index's pool and gives it back when it ends (one that waits for postings to be read
 * holds its set meanwhile, so two rankings never share one). Every slot a pass sets is reset
 * before the ranking returns.
 */
interface Scratch {
  readonly scores: Float64Array
  /** The idf mass of the task's terms each document matched. */
  readonly covered: Float64Array
  /** 1 for the documents the first pass found (feedback only reorders those). */
  readonly found: Uint8Array
  /** The documents a pass touched, in the order it touched them. */
  readonly touched: Int32Array
  /** Per group: the idf mass of the terms any of its documents matched, and the last term visit that counted. */
  readonly groupCovered: Float64Array
  readonly groupVisit: Float64Array
  visit: number
}

const scratches = new WeakMap<RankIndex, Array<Scratch>>()

const takeScratch = (index: RankIndex): Scratch => {
  const n = index.documentCount
  const groups = index.groupCount
  let pool = scratches.get(index)
  if (pool === undefined) {
    pool = []
    scratches.set(index, pool)
  }
  const known = pool.pop()
  if (known !== undefined && known.scores.length >= n && known.groupCovered.length >= groups) return known
  const scratch: Scratch = {
    scores: new Float64Array(n),
    covered: new Float64Array(n),
    found: new Uint8Array(n),
    touched: new Int32Array(n),
    groupCovered: new Float64Array(groups),
    groupVisit: new Float64Array(groups),
    visit: known?.visit ?? 0
  }
  return scratch
}

/** Gives a set back to its index's pool, every slot reset. */
const giveScratch = (index: RankIndex, scratch: Scratch): void => {
  scratches.get(index)?.push(scratch)
}

/** How many documents a pass has touched so far, and the idf mass of its terms. */
interface PassTotals {
  readonly touched: number
  readonly totalWeight: number
}

/**
 * One BM25F pass into the scratch: the score and covered mass of every document touched.
 * With `after`, the pass goes on from an earlier one over more terms (its sums are those of one
 * pass over all the terms, in the same order).
 */
const bm25f = (
  index: RankIndex,
  scratch: Scratch,
  query: WeightedTerms,
  parameters: RankParameters,
  keep: ((position: number) => boolean) | undefined,
  onlyFound: boolean,
  after: PassTotals | undefined
): PassTotals => {
  const n = index.documentCount
  const derived = derivedOf(index, parameters)
  const { scores, covered, found, touched, groupCovered, groupVisit } = scratch
  if (after === undefined) groupCovered.fill(0)
  let count = after?.touched ?? 0
  let totalWeight = after?.totalWeight ?? 0
  for (const [id, weight] of query) {
    const postings = heldPostings(index, id)
    const termWeight = weight * idf(n, postings.size)
    totalWeight += termWeight
    const visit = ++scratch.visit
    const { docs, size } = postings
    const impacts = impactsOf(index, derived, id)
    const groups = derived.groups
    for (let p = 0; p < size; p++) {
      const d = docs[p]!
      if (onlyFound ? found[d] === 0 : keep !== undefined && !keep(d)) continue
      if (scores[d] === 0) touched[count++] = d
      scores[d]! += termWeight * impacts[p]!
      covered[d]! += termWeight
      const group = groups[d]!
      if (group >= 0 && groupVisit[group] !== visit) {
        groupVisit[group] = visit
        groupCovered[group]! += termWeight
      }
    }
  }
  return { touched: count, totalWeight }
}

/**
 * The best `limit` hits, best first: exact matches first, then by score, equal scores by name.
 * Kept sorted while the candidates stream in; a candidate below the last kept one costs one
 * comparison.
 */
class TopHits {
  readonly hits: Array<RankedDocument> = []
  constructor(private readonly index: RankIndex, private readonly limit: number) {}

  private before(exact: ExactMatch, score: number, position: number, hit: RankedDocument): boolean {
    if (exact !== hit.exact) return exact > hit.exact
    if (score !== hit.score) return score > hit.score
    return this.index.idOf(position) < this.index.idOf(hit.position)
  }

  offer(position: number, score: number, exact: ExactMatch): void {
    const { hits, limit } = this
    if (hits.length === limit && !this.before(exact, score, position, hits[limit - 1]!)) return
    let at = hits.length === limit ? limit - 1 : hits.length
    while (at > 0 && this.before(exact, score, position, hits[at - 1]!)) at--
    if (hits.length === limit) hits.pop()
    hits.splice(at, 0, { position, score, exact })
  }
}

/** The feedback terms of the top documents (not in the query), weighted. */
const feedbackTerms = (
  index: RankIndex,
  top: ReadonlyArray<RankedDocument>,
  query: WeightedTerms,
  parameters: RankParameters
): WeightedTerms => {
  const n = index.documentCount
  const mass = new Map<number, number>()
  let total = 0
  for (const hit of top) total += hit.score
  if (total <= 0) return new Map()
  for (const hit of top) {
    const { terms: docTerms, counts: docCounts, from, to } = heldDocumentTerms(index, hit.position)
    let length = 0
    for (let k = from; k < to; k++) length += docCounts[k]!
    if (length === 0) continue
    const share = hit.score / total
    for (let k = from; k < to; k++) {
      const id = docTerms[k]!
      if (query.has(id)) continue
      const frequency = index.postingsSize(id)
      // A term in most documents tells nothing.
      if (frequency * 2 > n) continue
      mass.set(id, (mass.get(id) ?? 0) + share * (docCounts[k]! / length) * idf(n, frequency))
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
const exactMatches = (index: RankIndex, query: string): Map<number, ExactMatch> => {
  const out = new Map<number, ExactMatch>()
  const whole = nameKey(query)
  for (const position of index.named(whole)) out.set(position, 2)
  const pieces = query.split(/\s+/)
  if (pieces.length > 1) {
    for (const piece of pieces) {
      const key = nameKey(piece)
      if (key.length < 3) continue
      for (const position of index.named(key)) if (!out.has(position)) out.set(position, 1)
    }
  }
  return out
}

// A task that joins needs: "and", "also", "then", "as well", "plus", a semicolon, or a second
// sentence (an end mark, then a capital).
const JOINERS = "and|also|then|plus|as well"
const JOINED = new RegExp(`\\b(?:${JOINERS})\\b`, "i")
const SECOND_SENTENCE = /[.?!]\s+\p{Lu}|;/u

/** Whether a task may name several needs (see `diversify`): it joins clauses or sentences. */
export const severalNeeds = (query: string): boolean => JOINED.test(query) || SECOND_SENTENCE.test(query)

// Where `taskClauses` cuts: between sentences (the end mark kept, the capital left to the next),
// at a semicolon, a comma or a joining word (those dropped).
const SENTENCE_BREAK = /(?<=[.?!])\s+(?=\p{Lu})|;/u
const CLAUSE_BREAK = new RegExp(`\\b(?:${JOINERS})\\b|,`, "i")
/** A clause of fewer words than this (stop words not counted) joins the one before it. */
export const MIN_CLAUSE_WORDS = 2

/**
 * The needs a task may join, one text each (see `severalNeeds`): its sentences and clauses cut at
 * joining words and commas, a clause of fewer than `MIN_CLAUSE_WORDS` words appended to the one
 * before it (the first kept as it is), clauses without a word left out; one text for a task that
 * joins nothing.
 */
export const taskClauses = (query: string): Array<string> => {
  const out: Array<string> = []
  for (const part of query.split(SENTENCE_BREAK).flatMap((sentence) => sentence.split(CLAUSE_BREAK))) {
    const count = words(part).filter((word) => !STOP_WORDS.has(word)).length
    if (count === 0) continue
    if (count < MIN_CLAUSE_WORDS && out.length > 0) out[out.length - 1] += ` ${part.trim()}`
    else out.push(part.trim())
  }
  return out
}

/**
 * Sibling diversity, for a task that names several needs: the first `diversityWindow` hits are
 * taken again one at a time, each time the one whose score, lowered by `diversity` × the share
 * of its matched task weight (weight × idf of each task term it holds) that the hits taken
 * before it already hold, is highest; exact-name hits stay first. A tool that only repeats what
 * a sibling above it matched yields its place to one that matches another part of the task.
 * A hit keeps its score, but never above the hit before it (a hit moved down takes the score of
 * the one moved above it), so the list stays best first and an unchanged order keeps its scores.
 */
const diversify = (
  index: RankIndex,
  hits: ReadonlyArray<RankedDocument>,
  query: WeightedTerms,
  parameters: RankParameters
): Array<RankedDocument> => {
  const window = hits.slice(0, parameters.diversityWindow)
  const n = index.documentCount
  const matched = window.map((hit) => {
    const { terms: docTerms, from, to } = heldDocumentTerms(index, hit.position)
    const out = new Map<number, number>()
    for (let k = from; k < to; k++) {
      const id = docTerms[k]!
      const weight = query.get(id)
      if (weight !== undefined && !out.has(id)) out.set(id, weight * idf(n, index.postingsSize(id)))
    }
    return out
  })
  const held = new Set<number>()
  const left = window.map((_, i) => i)
  const out: Array<RankedDocument> = []
  while (left.length > 0) {
    let bestAt = 0
    let bestScore = -Infinity
    for (let j = 0; j < left.length; j++) {
      const i = left[j]!
      const hit = window[i]!
      if (hit.exact > 0) {
        bestAt = j
        bestScore = hit.score
        break
      }
      let total = 0
      let repeated = 0
      for (const [id, weight] of matched[i]!) {
        total += weight
        if (held.has(id)) repeated += weight
      }
      const score = hit.score * (1 - parameters.diversity * (total === 0 ? 0 : repeated / total))
      if (score > bestScore) {
        bestAt = j
        bestScore = score
      }
    }
    const [i] = left.splice(bestAt, 1)
    const hit = window[i!]!
    for (const id of matched[i!]!.keys()) held.add(id)
    const above = out.at(-1)?.score ?? hit.score
    out.push(hit.exact > 0 || hit.score <= above ? hit : { ...hit, score: above })
  }
  for (const hit of hits.slice(window.length)) {
    const above = out.at(-1)?.score ?? hit.score
    out.push(hit.exact > 0 || hit.score <= above ? hit : { ...hit, score: above })
  }
  return out
}

/**
 * Ranks the index's documents against a task: the best `limit`, best first. Each stage first
 * asks for the postings and document terms it reads that the index does not hold yet (yields
 * `Needs`, and is resumed once they are held): over an index built in memory it never asks.
 */
export function* rankSteps(
  index: RankIndex,
  request: RankRequest,
  parameters: RankParameters = DEFAULT_RANK_PARAMETERS
): Generator<Needs, ReadonlyArray<RankedDocument>, void> {
  if (request.limit <= 0 || index.documentCount === 0) return []
  const { keep } = request
  const query = queryTerms(index, request.query, parameters, request.related)
  yield* want(index, [...query.keys()], [])
  if (parameters.cooccurrenceWeight > 0 && parameters.cooccurrenceTerms > 0) {
    // The documents of the rare terms whose terms the index does not hold yet (none in memory).
    const documents = new Set<number>()
    for (const id of query.keys()) {
      if (!isRare(index, id, parameters)) continue
      const { docs, size } = heldPostings(index, id)
      for (let p = 0; p < size; p++) if (index.documentTerms(docs[p]!) === undefined) documents.add(docs[p]!)
    }
    if (documents.size > 0) yield* want(index, [], [...documents])
    const related = cooccurring(index, query, parameters)
    for (const [id, weight] of related) query.set(id, weight)
    yield* want(index, [...related.keys()], [])
  }
  const intents = queryIntents(request.query)
  const exact = exactMatches(index, request.query)
  const oneWord = words(request.query).length === 1 ? nameKey(request.query) : ""
  const scratch = takeScratch(index)
  const { scores, covered, found, touched, groupCovered } = scratch

  /**
   * The best `limit` of what the passes so far scored, with server evidence, intents, prefix and
   * exact matches applied.
   */
  const best = (pass: PassTotals, limit: number): TopHits => {
    const top = new TopHits(index, limit)
    // Typed arrays only in the loop over every touched document: it runs over tens of thousands.
    const { groups, intents: intentsOf } = derivedOf(index, parameters)
    const prefix = oneWord.length >= 3
    for (let i = 0; i < pass.touched; i++) {
      const d = touched[i]!
      const group = groups[d]!
      let factor = 1
      if (group >= 0 && pass.totalWeight > 0) {
        factor += parameters.groupEvidence * Math.max(0, groupCovered[group]! - covered[d]!) / pass.totalWeight
      }
      if ((intentsOf[d]! & intents) !== 0) factor += parameters.intentBoost
      let score = scores[d]! * factor
      if (prefix && index.shortKeyStartsWith(d, oneWord)) score *= 1 + parameters.prefixBoost
      top.offer(d, score, exact.size === 0 ? 0 : exact.get(d) ?? 0)
    }
    for (const [d, match] of exact) {
      if (scores[d] === 0 && (keep === undefined || keep(d))) top.offer(d, 0, match)
    }
    return top
  }

  // The slots the passes so far touched, reset when the ranking ends; a pass that throws midway
  // leaves slots it has not counted, so the whole set is cleared then.
  let totals: PassTotals = { touched: 0, totalWeight: 0 }
  let passing = true
  try {
    const first = totals = bm25f(index, scratch, query, parameters, keep, false, undefined)
    passing = false
    const diverse = parameters.diversity > 0 && parameters.diversityWindow > 1 && severalNeeds(request.query)
    const window = diverse ? Math.max(request.limit, parameters.diversityWindow) : request.limit
    // The hits, with sibling diversity when it is on.
    const finish = function*(hits: ReadonlyArray<RankedDocument>): Generator<Needs, ReadonlyArray<RankedDocument>, void> {
      if (!diverse) return hits.slice(0, request.limit)
      yield* want(index, [], hits.slice(0, parameters.diversityWindow).map((hit) => hit.position))
      return diversify(index, hits, query, parameters).slice(0, request.limit)
    }
    const feedback = parameters.feedbackWeight > 0 && parameters.feedbackDocuments > 0 && query.size > 0
    const top = best(first, feedback ? Math.max(window, parameters.feedbackDocuments) : window)
    if (!feedback) return yield* finish(top.hits)
    const feedbackHits = top.hits.slice(0, parameters.feedbackDocuments)
    yield* want(index, [], feedbackHits.map((hit) => hit.position))
    const expansion = feedbackTerms(index, feedbackHits, query, parameters)
    if (expansion.size === 0) return yield* finish(top.hits)
    yield* want(index, [...expansion.keys()], [])
    // The second pass ranks the task with the feedback terms added. Over the task's own terms it
    // would touch the same documents as the first and sum the same numbers, so it goes on from
    // the first: only the feedback terms are scored, and only over the documents found (unless
    // feedback may bring in new ones).
    if (!parameters.feedbackNewDocuments) {
      for (let i = 0; i < first.touched; i++) found[touched[i]!] = 1
      for (const [d] of exact) if (keep === undefined || keep(d)) found[d] = 1
    }
    passing = true
    totals = bm25f(index, scratch, expansion, parameters, keep, !parameters.feedbackNewDocuments, first)
    passing = false
    return yield* finish(best(totals, window).hits)
  } finally {
    if (passing) {
      scores.fill(0)
      covered.fill(0)
      found.fill(0)
    }
    for (let i = 0; i < totals.touched; i++) {
      const d = touched[i]!
      scores[d] = 0
      covered[d] = 0
      found[d] = 0
    }
    for (const [d] of exact) found[d] = 0
    giveScratch(index, scratch)
  }
}

/** Runs `steps` over an index that holds everything it asks for (one built in memory). */
const runHeld = <A>(steps: Generator<Needs, A, void>): A => {
  const step = steps.next()
  if (step.done !== true) {
    steps.return(undefined as never)
    throw new Error("the index does not hold the postings the ranking needs: rank it with rankSteps")
  }
  return step.value
}

/** Ranks the index's documents against a task: the best `limit`, best first (an index that holds everything: one built in memory). */
export const rankDocuments = (
  index: RouterIndex | RankIndex,
  request: RankRequest,
  parameters: RankParameters = DEFAULT_RANK_PARAMETERS
): ReadonlyArray<RankedDocument> => runHeld(rankSteps(asRankIndex(index), request, parameters))

/** Where a document matched the task's words: each field and the task's words found in it. */
export type MatchedFields = ReadonlyArray<{ readonly field: Field; readonly words: ReadonlyArray<string> }>

/** The task's distinct terms the index holds, each with the first word (as the task spells it) that gives it. */
const explainedTerms = (index: RankIndex, query: string): Array<readonly [number, string]> => {
  const out: Array<readonly [number, string]> = []
  const seen = new Set<string>()
  for (const word of words(query)) {
    const [term] = terms(word)
    if (term === undefined || seen.has(term)) continue
    seen.add(term)
    const id = index.termId(term)
    if (id !== undefined) out.push([id, word])
  }
  return out
}

/** For each of `positions`, the fields of that document that hold each of the task's words (see `explainMatch`), asking for the postings it reads. */
export function* explainSteps(
  index: RankIndex,
  positions: ReadonlyArray<number>,
  query: string
): Generator<Needs, ReadonlyArray<MatchedFields>, void> {
  const explained = explainedTerms(index, query)
  yield* want(index, explained.map(([id]) => id), [])
  const counts = new Float64Array(FIELD_COUNT)
  return positions.map((position) => {
    const byField = new Map<Field, Array<string>>()
    for (const [id, word] of explained) {
      const postings = heldPostings(index, id)
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
  })
}

/** The fields of document `position` that hold each of the task's words (as the task spells them). */
export const explainMatch = (index: RouterIndex | RankIndex, position: number, query: string): MatchedFields =>
  runHeld(explainSteps(asRankIndex(index), [position], query))[0]!

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
