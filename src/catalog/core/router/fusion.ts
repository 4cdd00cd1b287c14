/**
 * Fusing the lexical ranking with an embedding provider's: cosine similarity ranks the
 * documents by vector, and reciprocal rank fusion (each ranking gives `1 / (k + rank)`) merges
 * the two without having to make their scores comparable.
 */

/** The constant of reciprocal rank fusion (60 in the original paper). */
export const RRF_K = 60

/** Cosine similarity of two vectors (0 when either is all zeros or their lengths differ). */
export const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  if (a.length !== b.length) return 0
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** The positions of `vectors` most similar to `query`, best first (ties by position), at most `limit`, kept by `keep`. */
export const rankByVector = (
  query: ReadonlyArray<number>,
  vectors: ReadonlyArray<ReadonlyArray<number>>,
  limit: number,
  keep: ((position: number) => boolean) | undefined
): Array<number> => {
  // The best `limit` kept in order as the documents go by (no sort of 50,000 scores per query).
  const best: Array<readonly [number, number]> = []
  if (limit <= 0) return []
  for (let position = 0; position < vectors.length; position++) {
    if (keep !== undefined && !keep(position)) continue
    const score = cosine(query, vectors[position]!)
    if (best.length === limit && score <= best[limit - 1]![1]) continue
    let at = best.length
    while (at > 0 && best[at - 1]![1] < score) at--
    best.splice(at, 0, [position, score])
    if (best.length > limit) best.pop()
  }
  return best.map(([position]) => position)
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
export const DEFAULT_FUSION: FusionParameters = { k: 5, vectorWeight: 0.3, vectorCandidates: 10 }

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
