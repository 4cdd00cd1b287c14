// How many columns a piece of text takes in a terminal: the one width rule of every text table
// (the CLI's tables in cli/output.ts, the catalog listings of catalog/core/entryTools.ts). Pure.
/**
 * Code points that a terminal draws two columns wide (East Asian Wide and Fullwidth: CJK,
 * Hangul, kana, fullwidth forms), as ranges of Unicode 15's EastAsianWidth.txt, merged.
 */
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0], [0x23f3, 0x23f3],
  [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f], [0x2693, 0x2693], [0x26a1, 0x26a1],
  [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5], [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea],
  [0x26f2, 0x26f3], [0x26f5, 0x26f5], [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b],
  [0x2728, 0x2728], [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55], [0x2e80, 0x303e],
  [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xf900, 0xfaff],
  [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x16fe4], [0x17000, 0x18cff],
  [0x1b000, 0x1b2ff], [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a],
  [0x1f200, 0x1f251], [0x1f260, 0x1f265], [0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x2fffd], [0x30000, 0x3fffd]
]

const isWide = (codePoint: number): boolean => {
  let low = 0
  let high = WIDE_RANGES.length - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    const [start, end] = WIDE_RANGES[middle]!
    if (codePoint < start) high = middle - 1
    else if (codePoint > end) low = middle + 1
    else return true
  }
  return false
}

/** Marks, format characters and controls: drawn in no column of their own. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u
const EMOJI_PRESENTATION = /\p{Extended_Pictographic}\uFE0F|\p{Emoji_Presentation}|\p{Regional_Indicator}{2}|\u200D/u

// Made on first use: constructing a Segmenter loads ICU's break data, about 10 ms of every
// start, and most tables hold ASCII only.
let graphemes: Intl.Segmenter | undefined

/** The columns one grapheme cluster takes in a terminal: 0, 1 or 2. */
const clusterWidth = (cluster: string): number => {
  const first = cluster.codePointAt(0) ?? 0
  if (first < 0x7f) return first < 0x20 ? 0 : 1
  if (EMOJI_PRESENTATION.test(cluster)) return 2
  if (isWide(first)) return 2
  return [...cluster].every((char) => ZERO_WIDTH.test(char)) ? 0 : 1
}

/**
 * The columns `text` takes in a terminal (the one width rule of every text table): a CJK
 * character or an emoji counts 2, a combining mark or a zero-width character 0, a cluster of
 * code points (a letter and its accents, an emoji sequence joined by ZWJ) as one character.
 */
export const displayWidth = (text: string): number => {
  // ASCII, the common case, without segmenting.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
  let width = 0
  for (const { segment } of (graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" })).segment(text)) width += clusterWidth(segment)
  return width
}

/** `text` padded with spaces at the end to `width` display columns ({@link displayWidth}). */
export const padEndDisplay = (text: string, width: number): string => {
  const missing = width - displayWidth(text)
  return missing > 0 ? text + " ".repeat(missing) : text
}

/** The grapheme clusters of `text`, each with its display width, as they are reached; ASCII without segmenting. */
function* clustersOf(text: string): Generator<readonly [string, number]> {
  if (/^[\x20-\x7e]*$/.test(text)) for (const char of text) yield [char, 1]
  else for (const { segment } of (graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" })).segment(text)) yield [segment, clusterWidth(segment)]
}

/**
 * `text` within `width` display columns: as it is when it fits, else the grapheme clusters that
 * fit before a `…` (one column) that takes the place of the rest. Never cut inside a cluster,
 * so neither a surrogate pair, a wide character nor an accented letter is split.
 */
export const truncateDisplay = (text: string, width: number): string => {
  // ASCII, the common case, without splitting into clusters.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length <= width ? text : width < 1 ? "" : `${text.slice(0, width - 1)}…`
  // One pass, ended as soon as the text is known to be too wide: a long cell is not segmented whole.
  let kept = ""
  let used = 0
  let cut: string | undefined
  for (const [cluster, columns] of clustersOf(text)) {
    if (cut === undefined && used + columns > width - 1) cut = kept
    used += columns
    if (used > width) return width < 1 ? "" : `${cut ?? kept}…`
    if (cut === undefined) kept += cluster
  }
  return text
}

/** Splits a word wider than `width` into pieces that fit, between grapheme clusters. */
const hardBreak = (word: string, width: number): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  let piece = ""
  let used = 0
  for (const [cluster, columns] of clustersOf(word)) {
    if (used + columns > width && piece !== "") {
      pieces.push(piece)
      piece = ""
      used = 0
    }
    piece += cluster
    used += columns
  }
  return piece === "" ? pieces : [...pieces, piece]
}

/** Word-wraps `text` to lines of at most `width` display columns (a word wider than that is broken between clusters). */
export const wrapDisplay = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((part) => part !== "").flatMap((part) => hardBreak(part, width))) {
    const candidate = line === "" ? word : `${line} ${word}`
    if (displayWidth(candidate) <= width) line = candidate
    else {
      lines.push(line)
      line = word
    }
  }
  return line === "" ? lines : [...lines, line]
}
