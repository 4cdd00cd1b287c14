/**
 * Decoding an agent host's config file (already parsed from JSON, JSONC or TOML) with a Schema,
 * as leniently as the host reads it: a key of the wrong type is ignored (removed, and named in
 * the result), the rest of the file is still read; only a document whose top level does not fit
 * is refused as a whole. A list element or a record entry that does not fit is dropped alone; a
 * required key that is missing or does not fit drops the entry that holds it.
 *
 * Errors name the file, the key (its path in the document, untrusted text cleaned) and a reason
 * of our own: never the value, which may be a secret, nor the Schema's message, which quotes it.
 */
import { Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { cleanText } from "../../../domain/untrusted.js"

/** A key of a config file that does not have the shape the host reads: ignored (or, for a required key, the entry holding it). */
export class ConfigKeyIgnored extends Schema.TaggedError<ConfigKeyIgnored>()("ConfigKeyIgnored", {
  file: Schema.String,
  /** The key's path in the document, e.g. `mcpServers.db.args[2]` (untrusted text, cleaned). */
  key: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `${this.file}: ${this.key} ${this.reason}`
  }
}

/** A config file whose top level does not have the shape the host reads: the whole file is ignored. */
export class ConfigFileInvalid extends Schema.TaggedError<ConfigFileInvalid>()("ConfigFileInvalid", {
  file: Schema.String,
  /** Empty: the top level of the document. */
  key: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `${this.file}: ${this.key === "" ? "the document" : this.key} ${this.reason}`
  }
}

/** A decoded config: the value, and the keys left out of it. */
export interface DecodedConfig<A> {
  readonly value: A
  readonly ignored: ReadonlyArray<ConfigKeyIgnored>
}

type Path = ReadonlyArray<PropertyKey>

interface Misfit {
  readonly path: Path
  readonly missing: boolean
  /** A required key of the wrong type: the entry holding it goes, as when it is missing. */
  readonly required?: boolean
  readonly expected: string
}

/** Whether `key` is a required property of the object type `ast` (a wrong value there drops the object). */
const isRequiredKey = (ast: SchemaAST.AST, key: PropertyKey): boolean =>
  ast._tag === "TypeLiteral" && ast.propertySignatures.some((signature) => signature.name === key && !signature.isOptional)

/** What a value of `ast` is, in words (never the actual value). */
export const expectedOf = (ast: SchemaAST.AST): string => {
  const described = SchemaAST.getDescriptionAnnotation(ast)
  if (Option.isSome(described)) return described.value
  switch (ast._tag) {
    case "StringKeyword":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "TypeLiteral":
    case "Declaration":
      return "an object"
    case "TupleType":
      return "a list"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Union":
      return Array.from(new Set(ast.types.map(expectedOf))).join(" or ")
    case "Refinement":
      return expectedOf(ast.from)
    case "Transformation":
      return expectedOf(ast.from)
    default:
      return "a valid value"
  }
}

const issuesOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>) : [issue.issues as ParseResult.ParseIssue]

const hasPointer = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Pointer":
      return true
    case "Composite": {
      const issues = issuesOf(issue)
      return issue.ast._tag === "Union" ? issues.some(hasPointer) : issues.length > 0 && issues.every((inner: ParseResult.ParseIssue) => inner._tag !== "Missing") && issues.some(hasPointer)
    }
    case "Transformation":
    case "Refinement":
      return issue.kind !== "Predicate" && hasPointer(issue.issue)
    default:
      return false
  }
}

/** The places where the value does not fit, each the deepest a removal can fix. */
const misfits = (issue: ParseResult.ParseIssue, path: Path): ReadonlyArray<Misfit> => {
  switch (issue._tag) {
    case "Pointer":
      return misfits(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite": {
      const issues = issuesOf(issue)
      if (issue.ast._tag === "Union") {
        // The member the value nearly fits (it fails inside, not at the top) says what to remove.
        const near = issues.find(hasPointer)
        return near === undefined ? [{ path, missing: false, expected: expectedOf(issue.ast) }] : misfits(near, path)
      }
      return issues.flatMap((inner) => {
        const found = misfits(inner, path)
        const key = inner._tag === "Pointer" ? inner.path : undefined
        if (typeof key !== "string" || !isRequiredKey(issue.ast, key)) return found
        return found.map((misfit) => (misfit.path.length === path.length + 1 && !misfit.missing ? { ...misfit, required: true } : misfit))
      })
    }
    case "Missing":
      return [{ path, missing: true, expected: expectedOf(issue.ast.type) }]
    case "Transformation":
    case "Refinement":
      return issue.kind === "Predicate" || !hasPointer(issue.issue) ? [{ path, missing: false, expected: expectedOf(issue.ast) }] : misfits(issue.issue, path)
    case "Unexpected":
      return [{ path, missing: false, expected: "an allowed key" }]
    default:
      return [{ path, missing: false, expected: expectedOf(issue.ast) }]
  }
}

