/**
 * The router's inverted index: for each term, the documents holding it and how often in each
 * field; for each document, its field lengths and its distinct terms (for feedback). Documents
 * are only ever appended (`addDocuments`), so a catalog that gains tools extends its index
 * instead of building it again; the statistics that depend on the whole collection (average
 * field lengths) are read at query time.
 */
import { nameKey, stem, STOP_WORDS, words } from "./analyze.js"
import { FIELDS, type RouterDocument } from "./document.js"

/** How many fields a document has. */
export const FIELD_COUNT = FIELDS.length

// Each field's count of a term in a document takes 5 bits of one integer (at most 31).
const TF_BITS = 5
const TF_MAX = (1 << TF_BITS) - 1

/** The documents holding one term, in the order they were added, with their per-field counts. */
export interface Postings {
  docs: Int32Array
  /** `FIELD_COUNT` counts of TF_BITS bits each. */
  counts: Int32Array
  size: number
}

/** What the index keeps of one document. */
export interface IndexedDocument {
  readonly document: RouterDocument
  /** `nameKey` of the full name and of the short name. */
  readonly nameKey: string
  readonly shortKey: string
  /** Position of its group in `RouterIndex.groups`, or -1. */
  readonly group: number
  /** Its distinct term ids, and for each the raw field-weighted count (for feedback). */
  readonly termIds: Int32Array
  readonly termCounts: Float32Array
}

/** A growing inverted index. */
export interface RouterIndex {
  readonly terms: Map<string, number>
  readonly postings: Array<Postings>
  readonly documents: Array<IndexedDocument>
  readonly byId: Map<string, number>
  /** `nameKey` of each full and short name, and the documents of that name. */
  readonly keys: Map<string, Array<number>>
  /** Field lengths, `FIELD_COUNT` per document. */
  lengths: Float32Array
  /** The sum of each field's length over all documents. */
  readonly totals: Float64Array
  /** Group names, and the documents of each. */
  readonly groups: Array<string>
  readonly groupIds: Map<string, number>
  readonly groupSizes: Array<number>
  /** Each lowercase word met in a field other than the name, and its term id (-1 for a stop word): one lookup per word instead of three. */
  readonly wordTerms: Map<string, number>
}

/** An empty index. */
export const emptyIndex = (): RouterIndex => ({
  terms: new Map(),
  postings: [],
  documents: [],
  byId: new Map(),
  keys: new Map(),
  lengths: new Float32Array(64 * FIELD_COUNT),
  totals: new Float64Array(FIELD_COUNT),
  groups: [],
  groupIds: new Map(),
  groupSizes: [],
  wordTerms: new Map()
})

/** The field counts of term `postingIndex` of `postings`, unpacked into `into`. */
export const unpackCounts = (packed: number, into: Float64Array): void => {
  for (let f = 0; f < FIELD_COUNT; f++) into[f] = (packed >>> (f * TF_BITS)) & TF_MAX
}

/**
 * A name run together (`airqualityforecast`) split into the words of its own texts that spell
 * it (`air`, `quality`, `forecast`): the fewest known pieces of at least three letters, and
 * nothing when no split covers at least two thirds of it with two pieces or more.
 */
export const splitRunTogether = (word: string, known: ReadonlySet<string>): ReadonlyArray<string> => {
  const n = word.length
  if (n < 6) return []
  // best[i]: [covered letters, -pieces] of the best split of word[0, i); pieces by back-pointer.
  const covered = new Int32Array(n + 1)
  const pieces = new Int32Array(n + 1)
  const from = new Int32Array(n + 1).fill(-1)
  for (let i = 1; i <= n; i++) {
    // An uncovered letter.
    covered[i] = covered[i - 1]!
    pieces[i] = pieces[i - 1]!
    from[i] = -1
    for (let j = Math.max(0, i - 20); j <= i - 3; j++) {
      if (!known.has(word.slice(j, i))) continue
      const c = covered[j]! + (i - j)
      const p = pieces[j]! + 1
      if (c > covered[i]! || (c === covered[i]! && p < pieces[i]!)) {
        covered[i] = c
        pieces[i] = p
        from[i] = j
      }
    }
  }
  if (pieces[n]! < 2 || covered[n]! * 3 < n * 2) return []
  const out: Array<string> = []
  for (let i = n; i > 0;) {
    const j = from[i]!
    if (j < 0) {
      i -= 1
      continue
    }
    out.push(word.slice(j, i))
    i = j
  }
  return out.reverse()
}

/** The terms of a document's name field: its words, the pieces of a run-together word, the whole name. */
const nameTerms = (document: RouterDocument): Array<string> => {
  const out: Array<string> = []
  let own: string | undefined
  let known: Set<string> | undefined
  for (const word of words(document.texts.name)) {
    if (!STOP_WORDS.has(word)) out.push(stem(word))
    if (word.length < 6 || /\p{N}/u.test(word)) continue
    own ??= `${document.texts.description}\n${document.texts.group}\n${document.texts.parameters}`.toLowerCase()
    // A word its own texts spell as it is needs no split.
    if (own.includes(word)) continue
    known ??= new Set(words(own).filter((w) => w.length >= 3))
    for (const piece of splitRunTogether(word, known)) if (!STOP_WORDS.has(piece)) out.push(stem(piece))
  }
  return out
}

