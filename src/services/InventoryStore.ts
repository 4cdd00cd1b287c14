import { FileSystem } from "@effect/platform"
import { Context, Effect, Either, Layer, Option, Schema, SchemaAST } from "effect"
import { BundleReadError } from "../domain/errors.js"
import { Inventory, InventoryFromJson } from "../domain/inventory.js"
import { BundleWriter } from "./BundleWriter.js"
import { HostEnvironment } from "./HostEnvironment.js"
import { resolveBundlePaths, ScanProgram } from "./ScanProgram.js"

/** What a {@link compileDecoder}d function returns for input it does not vouch for. */
const UNDECIDED: unique symbol = Symbol("tool-map/InventoryStore/undecided")
type Decoder = (input: unknown) => unknown

const rightOrUndecided = (result: unknown): unknown =>
  Either.isEither(result) && Either.isRight(result) ? result.right : UNDECIDED

/**
 * A synchronous decoder compiled from a schema's AST. For input the schema accepts it returns
 * exactly what `Schema.decodeUnknown` returns (same values, same key order, the schema's own
 * transformations and class constructors), without `ParseResult`'s general machinery, which is
 * most of a query's time on a bundle of thousands of tools. It knows the node kinds a bundle is
 * made of (classes, structs, arrays, unions, literals, keywords) and returns UNDECIDED for any
 * other node, for input it would reject, and for a union input that more than one member accepts
 * differently. UNDECIDED means: decode with Effect, whose result or error stands.
 */
const compileDecoder = (ast: SchemaAST.AST, memo = new Map<SchemaAST.AST, Decoder>()): Decoder => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  let decoder: Decoder = () => UNDECIDED
  memo.set(ast, (input) => decoder(input))
  decoder = compileNode(ast, memo)
  memo.set(ast, decoder)
  return decoder
}

const compileNode = (ast: SchemaAST.AST, memo: Map<SchemaAST.AST, Decoder>): Decoder => {
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
      const members = ast.types.map((member) => compileDecoder(member, memo))
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
      const item = compileDecoder(rest.type, memo)
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
        decode: compileDecoder(property.type, memo)
      }))
      return (input) => {
        if (typeof input !== "object" || input === null || Array.isArray(input)) return UNDECIDED
        const record = input as Record<PropertyKey, unknown>
        const output: Record<PropertyKey, unknown> = {}
        for (const property of properties) {
          if (property.isOptional && !Object.prototype.hasOwnProperty.call(record, property.name)) continue
          const value = property.decode(record[property.name])
          if (value === UNDECIDED) return UNDECIDED
          output[property.name] = value
        }
        return output
      }
    }
    case "Declaration": {
      const parse = ast.decodeUnknown(...ast.typeParameters)
      return (input) => rightOrUndecided(parse(input, SchemaAST.defaultParseOption, ast))
    }
    case "Transformation": {
      const transformation = ast.transformation
      if (transformation._tag !== "FinalTransformation") return () => UNDECIDED
      const from = compileDecoder(ast.from, memo)
      const to = compileDecoder(ast.to, memo)
      return (input) => {
        const fromA = from(input)
        if (fromA === UNDECIDED) return UNDECIDED
        const toI = rightOrUndecided(transformation.decode(fromA, SchemaAST.defaultParseOption, ast, input))
        return toI === UNDECIDED ? UNDECIDED : to(toI)
      }
    }
    default:
      return () => UNDECIDED
  }
}

/** Reads the cached bundle for the query front ends. */
export class InventoryStore extends Context.Tag("tool-map/InventoryStore")<InventoryStore, {
  /**
   * The inventory of the bundle at `from` (a redirected `path/inv.md`) or at the default data
   * directory; when no bundle exists yet, one scan runs first. Never rescans otherwise.
   */
  readonly load: (from: Option.Option<string>) => Effect.Effect<Inventory, BundleReadError>
}>() {
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const host = yield* HostEnvironment
      const writer = yield* BundleWriter
      const scanner = yield* ScanProgram
      // Both decoders are built on first use: a scan never needs them.
      let decodeWithEffect: ((text: string) => Effect.Effect<Inventory, unknown>) | undefined
      let decodeQuickly: Decoder | undefined
      /** The fast path of {@link compileDecoder}; none when it cannot vouch for the text. */
      const quickDecode = (text: string): Option.Option<Inventory> => {
        try {
          decodeQuickly ??= compileDecoder(Inventory.ast)
          const value = decodeQuickly(JSON.parse(text))
          return value === UNDECIDED ? Option.none() : Option.some(value as Inventory)
        } catch {
          return Option.none()
        }
      }

      const load = Effect.fn("InventoryStore.load")(function* (from: Option.Option<string>) {
        const paths = yield* resolveBundlePaths(host, from).pipe(
          Effect.mapError((error) => new BundleReadError({ path: error.path, reason: error.reason }))
        )
        const failed = (reason: string) => new BundleReadError({ path: paths.json, reason })
        yield* writer.recover(paths).pipe(Effect.mapError((error) => failed(error.message)))
        const exists = yield* fs.exists(paths.json).pipe(Effect.orElseSucceed(() => false))
        if (!exists) {
          yield* scanner.run({ target: from, ifStale: false, probes: true, progress: true }).pipe(
            Effect.mapError((error) => failed(`no bundle existed and the first scan failed: ${error.message}`))
          )
        }
        const text = yield* fs.readFileString(paths.json).pipe(
          Effect.mapError((error) => failed(error.message))
        )
        const quick = quickDecode(text)
        if (Option.isSome(quick)) return quick.value
        decodeWithEffect ??= Schema.decodeUnknown(InventoryFromJson)
        return yield* decodeWithEffect(text).pipe(
          Effect.mapError(() =>
            failed("it is not a valid tool-map bundle (corrupt or from an incompatible version); run `tool-map scan --force` to rebuild it")
          )
        )
      })
      return { load }
    })
  )
}
