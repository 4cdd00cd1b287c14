/**
 * Fusing the lexical ranking with an embedding provider's: what the router asks the provider about
 * a task and how it reads the answer (`taskQuestion`, `vectorHintsOf`), cosine similarity ranking
 * the documents by vector, the neighbours of the task's unknown words, and reciprocal rank fusion
 * (each ranking gives `1 / (k + rank)`) merging the two without having to make their scores
 * comparable.
 */
import { STOP_WORDS, words } from "./analyze.js"
import type { RouterIndex } from "./invertedIndex.js"
import { taskClauses, wordsUnknownTo } from "./rank.js"
import type { RankIndex } from "./rankIndex.js"

/** The constant of reciprocal rank fusion (60 in the original paper). */
export const RRF_K = 60

/**
 * Document vectors ready to rank: each scaled to unit length (a zero vector, or one whose length
 * differs from the first's, stays zeros), in one flat float32 array (half the memory of number
 * arrays; a query is one pass over it).
 */
export interface VectorSet {
  readonly dimensions: number
  readonly count: number
  readonly unit: Float32Array
}

/** The {@link VectorSet} of `vectors`. */
export const vectorSet = (vectors: ReadonlyArray<ReadonlyArray<number>>): VectorSet => {
  const dimensions = vectors[0]?.length ?? 0
  const unit = new Float32Array(vectors.length * dimensions)
  vectors.forEach((vector, row) => {
    if (vector.length !== dimensions) return
    let norm = 0
    for (const component of vector) norm += component * component
    if (norm === 0) return
    const scale = 1 / Math.sqrt(norm)
    for (let i = 0; i < dimensions; i++) unit[row * dimensions + i] = vector[i]! * scale
  })
  return { dimensions, count: vectors.length, unit }
}

/**
 * The positions of the set's vectors most similar to `query` by cosine, with their cosines, best
 * first (ties by position), at most `limit`, kept by `keep`; none when the query's length is not
 * the set's.
 */
export const nearestVectors = (
  query: ReadonlyArray<number>,
  set: VectorSet,
  limit: number,
  keep: ((position: number) => boolean) | undefined
): Array<readonly [position: number, cosine: number]> => {
  const { dimensions, unit } = set
  if (limit <= 0 || query.length !== dimensions) return []
  let norm = 0
  for (const component of query) norm += component * component
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm)
  const q = Float64Array.from(query, (component) => component * scale)
  // The best `limit` kept in order as the documents go by (no sort of 50,000 scores per query).
  const best: Array<readonly [number, number]> = []
  for (let position = 0; position < set.count; position++) {
    if (keep !== undefined && !keep(position)) continue
    let score = 0
    for (let i = 0, at = position * dimensions; i < dimensions; i++) score += q[i]! * unit[at + i]!
    if (best.length === limit && score <= best[limit - 1]![1]) continue
    let at = best.length
    while (at > 0 && best[at - 1]![1] < score) at--
    best.splice(at, 0, [position, score])
    if (best.length > limit) best.pop()
  }
  return best
}

/** The positions of `nearestVectors`. */
export const rankByVector = (
  query: ReadonlyArray<number>,
  set: VectorSet,
  limit: number,
  keep: ((position: number) => boolean) | undefined
): Array<number> => nearestVectors(query, set, limit, keep).map(([position]) => position)

/** The words of a catalog's texts (stop words left out, each once) and their vectors. */
export interface WordSet {
  readonly words: ReadonlyArray<string>
  readonly set: VectorSet
}

/** The distinct words of `texts` an embedder is asked for (the router's word split, no stop words), in order of appearance. */
export const catalogWords = (texts: ReadonlyArray<string>): Array<string> => {
  const out = new Set<string>()
  for (const text of texts) for (const word of words(text)) if (!STOP_WORDS.has(word)) out.add(word)
  return [...out]
}

/** How a task word the catalog lacks brings the catalog's words nearest to it into the lexical ranking. */
export interface NeighbourParameters {
  /** At most this many words per task word. */
  readonly count: number
  /** Only words at this cosine or more. */
  readonly minimum: number
  /** A word's weight in the task: this × its cosine. */
  readonly weight: number
}

/** The neighbours the router adds (chosen on the development sets: bench/results/router-vectors-2026-12-07.md). */
export const DEFAULT_NEIGHBOURS: NeighbourParameters = { count: 10, minimum: 0.45, weight: 0.25 }

