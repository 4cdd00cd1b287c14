import { Either, Option, Schema, SchemaAST } from "effect"

// Synchronous fast paths for the bundle's schemas, compiled from their ASTs. Decoding a bundle
// of thousands of tools, or encoding one, through ParseResult's general machinery is most of
// a query's time and a good part of a scan's; these cover the node kinds a bundle is made of
// (classes, structs, arrays, unions, literals, keywords) and answer UNDECIDED for anything
// else, so that the caller falls back to Effect's own codec, whose result or error stands.

/** What a compiled codec returns for a value it does not vouch for. */
export const UNDECIDED: unique symbol = Symbol("tool-map/schemaFastPath/undecided")

/** A compiled decoder or encoder: the converted value, or UNDECIDED. */
export type Decoder = (input: unknown) => unknown
export type Encoder = Decoder

type Direction = "decode" | "encode"

const rightOrUndecided = (result: unknown): unknown =>
  Either.isEither(result) && Either.isRight(result) ? result.right : UNDECIDED

const compile = (ast: SchemaAST.AST, direction: Direction, memo: Map<SchemaAST.AST, Decoder>): Decoder => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  // A recursive schema reaches its own node again while it is being compiled.
  let codec: Decoder = () => UNDECIDED
  memo.set(ast, (input) => codec(input))
  codec = compileNode(ast, direction, memo)
  memo.set(ast, codec)
  return codec
}

const compileNode = (ast: SchemaAST.AST, direction: Direction, memo: Map<SchemaAST.AST, Decoder>): Decoder => {
  switch (ast._tag) {
    case "StringKeyword":
      return (input) => (typeof input === "string" ? input : UNDECIDED)
    case "NumberKeyword":
      return (input) => (typeof input === "number" ? input : UNDECIDED)
    case "BooleanKeyword":
      return (input) => (typeof input === "boolean" ? input : UNDECIDED)
    case "Literal": {
      const literal = ast.literal
      return (input) => (input === literal ? input : UNDECIDED)
    }
    case "Union": {
      // Two members that accept the value must agree on the very same result (a primitive).
      const members = ast.types.map((member) => compile(member, direction, memo))
      return (input) => {
        let found: unknown = UNDECIDED
        for (const member of members) {
          const value = member(input)
          if (value === UNDECIDED) continue
          if (found !== UNDECIDED && found !== value) return UNDECIDED
          found = value
        }
        return found
      }
    }
    case "TupleType": {
      const rest = ast.rest[0]
      if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) return () => UNDECIDED
      const item = compile(rest.type, direction, memo)
      return (input) => {
        if (!Array.isArray(input)) return UNDECIDED
        const output = new Array<unknown>(input.length)
        for (let index = 0; index < input.length; index++) {
          const value = item(input[index])
          if (value === UNDECIDED) return UNDECIDED
          output[index] = value
        }
        return output
      }
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return () => UNDECIDED
      const properties = ast.propertySignatures.map((property) => ({
        name: property.name,
        isOptional: property.isOptional,
        convert: compile(property.type, direction, memo)
      }))
      return (input) => {
        if (typeof input !== "object" || input === null || Array.isArray(input)) return UNDECIDED
        const record = input as Record<PropertyKey, unknown>
        const output: Record<PropertyKey, unknown> = {}
        for (const property of properties) {
          if (property.isOptional && !Object.prototype.hasOwnProperty.call(record, property.name)) continue
          const value = property.convert(record[property.name])
          if (value === UNDECIDED) return UNDECIDED
          output[property.name] = value
        }
        return output
      }
    }
    case "Declaration": {
      const parse = direction === "decode"
        ? ast.decodeUnknown(...ast.typeParameters)
        : ast.encodeUnknown(...ast.typeParameters)
      return (input) => rightOrUndecided(parse(input, SchemaAST.defaultParseOption, ast))
    }
    case "Transformation": {
      const transformation = ast.transformation
      if (transformation._tag !== "FinalTransformation") return () => UNDECIDED
      // Decoding runs from → to, encoding to → from, through the schema's own functions.
      const decoding = direction === "decode"
      const first = compile(decoding ? ast.from : ast.to, direction, memo)
      const last = compile(decoding ? ast.to : ast.from, direction, memo)
      const step = decoding ? transformation.decode : transformation.encode
      return (input) => {
        const entered = first(input)
        if (entered === UNDECIDED) return UNDECIDED
        const stepped = rightOrUndecided(step(entered, SchemaAST.defaultParseOption, ast, input))
        return stepped === UNDECIDED ? UNDECIDED : last(stepped)
      }
    }
    default:
      return () => UNDECIDED
  }
}

/**
 * A synchronous decoder: for input the schema accepts it returns exactly what
 * `Schema.decodeUnknown` returns (same values, same key order, the schema's own
 * transformations and class constructors); UNDECIDED for an unknown node kind, for input it
 * would reject, and for a union input that more than one member accepts differently.
 */
export const compileDecoder = (ast: SchemaAST.AST): Decoder => compile(ast, "decode", new Map())

/**
 * A synchronous encoder: for a value of the schema's type it returns exactly what
 * `Schema.encodeSync` returns (the encoded side's key order, classes turned into plain objects
 * through their own transformations); UNDECIDED otherwise, as {@link compileDecoder}.
 */
export const compileEncoder = (ast: SchemaAST.AST): Encoder => compile(ast, "encode", new Map())

/** `Schema.encodeSync(schema)`, through the compiled encoder when it vouches for the value. */
export const fastEncodeSync = <A, I>(schema: Schema.Schema<A, I>): ((value: A) => I) => {
  let encoder: Encoder | undefined
  let slow: ((value: A) => I) | undefined
  return (value) => {
    encoder ??= compileEncoder(schema.ast)
    const encoded = encoder(value)
    if (encoded !== UNDECIDED) return encoded as I
    slow ??= Schema.encodeSync(schema)
    return slow(value)
  }
}

/** `Schema.decodeUnknownOption(schema)`, through the compiled decoder when it vouches for the input. */
export const fastDecodeUnknownOption = <A, I>(schema: Schema.Schema<A, I>): ((input: unknown) => Option.Option<A>) => {
  let decoder: Decoder | undefined
  let slow: ((input: unknown) => Option.Option<A>) | undefined
  return (input) => {
    decoder ??= compileDecoder(schema.ast)
    const decoded = decoder(input)
    if (decoded !== UNDECIDED) return Option.some(decoded as A)
    slow ??= Schema.decodeUnknownOption(schema)
    return slow(input)
  }
}
