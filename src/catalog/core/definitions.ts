/**
 * Definition hashes: a fingerprint of each tool's whole original definition, so a change of
 * any part of it between two builds (a rug pull: a server that rewrites a description or
 * widens a schema after the user approved it) can be reported.
 *
 * The hash is the SHA-256 (hex) of the canonical JSON of `{ name, description, inputSchema }`
 * plus `annotations`, `title` and `outputSchema` when the tool has them, before any
 * sanitizing (so the hash of a tool without the optional parts is what it always was). Canonical JSON is
 * `JSON.stringify` with object keys sorted by code unit, no whitespace, `undefined` members
 * left out, non-finite numbers as `null` (as JSON itself does) and a cycle written as the
 * string "[Circular]". An own `__proto__` member is a member like any other.
 *
 * How the text is written never changes the hash. Tool schemas are JSON data, and for JSON
 * data a plain-data writer produces the canonical text in one walk, counting the token
 * features of the text on the way (`definitionFacts`); any other value goes through the
 * general path (JSON.stringify with a key-sorting replacer, else a slow writer that handles
 * cycles and bigints). Tests check that both paths write the same text
 * (`referenceCanonicalJson`). The hash of a schema object and its token estimate are
 * computed once and kept for as long as the object lives.
 */
import * as crypto from "node:crypto"
import { Schema } from "effect"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"
import type { ToolEntry, ToolSchema } from "./model.js"
import {
  addFeatures,
  addQuotedFeatures,
  countFeatures,
  frameFeatures,
  jsonStringWithFeatures,
  noFeatures,
  type TokenFeatures,
  tokensFromFeatures
} from "../../inventory/domain/tokens.js"

// Beyond this depth the path is checked for cycles (JSON from a server has none; host objects might).
const CYCLE_CHECK_DEPTH = 32

const writeCanonical = (v: unknown, path: Array<object>): string | undefined => {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v)
    case "number":
      return Number.isFinite(v) ? String(v) : "null"
    case "boolean":
      return v ? "true" : "false"
    case "bigint":
      return v.toString()
    case "object": {
      if (v === null) return "null"
      if (path.length >= CYCLE_CHECK_DEPTH && path.includes(v)) return "\"[Circular]\""
      const toJson = (v as { toJSON?: unknown }).toJSON
      if (typeof toJson === "function") return writeCanonical(toJson.call(v), path)
      path.push(v)
      let out: string
      if (Array.isArray(v)) {
        out = "["
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ","
          out += writeCanonical(v[i], path) ?? "null"
        }
        out += "]"
      } else {
        const record = v as Record<string, unknown>
        // The default sort compares UTF-16 code units, which is the canonical order.
        const keys = Object.keys(record).sort()
        out = "{"
        let first = true
        for (const key of keys) {
          const item = writeCanonical(record[key], path)
          if (item === undefined) continue
          out += first ? `${JSON.stringify(key)}:${item}` : `,${JSON.stringify(key)}:${item}`
          first = false
        }
        out += "}"
      }
      path.pop()
      return out
    }
    default:
      return undefined
  }
}

// The general path lets the native JSON.stringify do the work and only reorders the keys of
// objects whose keys are out of order. Objects enumerate integer-like keys first whatever
// their insertion order, so an object with such a key cannot be reordered that way: the
// general path gives up on it (as it does on cycles and bigints) and the slow writer runs.
class NeedsSlowPath extends Error {}

const isIndexLike = (key: string): boolean => {
  const c = key.charCodeAt(0)
  return c >= 48 && c <= 57 && /^(?:0|[1-9]\d*)$/.test(key)
}

const sortingReplacer = (_key: string, value: unknown): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  let sorted = true
  for (let i = 0; i < keys.length; i++) {
    // A copy cannot hold an own `__proto__` member (the assignment sets the prototype).
    if (isIndexLike(keys[i]!) || keys[i] === "__proto__") throw new NeedsSlowPath()
    if (i > 0 && keys[i - 1]! > keys[i]!) sorted = false
  }
  if (sorted) return value
  keys.sort()
  const out: Record<string, unknown> = {}
  for (const key of keys) out[key] = record[key]
  return out
}

/** Canonical JSON of any value: toJSON, bigints, cycles, exotic objects (see the module comment). */
const generalCanonicalJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, sortingReplacer) ?? "null"
  } catch {
    return writeCanonical(value, []) ?? "null"
  }
}

