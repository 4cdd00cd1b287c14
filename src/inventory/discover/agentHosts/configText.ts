import { Effect } from "effect"
import { printParseErrorCode, visit } from "jsonc-parser"
import { parse as parseToml, TomlError } from "smol-toml"
import { jsonErrorLine, lineAt } from "../../domain/jsonText.js"

/** Why a config file could not be parsed: a line and a reason of our own (never the parser's text). */
export class ParseProblem {
  readonly _tag = "ParseProblem"
  constructor(readonly line: number | null, readonly reason: string) {}
}

/** Strict UTF-8 decoding. */
export const decodeUtf8 = (bytes: Uint8Array): Effect.Effect<string, ParseProblem> =>
  Effect.try({
    try: () => new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    catch: () => new ParseProblem(null, "file is not valid UTF-8")
  })

/**
 * Strict JSON. JSON.parse creates `__proto__` as an own property, so parsed objects cannot reach
 * a prototype. V8's messages quote the text, so only the position is kept.
 */
export const parseJsonText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new ParseProblem(jsonErrorLine(error, text), "invalid JSON")
  })

/** How deep a JSONC value may nest; a deeper one is read as null (a hash or a render of it would exhaust the stack). */
export const MAX_JSONC_DEPTH = 64

/** A parsed config: the value, and the lines of values nested too deep (each read as null). */
export interface ParsedConfig {
  readonly value: unknown
  readonly tooDeep: ReadonlyArray<number>
}

/**
 * JSON with comments and trailing commas (opencode, Gemini CLI), built into null-prototype
 * objects: a `__proto__` key is a key like any other (jsonc-parser's own `parse` sets the
 * prototype instead). A value nested deeper than {@link MAX_JSONC_DEPTH} is read as null and
 * reported, so one bad field does not cost the rest of the file.
 */
export const parseJsoncConfig = (text: string): Effect.Effect<ParsedConfig, ParseProblem> =>
  Effect.try({
    try: () => buildJsonc(text),
    catch: () => new ParseProblem(null, "invalid JSONC (nesting too deep)")
  }).pipe(Effect.flatMap((built) => (built instanceof ParseProblem ? Effect.fail(built) : Effect.succeed(built))))

const buildJsonc = (text: string): ParsedConfig | ParseProblem => {
  const stack: Array<{ readonly container: Record<string, unknown> | Array<unknown>; key: string }> = []
  const tooDeep: Array<number> = []
  let root: unknown = undefined
  let depth = 0
  let problem: ParseProblem | null = null
  const put = (value: unknown) => {
    const top = stack[stack.length - 1]
    if (top === undefined) root = value
    else if (Array.isArray(top.container)) top.container.push(value)
    else top.container[top.key] = value
  }
  const begin = (container: () => Record<string, unknown> | Array<unknown>) => (_offset: number, _length: number, line: number) => {
    depth++
    if (depth === MAX_JSONC_DEPTH + 1) tooDeep.push(line + 1)
    if (depth <= MAX_JSONC_DEPTH) stack.push({ container: container(), key: "" })
  }
  const end = () => {
    if (depth === MAX_JSONC_DEPTH + 1) put(null)
    else if (depth <= MAX_JSONC_DEPTH) put(stack.pop()!.container)
    depth--
  }
  visit(text, {
    onObjectBegin: begin(() => Object.create(null) as Record<string, unknown>),
    onObjectEnd: end,
    onArrayBegin: begin(() => []),
    onArrayEnd: end,
    onObjectProperty: (name) => {
      const top = stack[stack.length - 1]
      if (depth <= MAX_JSONC_DEPTH && top !== undefined) top.key = name
    },
    onLiteralValue: (value: unknown) => {
      if (depth <= MAX_JSONC_DEPTH) put(value)
    },
    onError: (error, offset) => {
      problem ??= new ParseProblem(lineAt(text, offset), `invalid JSONC: ${printParseErrorCode(error)}`)
    }
  }, { allowTrailingComma: true, disallowComments: false })
  return problem ?? { value: root, tooDeep }
}

/** The value of {@link parseJsoncConfig}, for readers that need no report of what was too deep. */
export const parseJsoncText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.map(parseJsoncConfig(text), (parsed) => parsed.value)

/** TOML through smol-toml; its messages quote the text, so only line and column are kept. */
export const parseTomlText = (text: string): Effect.Effect<unknown, ParseProblem> =>
  Effect.try({
    try: () => parseToml(text) as unknown,
    catch: (error) =>
      error instanceof TomlError
        ? new ParseProblem(error.line, `invalid TOML at column ${error.column}`)
        : new ParseProblem(null, "invalid TOML")
  })

/** A JSON object as a record, or null (arrays and primitives are not records). */
export const asRecord = (value: unknown): Readonly<Record<string, unknown>> | null =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null

/** An own property of a parsed object (never one reached through a prototype). */
export const own = (record: Readonly<Record<string, unknown>> | null, key: string): unknown =>
  record !== null && Object.hasOwn(record, key) ? record[key] : undefined

/** A string value or null. */
export const asString = (value: unknown): string | null => (typeof value === "string" ? value : null)

/** An array of strings (non-strings dropped), or null when not an array. */
export const asStringArray = (value: unknown): ReadonlyArray<string> | null =>
  Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : null

/** A boolean or null. */
export const asBoolean = (value: unknown): boolean | null => (typeof value === "boolean" ? value : null)
