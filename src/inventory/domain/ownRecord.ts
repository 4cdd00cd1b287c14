/**
 * A record schema for objects keyed by names from untrusted input (tool names, server names):
 * `Schema.Record` builds its output by assignment, so a key named `__proto__` sets the
 * output's prototype instead of becoming a member, and the entry is lost. `OwnRecord` keeps
 * every own key of the input as a member of a plain object, `__proto__` included, with each
 * value decoded (or encoded) by the value schema.
 */
import { Effect, Either, ParseResult, Schema, type SchemaAST } from "effect"

const isPlainRecord = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/** `out[key] = value` that also holds for a key named `__proto__`. */
const setOwn = <B>(out: Record<string, B>, key: string, value: B): void => {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
}

/** Each own member of a plain object through `parse`, into a plain object of the same keys. */
const eachValue = <B>(parse: (value: unknown) => Either.Either<B, ParseResult.ParseIssue>) =>
(input: unknown, _options: SchemaAST.ParseOptions, ast: SchemaAST.Declaration): Effect.Effect<Readonly<Record<string, B>>, ParseResult.ParseIssue> => {
  if (!isPlainRecord(input)) return Effect.fail(new ParseResult.Type(ast, input))
  const out: Record<string, B> = {}
  for (const key of Object.keys(input)) {
    const parsed = parse(input[key])
    if (Either.isLeft(parsed)) return Effect.fail(new ParseResult.Pointer(key, input, parsed.left))
    setOwn(out, key, parsed.right)
  }
  return Effect.succeed(out)
}

/** A record of string keys to `value`, every own key kept (see the module comment). */
export const OwnRecord = <A, I>(value: Schema.Schema<A, I, never>) =>
  Schema.declare<Readonly<Record<string, A>>, Readonly<Record<string, I>>, readonly [Schema.Schema<A, I, never>]>([value], {
    decode: (item) => eachValue(ParseResult.decodeUnknownEither(item)),
    encode: (item) => eachValue(ParseResult.encodeUnknownEither(item))
  }, { identifier: "OwnRecord" })