// The plain-data path. Tool schemas are JSON data: plain objects and arrays, strings, numbers,
// booleans and null. For such values the canonical JSON is written directly, in one walk
// without a replacer (a replacer costs a call per value and a copy per unsorted object) into
// a list of pieces joined once: strings that need no escape are quoted as they are, a key's
// `"key":` text is cached, and an object's keys are sorted only when they are out of order.
// The same walk can count the token features of the text (see `tokens.ts`): a JSON text's
// features are the sum of its pieces' features, as every piece starts and ends at a
// punctuation character or a quoted string. Anything else (a toJSON method, a bigint, a
// Map, a class instance, a boxed primitive, nesting deeper than `PLAIN_MAX_DEPTH`, which also
// stops a cycle) makes the walk give up, and the general path runs on the whole value, so
// every value gets exactly the text the general path gives it.

/** JSON.stringify escapes quotes, backslashes, C0 controls and lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/** `JSON.stringify(text)` for a string, without the call when nothing needs escaping. */
export const jsonString = (text: string): string =>
  typeof text === "string" && !NEEDS_ESCAPE.test(text) ? `"${text}"` : JSON.stringify(text)

const PLAIN_MAX_DEPTH = 64
const KEY_CACHE_SIZE = 4096

/** A key's `"key":` text and the token features of that text. */
interface KeyPiece {
  readonly text: string
  readonly features: TokenFeatures
}

const keyPieces = new Map<string, KeyPiece>()

const keyPiece = (key: string): KeyPiece => {
  let piece = keyPieces.get(key)
  if (piece === undefined) {
    if (keyPieces.size >= KEY_CACHE_SIZE) keyPieces.clear()
    const text = `${jsonString(key)}:`
    piece = { text, features: countFeatures(text, noFeatures()) }
    keyPieces.set(key, piece)
  }
  return piece
}

/**
 * Sorts the keys of one object by UTF-16 code units (the default order of strings). Objects
 * of a schema have a few keys, often already in order: an insertion sort beats a call of
 * Array.prototype.sort there.
 */
const sortKeys = (keys: Array<string>): void => {
  if (keys.length > 16) {
    keys.sort()
    return
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!
    let j = i - 1
    if (keys[j]! <= key) continue
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!
      j -= 1
    }
    keys[j + 1] = key
  }
}

const NOT_PLAIN: unique symbol = Symbol("not plain data")

/**
 * Appends the canonical JSON of `v` to `parts` as pieces (and adds its features to
 * `features`, if given); false, with nothing appended, for a value JSON leaves out
 * (undefined, a function, a symbol). Throws `NOT_PLAIN` on anything but plain data.
 */
const writePlain = (
  v: unknown,
  depth: number,
  parts: Array<string>,
  features: TokenFeatures | undefined
): boolean => {
  switch (typeof v) {
    case "string":
      if (features === undefined ? NEEDS_ESCAPE.test(v) : !addQuotedFeatures(v, features)) {
        const json = JSON.stringify(v)
        parts.push(json)
        if (features !== undefined) countFeatures(json, features)
      } else {
        parts.push("\"", v, "\"")
      }
      return true
    case "number": {
      const text = Number.isFinite(v) ? String(v) : "null"
      parts.push(text)
      if (features !== undefined) countFeatures(text, features)
      return true
    }
    case "boolean":
      parts.push(v ? "true" : "false")
      // One word of four or five letters.
      if (features !== undefined) features.words += 1
      return true
    case "object": {
      if (v === null) {
        parts.push("null")
        if (features !== undefined) features.words += 1
        return true
      }
      if (depth >= PLAIN_MAX_DEPTH) throw NOT_PLAIN
      if (Array.isArray(v)) {
        if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN
        parts.push("[")
        for (let i = 0; i < v.length; i++) {
          if (i > 0) parts.push(",")
          if (!writePlain(v[i], depth + 1, parts, features)) {
            parts.push("null")
            if (features !== undefined) features.words += 1
          }
        }
        parts.push("]")
        // The brackets and the commas.
        if (features !== undefined) features.punctuation += v.length === 0 ? 2 : v.length + 1
        return true
      }
      // A plain object cannot inherit a toJSON method (`canonicalJson` checks
      // Object.prototype once), so an own key named toJSON is the only way to have one.
      const proto = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN
      const record = v as Record<string, unknown>
      const keys = Object.keys(record)
      sortKeys(keys)
      parts.push("{")
      let written = 0
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        const value = record[key]
        if (key === "toJSON" && typeof value === "function") throw NOT_PLAIN
        const piece = keyPiece(key)
        const at = parts.length
        if (written > 0) parts.push(",")
        parts.push(piece.text)
        if (!writePlain(value, depth + 1, parts, features)) {
          parts.length = at
          continue
        }
        written += 1
        if (features !== undefined) addFeatures(features, piece.features)
      }
      parts.push("}")
      // The braces and the commas.
      if (features !== undefined) features.punctuation += written === 0 ? 2 : written + 1
      return true
    }
    case "undefined":
    case "function":
    case "symbol":
      return false
    default:
      // bigint
      throw NOT_PLAIN
  }
}

