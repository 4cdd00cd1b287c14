/**
 * The router's inverted index: for each term, the documents holding it and how often in each
 * field; for each document, its field lengths and its distinct terms (for feedback). Documents
 * are only ever appended (`addDocuments`), so a catalog that gains tools extends its index
 * instead of building it again; the statistics that depend on the whole collection (average
 * field lengths) are read at query time. Everything per posting and per document term lives in
 * typed arrays (no object per posting), which is also what `routerIndexFile.ts` writes.
 */
import { classOf, nameKey, stem, STOP_WORDS, words } from "./analyze.js"
import { FIELDS, type RouterDocument } from "./document.js"
import { runSteps, type Steps } from "./steps.js"
import { hashOf, WordTable } from "./wordTable.js"

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

/** What ranking needs of a document: its names, group and intents (not its texts). */
export type DocumentHead = Omit<RouterDocument, "texts">

/** What the index keeps of one document. */
export interface IndexedDocument {
  readonly document: DocumentHead
  /** `nameKey` of the full name and of the short name. */
  readonly nameKey: string
  readonly shortKey: string
  /** Position of its group in `RouterIndex.groups`, or -1. */
  readonly group: number
}

/** A growing inverted index. */
export interface RouterIndex {
  readonly terms: Map<string, number>
  readonly postings: Array<Postings>
  readonly documents: Array<IndexedDocument>
  readonly byId: Map<string, number>
  /**
   * `keyHash` of each document's `nameKey` and `shortKey` (two per document): a task's name is
   * looked up by its hash, then checked against the keys; a map of 100,000 keys and their
   * lists cost a tenth of a build at 50,000 tools.
   */
  nameHashes: Int32Array
  /** Field lengths, `FIELD_COUNT` per document. */
  lengths: Float32Array
  /** The sum of each field's length over all documents. */
  readonly totals: Float64Array
  /** Group names, and the documents of each. */
  readonly groups: Array<string>
  readonly groupIds: Map<string, number>
  readonly groupSizes: Array<number>
  /** Each lowercase word met in a field other than the name, and its term id (-1 for a stop word): one lookup per word instead of three. */
  readonly wordTerms: WordTable
  /**
   * Each document's distinct term ids (`docTerms`) and for each its count over all fields
   * (`docCounts`, for feedback), document `d`'s from `docStart[d]` to `docStart[d + 1]`.
   */
  docTerms: Int32Array
  docCounts: Float32Array
  docStart: Int32Array
}

/** An empty index. */
export const emptyIndex = (): RouterIndex => ({
  terms: new Map(),
  postings: [],
  documents: [],
  byId: new Map(),
  nameHashes: new Int32Array(128),
  lengths: new Float32Array(64 * FIELD_COUNT),
  totals: new Float64Array(FIELD_COUNT),
  groups: [],
  groupIds: new Map(),
  groupSizes: [],
  wordTerms: new WordTable(),
  docTerms: new Int32Array(1024),
  docCounts: new Float32Array(1024),
  docStart: new Int32Array(65)
})

/** The hash of a name key (FNV-1a over its UTF-16 code units), kept in `nameHashes` and in index files. */
export const keyHash: (key: string) => number = hashOf

/**
 * The documents among the first `count` whose full or short name has the `nameKey` `key`, in
 * ascending order: those whose name-key hashes (two per document) hold its hash and whose keys
 * `hasKey` then confirms.
 */
export const documentsNamed = (nameHashes: Int32Array, count: number, key: string, hasKey: (position: number) => boolean): Array<number> => {
  const h = keyHash(key)
  const out: Array<number> = []
  for (let d = 0; d < count; d++) {
    if (nameHashes[2 * d] !== h && nameHashes[2 * d + 1] !== h) continue
    if (hasKey(d)) out.push(d)
  }
  return out
}

/** The documents of `index` whose full or short name has the `nameKey` `key`, in ascending order. */
export const namedAs = (index: RouterIndex, key: string): Array<number> => {
  const { documents } = index
  return documentsNamed(index.nameHashes, documents.length, key, (d) => documents[d]!.nameKey === key || documents[d]!.shortKey === key)
}

