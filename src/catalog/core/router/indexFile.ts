/**
 * The router's index as the bytes of a file, so that a CLI process ranks without building it
 * again (at 50,000 tools a build takes about a second, a read a few tens of milliseconds).
 *
 * Layout: a 12-byte preamble (magic, byte-order mark, header length), a JSON header (format
 * version, the catalog's tool-set key and a digest of what the documents were built from, the
 * terms, groups and the documents' name keys, the length and checksum of the arrays), zero
 * padding to 4 bytes, then the typed arrays back to back (with each document's intents and
 * group). The documents' names are not kept: they are the catalog's tools, in order. Reading trusts nothing: a wrong magic, version,
 * length or checksum, an index out of range or a header of the wrong shape is `None`, never a
 * throw, and the caller builds the index again.
 */
import { createHash } from "node:crypto"
import { Either, Option } from "effect"
import type { Catalog, ToolEntry } from "../model.js"
import { SOURCE_NUMBERS, toolDocumentGroup, toolDocumentSource } from "./document.js"
import { addKey, emptyIndex, FIELD_COUNT, type IndexedDocument, type Postings, type RouterIndex } from "./invertedIndex.js"

/** The format of the file; a file of another version is ignored. */
export const INDEX_FILE_VERSION = 3

const MAGIC = 0x49524d54 // "TMRI" read as a little-endian u32
const BYTE_ORDER = 0x01020304
const PREAMBLE = 12

/** What an index file is read for: the catalog whose tools (in order) are its documents. */
export type IndexedCatalog = Pick<Catalog, "toolSetKey" | "tools">

// A catalog's tools are an immutable list: its digest is computed once (a read, then a save).
const digests = new WeakMap<ReadonlyArray<ToolEntry>, string>()

/**
 * What the documents of a catalog's index are built from: the order of the tools and each
 * one's `toolDocumentSource`. Equal digests, equal documents.
 */
export const indexDigest = (catalog: Pick<Catalog, "tools">): string => {
  const known = digests.get(catalog.tools)
  if (known !== undefined) return known
  const numbers = new Int32Array(catalog.tools.length * SOURCE_NUMBERS)
  // One update of the whole text: an update per tool costs more than the hashing.
  const text = catalog.tools.map((tool, position) => toolDocumentSource(tool, numbers, position * SOURCE_NUMBERS)).join("")
  const digest = createHash("sha256").update(text).update(new Uint8Array(numbers.buffer)).digest("hex")
  digests.set(catalog.tools, digest)
  return digest
}

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

/** The checksum as the header writes it: 8 hex digits, so that it can be filled in last. */
const checksumText = (sum: number): string => sum.toString(16).padStart(8, "0")

// The names of the documents are not in the file: they are the catalog's (its tools in order,
// which the digest vouches for). Only their name keys are, one line each: the full name's,
// then the short name's, or SAME_KEY when it is the full name's.
const SAME_KEY = "="

interface Header {
  readonly version: number
  readonly key: string
  readonly digest: string
  readonly terms: ReadonlyArray<string>
  readonly groups: ReadonlyArray<string>
  readonly totals: ReadonlyArray<number>
  /** Two lines per document: its `nameKey` and its `shortKey` (see SAME_KEY). */
  readonly keys: string
  /** Lengths of the arrays, in elements: docTerms (= docCounts) and postings (= docs = counts). */
  readonly docTerms: number
  readonly postings: number
  /** `bodyChecksum` of the arrays, as `checksumText`. */
  readonly checksum: string
}

