/**
 * The tool schemas files of the command line: `--schemas FILE` (a JSON array of tool schemas,
 * or an MCP `tools/list` result) and the snapshot a run keeps of it for later runs.
 *
 * Decoding is the `ToolSchemaFromJson` schema's. Tens of thousands of schemas through Effect's
 * general decoder take longer than parsing the file, so each entry is first checked by hand
 * against the same rules; only a file with an entry that fails them goes through the schema,
 * whose error names the first problem and where it is. The test suite holds the two paths to
 * the same results.
 *
 * The snapshot is `{"toolMapSnapshot":1,"key":KEY,"tools":[…]}`, an MCP `tools/list` result
 * with its key in the first bytes: a run reads only those bytes to know whether the schemas it
 * got are the ones already kept, and writes the snapshot only when they are not.
 */
import { Either, Option, ParseResult, Schema } from "effect"
import { TOOL_MAP_VERSION } from "../../version.js"
import { factsOf, primeDefinitionFacts, primeToolSetKey } from "./build.js"
import { type DefinitionFacts, definitionFacts, sha256 } from "./definitions.js"
import { TOKEN_MODEL } from "../../inventory/domain/tokens.js"
import { notJsonReason } from "../../inventory/domain/jsonText.js"
import { type ToolAnnotations, type ToolSchema, ToolSchemaFromJson } from "./model.js"
import { nestsDeeperText, nestsDeeperThan } from "./nesting.js"
import { wellFormed } from "../../inventory/domain/untrusted.js"
import { displayName, MAX_NAME_WIDTH } from "./sanitize.js"

const SchemasArray = Schema.Array(ToolSchemaFromJson)
const ToolsListResult = Schema.Struct({ tools: SchemasArray })

/** The first issue of a decode error in one line: where it is and what is wrong. */
export const firstIssue = (error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return "it does not match the expected shape"
  const at = issue.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("")
  return `at ${at}: ${issue.message}`
}

const ANNOTATION_FLAGS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const has = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key)

/** Decoded annotations (known keys only, in the schema's order), or undefined when they do not decode. */
const annotationsOf = (value: unknown): ToolAnnotations | undefined => {
  if (!isRecord(value)) return undefined
  const out: { -readonly [K in keyof ToolAnnotations]: ToolAnnotations[K] } = {}
  if (has(value, "title")) {
    if (typeof value.title !== "string") return undefined
    out.title = value.title
  }
  for (const flag of ANNOTATION_FLAGS) {
    if (!has(value, flag)) continue
    const hint = value[flag]
    if (typeof hint !== "boolean") return undefined
    out[flag] = hint
  }
  return out
}

/** True when `record`'s own keys are exactly `keys`, in that order. */
const hasExactly = (record: object, keys: ReadonlyArray<string>): boolean => {
  let i = 0
  for (const key in record) {
    if (keys[i] !== key) return false
    i += 1
  }
  return i === keys.length
}

const PLAIN_KEYS = ["name", "description", "inputSchema"]

/**
 * One entry as `ToolSchemaFromJson` decodes it (a missing description is `""`, a missing
 * `inputSchema` an empty object schema, unknown keys dropped, the members in the schema's
 * order), or undefined when it does not decode. An entry that already is what the decode gives
 * (the same keys in the same order) is kept as it is: tens of thousands of copies would only
 * be garbage.
 */
