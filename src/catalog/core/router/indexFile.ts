/**
 * The router's index as the bytes of a file, so that a CLI process ranks without building it
 * again (at 50,000 tools a build takes about a second), and reads only what a task needs.
 *
 * Layout: a 20-byte preamble (magic, byte-order mark, the lengths of the JSON header and of the
 * head's arrays, the head's checksum); the head: a JSON header (format version, the catalog's
 * tool-set key and a digest of what the documents were built from, the terms, the groups, the
 * field totals, the counts of documents, document terms and postings), zero padding to 4
 * bytes, and per document its field lengths, intents, group, the hashes of its two name keys,
 * where its terms start and their checksum, per term where its postings start and their
 * checksum; then the body: each term's postings (documents, then packed field counts), then
 * each document's terms (ids, then counts). A reader takes the head (a few MB at 50,000 tools)
 * and then, with positioned reads, only the postings and document terms a ranking asks for
 * (`StoredIndex`). The documents' names are not kept: they are the catalog's tools, in order.
 * Reading trusts nothing: a wrong magic, version, length or checksum (of the head, or of a
 * block when it is read), an index out of range or a header of the wrong shape is refused,
 * never a throw, and the caller builds the index again.
 */
import { createHash } from "node:crypto"
import { Either, Option } from "effect"
import type { Catalog, ToolEntry } from "../model.js"
import { nameKey } from "./analyze.js"
import { SOURCE_TEXTS, toolDocumentGroup } from "./document.js"
import { documentsNamed, emptyIndex, FIELD_COUNT, indexedDocument, type Postings, type RouterIndex } from "./invertedIndex.js"
import { type DocumentTerms, keyStartsWith, type Needs, type RankIndex } from "./rankIndex.js"
import { runSteps, type Steps } from "./steps.js"

/**
 * The format of the file; a file of another version is ignored. Raised when the text analysis
 * changes too (5: contractions, issue 30), since the file holds the terms it made.
 */
export const INDEX_FILE_VERSION = 5

const MAGIC = 0x49524d54 // "TMRI" read as a little-endian u32
const BYTE_ORDER = 0x01020304
/** The bytes before the head's JSON: magic, byte order, JSON length, head arrays' length, head checksum. */
export const INDEX_PREAMBLE_BYTES = 20

/** What an index file is read for: the catalog whose tools (in order) are its documents. */
export type IndexedCatalog = Pick<Catalog, "toolSetKey" | "tools">

// A catalog's tools are an immutable list: its digest is computed once (a read, then a save).
const digests = new WeakMap<ReadonlyArray<ToolEntry>, string>()

// The texts of `SOURCE_TEXTS` the digest hashes: a tool's definition hash is not among them, as
// the definition (its name included) is vouched for by the tool-set key, checked with it.
const DIGESTED_TEXTS = SOURCE_TEXTS.filter((text) => text !== "definitionHash")

/**
 * What the documents of a catalog's index are built from beyond its tool-set key: the order of
 * the tools and each one's `SOURCE_TEXTS` and description length. Equal keys and digests,
 * equal documents. Each text field of all tools is hashed as one line-separated text, with
 * every text's length beside: a text per tool cost 0.2-0.4 s of string building at 50,000
 * tools, the hashing of the same bytes a tenth of that.
 */
export const indexDigest = (catalog: Pick<Catalog, "tools">): string => {
  const known = digests.get(catalog.tools)
  if (known !== undefined) return known
  const { tools } = catalog
  const hash = createHash("sha256")
  const per = DIGESTED_TEXTS.length + 1
  const lengths = new Int32Array(tools.length * per)
  DIGESTED_TEXTS.forEach((text, t) => {
    // The line-separated text in pieces of DIGEST_BATCH tools (the same bytes): a text of all
    // descriptions would be megabytes of garbage next to the catalog, at the run's peak.
    for (let from = 0; from < tools.length; from += DIGEST_BATCH) {
      const to = Math.min(tools.length, from + DIGEST_BATCH)
      const batch = new Array<string>(to - from)
      for (let position = from; position < to; position++) {
        const value = tools[position]![text]
        lengths[position * per + t] = value.length
        batch[position - from] = value
      }
      hash.update(from === 0 ? batch.join("\n") : `\n${batch.join("\n")}`)
    }
  })
  tools.forEach((tool, position) => lengths[position * per + DIGESTED_TEXTS.length] = tool.description.length)
  const digest = hash.update(new Uint8Array(lengths.buffer)).digest("hex")
  digests.set(catalog.tools, digest)
  return digest
}