/**
 * Appends the canonical JSON of `value` to `parts`: by the plain path, else the general one
 * (as one piece); adds its features to `features`, if given.
 */
const appendCanonical = (value: unknown, parts: Array<string>, features: TokenFeatures | undefined): void => {
  const length = parts.length
  const words = features?.words ?? 0
  const longExtra = features?.longExtra ?? 0
  const punctuation = features?.punctuation ?? 0
  const nonAscii = features?.nonAscii ?? 0
  let written: boolean
  try {
    if (typeof (Object.prototype as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN
    written = writePlain(value, 0, parts, features)
  } catch {
    // NOT_PLAIN, a stack overflow, or a throwing getter: the general path decides.
    parts.length = length
    if (features !== undefined) {
      features.words = words
      features.longExtra = longExtra
      features.punctuation = punctuation
      features.nonAscii = nonAscii
    }
    const general = generalCanonicalJson(value)
    parts.push(general)
    if (features !== undefined) countFeatures(general, features)
    return
  }
  if (!written) {
    parts.push("null")
    if (features !== undefined) features.words += 1
  }
}

/** JSON text with sorted object keys and no whitespace (the plain path, else the general one). */
export const canonicalJson = (value: unknown): string => {
  const parts: Array<string> = []
  appendCanonical(value, parts, undefined)
  return parts.length === 1 ? parts[0]! : parts.join("")
}

/**
 * The canonical JSON by the general path alone (a JSON.stringify replacer, else the slow
 * writer): the reference the plain path must equal, for tests.
 */
export const referenceCanonicalJson = (value: unknown): string => generalCanonicalJson(value)

/** The members of a definition's canonical JSON after `name`, in key order: `outputSchema`, `title`. */
const tailMembers = (schema: ToolSchema): string =>
  (schema.outputSchema === undefined ? "" : `,"outputSchema":${canonicalJson(schema.outputSchema)}`) +
  (schema.title === undefined ? "" : `,"title":${jsonString(schema.title)}`)

/** The canonical JSON that `definitionHash` hashes. */
export const definitionJson = (schema: ToolSchema): string => {
  const annotations = schema.annotations === undefined ? "" : `"annotations":${canonicalJson(schema.annotations)},`
  return `{${annotations}"description":${jsonString(schema.description ?? "")},"inputSchema":${
    canonicalJson(schema.inputSchema)
  },"name":${jsonString(schema.name)}${tailMembers(schema)}}`
}

const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash

/** SHA-256 hex of a string. */
export const sha256 = (text: string): string =>
  oneShot === undefined ? crypto.createHash("sha256").update(text).digest("hex") : oneShot("sha256", text, "hex")

/** What a build derives from the definition alone: its hash and its token estimate. */
export interface DefinitionFacts {
  readonly hash: string
  readonly tokens: number
}

// Tool schemas are immutable values (every field is readonly): a changed tool is a new
// object, so facts derived from one can be kept for as long as the object lives.
const facts = new WeakMap<ToolSchema, DefinitionFacts>()

/**
 * The hash and token estimate of a definition, computed once per schema object: one
 * canonical JSON text of the input schema serves both.
 */
export const definitionFacts = (schema: ToolSchema): DefinitionFacts => {
  const known = facts.get(schema)
  if (known !== undefined) return known
  // The token estimate counts `{"name":…,"description":…,"input_schema":…}`: the features of
  // its frame and of the three JSON texts, counted while they are written. The text hashed
  // is `definitionJson`, written as pieces joined once.
  const features = frameFeatures()
  const nameJson = jsonStringWithFeatures(schema.name, features)
  const descriptionJson = jsonStringWithFeatures(schema.description ?? "", features)
  // One list of pieces serves every call (a getter that reenters gets its own).
  const parts = sharedParts.length === 0 ? sharedParts : []
  try {
    if (schema.annotations !== undefined) parts.push(`{"annotations":${canonicalJson(schema.annotations)},"description":`)
    else parts.push("{\"description\":")
    parts.push(descriptionJson, ",\"inputSchema\":")
    appendCanonical(schema.inputSchema, parts, features)
    parts.push(",\"name\":", nameJson, tailMembers(schema), "}")
    const computed: DefinitionFacts = {
      hash: sha256(parts.join("")),
      tokens: tokensFromFeatures(features)
    }
    facts.set(schema, computed)
    return computed
  } finally {
    parts.length = 0
  }
}

const sharedParts: Array<string> = []

/** The fingerprint of a tool's whole original definition. */
export const definitionHash = (schema: ToolSchema): string => definitionFacts(schema).hash

/** Tool name → definition hash, for a catalog's tools (or any entries). */
export const definitionHashes = (tools: Iterable<ToolEntry>): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const tool of tools) out.set(tool.name, tool.definitionHash)
  return out
}