/** The words of `vocabulary` nearest to a word's vector, each with its weight (see `NeighbourParameters`). */
export const nearestWords = (
  vector: ReadonlyArray<number>,
  vocabulary: WordSet,
  parameters: NeighbourParameters = DEFAULT_NEIGHBOURS
): Array<{ readonly word: string; readonly weight: number }> =>
  nearestVectors(vector, vocabulary.set, parameters.count, undefined)
    .filter(([, cosine]) => cosine >= parameters.minimum)
    .map(([position, cosine]) => ({ word: vocabulary.words[position]!, weight: parameters.weight * cosine }))

/**
 * Rankings taken in turns (the first of each, then the second of each …), each position once,
 * at most `limit`.
 */
export const interleaveRankings = (rankings: ReadonlyArray<ReadonlyArray<number>>, limit: number): Array<number> => {
  const out: Array<number> = []
  const seen = new Set<number>()
  const longest = Math.max(0, ...rankings.map((ranking) => ranking.length))
  for (let rank = 0; rank < longest && out.length < limit; rank++) {
    for (const ranking of rankings) {
      const position = ranking[rank]
      if (position === undefined || seen.has(position)) continue
      seen.add(position)
      out.push(position)
      if (out.length === limit) break
    }
  }
  return out
}

const isZero = (vector: ReadonlyArray<number>): boolean => vector.every((component) => component === 0)

/**
 * The vector ranking of a task from its vector and its clauses' (`taskClauses`): for a task of two
 * clauses or more with a vector, the whole task's ranking and its clauses' in turns (the whole
 * first), so each need the task joins has its best tools near the top (a mean over the whole task
 * drifts to its main topic) while a clause that only sets the scene ("my website is failing.")
 * does not push the task's own best tools down; else the whole task's ranking. Empty when no
 * vector is usable.
 */
export const clauseVectorRanking = (
  whole: ReadonlyArray<number>,
  clauses: ReadonlyArray<ReadonlyArray<number>>,
  set: VectorSet,
  limit: number,
  keep: ((position: number) => boolean) | undefined
): Array<number> => {
  const usable = clauses.filter((vector) => !isZero(vector))
  if (usable.length >= 2) {
    return interleaveRankings([...(isZero(whole) ? [] : [whole]), ...usable].map((vector) => rankByVector(vector, set, limit, keep)), limit)
  }
  return isZero(whole) ? [] : rankByVector(whole, set, limit, keep)
}

/**
 * Reciprocal rank fusion of rankings (each a list of positions, best first): the positions by
 * descending fused score, ties in the order of their first appearance in the first ranking
 * that holds them.
 */
export const reciprocalRankFusion = (
  rankings: ReadonlyArray<ReadonlyArray<number>>,
  k: number = RRF_K,
  /** The weight of each ranking's share (1 each by default). */
  weights: ReadonlyArray<number> = []
): Array<{ readonly position: number; readonly score: number }> => {
  const scores = new Map<number, number>()
  rankings.forEach((ranking, which) => {
    const weight = weights[which] ?? 1
    ranking.forEach((position, rank) => scores.set(position, (scores.get(position) ?? 0) + weight / (k + rank + 1)))
  })
  // Map order is first-appearance order; the sort is stable.
  return [...scores].map(([position, score]) => ({ position, score })).sort((a, b) => b.score - a.score)
}

/** How the router fuses its lexical ranking with an embedder's. */
export interface FusionParameters {
  /** The constant of reciprocal rank fusion. */
  readonly k: number
  /** The weight of the vector ranking's share (the lexical one weighs 1). */
  readonly vectorWeight: number
  /** How many of the vector ranking's best documents take part. */
  readonly vectorCandidates: number
}

/** The fusion the router uses (chosen on the development sets: bench/results/router-vectors-2026-12-07.md). */
export const DEFAULT_FUSION: FusionParameters = { k: 4, vectorWeight: 0.5, vectorCandidates: 20 }

/**
 * The lexical ranking (best first; a hit with `exact` > 0 matched a tool's name exactly) fused
 * with a vector ranking: exact-name hits stay first, in their order and with their lexical
 * score, and reciprocal rank fusion orders the rest.
 */