/** The id of `term`, a new one (with empty postings) when the index has not met it. */
const termId = (index: RouterIndex, term: string): number => {
  let id = index.terms.get(term)
  if (id === undefined) {
    id = index.postings.length
    index.terms.set(term, id)
    index.postings.push({ docs: new Int32Array(1), counts: new Int32Array(1), size: 0 })
  }
  return id
}

/** The term ids of a text, in order (`terms` of it, through the index's word cache). */
const fieldTermIds = (index: RouterIndex, text: string): Array<number> => {
  const out: Array<number> = []
  const cache = index.wordTerms
  for (const word of words(text)) {
    let id = cache.get(word)
    if (id === undefined) {
      id = STOP_WORDS.has(word) ? -1 : termId(index, stem(word))
      cache.set(word, id)
    }
    if (id >= 0) out.push(id)
  }
  return out
}

const newInt32 = (n: number) => new Int32Array(n)
const newFloat32 = (n: number) => new Float32Array(n)

const grow = <T extends Int32Array | Float32Array>(array: T, size: number, make: (n: number) => T): T => {
  if (size <= array.length) return array
  const next = make(Math.max(size, array.length * 2))
  next.set(array)
  return next
}

/**
 * Appends documents to the index (in place); a document whose id is already there is skipped.
 * Returns the positions of the documents added.
 */
export const addDocuments = (index: RouterIndex, documents: ReadonlyArray<RouterDocument>): ReadonlyArray<number> => {
  const added: Array<number> = []
  // One document's counts: the slot of each term it holds (valid when `stamp` of the term is
  // the document's position), and FIELD_COUNT counts per slot.
  let stamp = new Int32Array(Math.max(1024, index.postings.length)).fill(-1)
  let slotOf = new Int32Array(stamp.length)
  let slotTerms = new Int32Array(256)
  let scratch = new Int32Array(256 * FIELD_COUNT)
  for (const document of documents) {
    if (index.byId.has(document.id)) continue
    const position = index.documents.length
    index.lengths = grow(index.lengths, (position + 1) * FIELD_COUNT, newFloat32)
    let slots = 0
    for (let f = 0; f < FIELD_COUNT; f++) {
      const field = FIELDS[f]!
      const fieldIds = field === "name" ? nameTerms(document).map((term) => termId(index, term)) : fieldTermIds(index, document.texts[field])
      index.lengths[position * FIELD_COUNT + f] = fieldIds.length
      index.totals[f]! += fieldIds.length
      if (index.postings.length > stamp.length) {
        const size = Math.max(index.postings.length, stamp.length * 2)
        const next = new Int32Array(size).fill(-1)
        next.set(stamp)
        stamp = next
        slotOf = grow(slotOf, size, newInt32)
      }
      for (const id of fieldIds) {
        let slot: number
        if (stamp[id] === position) {
          slot = slotOf[id]!
        } else {
          slot = slots++
          stamp[id] = position
          slotOf[id] = slot
          slotTerms = grow(slotTerms, slots, newInt32)
          slotTerms[slot] = id
          scratch = grow(scratch, slots * FIELD_COUNT, newInt32)
          scratch.fill(0, slot * FIELD_COUNT, slots * FIELD_COUNT)
        }
        scratch[slot * FIELD_COUNT + f]! += 1
      }
    }
    const termIds = new Int32Array(slots)
    const termCounts = new Float32Array(slots)
    for (let slot = 0; slot < slots; slot++) {
      const id = slotTerms[slot]!
      let packed = 0
      let total = 0
      for (let f = 0; f < FIELD_COUNT; f++) {
        const count = scratch[slot * FIELD_COUNT + f]!
        packed |= Math.min(count, TF_MAX) << (f * TF_BITS)
        total += count
      }
      const postings = index.postings[id]!
      if (postings.size === postings.docs.length) {
        postings.docs = grow(postings.docs, postings.size + 1, newInt32)
        postings.counts = grow(postings.counts, postings.size + 1, newInt32)
      }
      postings.docs[postings.size] = position
      postings.counts[postings.size] = packed
      postings.size += 1
      termIds[slot] = id
      termCounts[slot] = total
    }
    let group = -1
    if (document.group !== "") {
      const known = index.groupIds.get(document.group)
      if (known === undefined) {
        group = index.groups.length
        index.groupIds.set(document.group, group)
        index.groups.push(document.group)
        index.groupSizes.push(1)
      } else {
        group = known
        index.groupSizes[group]! += 1
      }
    }
    const indexed: IndexedDocument = {
      document,
      nameKey: nameKey(document.name),
      shortKey: nameKey(document.shortName),
      group,
      termIds,
      termCounts
    }
    index.documents.push(indexed)
    for (const key of new Set([indexed.nameKey, indexed.shortKey])) {
      const named = index.keys.get(key)
      if (named === undefined) index.keys.set(key, [position])
      else named.push(position)
    }
    index.byId.set(document.id, position)
    added.push(position)
  }
  return added
}

/** A new index of `documents`. */
export const buildIndex = (documents: ReadonlyArray<RouterDocument>): RouterIndex => {
  const index = emptyIndex()
  addDocuments(index, documents)
  return index
}

/** The bytes the index's typed arrays hold (its maps and objects come on top). */
export const typedBytes = (index: RouterIndex): number => {
  let bytes = index.lengths.byteLength + index.totals.byteLength
  for (const postings of index.postings) bytes += postings.docs.byteLength + postings.counts.byteLength
  for (const document of index.documents) bytes += document.termIds.byteLength + document.termCounts.byteLength
  return bytes
}
