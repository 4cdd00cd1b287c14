/**
 * What ranking reads of an index, whether it was built in memory (`RouterIndex`) or is read
 * from a file piece by piece (`indexFile.ts`): the term dictionary and posting-list sizes, each
 * document's field lengths, group and intents up front; the postings of a term and the terms
 * of a document only once they are held. An index read from a file holds a term's postings or
 * a document's terms after a reader has fetched them, and says `undefined` before; ranking then
 * asks for them (`Needs`) and goes on once they are there.
 */
import { nameKey } from "./analyze.js"
import { FIELD_COUNT, namedAs, type Postings, type RouterIndex } from "./invertedIndex.js"

/** A document's distinct term ids and each one's count over all fields, from `from` to `to` of the arrays. */
export interface DocumentTerms {
  readonly terms: Int32Array
  readonly counts: Float32Array
  readonly from: number
  readonly to: number
}

/** The postings and document terms a ranking needs and its index does not hold yet. */
export interface Needs {
  readonly terms: ReadonlyArray<number>
  readonly documents: ReadonlyArray<number>
}

/** The read side of a router index (see the module's comment). */
export interface RankIndex {
  readonly documentCount: number
  readonly termCount: number
  readonly groupCount: number
  /** Field lengths, `FIELD_COUNT` per document. */
  readonly lengths: Float32Array
  /** The sum of each field's length over all documents. */
  readonly totals: Float64Array
  /** Each document's group (a position among the groups, or -1). */
  readonly groups: Int32Array
  /** Each document's `INTENT_BITS`. */
  readonly intents: Int32Array
  /** The id of a term, undefined when no document holds it. */
  readonly termId: (term: string) => number | undefined
  /** How many documents hold term `id` (held or not). */
  readonly postingsSize: (id: number) => number
  /** The postings of term `id`, undefined while not held. */
  readonly postings: (id: number) => Postings | undefined
  /** The terms of document `position`, undefined while not held. */
  readonly documentTerms: (position: number) => DocumentTerms | undefined
  /** The documents whose full or short name has this `nameKey`, in ascending order. */
  readonly named: (key: string) => ReadonlyArray<number>
  /** Whether the `nameKey` of document `position`'s short name starts with `prefix`. */
  readonly shortKeyStartsWith: (position: number, prefix: string) => boolean
  /** The id of document `position` (equal scores are ordered by it). */
  readonly idOf: (position: number) => string
}

const views = new WeakMap<RouterIndex, RankIndex>()

/**
 * The read side of an index built in memory: it holds everything. The same object for the
 * same index, reading through to its arrays (which `addDocuments` replaces as they grow).
 */
export const builtRankIndex = (index: RouterIndex): RankIndex => {
  const known = views.get(index)
  if (known !== undefined) return known
  let perDocument = { count: -1, groups: new Int32Array(0), intents: new Int32Array(0) }
  const perDocumentOf = () => {
    const n = index.documents.length
    if (perDocument.count === n) return perDocument
    const groups = new Int32Array(n)
    const intents = new Int32Array(n)
    for (let d = 0; d < n; d++) {
      const indexed = index.documents[d]!
      groups[d] = indexed.group
      intents[d] = indexed.document.intents
    }
    perDocument = { count: n, groups, intents }
    return perDocument
  }
  const view: RankIndex = {
    get documentCount() {
      return index.documents.length
    },
    get termCount() {
      return index.postings.length
    },
    get groupCount() {
      return index.groups.length
    },
    get lengths() {
      return index.lengths.subarray(0, index.documents.length * FIELD_COUNT)
    },
    get totals() {
      return index.totals
    },
    get groups() {
      return perDocumentOf().groups
    },
    get intents() {
      return perDocumentOf().intents
    },
    termId: (term) => index.terms.get(term),
    postingsSize: (id) => index.postings[id]!.size,
    postings: (id) => index.postings[id],
    documentTerms: (position) => ({
      terms: index.docTerms,
      counts: index.docCounts,
      from: index.docStart[position]!,
      to: index.docStart[position + 1]!
    }),
    named: (key) => namedAs(index, key),
    shortKeyStartsWith: (position, prefix) => index.documents[position]!.shortKey.startsWith(prefix),
    idOf: (position) => index.documents[position]!.document.id
  }
  views.set(index, view)
  return view
}

/** An index in either form, as ranking reads it. */
export const asRankIndex = (index: RouterIndex | RankIndex): RankIndex => ("documentCount" in index ? index : builtRankIndex(index))

/**
 * Whether `nameKey(name)` starts with `prefix` (a `nameKey`), without making the key when the
 * name is ASCII: the key is then the name's letters and digits, lowercased.
 */
export const keyStartsWith = (name: string, prefix: string): boolean => {
  let at = 0
  for (let i = 0; i < name.length && at < prefix.length; i++) {
    let c = name.charCodeAt(i)
    if (c >= 128) return nameKey(name).startsWith(prefix)
    if (c >= 65 && c <= 90) c += 32
    else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) continue
    if (c !== prefix.charCodeAt(at)) return false
    at++
  }
  return at === prefix.length
}