/** How many tools' texts `indexDigest` hashes at a time. */
const DIGEST_BATCH = 1024

/**
 * A checksum of the body's 32-bit words in four lanes (word i goes to lane i mod 4), chained at
 * the end: each step (xor, then a multiply by an odd number) is a bijection, so any one changed
 * word changes it. The lanes let the processor run four multiplies at once: a few times faster
 * than one chain, far faster than zlib's CRC-32 on tens of megabytes; it guards against
 * damage, not against a forger.
 */
export const bodyChecksum = (words: Int32Array): number => {
  const odd = 0x01000193
  let h0 = 0x811c9dc5
  let h1 = 0x2c9277b5
  let h2 = 0x6a09e667
  let h3 = 0x3c6ef372
  const whole = words.length - (words.length % 4)
  for (let i = 0; i < whole; i += 4) {
    h0 = Math.imul(h0 ^ words[i]!, odd)
    h1 = Math.imul(h1 ^ words[i + 1]!, odd)
    h2 = Math.imul(h2 ^ words[i + 2]!, odd)
    h3 = Math.imul(h3 ^ words[i + 3]!, odd)
  }
  for (let i = whole; i < words.length; i++) h0 = Math.imul(h0 ^ words[i]!, odd)
  return (Math.imul(Math.imul(Math.imul(h0 ^ h1, odd) ^ h2, odd) ^ h3, odd)) >>> 0
}

const align4 = (bytes: number) => bytes + ((4 - (bytes % 4)) % 4)

interface Header {
  readonly version: number
  readonly key: string
  readonly digest: string
  readonly terms: ReadonlyArray<string>
  readonly groups: ReadonlyArray<string>
  readonly totals: ReadonlyArray<number>
  /** How many documents, document terms (all documents' distinct terms) and postings (= document terms). */
  readonly documents: number
  readonly docTerms: number
  readonly postings: number
}

/** The element counts of the head's arrays, in file order (see the module's comment). */
const headArrays = (n: number, terms: number) => ({
  lengths: n * FIELD_COUNT,
  intents: n,
  groups: n,
  nameHashes: 2 * n,
  docStart: n + 1,
  docSums: n,
  termStart: terms + 1,
  termSums: terms
})

const headArraysBytes = (n: number, terms: number) => Object.values(headArrays(n, terms)).reduce((total, count) => total + 4 * count, 0)

/** The file's bytes for the index of a catalog whose tool-set key and digest are given. */
export const encodeIndex = (index: RouterIndex, key: string, digest: string): Uint8Array => runSteps(encodeIndexSteps(index, key, digest))