const toolSchemaOf = (value: unknown): ToolSchema | undefined => {
  if (!isRecord(value)) return undefined
  const name = value.name
  if (typeof name !== "string" || name.length === 0) return undefined
  let description = ""
  if (has(value, "description") && value.description !== undefined) {
    if (typeof value.description !== "string") return undefined
    description = value.description
  }
  const inputSchema = has(value, "inputSchema") && value.inputSchema !== undefined ? value.inputSchema : { type: "object" }
  let asGiven = value.description === description && value.inputSchema === inputSchema
  const hasAnnotations = has(value, "annotations")
  const hasTitle = has(value, "title")
  const hasOutput = has(value, "outputSchema")
  if (!hasAnnotations && !hasTitle && !hasOutput) {
    return asGiven && hasExactly(value, PLAIN_KEYS) ? value as unknown as ToolSchema : { name, description, inputSchema }
  }
  const out: { -readonly [K in keyof ToolSchema]: ToolSchema[K] } = { name, description, inputSchema }
  const keys = [...PLAIN_KEYS]
  if (hasAnnotations) {
    const annotations = annotationsOf(value.annotations)
    if (annotations === undefined) return undefined
    asGiven &&= hasExactly(value.annotations as object, Object.keys(annotations))
    out.annotations = annotations
    keys.push("annotations")
  }
  if (hasTitle) {
    if (typeof value.title !== "string") return undefined
    out.title = value.title
    keys.push("title")
  }
  if (hasOutput) {
    out.outputSchema = value.outputSchema
    keys.push("outputSchema")
  }
  return asGiven && hasExactly(value, keys) ? value as unknown as ToolSchema : out
}

/** The schemas of a decoded array by hand, `None` when an entry does not pass (the schema then says why). */
const fastSchemas = (items: ReadonlyArray<unknown>): Option.Option<ReadonlyArray<ToolSchema>> => {
  const out = new Array<ToolSchema>(items.length)
  for (let i = 0; i < items.length; i++) {
    const schema = toolSchemaOf(items[i])
    if (schema === undefined) return Option.none()
    out[i] = schema
  }
  return Option.some(out)
}

/** Why the first entry that nests deeper than the cap is refused, naming it; undefined when none does. */
const tooDeep = (items: ReadonlyArray<unknown>, at: string): string | undefined => {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (!nestsDeeperThan(item)) continue
    const name = isRecord(item) && typeof item.name === "string" ? ` ${displayName(item.name, MAX_NAME_WIDTH)}` : ""
    return `at ${at}[${i}]: the tool${name} ${nestsDeeperText()}`
  }
  return undefined
}

/** The schemas of a parsed schemas file; the reason names the first problem and where it is. */
export const decodeSchemasJson = (json: unknown): Either.Either<ReadonlyArray<ToolSchema>, string> => {
  const deep = Array.isArray(json)
    ? tooDeep(json, "")
    : isRecord(json) && Array.isArray(json.tools)
    ? tooDeep(json.tools, ".tools")
    : undefined
  if (deep !== undefined) return Either.left(deep)
  if (Array.isArray(json)) {
    return Option.match(fastSchemas(json), {
      onSome: Either.right,
      onNone: () => Either.mapLeft(Schema.decodeUnknownEither(SchemasArray)(json), firstIssue)
    })
  }
  if (isRecord(json) && "tools" in json) {
    const fast = Array.isArray(json.tools) ? fastSchemas(json.tools) : Option.none()
    return Option.match(fast, {
      onSome: Either.right,
      onNone: () =>
        Either.mapLeft(
          Either.map(Schema.decodeUnknownEither(ToolsListResult)(json), (result) => result.tools),
          firstIssue
        )
    })
  }
  return Either.left("expected a JSON array of tool schemas or an MCP tools/list result ({ \"tools\": [...] })")
}

/** The JSON value of the text of a schemas file; the reason says where it is not JSON. */
export const parseSchemasText = (text: string): Either.Either<unknown, string> =>
  Either.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => notJsonReason(error, text)
  })

/** The schemas in the text of a schemas file; the reason names the first problem and where it is. */
export const decodeSchemasText = (text: string): Either.Either<ReadonlyArray<ToolSchema>, string> =>
  Either.flatMap(parseSchemasText(text), decodeSchemasJson)

/**
 * The key of a list of schemas: SHA-256 of their definition hashes in order. The same schemas
 * in the same order (pinned and duplicate names included) have the same key; the hashes are
 * the ones a build computes anyway (kept per schema object).
 */
export const schemasKey = (schemas: ReadonlyArray<ToolSchema>): string => {
  const hashes = new Array<string>(schemas.length)
  for (let i = 0; i < schemas.length; i++) hashes[i] = factsOf(schemas[i]!).hash
  return sha256(`${schemas.length}\n${hashes.join("\n")}`)
}