/** `mcpServers.db.args[2]`: keys joined by dots, indexes in brackets, a key that could be read otherwise quoted; cleaned. */
export const keyPath = (path: Path): string =>
  cleanText(
    path
      .map((segment, index) =>
        typeof segment === "number"
          ? `[${segment}]`
          : `${index === 0 ? "" : "."}${typeof segment === "string" && /^[A-Za-z0-9_@:/-]+$/.test(segment) ? segment : JSON.stringify(String(segment))}`
      )
      .join("")
  )

const isContainer = (value: unknown): value is Record<PropertyKey, unknown> => typeof value === "object" && value !== null

/**
 * A copy of `root` without the values at `paths` (an array loses the elements; an object the
 * keys), in one walk: every path refers to `root` as it is, so indexes need no reordering, and a
 * file with many misfits in one list costs one copy of it, not one per misfit. Every other value
 * is shared.
 */
const withoutAll = (root: unknown, paths: ReadonlyArray<Path>): unknown => {
  if (!isContainer(root) || paths.length === 0 || paths.some((path) => path.length === 0)) return root
  const drop = new Set<PropertyKey>()
  const deeper = new Map<PropertyKey, Array<Path>>()
  for (const [head, ...rest] of paths) {
    const key = Array.isArray(root) ? Number(head) : head!
    if (rest.length === 0) drop.add(key)
    else {
      const known = deeper.get(key)
      if (known === undefined) deeper.set(key, [rest])
      else known.push(rest)
    }
  }
  if (Array.isArray(root)) {
    return root.flatMap((element, at) => (drop.has(at) ? [] : [deeper.has(at) ? withoutAll(element, deeper.get(at)!) : element]))
  }
  // The copy keeps the prototype (null for JSONC) and every own key, `__proto__` included.
  const copy: Record<PropertyKey, unknown> = Object.create(Object.getPrototypeOf(root) as object | null) as Record<PropertyKey, unknown>
  for (const own of Reflect.ownKeys(root)) {
    if (drop.has(own)) continue
    const below = deeper.get(own)
    Object.defineProperty(copy, own, { value: below === undefined ? root[own] : withoutAll(root[own], below), enumerable: true, writable: true, configurable: true })
  }
  return copy
}

/** Rounds of removal before a document is refused: each round removes every misfit it finds, so real files need one or two. */
const MAX_ROUNDS = 32

/**
 * Decodes `input`, the parsed content of `file`, with `schema` (excess keys ignored), removing
 * what does not fit as described in the module comment.
 */
export const decodeConfig = <A, I>(schema: Schema.Schema<A, I, never>, file: string) => {
  const decode = ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input: unknown): Either.Either<DecodedConfig<A>, ConfigFileInvalid> => {
    const ignored: Array<ConfigKeyIgnored> = []
    let current = input
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const decoded = decode(current)
      if (Either.isRight(decoded)) return Either.right({ value: decoded.right, ignored })
      const found = misfits(decoded.left, [])
      const dropsParent = (misfit: Misfit) => misfit.missing || misfit.required === true
      const top = found.find((misfit) => misfit.path.length === 0 || (dropsParent(misfit) && misfit.path.length === 1))
      if (top !== undefined) {
        return Either.left(new ConfigFileInvalid({ file, key: keyPath(top.path), reason: top.missing ? "is missing" : `is not ${top.expected}` }))
      }
      const removals = found.map((misfit) => (dropsParent(misfit) ? misfit.path.slice(0, -1) : misfit.path))
      for (const misfit of found) {
        const what = misfit.missing ? "is missing" : `is not ${misfit.expected}`
        ignored.push(new ConfigKeyIgnored({
          file,
          key: keyPath(misfit.path),
          reason: dropsParent(misfit) ? `${what}: ${keyPath(misfit.path.slice(0, -1))} is ignored` : `${what}: ignored`
        }))
      }
      current = withoutAll(current, removals)
    }
    return Either.left(new ConfigFileInvalid({ file, key: "", reason: `has more than ${MAX_ROUNDS} nested levels of keys that do not fit` }))
  }
}