/** {@link encodeIndex} in steps: one for every 256 terms' postings, and every 256 documents' terms. */
export function* encodeIndexSteps(index: RouterIndex, key: string, digest: string): Steps<Uint8Array> {
  const n = index.documents.length
  const termCount = index.postings.length
  let p = 0
  for (const list of index.postings) p += list.size
  const m = index.docStart[n]!
  const header: Header = {
    version: INDEX_FILE_VERSION,
    key,
    digest,
    terms: [...index.terms.keys()],
    groups: index.groups,
    totals: [...index.totals],
    documents: n,
    docTerms: m,
    postings: p
  }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const counts = headArrays(n, termCount)
  const arraysBytes = headArraysBytes(n, termCount)
  const bodyAt = INDEX_PREAMBLE_BYTES + align4(json.length) + arraysBytes
  const out = new Uint8Array(bodyAt + 8 * p + 8 * m)
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, BYTE_ORDER, true)
  view.setUint32(8, json.length, true)
  view.setUint32(12, arraysBytes, true)
  out.set(json, INDEX_PREAMBLE_BYTES)
  let at = INDEX_PREAMBLE_BYTES + align4(json.length)
  const next = <T extends Int32Array | Float32Array>(make: new(buffer: ArrayBufferLike, offset: number, length: number) => T, count: number): T => {
    const array = new make(out.buffer, at, count)
    at += 4 * count
    return array
  }
  next(Float32Array, counts.lengths).set(index.lengths.subarray(0, n * FIELD_COUNT))
  const intents = next(Int32Array, counts.intents)
  const groups = next(Int32Array, counts.groups)
  const nameHashes = next(Int32Array, counts.nameHashes)
  next(Int32Array, counts.docStart).set(index.docStart.subarray(0, n + 1))
  const docSums = next(Int32Array, counts.docSums)
  const termStart = next(Int32Array, counts.termStart)
  const termSums = next(Int32Array, counts.termSums)
  nameHashes.set(index.nameHashes.subarray(0, 2 * n))
  index.documents.forEach((indexed, position) => {
    intents[position] = indexed.document.intents
    groups[position] = indexed.group
  })
  // The body: each term's postings, then each document's terms, each block with its checksum in the head.
  let offset = 0
  for (let id = 0; id < termCount; id++) {
    const list = index.postings[id]!
    termStart[id] = offset
    const block = new Int32Array(out.buffer, bodyAt + 8 * offset, 2 * list.size)
    block.set(list.docs.subarray(0, list.size))
    block.set(list.counts.subarray(0, list.size), list.size)
    termSums[id] = bodyChecksum(block)
    offset += list.size
    if (id % 256 === 255) yield
  }
  termStart[termCount] = offset
  const docsAt = bodyAt + 8 * p
  for (let d = 0; d < n; d++) {
    const from = index.docStart[d]!
    const to = index.docStart[d + 1]!
    const block = new Int32Array(out.buffer, docsAt + 8 * from, 2 * (to - from))
    block.set(index.docTerms.subarray(from, to))
    new Float32Array(out.buffer, docsAt + 8 * from + 4 * (to - from), to - from).set(index.docCounts.subarray(from, to))
    docSums[d] = bodyChecksum(block)
    if (d % 256 === 255) yield
  }
  view.setUint32(16, bodyChecksum(new Int32Array(out.buffer, INDEX_PREAMBLE_BYTES, (bodyAt - INDEX_PREAMBLE_BYTES) / 4)), true)
  return out
}

/**
 * How many bytes the head of the file whose preamble this is takes (preamble included), when
 * the preamble is one of this format and the head fits in `fileBytes`; `None` otherwise.
 */
export const indexHeadBytes = (preamble: Uint8Array, fileBytes: number): Option.Option<number> => {
  if (preamble.length < INDEX_PREAMBLE_BYTES) return Option.none()
  const view = new DataView(preamble.buffer, preamble.byteOffset, INDEX_PREAMBLE_BYTES)
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== BYTE_ORDER) return Option.none()
  const arrays = view.getUint32(12, true)
  const head = INDEX_PREAMBLE_BYTES + align4(view.getUint32(8, true)) + arrays
  return arrays % 4 === 0 && head <= fileBytes ? Option.some(head) : Option.none()
}

const isString = (value: unknown): value is string => typeof value === "string"
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

const headerOf = (json: unknown): Option.Option<Header> => {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return Option.none()
  const h = json as Readonly<Record<string, unknown>>
  const ok = h["version"] === INDEX_FILE_VERSION && isString(h["key"]) && isString(h["digest"]) &&
    Array.isArray(h["terms"]) && h["terms"].every(isString) &&
    Array.isArray(h["groups"]) && h["groups"].every(isString) &&
    Array.isArray(h["totals"]) && h["totals"].length === FIELD_COUNT &&
    h["totals"].every((total) => typeof total === "number" && Number.isFinite(total) && total >= 0) &&
    isCount(h["documents"]) && isCount(h["docTerms"]) && isCount(h["postings"])
  return ok ? Option.some(json as Header) : Option.none()
}

/** An Int32Array or Float32Array over `count` elements of `bytes` from `offset`, copied only when not aligned. */
const viewOf = <T extends Int32Array | Float32Array>(
  make: { new(buffer: ArrayBufferLike, offset: number, length: number): T; new(length: number): T },
  bytes: Uint8Array,
  offset: number,
  count: number
): T => {
  const at = bytes.byteOffset + offset
  if (at % 4 === 0) return new make(bytes.buffer, at, count)
  const copy = new make(count)
  new Uint8Array(copy.buffer).set(bytes.subarray(offset, offset + count * 4))
  return copy
}