export const fuseRankings = (
  lexical: ReadonlyArray<{ readonly position: number; readonly score: number; readonly exact: number }>,
  vector: ReadonlyArray<number>,
  parameters: FusionParameters = DEFAULT_FUSION
): Array<{ readonly position: number; readonly score: number }> => {
  const exact = lexical.filter((hit) => hit.exact > 0)
  const exactPositions = new Set(exact.map((hit) => hit.position))
  const fused = reciprocalRankFusion(
    [lexical.filter((hit) => hit.exact === 0).map((hit) => hit.position), vector.slice(0, parameters.vectorCandidates)],
    parameters.k,
    [1, parameters.vectorWeight]
  )
  return [...exact.map((hit) => ({ position: hit.position, score: hit.score })), ...fused.filter((hit) => !exactPositions.has(hit.position))]
}

/** The text of a tool an embedder is given: its short name and its description. */
export const toolEmbeddingText = (tool: { readonly shortName: string; readonly description: string }): string =>
  `${tool.shortName}: ${tool.description}`

/**
 * What the router asks an embedder about a task, in this order: the task; its clauses when it
 * joins two needs or more (`taskClauses`); its words no tool's text holds (`wordsUnknownTo`).
 */
export interface TaskQuestion {
  readonly texts: ReadonlyArray<string>
  /** How many of `texts`, after the task, are its clauses. */
  readonly clauses: number
}

/** The {@link TaskQuestion} of `query` over a tool set's index. */
export const taskQuestion = (index: RouterIndex | RankIndex, query: string): TaskQuestion => {
  const clauses = taskClauses(query)
  const joined = clauses.length >= 2 ? clauses : []
  return { texts: [query, ...joined, ...wordsUnknownTo(index, query)], clauses: joined.length }
}

/** What an embedder adds to a ranking: its own ranking of the task, and catalog words for the task's words the catalog lacks. */
export interface VectorHints {
  readonly ranking: ReadonlyArray<number>
  readonly related: ReadonlyArray<{ readonly word: string; readonly weight: number }>
}

/** The task's vector ranking from an embedder's answer to a {@link TaskQuestion} (`clauseVectorRanking`). */
export const answerRanking = (
  question: TaskQuestion,
  answer: ReadonlyArray<ReadonlyArray<number>>,
  documents: VectorSet,
  limit: number,
  keep: ((position: number) => boolean) | undefined
): Array<number> => clauseVectorRanking(answer[0] ?? [], answer.slice(1, 1 + question.clauses), documents, limit, keep)

/** For each task word the catalog lacks, the catalog's words nearest to it (`nearestWords`), from an embedder's answer. */
export const answerNeighbours = (
  question: TaskQuestion,
  answer: ReadonlyArray<ReadonlyArray<number>>,
  words: WordSet
): Array<{ readonly word: string; readonly weight: number }> =>
  answer.slice(1 + question.clauses).flatMap((vector) => nearestWords(vector, words))

/**
 * The hints from an embedder's answer to a {@link TaskQuestion} (one vector per text, checked by
 * `vectorsProblem`): the task's ranking (at most `limit`, kept by `keep`) and the neighbours.
 */
export const vectorHintsOf = (
  question: TaskQuestion,
  answer: ReadonlyArray<ReadonlyArray<number>>,
  catalog: { readonly documents: VectorSet; readonly words: WordSet },
  limit: number,
  keep: ((position: number) => boolean) | undefined
): VectorHints => ({
  ranking: answerRanking(question, answer, catalog.documents, limit, keep),
  related: answerNeighbours(question, answer, catalog.words)
})

/**
 * What is wrong with an embedder's `vectors` for `asked` texts, as a sentence, or undefined: not
 * one vector per text, or vectors not all of one length (`dimensions` when given: the length of
 * the tools' vectors, which a task's must share).
 */
export const vectorsProblem = (asked: number, vectors: ReadonlyArray<ReadonlyArray<number>>, dimensions?: number): string | undefined => {
  if (vectors.length !== asked) return `it gave ${vectors.length} vector${vectors.length === 1 ? "" : "s"} for ${asked} text${asked === 1 ? "" : "s"}`
  const expected = dimensions ?? vectors[0]?.length ?? 0
  const odd = vectors.findIndex((vector) => vector.length !== expected)
  if (odd < 0) return undefined
  return dimensions === undefined
    ? `its vectors are not all of one length (${expected} and ${vectors[odd]!.length})`
    : `it gave a task's vector of ${vectors[odd]!.length} numbers where the tools' have ${expected}`
}