/**
 * `definitionHashes(catalog.tools)` as a view of the catalog's `byName` (the same names in
 * the same order): nothing is copied until someone iterates it, and most builds are never
 * compared with another.
 */
export const catalogDefinitionHashes = (catalog: { readonly byName: ReadonlyMap<string, ToolEntry> }): ReadonlyMap<string, string> =>
  new DefinitionHashesView(catalog.byName)

class DefinitionHashesView implements ReadonlyMap<string, string> {
  constructor(private readonly byName: ReadonlyMap<string, ToolEntry>) {}
  get size(): number {
    return this.byName.size
  }
  get(name: string): string | undefined {
    return this.byName.get(name)?.definitionHash
  }
  has(name: string): boolean {
    return this.byName.has(name)
  }
  forEach(callback: (hash: string, name: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [name, entry] of this.byName) callback.call(thisArg, entry.definitionHash, name, this)
  }
  *entries(): MapIterator<[string, string]> {
    for (const [name, entry] of this.byName) yield [name, entry.definitionHash]
  }
  keys(): MapIterator<string> {
    return this.byName.keys()
  }
  *values(): MapIterator<string> {
    for (const entry of this.byName.values()) yield entry.definitionHash
  }
  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries()
  }
}

/** Definition hashes as stored in a file: tool name → hash. */
export const DefinitionHashesJson = OwnRecord(Schema.String)

/** What changed between two builds, each list sorted by name. */
export interface DefinitionDiff {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Present in both with a different hash. */
  readonly changed: ReadonlyArray<string>
}

/** Compares two name → hash maps. */
export const diffDefinitions = (
  previous: ReadonlyMap<string, string>,
  next: ReadonlyMap<string, string>
): DefinitionDiff => {
  const added: Array<string> = []
  const removed: Array<string> = []
  const changed: Array<string> = []
  for (const [name, hash] of next) {
    const before = previous.get(name)
    if (before === undefined) added.push(name)
    else if (before !== hash) changed.push(name)
  }
  for (const name of previous.keys()) if (!next.has(name)) removed.push(name)
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return { added: added.sort(byName), removed: removed.sort(byName), changed: changed.sort(byName) }
}

/** True when nothing was added, removed or changed. */
export const isEmptyDiff = (diff: DefinitionDiff): boolean =>
  diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0

/** The parts of a tool's definition a change is named by, in the order they are named. */
export const DEFINITION_PARTS = ["title", "description", "inputSchema", "outputSchema", "annotations"] as const

/** One part of a tool's definition (see {@link DEFINITION_PARTS}). */
export type DefinitionPart = (typeof DEFINITION_PARTS)[number]

/**
 * A tool's definition as far as its parts go: a catalog `ToolSchema`, or a tool as an MCP
 * server lists it (with a title and an output schema). Every part may be missing.
 */
export interface PartedDefinition {
  /** Which tool it is: not a part (two tools of one name are the same tool). */
  readonly name?: string | undefined
  readonly title?: unknown
  readonly description?: unknown
  readonly inputSchema?: unknown
  readonly outputSchema?: unknown
  readonly annotations?: unknown
}

/**
 * The fingerprint of each part of a definition: the SHA-256 (hex) of the part's canonical
 * JSON, a missing part counted as `null`. How a part's JSON is written (key order,
 * whitespace) never changes its fingerprint.
 */
export type PartHashes = Readonly<Record<DefinitionPart, string>>

const wholePartHash = (value: unknown): string => sha256(canonicalJson(value ?? null))

/** The fingerprint of each part of a definition (see {@link PartHashes}). */
export const partHashes = (definition: PartedDefinition): PartHashes => ({
  title: wholePartHash(definition.title),
  description: wholePartHash(definition.description),
  inputSchema: wholePartHash(definition.inputSchema),
  outputSchema: wholePartHash(definition.outputSchema),
  annotations: wholePartHash(definition.annotations)
})