/** A span of the file to read, and the blocks (term postings, document terms) it holds. */
export interface IndexRange {
  readonly offset: number
  readonly length: number
  readonly terms: ReadonlyArray<number>
  readonly documents: ReadonlyArray<number>
}

// Blocks closer than this are read in one span (a read costs more than a few KB more), up to
// MAX_SPAN bytes a span.
const GAP_READ = 16 * 1024
const MAX_SPAN = 4 * 1024 * 1024

/**
 * An index file read piece by piece: its head, checked whole, and the postings and document
 * terms fetched so far (see `rangesOf` and `accept`; the file's I/O is the caller's). Ranks as
 * the index the file was written from, once the ranking's `Needs` are fetched.
 */
export class StoredIndex implements RankIndex {
  readonly documentCount: number
  readonly termCount: number
  readonly groupCount: number
  private readonly postingsHeld: Array<Postings | undefined>
  private readonly termsHeld: Array<DocumentTerms | undefined>
  private readonly termIds: Map<string, number>

  constructor(
    private readonly tools: ReadonlyArray<ToolEntry>,
    private readonly header: Header,
    readonly lengths: Float32Array,
    readonly intents: Int32Array,
    readonly groups: Int32Array,
    private readonly nameHashes: Int32Array,
    private readonly docStart: Int32Array,
    private readonly docSums: Int32Array,
    private readonly termStart: Int32Array,
    private readonly termSums: Int32Array,
    private readonly bodyAt: number,
    readonly totals: Float64Array,
    termIds: Map<string, number>
  ) {
    this.documentCount = tools.length
    this.termCount = header.terms.length
    this.groupCount = header.groups.length
    this.postingsHeld = new Array<Postings | undefined>(this.termCount)
    this.termsHeld = new Array<DocumentTerms | undefined>(this.documentCount)
    this.termIds = termIds
  }

  termId(term: string): number | undefined {
    return this.termIds.get(term)
  }

  postingsSize(id: number): number {
    return this.termStart[id + 1]! - this.termStart[id]!
  }

  postings(id: number): Postings | undefined {
    return this.postingsHeld[id]
  }

  documentTerms(position: number): DocumentTerms | undefined {
    return this.termsHeld[position]
  }

  named(key: string): ReadonlyArray<number> {
    const { tools } = this
    return documentsNamed(this.nameHashes, this.documentCount, key, (d) => nameKey(tools[d]!.name) === key || nameKey(tools[d]!.shortName) === key)
  }

  shortKeyStartsWith(position: number, prefix: string): boolean {
    return keyStartsWith(this.tools[position]!.shortName, prefix)
  }

  idOf(position: number): string {
    return this.tools[position]!.name
  }

  /** Every term and document whose block is not held yet. */
  missing(): Needs {
    const terms: Array<number> = []
    const documents: Array<number> = []
    for (let id = 0; id < this.termCount; id++) if (this.postingsHeld[id] === undefined) terms.push(id)
    for (let d = 0; d < this.documentCount; d++) if (this.termsHeld[d] === undefined) documents.push(d)
    return { terms, documents }
  }

  /** The spans of the file that hold the blocks of `needs` (not held yet), in file order, near blocks read together. */
  rangesOf(needs: Needs): ReadonlyArray<IndexRange> {
    const docsAt = this.bodyAt + 8 * this.header.postings
    const blocks: Array<{ readonly offset: number; readonly length: number; readonly term: number; readonly document: number }> = []
    for (const id of new Set(needs.terms)) {
      if (this.postingsHeld[id] !== undefined) continue
      blocks.push({ offset: this.bodyAt + 8 * this.termStart[id]!, length: 8 * this.postingsSize(id), term: id, document: -1 })
    }
    for (const d of new Set(needs.documents)) {
      if (this.termsHeld[d] !== undefined) continue
      const from = this.docStart[d]!
      blocks.push({ offset: docsAt + 8 * from, length: 8 * (this.docStart[d + 1]! - from), term: -1, document: d })
    }
    blocks.sort((a, b) => a.offset - b.offset)
    const ranges: Array<IndexRange> = []
    let current: { offset: number; end: number; terms: Array<number>; documents: Array<number> } | undefined
    for (const block of blocks) {
      const end = block.offset + block.length
      if (current === undefined || block.offset - current.end > GAP_READ || end - current.offset > MAX_SPAN) {
        if (current !== undefined) ranges.push({ offset: current.offset, length: current.end - current.offset, terms: current.terms, documents: current.documents })
        current = { offset: block.offset, end, terms: [], documents: [] }
      }
      current.end = Math.max(current.end, end)
      if (block.term >= 0) current.terms.push(block.term)
      else current.documents.push(block.document)
    }
    if (current !== undefined) ranges.push({ offset: current.offset, length: current.end - current.offset, terms: current.terms, documents: current.documents })
    return ranges
  }