/** The arrays of the body, in file order, each a view of `length` elements. */
const bodyOf = (index: RouterIndex) => {
  const n = index.documents.length
  const m = index.docStart[n]!
  const sizes = new Int32Array(index.postings.length)
  let postings = 0
  index.postings.forEach((list, id) => {
    sizes[id] = list.size
    postings += list.size
  })
  const docs = new Int32Array(postings)
  const counts = new Int32Array(postings)
  let at = 0
  for (const list of index.postings) {
    docs.set(list.docs.subarray(0, list.size), at)
    counts.set(list.counts.subarray(0, list.size), at)
    at += list.size
  }
  const intents = new Int32Array(n)
  const groups = new Int32Array(n)
  index.documents.forEach((indexed, position) => {
    intents[position] = indexed.document.intents
    groups[position] = indexed.group
  })
  const arrays: ReadonlyArray<Int32Array | Float32Array> = [
    index.lengths.subarray(0, n * FIELD_COUNT),
    index.docStart.subarray(0, n + 1),
    index.docTerms.subarray(0, m),
    index.docCounts.subarray(0, m),
    intents,
    groups,
    sizes,
    docs,
    counts
  ]
  return { arrays, docTerms: m, postings }
}

const bytesOf = (array: Int32Array | Float32Array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength)

/** The file's bytes for the index of a catalog whose tool-set key and digest are given. */
export const encodeIndex = (index: RouterIndex, key: string, digest: string): Uint8Array => {
  const { arrays, docTerms, postings } = bodyOf(index)
  const placeholder = checksumText(0)
  const header: Header = {
    version: INDEX_FILE_VERSION,
    key,
    digest,
    terms: [...index.terms.keys()],
    groups: index.groups,
    totals: [...index.totals],
    keys: index.documents.map(({ nameKey, shortKey }) => `${nameKey}\n${shortKey === nameKey ? SAME_KEY : shortKey}`).join("\n"),
    docTerms,
    postings,
    // Last, so that its digits are the header's last but two bytes: written once the body is.
    checksum: placeholder
  }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const start = PREAMBLE + json.length + ((4 - (json.length % 4)) % 4)
  const size = start + arrays.reduce((total, array) => total + array.byteLength, 0)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, BYTE_ORDER, true)
  view.setUint32(8, json.length, true)
  out.set(json, PREAMBLE)
  let at = start
  for (const array of arrays) {
    out.set(bytesOf(array), at)
    at += array.byteLength
  }
  const sum = checksumText(bodyChecksum(new Int32Array(out.buffer, start, (size - start) / 4)))
  out.set(new TextEncoder().encode(sum), PREAMBLE + json.length - 2 - placeholder.length)
  return out
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
    isString(h["keys"]) &&
    isCount(h["docTerms"]) && isCount(h["postings"]) && isString(h["checksum"])
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

/**
 * The index in the bytes of a file, when they are a whole, well-formed index of this format
 * for `catalog` (its tool-set key, then its digest); `None` otherwise (stale, foreign,
 * truncated or corrupt). Its documents are the catalog's tools, in order.
 */
