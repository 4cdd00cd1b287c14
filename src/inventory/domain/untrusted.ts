import { Schema, SchemaAST } from "effect"
import { redactArgv, redactSecrets } from "./secrets.js"

/**
 * The one rule for strings that came from a file tool-map does not own (names, paths,
 * descriptions, arguments, diagnostics that quote them): secrets redacted, then the characters
 * that can hide or forge text neutralized. {@link cleanerFor} applies it to every string of a
 * Schema-typed value, so a field added to a schema is covered without a call of its own.
 */

/** A surrogate without its pair: what makes a string ill-formed UTF-16. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * What is never printed as it is from untrusted text, in files, tables and JSON alike: the C0
 * controls (tab, newline and ESC included), DEL, the C1 controls, the line and paragraph
 * separators, the bidi controls (embeddings and overrides U+202A–U+202E, isolates
 * U+2066–U+2069, and the marks U+061C, U+200E, U+200F), the invisible characters that can hide
 * text or make two names look alike (the soft hyphen U+00AD, the grapheme joiner U+034F, the
 * Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, U+180E, the zero-width space U+200B, the
 * word joiner and invisible operators U+2060–U+2064, U+FEFF, and the tag characters
 * U+E0000–U+E007F that can carry a hidden message), and lone surrogates (invalid in UTF-8, and
 * rejected by JSON readers such as jq). Each becomes one U+FFFD, so the text keeps its length in
 * characters and shows where something was. The zero-width joiners U+200C and U+200D stay: scripts
 * and emoji need them.
 */