  /**
   * Takes the bytes of `range` as read from the file: each block is held once its checksum and
   * every index in it are right. False (nothing more held) when one is not: the file is damaged.
   */
  accept(range: IndexRange, bytes: Uint8Array): boolean {
    if (bytes.length !== range.length) return false
    const n = this.documentCount
    const taken: Array<readonly [number, Postings]> = []
    for (const id of range.terms) {
      const size = this.postingsSize(id)
      const at = this.bodyAt + 8 * this.termStart[id]! - range.offset
      if (at < 0 || at + 8 * size > bytes.length) return false
      const block = viewOf(Int32Array, bytes, at, 2 * size)
      if (bodyChecksum(block) !== this.termSums[id]! >>> 0) return false
      const docs = block.subarray(0, size)
      let previous = -1
      for (let k = 0; k < size; k++) {
        if (docs[k]! <= previous || docs[k]! >= n) return false
        previous = docs[k]!
      }
      taken.push([id, { docs, counts: block.subarray(size), size }])
    }
    const docsAt = this.bodyAt + 8 * this.header.postings
    const takenTerms: Array<readonly [number, DocumentTerms]> = []
    for (const d of range.documents) {
      const from = this.docStart[d]!
      const count = this.docStart[d + 1]! - from
      const at = docsAt + 8 * from - range.offset
      if (at < 0 || at + 8 * count > bytes.length) return false
      const block = viewOf(Int32Array, bytes, at, 2 * count)
      if (bodyChecksum(block) !== this.docSums[d]! >>> 0) return false
      const terms = block.subarray(0, count)
      const counts = new Float32Array(block.buffer, block.byteOffset + 4 * count, count)
      for (let k = 0; k < count; k++) {
        if (terms[k]! < 0 || terms[k]! >= this.termCount || !(counts[k]! >= 0 && counts[k]! < Infinity)) return false
      }
      takenTerms.push([d, { terms, counts, from: 0, to: count }])
    }
    for (const [id, postings] of taken) this.postingsHeld[id] = postings
    for (const [d, terms] of takenTerms) this.termsHeld[d] = terms
    return true
  }

  /** The index in memory (to be extended with new tools), once every block is held (`missing` is empty). */
  toRouterIndex(): RouterIndex {
    const n = this.documentCount
    const m = this.header.docTerms
    const index = emptyIndex()
    index.lengths = Float32Array.from(this.lengths)
    index.docStart = Int32Array.from(this.docStart)
    index.docTerms = new Int32Array(m)
    index.docCounts = new Float32Array(m)
    for (let d = 0; d < n; d++) {
      const held = this.termsHeld[d]!
      index.docTerms.set(held.terms, this.docStart[d]!)
      index.docCounts.set(held.counts, this.docStart[d]!)
    }
    index.totals.set(this.totals)
    index.nameHashes = Int32Array.from(this.nameHashes)
    for (const [term, id] of this.termIds) index.terms.set(term, id)
    for (let id = 0; id < this.termCount; id++) {
      // Views of the file's bytes with no room to spare: a list that grows is copied first.
      index.postings.push(this.postingsHeld[id]!)
    }
    this.header.groups.forEach((group, g) => {
      index.groupIds.set(group, g)
      index.groups.push(group)
      index.groupSizes.push(0)
    })
    for (let position = 0; position < n; position++) {
      const entry = this.tools[position]!
      const group = this.groups[position]!
      if (group >= 0) index.groupSizes[group]! += 1
      index.documents.push(
        indexedDocument({ id: entry.name, name: entry.name, shortName: entry.shortName, group: toolDocumentGroup(entry), intents: this.intents[position]! }, group)
      )
      index.byId.set(entry.name, position)
    }
    return index
  }
}

