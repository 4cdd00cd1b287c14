import { describe, expect, it } from "vitest"
import {
  answerNeighbours,
  answerRanking,
  catalogWords,
  clauseVectorRanking,
  DEFAULT_FUSION,
  DEFAULT_NEIGHBOURS,
  fuseRankings,
  interleaveRankings,
  nearestVectors,
  nearestWords,
  rankByVector,
  reciprocalRankFusion,
  taskQuestion,
  vectorHintsOf,
  vectorSet,
  vectorsProblem
} from "../../../src/catalog/core/router/fusion.js"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import { buildIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { ROUTER_FIXTURE } from "./routerFixture.js"
import { taskClauses } from "../../../src/catalog/core/router/rank.js"
import {
  cutWinkTable,
  decodeTable,
  embedTask,
  embedText,
  encodeTable,
  isTable,
  keepsWord,
  quantize,
  rankWeight,
  TABLE_HEADER_BYTES,
  taskRankWeight,
  type TableProblem,
  vectorOf,
  type WordVectors
} from "../../../src/catalog/core/router/wordVectors.js"

import { winkJson } from "./winkFixture.js"

const bytes = (text: string) => new TextEncoder().encode(text)

const SOURCE: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["the", [0.1, 0.2, 0.3]],
  [",", [0.3, 0.2, 0.1]],
  ["cat", [0.5, -1, 0.25]],
  ["U.S.", [1, 1, 1]],
  ["dog", [0.4, -0.9, 0.3]],
  ["paris", [-2, 0.5, 1]]
]

const tableOf = (decoded: WordVectors | TableProblem): WordVectors => {
  if (!isTable(decoded)) throw new Error(decoded.problem)
  return decoded
}

describe("the word-vector table", () => {
  it("is written as a header, float32 scales, signed bytes and the words, byte for byte", () => {
    const out = encodeTable(3, [{ word: "cat", vector: [0.5, -1, 0.25] }, { word: "dog", vector: [0, 0, 0] }])
    const expected = new Uint8Array(TABLE_HEADER_BYTES + 2 * 4 + 2 * 3 + 8)
    const view = new DataView(expected.buffer)
    expected.set(bytes("TMWV"), 0)
    view.setUint32(4, 1, true)
    view.setUint32(8, 3, true)
    view.setUint32(12, 2, true)
    view.setUint32(16, 8, true)
    view.setFloat32(24, 1 / 127, true)
    view.setFloat32(28, 0, true)
    // 0.5 / (1/127) = 63.5 → 64; −1 → −127; 0.25 → 31.75 → 32; the zero vector stays zeros.
    expected.set([64, 256 - 127, 32, 0, 0, 0], 32)
    expected.set(bytes("cat\ndog\n"), 38)
    expect([...out]).toEqual([...expected])
  })

  it("cuts a wink source to the most frequent words the router's split keeps", () => {
    const cut = cutWinkTable(bytes(winkJson(3, SOURCE)), 10_000, 2)
    expect(cut).toBeInstanceOf(Uint8Array)
    // "the" is a stop word, "," and "U.S." are not one word of the router's split.
    expect([...(cut as Uint8Array)]).toEqual([...encodeTable(3, [{ word: "cat", vector: [0.5, -1, 0.25] }, { word: "dog", vector: [0.4, -0.9, 0.3] }])])
    const table = tableOf(decodeTable(cut as Uint8Array))
    expect(table.words).toEqual(["cat", "dog"])
    expect(table.dimensions).toBe(3)
    expect([keepsWord("cat"), keepsWord("the"), keepsWord(","), keepsWord("U.S."), keepsWord("Paris")]).toEqual([true, false, false, false, false])
  })

  it("reads each vector back within half its scale", () => {
    const table = tableOf(decodeTable(cutWinkTable(bytes(winkJson(3, SOURCE)), 10_000) as Uint8Array))
    expect(table.words).toEqual(["cat", "dog", "paris"])
    const source = new Map(SOURCE)
    table.words.forEach((word, rank) => {
      const original = source.get(word)!
      const scale = table.scales[rank]!
      vectorOf(table, rank).forEach((component, i) => expect(Math.abs(component - original[i]!)).toBeLessThanOrEqual(scale / 2 + 1e-9))
    })
  })

  it("refuses a source that is not a wink table, in another order, or cut short", () => {
    const problem = (text: string, size = 10_000) => (cutWinkTable(bytes(text), size) as TableProblem).problem
    expect(problem("[1,2,3]")).toBe("it does not start like a wink embeddings JSON file ({\"precision\":…,\"size\":…,\"dimensions\":…,\"words\":[…")
    const reordered = winkJson(3, SOURCE).replace(/"cat":\[([^\]]*),2\]/, "\"cat\":[$1,9]")
    expect(problem(reordered)).toBe(`its vectors are not in the words' (frequency) order: the vector at byte ${reordered.lastIndexOf("\"U.S.\"")} has index 3 after 9`)
    const whole = winkJson(3, SOURCE)
    const cutAt = whole.lastIndexOf("\"dog\"") + 10
    expect(problem(whole.slice(0, cutAt), whole.length)).toBe(`the 50000 words asked for do not fit in the first ${cutAt} bytes the cut reads (they end before the end of a vector): ask for fewer words`)
    // A hostile source's overlong vector or word is refused before it is split or parsed.
    const longVector = whole.replace("[0.5,-1,0.25,", `[0.5,-1,0.25,${"1,".repeat(100)}`)
    expect(problem(longVector)).toBe(`the vector at byte ${whole.lastIndexOf("\"cat\"")} is longer than 3 numbers, a norm and an index can be`)
    const longWord = whole.replace("\"cat\":[", `"${"c".repeat(300)}":[`)
    expect(problem(longWord)).toBe(`the word at byte ${whole.lastIndexOf("\"cat\"")} is longer than 256 bytes: not a wink embeddings JSON file, or damaged`)
    expect(problem(whole.replace("[0.5,-1,0.25,", "[0.5,-1,"))).toBe(`the vector at byte ${whole.lastIndexOf("\"cat\"")} is not 3 numbers, a norm and an index`)
  })

  it("refuses a damaged table with what is wrong", () => {
    const good = encodeTable(3, [{ word: "cat", vector: [0.5, -1, 0.25] }])
    const problem = (data: Uint8Array) => (decodeTable(data) as TableProblem).problem
    expect(problem(good.subarray(0, 10))).toBe("it has 10 bytes, fewer than the 24 of the header")
    expect(problem(good.subarray(0, good.length - 1))).toBe("it has 34 bytes where its header says 35 (1 words of 3 dimensions): truncated or damaged")
    const magic = good.slice()
    magic[0] = 0x58
    expect(problem(magic)).toBe("it does not start with TMWV: not a word-vector table")
    const version = good.slice()
    new DataView(version.buffer).setUint32(4, 2, true)
    expect(problem(version)).toBe("its layout is version 2, this tool-map reads version 1")
    const dimensions = good.slice()
    new DataView(dimensions.buffer).setUint32(8, 5000, true)
    expect(problem(dimensions)).toBe("it has 5000 dimensions (1 to 1024 are read)")
    const words = good.slice()
    words.set(bytes("ca\nt"), good.length - 4)
    expect(problem(words)).toBe("its words section does not end with a newline")
    words.set(bytes("c\nt\n"), good.length - 4)
    expect(problem(words)).toBe("its words section holds 2 words where its header says 1")
  })
})