/** {@link decodeConfig} of a value that has no file of its own (an entry of a map): its misfits removed, a top-level misfit read as `empty`. */
export const decodeEntry = <A, I>(schema: Schema.Schema<A, I, never>, empty: A) => {
  const decode = decodeConfig(schema, "")
  return (input: unknown): A => Either.match(decode(input), { onLeft: () => empty, onRight: (decoded) => decoded.value })
}

const isPlainRecord = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/**
 * A map of names from the file (server names, plugin ids, folders) to `value`: every own key
 * kept as a member, `__proto__` included (`Schema.Record` assigns its output, so such a key would
 * set the prototype), each entry that does not fit reported, in document order.
 */
export const NamedMap = <A, I>(value: Schema.Schema<A, I, never>) =>
  Schema.declare<Readonly<Record<string, A>>, Readonly<Record<string, I>>, readonly [Schema.Schema<A, I, never>]>([value], {
    decode: (item) => {
      const parse = ParseResult.decodeUnknownEither(item)
      return (input, options, ast) => {
        if (!isPlainRecord(input)) return Effect.fail(new ParseResult.Type(ast, input))
        const out: Record<string, A> = {}
        const issues: Array<ParseResult.ParseIssue> = []
        for (const key of Object.keys(input)) {
          const parsed = parse(input[key], options)
          if (Either.isLeft(parsed)) {
            issues.push(new ParseResult.Pointer(key, input, parsed.left))
            if (options?.errors !== "all") break
          } else Object.defineProperty(out, key, { value: parsed.right, enumerable: true, writable: true, configurable: true })
        }
        if (issues.length === 0) return Effect.succeed(out)
        return Effect.fail(new ParseResult.Composite(ast, input, issues.length === 1 ? issues[0]! : (issues as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>])))
      }
    },
    encode: () => (input) => Effect.succeed(input as Readonly<Record<string, I>>)
  }, { identifier: "NamedMap", description: "an object" })

/**
 * `schema`, or `empty` for a value that does not have its shape at all (`isShape` false, `null`
 * too): a key the host reads as empty rather than absent when it holds something else.
 */
export const orEmptyWhenNot = <A, I>(schema: Schema.Schema<A, I, never>, isShape: (value: unknown) => boolean, empty: A) =>
  Schema.Union(
    schema,
    Schema.transform(
      Schema.Unknown.pipe(Schema.filter((value) => !isShape(value))),
      Schema.typeSchema(schema),
      { strict: false, decode: () => empty, encode: (value) => value }
    )
  ).annotations({ description: expectedOf(schema.ast) })

/** Is a list (for {@link orEmptyWhenNot}). */
export const isList = (value: unknown): boolean => Array.isArray(value)

/** Is an object that is not a list (for {@link orEmptyWhenNot}). */
export const isObject = (value: unknown): boolean => isPlainRecord(value)

/** A list whose elements that are not strings are dropped (as a host that filters them). */
export const StringList = Schema.Array(Schema.String)

/** An optional key, exact (absent, never `undefined`). */
export const optional = <A, I>(schema: Schema.Schema<A, I, never>) => Schema.optionalWith(schema, { exact: true })

/** The value of {@link decodeConfig}, or null when the document is refused as a whole (the reader says so in its own words, if at all). */
export const decodedOrNull = <A, I>(schema: Schema.Schema<A, I, never>, file: string, input: unknown): A | null =>
  Either.match(decodeConfig(schema, file)(input), { onLeft: () => null, onRight: (decoded) => decoded.value })

/** A config file's top level as an object of its keys (the values as written, for the host's own schema). */
export const ConfigObject = NamedMap(Schema.Unknown)
