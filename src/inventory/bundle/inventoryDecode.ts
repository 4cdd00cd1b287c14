import { Either, Option, Schema } from "effect"
import { Inventory } from "../domain/inventory.js"
import { compileDecoder, type Decoder, UNDECIDED } from "../../platform/schemaFastPath.js"
import { parseJson } from "./format.js"
import { renderWhichIndexOf } from "./whichIndex.js"

// tools.json read back as a whole `Inventory`, apart from format.ts: the readers of a bundle's
// watch set or which index (the everyday commands) load this module, and the inventory's
// classes, only when they need the whole of it.

// Both decoders are built on first use: a scan never needs them.
let decodeQuickly: Decoder | undefined
let decodeWithEffect: ((parsed: unknown) => Either.Either<Inventory, unknown>) | undefined

/** The fast path of {@link compileDecoder}; none when it cannot vouch for the parsed bundle. */
const quickDecode = (parsed: unknown): Option.Option<Inventory> =>
  Option.flatMap(Option.liftThrowable(() => (decodeQuickly ??= compileDecoder(Inventory.ast))(parsed))(), (value) =>
    value === UNDECIDED ? Option.none() : Option.some(value as Inventory))

/**
 * The inventory a tools.json text holds, or none when it is not a valid tool-map bundle
 * (corrupt, or of an incompatible version). Parsed once: the fast decoder and, when it cannot
 * vouch, Effect's decoder (whose verdict stands) share the parsed value.
 */
export const decodeInventoryJson = (text: string): Option.Option<Inventory> => Option.flatMap(parseJson(text), decodeParsedInventory)

/** The parsed text of a tools.json, or none when it is no JSON: the first half of {@link decodeInventoryJson}. */
export const parseInventoryJson = (text: string): Option.Option<unknown> => parseJson(text)

/** The inventory a parsed tools.json holds: the second half of {@link decodeInventoryJson}. */
export const decodeParsedInventory = (parsed: unknown): Option.Option<Inventory> =>
  Option.orElse(quickDecode(parsed), () => Either.getRight((decodeWithEffect ??= Schema.decodeUnknownEither(Inventory))(parsed)))

/**
 * The which index of a tools.json text, decoded for it, or none when the text is no valid
 * tool-map bundle (a commit of something else gets no index).
 */
export const renderWhichIndex = (json: string): Option.Option<string> =>
  Option.flatMap(parseInventoryJson(json), (parsed) => Option.map(decodeParsedInventory(parsed), (inventory) => renderWhichIndexOf(json, inventory)))