/** How many bytes from the start of a snapshot (or a definitions record) hold its key. */
export const KEY_HEAD_BYTES = 256

/** The text of the snapshot of `schemas`, with their key first. */
export const snapshotText = (schemas: ReadonlyArray<ToolSchema>, key: string, compactAbove: number): string => {
  const head = `{"toolMapSnapshot":1,"key":${JSON.stringify(key)},"tools":`
  const compact = JSON.stringify(schemas)
  return `${head}${compact.length > compactAbove ? compact : JSON.stringify(schemas, null, 2)}}\n`
}

/** The value of the string member `member` near the head of a JSON text, when it is there. */
export const keyInHead = (head: string, member: string): Option.Option<string> =>
  Option.fromNullable(new RegExp(`^\\{\\s*(?:"[A-Za-z]+"\\s*:\\s*(?:\\d+|"[^"\\\\]*")\\s*,\\s*)*"${member}"\\s*:\\s*"([^"\\\\]*)"`).exec(head)?.[1])

/**
 * The facts file kept next to the snapshot: the definition facts (hash, token estimate) of
 * the snapshot's schemas in order, what a build reads of each schema besides its input schema
 * (name, description, annotations, as decoded), and the SHA-256 of each file text (a
 * `--schemas` file, the snapshot) known to hold exactly those schemas, first in the file. A
 * run whose text is one of them takes the facts instead of computing them, and the rest
 * instead of parsing the text (see `leanSchemas`).
 */
export interface FactsFile {
  /** `factsModel()` of the run that wrote it: facts of another model are not taken. */
  readonly model: string
  /** The `schemasKey` of the schemas. */
  readonly key: string
  /** SHA-256 (hex) of texts that decode to exactly these schemas, the newest first. */
  readonly texts: ReadonlyArray<string>
  readonly facts: ReadonlyArray<DefinitionFacts>
  /** Each schema's `name`, `description` and `annotations` (null when it has none), in order. */
  readonly names: ReadonlyArray<string>
  readonly descriptions: ReadonlyArray<string>
  readonly annotations: ReadonlyArray<ToolAnnotations | null>
  /**
   * The schemas that have a title or an output schema, few in most lists: each one's index,
   * its title (null when it has none) and whether it has an output schema.
   */
  readonly extras: ReadonlyArray<FactsExtra>
  /** The `toolSetKey` of the schemas, when the run that wrote the file computed it. */
  readonly setKey?: string | undefined
}

/** A schema with a title or an output schema: its index, its title, whether it has an output schema. */
export type FactsExtra = readonly [index: number, title: string | null, outputSchema: boolean]

/** The facts file of decoded `schemas` (their facts computed now, unless kept per object). */
export const factsFileOf = (
  head: Omit<FactsFile, "facts" | "names" | "descriptions" | "annotations" | "extras">,
  schemas: ReadonlyArray<ToolSchema>
): FactsFile => {
  const n = schemas.length
  const facts = new Array<DefinitionFacts>(n)
  const names = new Array<string>(n)
  const descriptions = new Array<string>(n)
  const annotations = new Array<ToolAnnotations | null>(n)
  const extras: Array<FactsExtra> = []
  for (let i = 0; i < n; i++) {
    const schema = schemas[i]!
    facts[i] = factsOf(schema)
    names[i] = schema.name
    descriptions[i] = schema.description
    annotations[i] = schema.annotations ?? null
    if (schema.title !== undefined || schema.outputSchema !== undefined) {
      extras.push([i, schema.title ?? null, schema.outputSchema !== undefined])
    }
  }
  return { ...head, facts, names, descriptions, annotations, extras }
}

/** How many texts a facts file remembers. */
export const FACTS_TEXTS_KEPT = 4

/** How many bytes from the start of a facts file hold its model, key and texts. */
export const FACTS_HEAD_BYTES = 256 + FACTS_TEXTS_KEPT * 72

