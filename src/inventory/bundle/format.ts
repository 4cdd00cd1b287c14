import { Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { WatchSet } from "../domain/watch.js"

// What the three files of a bundle look like to a reader: tools.json is an `Inventory` (its
// `generation` and `watch` readable on their own; the whole of it is decoded by
// inventoryDecode.ts), and each markdown file starts with the generation marker line. The writer
// renders them in `render/`; BundleWriter commits them. The decoders here are built on first
// use: the everyday commands' entry evaluates this module at every start.

/** The first line of every markdown file of a bundle: `<!-- tool-map generation=<id> -->`. */
export const generationMarker = (generation: string): string => `<!-- tool-map generation=${generation} -->`

/** The generation ids a bundle accepts: they become part of file names. */
export const GENERATION_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

/** A new generation id: the scan's time to the second (UTC, sortable), then a random tail that makes it unique. */
export const newGeneration = (now: Date): string =>
  `${now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${randomBytes(4).toString("hex")}`

const GENERATION_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/

/** The scan time a {@link newGeneration} id starts with, or null for an id made otherwise. */
export const generationTime = (generation: string): Date | null => {
  const parts = GENERATION_TIME.exec(generation)
  if (parts === null) return null
  const time = new Date(`${parts[1]}-${parts[2]}-${parts[3]}T${parts[4]}:${parts[5]}:${parts[6]}Z`)
  return Number.isNaN(time.getTime()) ? null : time
}

/** The first bytes of a markdown file of a bundle: enough for its generation marker line. */
export const MARKER_BYTES = 256

const MARKER_LINE = /^\uFEFF?<!-- tool-map generation=([A-Za-z0-9_-]{1,128}) -->\r?$/
let decodeGenerationOfJson: ((text: string) => Option.Option<{ readonly generation: string }>) | undefined

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
  const decode = (decodeGenerationOfJson ??= Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ generation: Schema.String }))))
  const json = Option.orElse(decode(content), () => decode(firstLine))
  return Option.getOrNull(Option.map(json, (found) => found.generation))
}

/** The value of a JSON text, or none when it is no JSON: the one parse of the bundle's files. */
export const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

let decodeWatchSet: ((input: unknown) => Option.Option<WatchSet>) | undefined

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
    return Option.map((decodeWatchSet ??= Schema.decodeUnknownOption(WatchSet))(watch), (decoded) => ({
      watch: decoded,
      generation: typeof generation === "string" ? Option.some(generation) : Option.none()
    }))
  })
