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
  const scored: Array<readonly [number, number]> = []
  for (let position = 0; position < vectors.length; position++) {
    if (keep !== undefined && !keep(position)) continue
    scored.push([position, cosine(query, vectors[position]!)])
  }
  return scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit).map(([position]) => position)
}

/**
 * Reciprocal rank fusion of rankings (each a list of positions, best first): the positions by
 * descending fused score, ties in the order of their first appearance in the first ranking
 * that holds them.
 */
export const reciprocalRankFusion = (
  rankings: ReadonlyArray<ReadonlyArray<number>>,
  k: number = RRF_K
): Array<{ readonly position: number; readonly score: number }> => {
  const scores = new Map<number, number>()
  for (const ranking of rankings) {
    ranking.forEach((position, rank) => scores.set(position, (scores.get(position) ?? 0) + 1 / (k + rank + 1)))
  }
  // Map order is first-appearance order; the sort is stable.
  return [...scores].map(([position, score]) => ({ position, score })).sort((a, b) => b.score - a.score)
}