// A definition that exercises what the hash and the estimate look at: key order, nesting,
// numbers, escapes, long words, text beyond ASCII, annotations, a title, an output schema.
const PROBE: ToolSchema = {
  name: "mcp__probe__read_file",
  description: "Reads a file.\n\tThen returns \"its\" content — élan, 日本語, supercalifragilistic.",
  inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string", maxLength: 4096 }, depth: { type: "number", minimum: -1.5 } } },
  annotations: { readOnlyHint: true, title: "Read" },
  title: "Read file",
  outputSchema: { type: "object", properties: { content: { type: "string" } } }
}

let model: string | undefined

/**
 * The identity of the facts' rules in this build of tool-map: its version, the token model,
 * and the facts of a probe definition. Facts written under other rules are recomputed.
 */
export const factsModel = (): string =>
  (model ??= sha256(JSON.stringify([TOOL_MAP_VERSION, FACTS_FORMAT, TOKEN_MODEL, definitionFacts(PROBE)])).slice(0, 32))

/** The layout of the facts file: files of another layout are written again. */
const FACTS_FORMAT = 5

/**
 * The text of a facts file. A first line of JSON: its model, key and texts first, then the token
 * estimates, the lengths of the names and of the descriptions, the annotations, the extras, and the bytes
 * of each of the three blocks after the line. Then the blocks, raw: the hashes (64 hex digits
 * each), the names and the descriptions, each block their concatenation. A reader parses the
 * line only; each block is decoded from the file's bytes once, and every hash, name and
 * description is a slice of it: neither a text of the whole file nor a copy of its megabytes of
 * strings is made, only the strings that are kept. Names or descriptions with a lone surrogate
 * (which UTF-8 cannot carry) are written as JSON strings instead (`escaped`).
 */
export const factsFileText = (file: FactsFile): string => {
  const hashes = new Array<string>(file.facts.length)
  const tokens = new Array<number>(file.facts.length)
  for (let i = 0; i < file.facts.length; i++) {
    hashes[i] = file.facts[i]!.hash
    tokens[i] = file.facts[i]!.tokens
  }
  const names = file.names.join("")
  const descriptions = file.descriptions.join("")
  const escaped = wellFormed(names) !== names || wellFormed(descriptions) !== descriptions
  const blocks = [hashes.join(""), escaped ? JSON.stringify(names) : names, escaped ? JSON.stringify(descriptions) : descriptions]
  return `{"toolMapFacts":1,"model":${JSON.stringify(file.model)},"key":${JSON.stringify(file.key)},"texts":${
    JSON.stringify(file.texts.slice(0, FACTS_TEXTS_KEPT))
  },"tokens":${JSON.stringify(tokens)},"names":${lengthsOf(file.names)},"descriptions":${lengthsOf(file.descriptions)},"annotations":${
    JSON.stringify(file.annotations)
  },"extras":${JSON.stringify(file.extras)}${file.setKey === undefined ? "" : `,"setKey":${JSON.stringify(file.setKey)}`}${escaped ? ",\"escaped\":true" : ""},"blocks":${
    JSON.stringify(blocks.map((block) => Buffer.byteLength(block)))
  }}\n${blocks.join("")}`
}

/** The lengths of strings as a JSON array. */
const lengthsOf = (parts: ReadonlyArray<string>): string => {
  const lengths = new Array<number>(parts.length)
  for (let i = 0; i < parts.length; i++) lengths[i] = parts[i]!.length
  return JSON.stringify(lengths)
}

/** The `n` strings `lengths` cuts `text` into, `undefined` when the lengths do not fit it. */
const unpacked = (text: unknown, lengths: unknown, n: number): Array<string> | undefined => {
  if (typeof text !== "string" || !Array.isArray(lengths) || lengths.length !== n) return undefined
  const out = new Array<string>(n)
  let at = 0
  for (let i = 0; i < n; i++) {
    const length: unknown = lengths[i]
    if (!Number.isSafeInteger(length) || (length as number) < 0 || at + (length as number) > text.length) return undefined
    out[i] = text.slice(at, at += length as number)
  }
  return at === text.length ? out : undefined
}

const HEX = /^[0-9a-f]*$/