/**
 * The index of the file whose head (preamble included) is `head`, when the file (of
 * `fileBytes`) is a whole, well-formed index of this format for `catalog` (its tool-set key,
 * then its digest); `None` otherwise (stale, foreign, truncated or corrupt). Its documents are
 * the catalog's tools, in order; it holds no postings yet.
 */
export const openIndex = (head: Uint8Array, fileBytes: number, catalog: IndexedCatalog): Option.Option<StoredIndex> => {
  const headBytes = indexHeadBytes(head, fileBytes)
  if (Option.isNone(headBytes) || headBytes.value !== head.length) return Option.none()
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  const jsonBytes = view.getUint32(8, true)
  if (bodyChecksum(viewOf(Int32Array, head, INDEX_PREAMBLE_BYTES, (head.length - INDEX_PREAMBLE_BYTES) / 4)) !== view.getUint32(16, true)) return Option.none()
  // Not UTF-8 or not JSON: a damaged file, rebuilt by the caller.
  const json = Either.try(() => JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(INDEX_PREAMBLE_BYTES, INDEX_PREAMBLE_BYTES + jsonBytes))) as unknown)
  if (Either.isLeft(json)) return Option.none()
  const parsed = headerOf(json.right)
  if (Option.isNone(parsed)) return Option.none()
  const header = parsed.value
  const tools = catalog.tools
  const n = tools.length
  const termCount = header.terms.length
  const m = header.docTerms
  const p = header.postings
  if (header.documents !== n || view.getUint32(12, true) !== headArraysBytes(n, termCount)) return Option.none()
  if (head.length + 8 * p + 8 * m !== fileBytes) return Option.none()
  if (header.key !== catalog.toolSetKey || header.digest !== indexDigest(catalog)) return Option.none()
  const counts = headArrays(n, termCount)
  let at = INDEX_PREAMBLE_BYTES + align4(jsonBytes)
  const next = <T extends Int32Array | Float32Array>(make: Parameters<typeof viewOf<T>>[0], count: number): T => {
    const array = viewOf(make, head, at, count)
    at += count * 4
    return array
  }
  const lengths = next(Float32Array, counts.lengths)
  const intents = next(Int32Array, counts.intents)
  const groups = next(Int32Array, counts.groups)
  const nameHashes = next(Int32Array, counts.nameHashes)
  const docStart = next(Int32Array, counts.docStart)
  const docSums = next(Int32Array, counts.docSums)
  const termStart = next(Int32Array, counts.termStart)
  const termSums = next(Int32Array, counts.termSums)
  // Every index the ranking follows is checked, so a file of this shape cannot make it throw.
  for (let i = 0; i < lengths.length; i++) if (!(lengths[i]! >= 0 && lengths[i]! < Infinity)) return Option.none()
  if (docStart[0] !== 0 || docStart[n] !== m || termStart[0] !== 0 || termStart[termCount] !== p) return Option.none()
  for (let d = 0; d < n; d++) if (docStart[d + 1]! < docStart[d]!) return Option.none()
  for (let id = 0; id < termCount; id++) if (termStart[id + 1]! < termStart[id]!) return Option.none()
  const termIds = new Map<string, number>()
  header.terms.forEach((term, id) => termIds.set(term, id))
  if (termIds.size !== termCount) return Option.none()
  const groupNames = new Set(header.groups)
  if (groupNames.size !== header.groups.length || groupNames.has("")) return Option.none()
  for (let position = 0; position < n; position++) {
    const group = groups[position]!
    const groupName = toolDocumentGroup(tools[position]!)
    // The group the file gives a document is the one its tool has (none for the catch-all).
    if (group < -1 || group >= header.groups.length || (group === -1 ? groupName !== "" : header.groups[group] !== groupName)) return Option.none()
    if (intents[position]! < 0) return Option.none()
  }
  return Option.some(
    new StoredIndex(tools, header, lengths, intents, groups, nameHashes, docStart, docSums, termStart, termSums, head.length, Float64Array.from(header.totals), termIds)
  )
}