/** The indexed head of a document in group `group` (a position among the index's groups, or -1). */
export const indexedDocument = (document: IndexedDocument["document"], group: number): IndexedDocument => ({
  document: { id: document.id, name: document.name, shortName: document.shortName, group: document.group, intents: document.intents },
  nameKey: nameKey(document.name),
  shortKey: nameKey(document.shortName),
  group
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
export const splitRunTogether = (word: string, known: { readonly has: (piece: string) => boolean }): ReadonlyArray<string> => {
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

/**
 * Whether `text` (lowercase) holds `word` (lowercase letters) as one of its `words`: an
 * occurrence with no letter on either side. Asked of a few pieces of a name, this costs less
 * than cutting the whole text into words.
 */
const spellsWord = (text: string, word: string): boolean => {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = at === 0 ? 0 : classOf(text, at - 1)
    const end = at + word.length
    const after = end >= text.length ? 0 : classOf(text, end)
    if (before !== 1 && before !== 2 && after !== 1 && after !== 2) return true
  }
  return false
}

const HAS_DIGIT = /\p{N}/u

/** The terms of a document's name field: its words, the pieces of a run-together word, the whole name. */
const nameTerms = (document: RouterDocument): Array<string> => {
  const out: Array<string> = []
  let own: string | undefined
  let known: { readonly has: (piece: string) => boolean } | undefined
  for (const word of words(document.texts.name)) {
    if (!STOP_WORDS.has(word)) out.push(stem(word))
    if (word.length < 6 || HAS_DIGIT.test(word)) continue
    own ??= `${document.texts.description}\n${document.texts.group}\n${document.texts.parameters}`.toLowerCase()
    // A word its own texts spell as it is needs no split.
    if (own.includes(word)) continue
    const text = own
    known ??= { has: (piece) => spellsWord(text, piece) }
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
    index.postings.push({ docs: NO_POSTINGS, counts: NO_POSTINGS, size: 0 })
  }
  return id
}

/** The term ids of a document's name field (`nameTerms`), in order, into `out`. */
const nameTermIds = (index: RouterIndex, document: RouterDocument, out: Array<number>): Array<number> => {
  out.length = 0
  for (const term of nameTerms(document)) out.push(termId(index, term))
  return out
}

/** The term ids of a text, in order (`terms` of it, through the index's word cache). */
const fieldTermIds = (index: RouterIndex, text: string, out: Array<number>): Array<number> => {
  out.length = 0
  index.wordTerms.idsOf(text, (word) => (STOP_WORDS.has(word) ? -1 : termId(index, stem(word))), out)
  return out
}

const newInt32 = (n: number) => new Int32Array(n)
const newFloat32 = (n: number) => new Float32Array(n)
// A term's postings are allocated once the documents being added are counted (see addDocuments).
const NO_POSTINGS = new Int32Array(0)

const grow = <T extends Int32Array | Float32Array>(array: T, size: number, make: (n: number) => T): T => {
  if (size <= array.length) return array
  const next = make(Math.max(size, array.length * 2))
  next.set(array)
  return next
}

/**
 * One document's distinct terms and their counts, reused from document to document: the slot
 * of each term it holds (valid when `stamp` of the term is the document's position), and per
 * slot its term, its packed field counts and its count over all fields. The work of a document
 * is in small functions over it, not in one loop of `addDocuments`: V8 optimizes those after a
 * few documents, while one large function over every document waited on an on-stack
 * replacement compile of ~100 ms, twice deoptimized, and ran slow meanwhile.
 */
class DocumentCounts {
  stamp: Int32Array
  slotOf: Int32Array
  slotTerms = new Int32Array(256)
  slotPacked = new Int32Array(256)
  slotTotal = new Int32Array(256)
  slots = 0

  constructor(terms: number) {
    this.stamp = new Int32Array(Math.max(1024, terms)).fill(-1)
    this.slotOf = new Int32Array(this.stamp.length)
  }

  /** Makes room for term ids below `terms`. */
  reserve(terms: number): void {
    if (terms <= this.stamp.length) return
    const size = Math.max(terms, this.stamp.length * 2)
    const next = new Int32Array(size).fill(-1)
    next.set(this.stamp)
    this.stamp = next
    this.slotOf = grow(this.slotOf, size, newInt32)
  }

  /** Counts the term ids of field `f` of document `position`. */
  count(ids: ReadonlyArray<number>, f: number, position: number): void {
    const shift = f * TF_BITS
    const { stamp, slotOf } = this
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      let slot: number
      if (stamp[id] === position) {
        slot = slotOf[id]!
      } else {
        slot = this.slots++
        stamp[id] = position
        slotOf[id] = slot
        if (this.slots > this.slotTerms.length) {
          this.slotTerms = grow(this.slotTerms, this.slots, newInt32)
          this.slotPacked = grow(this.slotPacked, this.slots, newInt32)
          this.slotTotal = grow(this.slotTotal, this.slots, newInt32)
        }
        this.slotTerms[slot] = id
        this.slotPacked[slot] = 0
        this.slotTotal[slot] = 0
      }
      // Counted straight into the packed form (TF_BITS a field, saturated at TF_MAX).
      if (((this.slotPacked[slot]! >>> shift) & TF_MAX) !== TF_MAX) this.slotPacked[slot]! += 1 << shift
      this.slotTotal[slot]! += 1
    }
  }
}

/** What `addDocuments` fills for the documents it adds. */
interface Adding {
  readonly counts: DocumentCounts
  /** The packed field counts of each (document, term) added, parallel to `docTerms` from `firstTerm`. */
  packed: Int32Array
  readonly firstTerm: number
  /** One buffer for the term ids of each field in turn. */
  readonly ids: Array<number>
}

/** Counts the terms of `document` (at `position`) into its fields' lengths and `adding.counts`. */
const countDocument = (index: RouterIndex, adding: Adding, document: RouterDocument, position: number): void => {
  const { counts } = adding
  counts.slots = 0
  for (let f = 0; f < FIELD_COUNT; f++) {
    const field = FIELDS[f]!
    const fieldIds = field === "name" ? nameTermIds(index, document, adding.ids) : fieldTermIds(index, document.texts[field], adding.ids)
    index.lengths[position * FIELD_COUNT + f] = fieldIds.length
    index.totals[f]! += fieldIds.length
    counts.reserve(index.postings.length)
    counts.count(fieldIds, f, position)
  }
}

/** Writes the terms counted for document `position` after its predecessor's. */
const storeDocumentTerms = (index: RouterIndex, adding: Adding, position: number): void => {
  const { slots, slotTerms, slotPacked, slotTotal } = adding.counts
  const start = index.docStart[position]!
  index.docStart = grow(index.docStart, position + 2, newInt32)
  index.docStart[position + 1] = start + slots
  index.docTerms = grow(index.docTerms, start + slots, newInt32)
  index.docCounts = grow(index.docCounts, start + slots, newFloat32)
  adding.packed = grow(adding.packed, start + slots - adding.firstTerm, newInt32)
  const { docTerms, docCounts } = index
  const packed = adding.packed
  const at = start - adding.firstTerm
  for (let slot = 0; slot < slots; slot++) {
    packed[at + slot] = slotPacked[slot]!
    docTerms[start + slot] = slotTerms[slot]!
    docCounts[start + slot] = slotTotal[slot]!
  }
}

/** Records what ranking keeps of document `position` (not its texts): its head, name keys and group. */
const storeDocumentHead = (index: RouterIndex, document: RouterDocument, position: number): void => {
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
  const indexed = indexedDocument(document, group)
  index.documents.push(indexed)
  index.nameHashes[2 * position] = keyHash(indexed.nameKey)
  index.nameHashes[2 * position + 1] = indexed.shortKey === indexed.nameKey ? index.nameHashes[2 * position]! : keyHash(indexed.shortKey)
  index.byId.set(document.id, position)
}

/**
 * Appends documents to the index (in place); a document whose id is already there is skipped.
 * Returns the positions of the documents added.
 */
export const addDocuments = (index: RouterIndex, documents: ReadonlyArray<RouterDocument>): ReadonlyArray<number> =>
  runSteps(addDocumentSteps(index, documents))

/**
 * {@link addDocuments} in steps: one step a document, then one for every 256 documents whose
 * postings are appended. Run to its end before the index is used: stopped halfway, it leaves
 * the index torn.
 */
export function* addDocumentSteps(index: RouterIndex, documents: ReadonlyArray<RouterDocument>): Steps<ReadonlyArray<number>> {
  const added: Array<number> = []
  const n = index.documents.length
  // Sized for the usual few dozen distinct terms a document, so that few grow on the way.
  const expected = index.docStart[n]! + documents.length * 48
  index.docTerms = grow(index.docTerms, expected, newInt32)
  index.docCounts = grow(index.docCounts, expected, newFloat32)
  index.docStart = grow(index.docStart, n + documents.length + 1, newInt32)
  index.lengths = grow(index.lengths, (n + documents.length) * FIELD_COUNT, newFloat32)
  index.nameHashes = grow(index.nameHashes, 2 * (n + documents.length), newInt32)
  const adding: Adding = {
    counts: new DocumentCounts(index.postings.length),
    packed: new Int32Array(documents.length * 48),
    firstTerm: index.docStart[n]!,
    ids: []
  }
  for (const document of documents) {
    if (index.byId.has(document.id)) continue
    const position = index.documents.length
    countDocument(index, adding, document, position)
    storeDocumentTerms(index, adding, position)
    storeDocumentHead(index, document, position)
    added.push(position)
    yield
  }
  yield* appendPostings(index, added, adding.firstTerm, adding.packed)
  return added
}

/**
 * Appends the postings of the documents just added (their terms from `docTerms[firstTerm]`
 * on, with `packed` counts): each term's list is grown once to what it gains, and the lists of
 * terms met for the first time are cut out of one shared buffer.
 */
function* appendPostings(index: RouterIndex, added: ReadonlyArray<number>, firstTerm: number, packed: Int32Array): Steps<void> {
  if (added.length === 0) return
  const { docTerms, docStart, postings } = index
  const lastTerm = docStart[added[added.length - 1]! + 1]!
  const gain = new Int32Array(postings.length)
  for (let k = firstTerm; k < lastTerm; k++) gain[docTerms[k]!]! += 1
  let fresh = 0
  for (let id = 0; id < postings.length; id++) if (gain[id]! > 0 && postings[id]!.size === 0) fresh += gain[id]!
  const sharedDocs = new Int32Array(fresh)
  const sharedCounts = new Int32Array(fresh)
  let offset = 0
  for (let id = 0; id < postings.length; id++) {
    const more = gain[id]!
    if (more === 0) continue
    const list = postings[id]!
    if (list.size === 0) {
      list.docs = sharedDocs.subarray(offset, offset + more)
      list.counts = sharedCounts.subarray(offset, offset + more)
      offset += more
    } else if (list.size + more > list.docs.length) {
      const capacity = Math.max(list.size + more, list.docs.length * 2)
      const docs = new Int32Array(capacity)
      docs.set(list.docs.subarray(0, list.size))
      const counts = new Int32Array(capacity)
      counts.set(list.counts.subarray(0, list.size))
      list.docs = docs
      list.counts = counts
    }
  }
  for (let i = 0; i < added.length; i++) {
    const position = added[i]!
    for (let k = docStart[position]!, end = docStart[position + 1]!; k < end; k++) {
      const list = postings[docTerms[k]!]!
      list.docs[list.size] = position
      list.counts[list.size] = packed[k - firstTerm]!
      list.size += 1
    }
    if (i % 256 === 255) yield
  }
}

/** {@link buildIndex} in steps (see {@link addDocumentSteps}). */
export function* buildIndexSteps(documents: ReadonlyArray<RouterDocument>): Steps<RouterIndex> {
  const index = emptyIndex()
  yield* addDocumentSteps(index, documents)
  return index
}

/** A new index of `documents`. */
export const buildIndex = (documents: ReadonlyArray<RouterDocument>): RouterIndex => runSteps(buildIndexSteps(documents))

/** The bytes the index's typed arrays hold (its maps and objects come on top). */
export const typedBytes = (index: RouterIndex): number => {
  let bytes = index.lengths.byteLength + index.totals.byteLength + index.docTerms.byteLength + index.docCounts.byteLength +
    index.docStart.byteLength + index.nameHashes.byteLength
  for (const postings of index.postings) bytes += postings.docs.byteLength + postings.counts.byteLength
  return bytes
}
