import { Either, Option, Schema } from "effect"
import { Inventory, WatchSet } from "../domain/inventory.js"
import { compileDecoder, type Decoder, UNDECIDED } from "../../platform/schemaFastPath.js"

// What the three files of a bundle look like to a reader: tools.json is an `Inventory` (its
// `generation` and `watch` readable on their own), and each markdown file starts with the
// generation marker line. The writer renders them in `render/`; BundleWriter commits them.

/** The first line of every markdown file of a bundle: `<!-- tool-map generation=<id> -->`. */
export const generationMarker = (generation: string): string => `<!-- tool-map generation=${generation} -->`

/** The generation ids a bundle accepts: they become part of file names. */
export const GENERATION_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

/** The first bytes of a markdown file of a bundle: enough for its generation marker line. */
export const MARKER_BYTES = 256

const MARKER_LINE = /^\uFEFF?<!-- tool-map generation=([A-Za-z0-9_-]{1,128}) -->\r?$/
const GenerationOfJson = Schema.parseJson(Schema.Struct({ generation: Schema.String }))
const decodeGenerationOfJson = Schema.decodeUnknownOption(GenerationOfJson)

/**
 * The generation id a bundle file carries: the {@link generationMarker} first line of a
 * markdown file, the `generation` of `tools.json`, or that of the which index's header line
 * (whichIndex.ts); null when there is none.
 */
export const readGeneration = (content: string): string | null => {
  const newline = content.indexOf("\n")
  const firstLine = newline === -1 ? content : content.slice(0, newline)
  const marker = MARKER_LINE.exec(firstLine)
  if (marker !== null) return marker[1] ?? null
  const json = Option.orElse(decodeGenerationOfJson(content), () => decodeGenerationOfJson(firstLine))
  return Option.getOrNull(Option.map(json, (found) => found.generation))
}

const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

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

const decodeWatchSet = Schema.decodeUnknownOption(WatchSet)

/** What `--if-stale` needs of a tools.json: its watch set, and the generation it records. */
export interface RecordedBundle {
  readonly watch: WatchSet
  readonly generation: Option.Option<string>
}

/** The watch set and generation a tools.json text records, or none when it has no valid watch set. */
export const decodeRecordedBundle = (text: string): Option.Option<RecordedBundle> =>
  Option.flatMap(parseJson(text), (parsed) => {
    const { generation, watch } = typeof parsed === "object" && parsed !== null
      ? parsed as { readonly watch?: unknown; readonly generation?: unknown }
      : {}
    return Option.map(decodeWatchSet(watch), (decoded) => ({
      watch: decoded,
      generation: typeof generation === "string" ? Option.some(generation) : Option.none()
    }))
  })