describe("the embedding of a text", () => {
  const table = tableOf(decodeTable(encodeTable(2, [
    { word: "weather", vector: [1, 0] },
    { word: "forecast", vector: [0, 1] },
    { word: "city", vector: [1, 1] }
  ])))

  it("is the rank-weighted mean of its known words, of unit length, the same for the same text", () => {
    const vector = embedText(table, "Weather forecast")
    const w0 = rankWeight(0) * table.scales[0]! * 127
    const w1 = rankWeight(1) * table.scales[1]! * 127
    const length = Math.hypot(w0, w1)
    expect(vector).toEqual([w0 / length, w1 / length])
    expect(embedText(table, "Weather forecast")).toEqual(vector)
  })

  it("ignores stop words and words the table does not hold", () => {
    expect(embedText(table, "the weather in zzyzx, please")).toEqual(embedText(table, "weather"))
    expect(embedText(table, "weather")).toEqual([1, 0])
  })

  it("weighs a task's rarer words more than a tool text's does (the rank weight squared)", () => {
    expect(taskRankWeight(7)).toBe(rankWeight(7) ** 2)
    const w0 = taskRankWeight(0) * table.scales[0]! * 127
    const w1 = taskRankWeight(1) * table.scales[1]! * 127
    const length = Math.hypot(w0, w1)
    expect(embedTask(table, "Weather forecast")).toEqual([w0 / length, w1 / length])
    // forecast (rank 1) leans the task's vector further from weather (rank 0) than in a tool's text.
    expect(embedTask(table, "Weather forecast")[1]!).toBeGreaterThan(embedText(table, "Weather forecast")[1]!)
    // One word: the same direction either way.
    expect(embedTask(table, "the weather")).toEqual(embedText(table, "weather"))
  })

  it("is all zeros for a text without a known word", () => {
    expect(embedText(table, "")).toEqual([0, 0])
    expect(embedText(table, "the and of zzyzx")).toEqual([0, 0])
  })
})