/** HEX.test(text) by a loop: the regular expression takes several times as long on megabytes of hashes. */
const isLowerHex = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

const isHex64 = (value: unknown): value is string => typeof value === "string" && value.length === 64 && HEX.test(value)

/** What the head of a facts file says. */
export type FactsHead = Pick<FactsFile, "model" | "key" | "texts">

/** The model, key and texts in the head of a facts file, when they are there. */
export const factsHead = (head: string): Option.Option<FactsHead> => {
  const match = /^\{"toolMapFacts":1,"model":"([0-9a-f]{32})","key":"([0-9a-f]{64})","texts":\[((?:"[0-9a-f]{64}",?)*)\]/.exec(head)
  if (match === null) return Option.none()
  const texts = match[3]!.length === 0 ? [] : match[3]!.split(",").map((text) => text.slice(1, -1))
  return Option.some({ model: match[1]!, key: match[2]!, texts })
}

/** A facts file's first line, parsed, and its three blocks as text (see `factsFileText`). */
export interface FactsFileParts {
  readonly line: unknown
  readonly hashes: string
  readonly names: string
  readonly descriptions: string
}

const utf8 = new TextDecoder()

/**
 * The parts of a facts file's bytes, `None` when they are not laid out as one (no first line,
 * blocks that do not fill the rest exactly). The bytes are not kept: a caller that reads the
 * file drops them as soon as this returns.
 */
export const factsFileParts = (bytes: Uint8Array): Option.Option<FactsFileParts> => {
  const end = bytes.indexOf(10)
  if (end < 0) return Option.none()
  const line = Either.getOrUndefined(Either.try((): unknown => JSON.parse(utf8.decode(bytes.subarray(0, end)))))
  if (!isRecord(line) || !Array.isArray(line.blocks) || line.blocks.length !== 3) return Option.none()
  const blocks: Array<string> = []
  let at = end + 1
  for (const length of line.blocks as ReadonlyArray<unknown>) {
    if (!Number.isSafeInteger(length) || (length as number) < 0 || at + (length as number) > bytes.length) return Option.none()
    blocks.push(utf8.decode(bytes.subarray(at, at += length as number)))
  }
  if (at !== bytes.length) return Option.none()
  return Option.some({ line, hashes: blocks[0]!, names: blocks[1]!, descriptions: blocks[2]! })
}

/** The JSON string an escaped block holds, `undefined` when it is not one. */
const escapedText = (block: string): unknown => Either.getOrUndefined(Either.try((): unknown => JSON.parse(block)))

/** The facts file of its parts, checked value by value; `None` when it is not one. */
export const factsFileOfParts = (parts: FactsFileParts): Option.Option<FactsFile> => {
  const json = parts.line
  if (
    !isRecord(json) || json.toolMapFacts !== 1 || typeof json.model !== "string" || typeof json.key !== "string" ||
    !Array.isArray(json.texts) || !Array.isArray(json.tokens) || !Array.isArray(json.annotations) ||
    !Array.isArray(json.extras)
  ) {
    return Option.none()
  }
  const { hashes } = parts
  const { tokens } = json
  const n = tokens.length
  if (hashes.length !== n * 64 || json.annotations.length !== n || !isLowerHex(hashes)) return Option.none()
  const escaped = json.escaped === true
  const names = unpacked(escaped ? escapedText(parts.names) : parts.names, json.names, n)
  const descriptions = unpacked(escaped ? escapedText(parts.descriptions) : parts.descriptions, json.descriptions, n)
  if (names === undefined || descriptions === undefined) return Option.none()
  const facts = new Array<DefinitionFacts>(n)
  const annotations = new Array<ToolAnnotations | null>(n)
  for (let i = 0; i < n; i++) {
    const estimate: unknown = tokens[i]
    if (!Number.isSafeInteger(estimate) || names[i]!.length === 0) return Option.none()
    facts[i] = { hash: hashes.slice(i * 64, i * 64 + 64), tokens: estimate as number }
    const given: unknown = json.annotations[i]
    if (given === null) {
      annotations[i] = null
      continue
    }
    // As the decode gives them: known keys only, in the schema's order.
    const decoded = annotationsOf(given)
    if (decoded === undefined || !hasExactly(given as object, Object.keys(decoded))) return Option.none()
    annotations[i] = decoded
  }
  const extras = extrasOf(json.extras, n)
  if (extras === undefined) return Option.none()
  const setKey = isHex64(json.setKey) ? json.setKey : undefined
  return Option.some({
    model: json.model,
    key: json.key,
    texts: json.texts.filter(isHex64),
    facts,
    names,
    descriptions,
    annotations,
    extras,
    setKey
  })
}

/** The extras of a facts file, checked: indices rising within `n`, a title a string or null. */
const extrasOf = (given: ReadonlyArray<unknown>, n: number): ReadonlyArray<FactsExtra> | undefined => {
  let last = -1
  const out: Array<FactsExtra> = []
  for (const extra of given) {
    if (!Array.isArray(extra) || extra.length !== 3) return undefined
    const [index, title, output]: ReadonlyArray<unknown> = extra
    if (!Number.isSafeInteger(index) || (index as number) <= last || (index as number) >= n) return undefined
    if ((title !== null && typeof title !== "string") || typeof output !== "boolean") return undefined
    last = index as number
    out.push([last, title, output])
  }
  return out
}

/**
 * The schemas a facts file describes, without parsing their text: each is what the decode of
 * that text gives (the same keys in the same order, the same values), except that its
 * `inputSchema` (and `outputSchema`, when it has one) is read on first use, from `full()`, the decode of the whole text. Builds read
 * every field but the input schema (its hash and token estimate are the facts, primed here
 * with the tool-set key when the file has it), so a listing never parses the tens of
 * megabytes that input schemas are; anything that reads one (a classifier, a new snapshot)
 * gets the very value. The caller vouches that the text `full` decodes is one of the file's
 * `texts`; `full` is called at most once, and its schemas must have the file's names.
 */
export const leanSchemas = (file: FactsFile, full: () => ReadonlyArray<ToolSchema>): ReadonlyArray<ToolSchema> => {
  const n = file.names.length
  const out = new Array<ToolSchema>(n)
  // Built on the first read of an input (or output) schema: no per-schema index member to copy or compare.
  let decoded: Map<object, ToolSchema> | undefined
  const decodedOf = (): Map<object, ToolSchema> => {
    if (decoded !== undefined) return decoded
    const schemas = full()
    if (schemas.length !== n || schemas.some((schema, i) => schema.name !== file.names[i])) {
      throw new Error("leanSchemas: the schemas text does not hold the schemas of its facts file")
    }
    const map = new Map<object, ToolSchema>()
    for (let i = 0; i < n; i++) map.set(out[i]!, schemas[i]!)
    return decoded = map
  }
  // One descriptor, one getter for every schema of the list: the objects share their shape.
  const inputSchema: PropertyDescriptor = {
    get(this: object): unknown {
      return decodedOf().get(this)?.inputSchema
    },
    enumerable: true,
    configurable: true
  }
  const outputSchema: PropertyDescriptor = {
    get(this: object): unknown {
      return decodedOf().get(this)?.outputSchema
    },
    enumerable: true,
    configurable: true
  }
  let next = 0
  for (let i = 0; i < n; i++) {
    const schema = { name: file.names[i]!, description: file.descriptions[i]! }
    Object.defineProperty(schema, "inputSchema", inputSchema)
    const annotations = file.annotations[i]
    if (annotations !== null && annotations !== undefined) (schema as { annotations?: ToolAnnotations }).annotations = annotations
    const extra = file.extras[next]
    if (extra !== undefined && extra[0] === i) {
      next += 1
      if (extra[1] !== null) (schema as { title?: string }).title = extra[1]
      if (extra[2]) Object.defineProperty(schema, "outputSchema", outputSchema)
    }
    out[i] = schema as unknown as ToolSchema
  }
  primeDefinitionFacts(out, file.facts)
  if (file.setKey !== undefined) primeToolSetKey(out, file.setKey)
  return out
}
