/**
 * A cheap estimate of the tokens a tool schema costs in a model's context.
 *
 * What is estimated: the o200k BPE tokens of the compact JSON
 * `{"name":…,"description":…,"input_schema":…}` (the shape hosts send tool definitions in).
 *
 * How: one pass over that JSON text counts
 * - `words`: maximal runs of ASCII letters and digits (BPE pieces are mostly whole words);
 * - `longExtra`: the characters of each run beyond the 8th (long identifiers, ids and
 *   base64 split into several pieces);
 * - `punctuation`: other printable ASCII characters except the space (JSON quotes, colons
 *   and braces: often two of them share a token);
 * - `nonAscii`: code points above U+007F (mostly one token each, or more);
 * and returns `round(1.22·words + 0.16·longExtra + 0.285·punctuation + 1.37·nonAscii − 3.5)`,
 * at least 1. Spaces are free: BPE glues a space to the word after it.
 *
 * The coefficients were fitted (least squares on relative error) against gpt-tokenizer's
 * o200k encoder over `bench/data/mcp-tool-schemas.json`, the tools of 25 MCP servers
 * published on npm. Measured there (`npx tsx bench/tokens.ts`): median absolute error
 * about 3%, 3.7% when each server is left out of the fit in turn; a plain chars/4 rule has a
 * median error of 12% and overestimates the total by 10%. Cost: one character loop, no
 * allocation beyond the JSON text.
 */

/** What the estimate reads of a tool definition (a catalog `ToolSchema` is one). */
export interface TokenCountable {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
}

/** The fitted coefficients of the estimate (see the module comment). */
export const TOKEN_MODEL = {
  word: 1.22,
  longExtra: 0.16,
  longAfter: 8,
  punctuation: 0.285,
  nonAscii: 1.37,
  perTool: -3.5
} as const

/** The character classes the estimate counts. */
export interface TokenFeatures {
  words: number
  longExtra: number
  punctuation: number
  nonAscii: number
}

/** Adds the features of `text` to `into` (texts must not split a word between them). */
export const countFeatures = (text: string, into: TokenFeatures): TokenFeatures => {
  let words = 0
  let longExtra = 0
  let punctuation = 0
  let nonAscii = 0
  let run = 0
  const long = TOKEN_MODEL.longAfter
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      run += 1
      continue
    }
    if (run > 0) {
      words += 1
      if (run > long) longExtra += run - long
      run = 0
    }
    if (c < 128) {
      if (c !== 32) punctuation += 1
    } else if (c < 0xdc00 || c > 0xdfff) {
      // A surrogate pair is one code point: count its high half only.
      nonAscii += 1
    }
  }
  if (run > 0) {
    words += 1
    if (run > long) longExtra += run - long
  }
  into.words += words
  into.longExtra += longExtra
  into.punctuation += punctuation
  into.nonAscii += nonAscii
  return into
}

/**
 * Adds the features of the JSON literal of `text` (`"text"`) to `into` and returns true, when
 * `text` holds no character JSON escapes (quote, backslash, C0 control, surrogate); else
 * returns false and leaves `into` alone. One pass over the text does both.
 */
export const addQuotedFeatures = (text: string, into: TokenFeatures): boolean => {
  let words = 0
  let longExtra = 0
  // The two quotes.
  let punctuation = 2
  let nonAscii = 0
  let run = 0
  const long = TOKEN_MODEL.longAfter
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      run += 1
      continue
    }
    if (run > 0) {
      words += 1
      if (run > long) longExtra += run - long
      run = 0
    }
    if (c < 128) {
      if (c < 0x20 || c === 0x22 || c === 0x5c) return false
      if (c !== 32) punctuation += 1
    } else if (c >= 0xd800 && c <= 0xdfff) {
      return false
    } else {
      nonAscii += 1
    }
  }
  if (run > 0) {
    words += 1
    if (run > long) longExtra += run - long
  }
  into.words += words
  into.longExtra += longExtra
  into.punctuation += punctuation
  into.nonAscii += nonAscii
  return true
}

/** `JSON.stringify(text)` for a string, adding the features of that JSON text to `into`. */
export const jsonStringWithFeatures = (text: string, into: TokenFeatures): string => {
  if (typeof text === "string" && addQuotedFeatures(text, into)) return `"${text}"`
  const json = JSON.stringify(text)
  countFeatures(json, into)
  return json
}

/** Features with every count zero. */
export const noFeatures = (): TokenFeatures => ({ words: 0, longExtra: 0, punctuation: 0, nonAscii: 0 })

/** Adds the features `from` to `into`. */
export const addFeatures = (into: TokenFeatures, from: TokenFeatures): TokenFeatures => {
  into.words += from.words
  into.longExtra += from.longExtra
  into.punctuation += from.punctuation
  into.nonAscii += from.nonAscii
  return into
}

const FRAME = countFeatures(`{"name":,"description":,"input_schema":}`, {
  words: 0,
  longExtra: 0,
  punctuation: 0,
  nonAscii: 0
})

/** The features of the frame `{"name":,"description":,"input_schema":}` of every tool. */
export const frameFeatures = (): TokenFeatures => ({ ...FRAME })

/** The estimate from counted features. */
export const tokensFromFeatures = (f: TokenFeatures): number =>
  Math.max(
    1,
    Math.round(
      TOKEN_MODEL.word * f.words + TOKEN_MODEL.longExtra * f.longExtra + TOKEN_MODEL.punctuation * f.punctuation +
        TOKEN_MODEL.nonAscii * f.nonAscii + TOKEN_MODEL.perTool
    )
  )

/**
 * The estimate from the JSON pieces of a definition: the name and description as JSON
 * strings and the input schema as JSON (any key order), without building the whole text.
 */
export const estimateTokensFromJson = (nameJson: string, descriptionJson: string, inputSchemaJson: string): number => {
  const f: TokenFeatures = { ...FRAME }
  countFeatures(nameJson, f)
  countFeatures(descriptionJson, f)
  countFeatures(inputSchemaJson, f)
  return tokensFromFeatures(f)
}

/**
 * Estimated o200k tokens of plain text (a skill's listing line, an instructions file): the
 * features of the module comment without the per-tool frame and offset; 0 for empty text.
 */
export const estimateTextTokens = (text: string): number => {
  if (text.length === 0) return 0
  const f = countFeatures(text, noFeatures())
  return Math.max(
    1,
    Math.round(TOKEN_MODEL.word * f.words + TOKEN_MODEL.longExtra * f.longExtra + TOKEN_MODEL.punctuation * f.punctuation + TOKEN_MODEL.nonAscii * f.nonAscii)
  )
}

/** Estimated o200k tokens of a tool schema (see the module comment for the method). */
export const estimateTokens = (schema: TokenCountable): number =>
  estimateTokensFromJson(
    JSON.stringify(schema.name),
    JSON.stringify(schema.description ?? ""),
    // Key order does not change the counted features, so plain JSON will do.
    JSON.stringify(schema.inputSchema) ?? "null"
  )

/** The text the estimate stands for: what `bench/tokens.ts` feeds the real tokenizer. */
export const wireJson = (schema: TokenCountable): string =>
  JSON.stringify({ name: schema.name, description: schema.description ?? "", input_schema: schema.inputSchema })

/** Short token count for listings: `~850 tok`, `~1.2k tok`. */
export const formatTokens = (n: number): string => (n >= 1000 ? `~${(n / 1000).toFixed(1)}k tok` : `~${n} tok`)