/**
 * The one rule of what changed in a definition: the parts whose fingerprints differ, in
 * {@link DEFINITION_PARTS} order. The rug-pull check of the gateway and `catalog diff` both
 * name a change by it.
 */
export const changedParts = (before: PartHashes, after: PartHashes): ReadonlyArray<DefinitionPart> =>
  DEFINITION_PARTS.filter((part) => before[part] !== after[part])

/**
 * What a definition is made of: the fingerprint of each part (see {@link PartHashes}), and the
 * input schema in more detail, each piece as a short hash, so that a changed input schema can
 * say what changed in it: each field (a member of `properties`, with whether `required` names
 * it), and the rest of the input schema. Fields are pairs, never object keys: a field may be
 * named `__proto__`.
 */
export interface DefinitionParts extends PartHashes {
  /** The input schema apart from its fields (`type`, `additionalProperties`, …). */
  readonly schema: string
  /** Each field's name and hash, in the schema's order. */
  readonly fields: ReadonlyArray<readonly [string, string]>
}

// 64 bits of SHA-256 tell a field's versions apart; each part keeps its full hash.
const FIELD_HASH_LENGTH = 16

const fieldHash = (value: unknown): string => sha256(canonicalJson(value)).slice(0, FIELD_HASH_LENGTH)

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The parts of a definition (see `DefinitionParts`). */
export const definitionParts = (definition: PartedDefinition): DefinitionParts => {
  const hashes = partHashes(definition)
  const input = definition.inputSchema
  if (!isRecord(input)) return { ...hashes, schema: fieldHash(input ?? null), fields: [] }
  const properties = isRecord(input.properties) ? input.properties : {}
  const required = new Set(Array.isArray(input.required) ? input.required.filter((name) => typeof name === "string") : [])
  const fields = Object.keys(properties).map((name): readonly [string, string] => [
    name,
    fieldHash({ schema: properties[name], required: required.has(name) })
  ])
  // The rest: every member but the fields, and the required names that are no field.
  const rest: Array<readonly [string, unknown]> = Object.keys(input)
    .filter((key) => key !== "properties" && key !== "required")
    .map((key) => [key, input[key]])
  const requiredElsewhere = [...required].filter((name) => !Object.hasOwn(properties, name))
  return {
    ...hashes,
    schema: fieldHash([rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), requiredElsewhere.sort()]),
    fields
  }
}

/** What changed in one tool's definition between two builds. */
export interface DefinitionChange {
  readonly name: string
  /** False when the earlier definition is not at hand: only that the definition changed is known. */
  readonly known: boolean
  readonly title: boolean
  readonly description: boolean
  readonly outputSchema: boolean
  readonly annotations: boolean
  /** The input schema changed apart from its fields. */
  readonly schema: boolean
  readonly fieldsAdded: ReadonlyArray<string>
  readonly fieldsRemoved: ReadonlyArray<string>
  readonly fieldsChanged: ReadonlyArray<string>
}

/**
 * Which parts of a changed definition differ ({@link changedParts}), and for a changed input
 * schema which of its fields; `before` is undefined when the earlier definition is not at hand.
 */
export const definitionChange = (name: string, before: DefinitionParts | undefined, after: DefinitionParts): DefinitionChange => {
  if (before === undefined) {
    return {
      name,
      known: false,
      title: false,
      description: false,
      outputSchema: false,
      annotations: false,
      schema: false,
      fieldsAdded: [],
      fieldsRemoved: [],
      fieldsChanged: []
    }
  }
  const parts = changedParts(before, after)
  // The details only say where in a changed input schema the change is (a reordered
  // `required` changes the schema and no field).
  const inputSchema = parts.includes("inputSchema")
  const earlier = new Map(inputSchema ? before.fields : [])
  const later = new Map(inputSchema ? after.fields : [])
  return {
    name,
    known: true,
    title: parts.includes("title"),
    description: parts.includes("description"),
    outputSchema: parts.includes("outputSchema"),
    annotations: parts.includes("annotations"),
    schema: inputSchema && before.schema !== after.schema,
    fieldsAdded: [...later.keys()].filter((field) => !earlier.has(field)),
    fieldsRemoved: [...earlier.keys()].filter((field) => !later.has(field)),
    fieldsChanged: [...later].flatMap(([field, hash]) => {
      const old = earlier.get(field)
      return old !== undefined && old !== hash ? [field] : []
    })
  }
}
