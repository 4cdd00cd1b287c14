import { Option, Schema } from "effect"

/** The first line of every markdown file of a bundle: `<!-- tool-map generation=<id> -->`. */
export const generationMarker = (generation: string): string => `<!-- tool-map generation=${generation} -->`

/** The generation ids a bundle accepts: they become part of file names. */
export const GENERATION_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

const MARKER_LINE = /^\uFEFF?<!-- tool-map generation=([A-Za-z0-9_-]{1,128}) -->\r?$/
const GenerationOfJson = Schema.parseJson(Schema.Struct({ generation: Schema.String }))
const decodeGenerationOfJson = Schema.decodeUnknownOption(GenerationOfJson)

/**
 * The generation id a bundle file carries: the {@link generationMarker} first line of a
 * markdown file, or the `generation` of `tools.json`; null when there is none.
 */
export const readGeneration = (content: string): string | null => {
  const newline = content.indexOf("\n")
  const firstLine = newline === -1 ? content : content.slice(0, newline)
  const marker = MARKER_LINE.exec(firstLine)
  if (marker !== null) return marker[1] ?? null
  return Option.getOrNull(Option.map(decodeGenerationOfJson(content), (json) => json.generation))
}