describe("fusion", () => {
  it("weights each ranking's reciprocal ranks", () => {
    expect(reciprocalRankFusion([[0, 1], [1, 2]], 10, [1, 0.5])).toEqual([
      { position: 1, score: 1 / 12 + 0.5 / 11 },
      { position: 0, score: 1 / 11 },
      { position: 2, score: 0.5 / 12 }
    ])
  })

  it("keeps exact-name hits first with their lexical score and fuses the rest, the vector ranking cut to its candidates", () => {
    const lexical = [{ position: 4, score: 9, exact: 2 }, { position: 0, score: 3, exact: 0 }, { position: 1, score: 2, exact: 0 }]
    const vector = [1, 4, 2, 3, ...Array.from({ length: 20 }, (_, i) => 10 + i)]
    const fused = fuseRankings(lexical, vector, { k: 10, vectorWeight: 0.5, vectorCandidates: 3 })
    expect(fused).toEqual([
      { position: 4, score: 9 },
      { position: 1, score: 1 / 12 + 0.5 / 11 },
      { position: 0, score: 1 / 11 },
      { position: 2, score: 0.5 / 13 }
    ])
    expect(fuseRankings(lexical, [], DEFAULT_FUSION).map((hit) => hit.position)).toEqual([4, 0, 1])
  })

  it("ranks by cosine, best first, ties by position, at most the limit, only what keep keeps", () => {
    // A vector of another length counts as zeros.
    const vectors = vectorSet([[1, 0], [0, 1], [1, 1], [2, 0], [0, 0], [-1, 0], [1, 0, 0]])
    expect(rankByVector([3, 0], vectors, 10, undefined)).toEqual([0, 3, 2, 1, 4, 6, 5])
    expect(rankByVector([1, 0], vectors, 2, undefined)).toEqual([0, 3])
    expect(rankByVector([1, 0], vectors, 3, (position) => position !== 0)).toEqual([3, 2, 1])
    expect(rankByVector([1, 0], vectors, 0, undefined)).toEqual([])
    expect(rankByVector([1, 0, 0], vectors, 5, undefined)).toEqual([])
    expect([...vectorSet([[3, 4]]).unit]).toEqual([Math.fround(0.6), Math.fround(0.8)])
  })

  it("takes rankings in turns, each position once, at most the limit", () => {
    expect(interleaveRankings([[0, 1, 2], [3, 0, 4], [5]], 10)).toEqual([0, 3, 5, 1, 2, 4])
    expect(interleaveRankings([[0, 1, 2], [3, 0, 4], [5]], 4)).toEqual([0, 3, 5, 1])
    expect(interleaveRankings([], 3)).toEqual([])
  })

  it("keeps positions once, as many as it can up to the limit, each ranking's best among the first ones (property)", () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let trial = 0; trial < 200; trial++) {
      const rankings = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        [...new Set(Array.from({ length: Math.floor(random() * 8) }, () => Math.floor(random() * 12)))])
      const limit = Math.floor(random() * 15)
      const out = interleaveRankings(rankings, limit)
      const all = new Set(rankings.flat())
      expect(new Set(out).size).toBe(out.length)
      expect(out.length).toBe(Math.min(limit, all.size))
      if (limit >= rankings.length) {
        for (const ranking of rankings) if (ranking.length > 0) expect(out.slice(0, rankings.length)).toContain(ranking[0])
      }
    }
  })

  it("ranks a task by its whole vector and its clauses' in turns when two or more clauses have a vector, else by the whole task", () => {
    const vectors = vectorSet([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9], [-1, 0]])
    // Mostly the first need: the whole task's vector ranks the second need's tools after both of the first.
    expect(rankByVector([1, 0.5], vectors, 3, undefined)).toEqual([1, 0, 3])
    // The whole's best (1), the first clause's (0), the second's (2): the second need is in the top 3.
    expect(clauseVectorRanking([1, 0.5], [[1, 0], [0, 1]], vectors, 3, undefined)).toEqual([1, 0, 2])
    expect(clauseVectorRanking([1, 0.5], [[1, 0], [0, 1]], vectors, 5, undefined)).toEqual([1, 0, 2, 3, 4])
    // A task without a vector of its own (it cannot happen with clauses that have one, but the rule holds): the clauses alone.
    expect(clauseVectorRanking([0, 0], [[1, 0], [0, 1]], vectors, 3, undefined)).toEqual([0, 2, 1])
    expect(clauseVectorRanking([1, 0.5], [[1, 0], [0, 0]], vectors, 3, undefined)).toEqual([1, 0, 3])
    expect(clauseVectorRanking([1, 0.5], [[1, 0], [0, 1]], vectors, 3, (position) => position !== 0)).toEqual([1, 2, 3])
    expect(clauseVectorRanking([0, 0], [[0, 0]], vectors, 3, undefined)).toEqual([])
  })

  it("asks an embedder for the task, its clauses when it joins two needs or more, and its words the catalog lacks", () => {
    const index = buildIndex(routerDocuments(buildCatalog(ROUTER_FIXTURE), ROUTER_FIXTURE))
    expect(taskQuestion(index, "chat with the team")).toEqual({ texts: ["chat with the team", "chat", "team"], clauses: 0 })
    expect(taskQuestion(index, "post a message; then open an issue")).toEqual({
      texts: ["post a message; then open an issue", "post a message", "open an issue", "open"],
      clauses: 2
    })
  })

  it("reads an embedder's answer: the ranking from the task and its clauses, neighbours from the rest", () => {
    const documents = vectorSet([[1, 0], [0, 1], [0.7, 0.7]])
    const words = { words: ["message", "issue"], set: vectorSet([[1, 0], [0, 1]]) }
    const question = { texts: ["t", "c1", "c2", "unknown"], clauses: 2 }
    const answer = [[1, 1], [1, 0], [0, 1], [0, 1]]
    expect(answerRanking(question, answer, documents, 3, undefined)).toEqual(clauseVectorRanking([1, 1], [[1, 0], [0, 1]], documents, 3, undefined))
    expect(answerRanking(question, answer, documents, 3, undefined)).toEqual([2, 0, 1])
    expect(answerNeighbours(question, answer, words)).toEqual([{ word: "issue", weight: DEFAULT_NEIGHBOURS.weight }])
    expect(vectorHintsOf(question, answer, { documents, words }, 3, undefined)).toEqual({
      ranking: [2, 0, 1],
      related: [{ word: "issue", weight: DEFAULT_NEIGHBOURS.weight }]
    })
  })

  it("says what is wrong with an embedder's vectors: their count, their lengths, a task's length against the tools'", () => {
    expect(vectorsProblem(2, [[1, 0], [0, 1]])).toBeUndefined()
    expect(vectorsProblem(2, [[1, 0], [0, 1]], 2)).toBeUndefined()
    expect(vectorsProblem(0, [])).toBeUndefined()
    expect(vectorsProblem(3, [[1, 0]])).toBe("it gave 1 vector for 3 texts")
    expect(vectorsProblem(1, [[1], [2]])).toBe("it gave 2 vectors for 1 text")
    expect(vectorsProblem(2, [[1, 0], [0, 1, 2]])).toBe("its vectors are not all of one length (2 and 3)")
    expect(vectorsProblem(2, [[1, 0], [0]], 2)).toBe("it gave a task's vector of 1 numbers where the tools' have 2")
  })

  it("gives a word's nearest catalog words at or above the minimum cosine, weighted by it", () => {
    expect(catalogWords(["Post a message to the channel", "post_message: message channels"])).toEqual(["post", "message", "channel", "channels"])
    const vocabulary = { words: ["message", "channel", "issue", "file"], set: vectorSet([[1, 0], [0.6, 0.8], [0, 1], [-1, 0]]) }
    expect(nearestVectors([1, 0], vocabulary.set, 2, undefined)).toEqual([[0, 1], [1, Math.fround(0.6)]])
    expect(nearestWords([2, 0], vocabulary, { count: 3, minimum: 0.5, weight: 0.5 })).toEqual([
      { word: "message", weight: 0.5 },
      { word: "channel", weight: 0.5 * Math.fround(0.6) }
    ])
    expect(nearestWords([2, 0], vocabulary, { count: 1, minimum: 0.5, weight: 0.5 })).toEqual([{ word: "message", weight: 0.5 }])
    expect(nearestWords([0, 0], vocabulary, { count: 3, minimum: 0.5, weight: 0.5 })).toEqual([])
  })

  it("cuts a task into the needs it joins", () => {
    expect(taskClauses("Transfer $5000 to savings and calculate the interest after 5 years.")).toEqual([
      "Transfer $5000 to savings",
      "calculate the interest after 5 years."
    ])
    // A clause of one word joins the one before; a second sentence and a semicolon cut.
    expect(taskClauses("Book a hotel in Paris, cheap, then order food. Convert euros; pay the bill")).toEqual([
      "Book a hotel in Paris cheap",
      "order food.",
      "Convert euros",
      "pay the bill"
    ])
    expect(taskClauses("and then")).toEqual([])
    expect(taskClauses("find the invoice")).toEqual(["find the invoice"])
  })

  it("quantizes to ±127 around the largest component", () => {
    expect([...quantize([2, -1, 0]).bytes]).toEqual([127, -64, 0])
    expect(quantize([0, 0]).scale).toBe(0)
  })
})