const UNSAFE = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u180e\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u3164\\ufeff\\uffa0]|\\udb40[\\udc00-\\udc7f]|${LONE_SURROGATE.source}`,
  "g"
)

/**
 * Text as well-formed UTF-16: each lone surrogate as U+FFFD, nothing else changed. For output
 * that keeps exact strings (`--json`): `JSON.stringify` writes a lone surrogate as `"\ud800"`,
 * which JSON readers such as jq reject, and UTF-8 cannot encode it.
 */
export const wellFormed = (text: string): string => (/[\ud800-\udfff]/.test(text) ? text.replace(LONE_SURROGATE, "\uFFFD") : text)

/** Untrusted text with every unsafe character (see {@link UNSAFE}) shown as U+FFFD REPLACEMENT CHARACTER; nothing else changes. */
export const neutralize = (text: string): string => (MAY_BE_UNSAFE.test(text) ? text.replace(UNSAFE, "\uFFFD") : text)

/** How a line break of untrusted text is shown where the text must stay on one line (a table cell, a status line). */
export const LINE_BREAK_MARK = " \u23ce "

// A run of line breaks (CR LF, CR, LF, NEL, U+2028, U+2029) with the blanks around it.
const LINE_BREAKS = /[ \t]*[\n\r\u0085\u2028\u2029][ \t\n\r\u0085\u2028\u2029]*/g

/**
 * Untrusted text that may hold several lines (an MCP server's error, a description) as one line:
 * each run of line breaks shown as {@link LINE_BREAK_MARK} (` ⏎ `), those at either end dropped,
 * then {@link neutralize}d, so every other control character is still U+FFFD.
 */
export const neutralizeLine = (text: string): string =>
  neutralize(/[\n\r\u0085\u2028\u2029]/.test(text) ? text.replace(/^[ \t\n\r\u0085\u2028\u2029]+|[ \t\n\r\u0085\u2028\u2029]+$/g, "").replace(LINE_BREAKS, LINE_BREAK_MARK) : text)

// A quick first look (any surrogate passes it): most text holds nothing unsafe.
const MAY_BE_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\ud800-\udfff]/

/** Untrusted text through the one rule: secrets redacted (before neutralizing, which could split one), then neutralized. */
export const cleanText = (text: string): string => neutralize(redactSecrets(text))

/** Untrusted text that may hold several lines (an MCP server's error) through the one rule, as one line: secrets redacted, then {@link neutralizeLine}. */
export const cleanLine = (text: string): string => neutralizeLine(redactSecrets(text))

/** An argument vector through the one rule: {@link redactArgv} (a secret flag's value is the next argument), then neutralized. */
export const cleanArgv = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const cleaned = redactArgv(args).map(neutralize)
  return cleaned.every((arg, index) => arg === args[index]) ? args : cleaned
}

const ArgvAnnotationId: unique symbol = Symbol.for("tool-map/untrusted/Argv")

/**
 * An argument vector (an MCP server's `args`) or a list split from one line of words (a tool
 * list: `--api-key X` in it is two entries): cleaned with {@link cleanArgv}, which sees each
 * entry after the one before it.
 */
export const Argv = Schema.Array(Schema.String).annotations({ [ArgvAnnotationId]: true })

type Cleaner = (value: unknown) => unknown

// What a cleaner returns is clean: met again (a part cleaned ahead, a renderer's own call on a
// cleaned inventory), it is passed through without a second walk. Only whole values and arrays
// are recorded (a WeakSet entry per record would cost more than cleaning it again).
const CLEAN = new WeakSet<object>()

const isObject = (value: unknown): value is object => value !== null && typeof value === "object"

const marked = <A>(value: A): A => {
  if (isObject(value)) CLEAN.add(value)
  return value
}

/**
 * A copy of `value` (a record or a class instance, prototype kept) with `props` over its own
 * fields. Fields are defined, not assigned: an own `__proto__` key stays a key.
 */
const rebuilt = (value: object, props: Readonly<Record<string, unknown>>): object => {
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>
  for (const key of Object.keys(value)) {
    const field = Object.hasOwn(props, key) ? props[key] : (value as Record<string, unknown>)[key]
    Object.defineProperty(copy, key, { value: field, writable: true, enumerable: true, configurable: true })
  }
  return copy
}

// Any value of a shape the schema walk does not know: every string in it, at any depth.
const structural = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return cleanText(value)
  if (!isObject(value) || CLEAN.has(value) || depth > 64) return value
  if (Array.isArray(value)) {
    const items = value.map((item) => structural(item, depth + 1))
    return marked(items.every((item, index) => item === value[index]) ? value : items)
  }
  const changes = Object.create(null) as Record<string, unknown>
  let changed = false
  for (const key of Object.keys(value)) {
    const before = (value as Record<string, unknown>)[key]
    const after = structural(before, depth + 1)
    if (after !== before) {
      changes[key] = after
      changed = true
    }
  }
  return changed ? rebuilt(value, changes) : value
}

const identity: Cleaner = (value) => value

/** A value matches an object member of a union when it is an object with the member's literal fields. */
const objectGuard = (literals: ReadonlyArray<readonly [string, unknown]>) => (value: unknown): boolean =>
  isObject(value) && !Array.isArray(value) && literals.every(([key, literal]) => (value as Record<string, unknown>)[key] === literal)

interface Compiled {
  readonly clean: Cleaner
  readonly guard: (value: unknown) => boolean
}

const literalFields = (ast: SchemaAST.TypeLiteral): ReadonlyArray<readonly [string, unknown]> =>
  ast.propertySignatures.flatMap((signature) =>
    SchemaAST.isLiteral(signature.type) && typeof signature.name === "string" ? [[signature.name, signature.type.literal] as const] : []
  )

const objectCleaner = (ast: SchemaAST.TypeLiteral): Cleaner => {
  if (ast.indexSignatures.length > 0) return structural
  const fields = ast.propertySignatures.flatMap((signature) => {
    const clean = compile(signature.type).clean
    return typeof signature.name === "string" && clean !== identity ? [[signature.name, clean] as const] : []
  })
  return (value) => {
    if (!isObject(value) || CLEAN.has(value)) return value
    const record = value as Record<string, unknown>
    let changes: Record<string, unknown> | null = null
    for (const [key, clean] of fields) {
      if (!Object.hasOwn(record, key)) continue
      const after = clean(record[key])
      if (after !== record[key]) (changes ??= Object.create(null) as Record<string, unknown>)[key] = after
    }
    return changes === null ? value : rebuilt(value, changes)
  }
}

const arrayCleaner = (ast: SchemaAST.TupleType): Cleaner => {
  if (ast.annotations[ArgvAnnotationId] === true) {
    return (value) => (Array.isArray(value) && !CLEAN.has(value) ? marked(cleanArgv(value as ReadonlyArray<string>)) : value)
  }
  const elements = ast.elements.map((element) => compile(element.type).clean)
  const rest = ast.rest.map((element) => compile(element.type).clean)
  if (elements.every((clean) => clean === identity) && rest.every((clean) => clean === identity)) return identity
  return (value) => {
    if (!Array.isArray(value) || CLEAN.has(value)) return value
    const items = value.map((item, index) => (elements[index] ?? rest[0] ?? structural)(item))
    return marked(items.every((item, index) => item === value[index]) ? value : items)
  }
}

const unionCleaner = (ast: SchemaAST.Union): Compiled => {
  const members = ast.types.map(compile)
  if (members.every((member) => member.clean === identity)) return { clean: identity, guard: (value) => members.some((member) => member.guard(value)) }
  return {
    clean: (value) => (members.find((member) => member.guard(value))?.clean ?? structural)(value),
    guard: (value) => members.some((member) => member.guard(value))
  }
}

const compiled = new WeakMap<SchemaAST.AST, Compiled>()

const compile = (ast: SchemaAST.AST): Compiled => {
  const known = compiled.get(ast)
  if (known !== undefined) return known
  const result = compileNew(ast)
  compiled.set(ast, result)
  return result
}

const compileNew = (ast: SchemaAST.AST): Compiled => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return { clean: (value) => (typeof value === "string" ? cleanText(value) : value), guard: (value) => typeof value === "string" }
    case "Literal":
      return { clean: identity, guard: (value) => value === ast.literal }
    case "NumberKeyword":
      return { clean: identity, guard: (value) => typeof value === "number" }
    case "BooleanKeyword":
      return { clean: identity, guard: (value) => typeof value === "boolean" }
    case "Refinement":
      return compile(ast.from)
    case "Transformation":
      return compile(ast.to)
    case "Suspend": {
      const inner = () => compile(ast.f())
      return { clean: (value) => inner().clean(value), guard: (value) => inner().guard(value) }
    }
    case "TypeLiteral":
      return { clean: objectCleaner(ast), guard: objectGuard(literalFields(ast)) }
    case "TupleType":
      return { clean: arrayCleaner(ast), guard: Array.isArray }
    case "Union":
      return unionCleaner(ast)
    case "Declaration": {
      // A Schema.Class: its one type parameter is the struct of its fields (type side).
      const [fields] = ast.typeParameters
      if (ast.typeParameters.length === 1 && fields !== undefined && SchemaAST.isTypeLiteral(fields)) {
        return { clean: objectCleaner(fields), guard: objectGuard(literalFields(fields)) }
      }
      return { clean: structural, guard: isObject }
    }
    default:
      return { clean: structural, guard: () => true }
  }
}

/**
 * The cleaner of values of `schema`: every string field through {@link cleanText}, every
 * {@link Argv} through {@link cleanArgv}, strings of shapes the schema does not spell out
 * through the same rule structurally. Parts that change are copied (class instances keep their
 * class); a value with nothing to clean is returned as it is.
 */
export const cleanerFor = <A, I, R>(schema: Schema.Schema<A, I, R>): ((value: A) => A) => {
  const { clean } = compile(SchemaAST.typeAST(schema.ast))
  return (value) => marked(clean(value) as A)
}

/** True when `value` came out of a cleaner (or is a part of a value that did). */
export const isCleaned = (value: object): boolean => CLEAN.has(value)