export const decodeIndex = (bytes: Uint8Array, catalog: IndexedCatalog): Option.Option<RouterIndex> => {
  if (bytes.length < PREAMBLE) return Option.none()
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== BYTE_ORDER) return Option.none()
  const headerBytes = view.getUint32(8, true)
  if (PREAMBLE + headerBytes > bytes.length) return Option.none()
  // Not UTF-8 or not JSON: a damaged file, rebuilt by the caller.
  const json = Either.try(() => JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(PREAMBLE, PREAMBLE + headerBytes))) as unknown)
  if (Either.isLeft(json)) return Option.none()
  const parsed = headerOf(json.right)
  if (Option.isNone(parsed)) return Option.none()
  const header = parsed.value
  if (header.key !== catalog.toolSetKey || header.digest !== indexDigest(catalog)) return Option.none()
  const tools = catalog.tools
  const n = tools.length
  const keys = header.keys === "" ? [] : header.keys.split("\n")
  if (keys.length !== 2 * n) return Option.none()
  const terms = header.terms.length
  const m = header.docTerms
  const p = header.postings
  const lengths = [n * FIELD_COUNT, n + 1, m, m, n, n, terms, p, p]
  const start = PREAMBLE + headerBytes + ((4 - (headerBytes % 4)) % 4)
  if (bytes.length !== start + lengths.reduce((total, length) => total + length * 4, 0)) return Option.none()
  if (checksumText(bodyChecksum(viewOf(Int32Array, bytes, start, (bytes.length - start) / 4))) !== header.checksum) return Option.none()
  let at = start
  const next = <T extends Int32Array | Float32Array>(make: Parameters<typeof viewOf<T>>[0], count: number): T => {
    const array = viewOf(make, bytes, at, count)
    at += count * 4
    return array
  }
  const docLengths = next(Float32Array, n * FIELD_COUNT)
  const docStart = next(Int32Array, n + 1)
  const docTerms = next(Int32Array, m)
  const docCounts = next(Float32Array, m)
  const intents = next(Int32Array, n)
  const groupOf = next(Int32Array, n)
  const sizes = next(Int32Array, terms)
  const docs = next(Int32Array, p)
  const counts = next(Int32Array, p)
  // Every index the ranking follows is checked, so a file of this shape cannot make it throw.
  for (let i = 0; i < docLengths.length; i++) if (!(docLengths[i]! >= 0 && docLengths[i]! < Infinity)) return Option.none()
  for (let i = 0; i < docCounts.length; i++) if (!(docCounts[i]! >= 0 && docCounts[i]! < Infinity)) return Option.none()
  if (docStart[0] !== 0 || docStart[n] !== m) return Option.none()
  for (let d = 0; d < n; d++) if (docStart[d + 1]! < docStart[d]!) return Option.none()
  for (let k = 0; k < m; k++) if (docTerms[k]! < 0 || docTerms[k]! >= terms) return Option.none()
  const index = emptyIndex()
  index.lengths = docLengths
  index.docStart = docStart
  index.docTerms = docTerms
  index.docCounts = docCounts
  header.totals.forEach((total, f) => {
    index.totals[f] = total
  })
  for (const term of header.terms) index.terms.set(term, index.terms.size)
  if (index.terms.size !== terms) return Option.none()
  let offset = 0
  for (let id = 0; id < terms; id++) {
    const size = sizes[id]!
    if (size < 0 || offset + size > p) return Option.none()
    let previous = -1
    for (let k = offset; k < offset + size; k++) {
      if (docs[k]! <= previous || docs[k]! >= n) return Option.none()
      previous = docs[k]!
    }
    const list: Postings = { docs: docs.subarray(offset, offset + size), counts: counts.subarray(offset, offset + size), size }
    index.postings.push(list)
    offset += size
  }
  if (offset !== p) return Option.none()
  header.groups.forEach((group) => index.groupIds.set(group, index.groupIds.size))
  if (index.groupIds.size !== header.groups.length || index.groupIds.has("")) return Option.none()
  index.groups.push(...header.groups)
  for (let g = 0; g < header.groups.length; g++) index.groupSizes.push(0)
  for (let position = 0; position < n; position++) {
    const entry = tools[position]!
    const group = groupOf[position]!
    const groupName = toolDocumentGroup(entry)
    // The group the file gives a document is the one its tool has (none for the catch-all).
    if (group < -1 || group >= header.groups.length || (group === -1 ? groupName !== "" : header.groups[group] !== groupName)) return Option.none()
    if (intents[position]! < 0 || index.byId.has(entry.name)) return Option.none()
    if (group >= 0) index.groupSizes[group]! += 1
    const nameKey = keys[2 * position]!
    const short = keys[2 * position + 1]!
    const shortKey = short === SAME_KEY ? nameKey : short
    const indexed: IndexedDocument = {
      document: { id: entry.name, name: entry.name, shortName: entry.shortName, group: groupName, intents: intents[position]! },
      nameKey,
      shortKey,
      group
    }
    index.documents.push(indexed)
    index.byId.set(entry.name, position)
    addKey(index, nameKey, position)
    if (shortKey !== nameKey) addKey(index, shortKey, position)
  }
  return Option.some(index)
}
