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
import { definitionHash, sha256 } from "./definitions.js"
import { type ToolAnnotations, type ToolSchema, ToolSchemaFromJson } from "./model.js"

const SchemasArray = Schema.Array(ToolSchemaFromJson)
const ToolsListResult = Schema.Struct({ tools: SchemasArray })

const firstIssue = (error: ParseResult.ParseError): string => {
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

/**
 * One entry as `ToolSchemaFromJson` decodes it (a missing description is `""`, a missing
 * `inputSchema` an empty object schema, unknown keys dropped), or undefined when it does not
 * decode.
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
  if (!has(value, "annotations")) return { name, description, inputSchema }
  const annotations = annotationsOf(value.annotations)
  return annotations === undefined ? undefined : { name, description, inputSchema, annotations }
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

/** The schemas of a parsed schemas file; the reason names the first problem and where it is. */
export const decodeSchemasJson = (json: unknown): Either.Either<ReadonlyArray<ToolSchema>, string> => {
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

/** The schemas in the text of a schemas file; the reason names the first problem and where it is. */
export const decodeSchemasText = (text: string): Either.Either<ReadonlyArray<ToolSchema>, string> =>
  Either.flatMap(
    Either.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) => `it is not JSON (${error instanceof Error ? error.message : String(error)})`
    }),
    decodeSchemasJson
  )

/**
 * The key of a list of schemas: SHA-256 of their definition hashes in order. The same schemas
 * in the same order (pinned and duplicate names included) have the same key; the hashes are
 * the ones a build computes anyway (kept per schema object).
 */
export const schemasKey = (schemas: ReadonlyArray<ToolSchema>): string => {
  const hashes = new Array<string>(schemas.length)
  for (let i = 0; i < schemas.length; i++) hashes[i] = definitionHash(schemas[i]!)
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
