/**
 * Tool descriptions come from whoever registered the tool (often a third-party MCP server)
 * and go straight into the model's context, so they are untrusted data. This module removes
 * what a human reviewing the text cannot see but the model reads, and caps the length.
 *
 * The rules, in the order of `SanitizeFlag`:
 * - `tag-characters`: Unicode tag characters U+E0000–U+E007F (they spell invisible ASCII:
 *   "ASCII smuggling") are removed, except inside a flag emoji tag sequence: U+1F3F4, two tag
 *   letters, one to three tag letters or digits, then U+E007F (the grammar of a subdivision
 *   flag such as England's). The sequence is kept whole; any other tag character goes.
 * - `zero-width`: U+200B, U+200C, U+200D, U+2060–U+2065, U+FEFF, U+180E, U+034F, U+00AD,
 *   the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, and the variation selectors
 *   U+E0100–U+E01EF (used to hide bytes behind an emoji). A ZWJ U+200D is kept between two
 *   emoji (it builds sequences such as 👨‍👩‍👧), a ZWNJ U+200C between two non-ASCII letters (Persian
 *   and Indic scripts need it), and one variation selector U+FE00–U+FE0F right after a
 *   visible character (a run of them is cut to the first).
 * - `bidi`: U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C (they reorder what is
 *   displayed, so the text reads differently from what the model gets).
 * - `ansi`: terminal escape sequences: CSI (`ESC [` … final byte, or U+009B), OSC, DCS, SOS,
 *   PM and APC strings up to BEL or `ESC \` (or the end of the text), two- and three-byte
 *   escapes, and a lone ESC.
 * - `control`: any other C0 control except tab and newline, DEL, and C1 controls. A carriage
 *   return becomes a newline (not flagged): it cannot overwrite text that way.
 * - `truncated`: the cleaned text is longer than the cap (1,024 UTF-16 code units by default);
 *   it is cut so that, with a final "…", it fits, never inside a surrogate pair or a kept
 *   emoji sequence.
 * The result is trimmed.
 */
import { neutralize } from "../../inventory/domain/untrusted.js"
import type { SanitizeFlag } from "./model.js"

/** Default cap of a sanitized description, in UTF-16 code units. */
export const MAX_DESCRIPTION_LENGTH = 1024

/** A sanitized text and what was removed from it. */
export interface Sanitized {
  readonly text: string
  /** In the fixed order of `FLAG_ORDER`, each at most once. */
  readonly flags: ReadonlyArray<SanitizeFlag>
}

/** The order flags are reported in. */
export const FLAG_ORDER: ReadonlyArray<SanitizeFlag> = [
  "tag-characters",
  "zero-width",
  "bidi",
  "ansi",
  "control",
  "truncated"
]

// Anything that may need work; text without a match (the usual case) is only trimmed. The
// tag characters and the supplementary variation selectors (U+E0000–U+E01EF) all start with
// the high surrogate U+DB40, which stands for them here: a regex without the u flag scans
// faster, and a false alarm (another character of that block) only costs a `clean` that
// changes nothing. A carriage return (U+000D) is in the class too.
const SUSPECT =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uDB40]/

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u
const EMOJI_MODIFIER = /\p{Emoji_Modifier}/u
const LETTER_OR_MARK = /[\p{L}\p{M}]/u
const LETTER = /\p{L}/u

const ESC = 0x1b
const BLACK_FLAG = 0x1f3f4
const CANCEL_TAG = 0xe007f

const isTagLetter = (cp: number): boolean => cp >= 0xe0061 && cp <= 0xe007a
const isTagDigit = (cp: number): boolean => cp >= 0xe0030 && cp <= 0xe0039
const isTag = (cp: number): boolean => cp >= 0xe0000 && cp <= 0xe007f
const isVariationSelector = (cp: number): boolean => cp >= 0xfe00 && cp <= 0xfe0f

const isZeroWidth = (cp: number): boolean =>
  cp === 0x200b || cp === 0x200c || cp === 0x200d || (cp >= 0x2060 && cp <= 0x2065) || cp === 0xfeff ||
  cp === 0x180e || cp === 0x034f || cp === 0x00ad || cp === 0x115f || cp === 0x1160 || cp === 0x3164 ||
  cp === 0xffa0 || (cp >= 0xe0100 && cp <= 0xe01ef)

const isBidi = (cp: number): boolean =>
  (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f ||
  cp === 0x061c

const isControl = (cp: number): boolean => (cp < 0x20 && cp !== 0x09 && cp !== 0x0a) || (cp >= 0x7f && cp <= 0x9f)

/** Length in UTF-16 units of a flag tag sequence starting at `i` (at U+1F3F4), or 0. */
const flagSequenceLength = (text: string, i: number): number => {
  let j = i + 2
  let letters = 0
  for (;;) {
    const cp = text.codePointAt(j)
    if (cp === undefined) return 0
    if (cp === CANCEL_TAG) break
    const ok = letters < 2 ? isTagLetter(cp) : isTagLetter(cp) || isTagDigit(cp)
    if (!ok || letters === 5) return 0
    letters += 1
    j += 2
  }
  return letters >= 3 ? j + 2 - i : 0
}

/** Index after an escape sequence whose ESC (or C1 introducer) is at `i`. */
const skipEscape = (text: string, i: number): number => {
  const first = text.charCodeAt(i)
  // C1 introducers stand for ESC + a letter.
  let kind: number
  let j: number
  if (first === ESC) {
    if (i + 1 >= text.length) return i + 1
    kind = text.charCodeAt(i + 1)
    j = i + 2
  } else {
    kind = first === 0x9b ? 0x5b : 0x5d
    j = i + 1
  }
  if (kind === 0x5b) {
    // CSI: parameter bytes, intermediate bytes, one final byte.
    while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j += 1
    while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j += 1
    if (j < text.length && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j += 1
    return j
  }
  if (kind === 0x5d || kind === 0x50 || kind === 0x58 || kind === 0x5e || kind === 0x5f) {
    // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \), hidden by a terminal.
    while (j < text.length) {
      const c = text.charCodeAt(j)
      if (c === 0x07 || c === 0x9c) return j + 1
      if (c === ESC && text.charCodeAt(j + 1) === 0x5c) return j + 2
      j += 1
    }
    return j
  }
  if (first !== ESC) return j
  if (kind >= 0x20 && kind <= 0x2f) {
    // nF: intermediates then one final byte.
    while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j += 1
    if (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e) j += 1
    return j
  }
  if (kind >= 0x30 && kind <= 0x7e) return j
  // A lone ESC: drop it alone.
  return i + 1
}

const codePointBefore = (out: string): number | undefined => {
  if (out.length === 0) return undefined
  const last = out.charCodeAt(out.length - 1)
  if (last >= 0xdc00 && last <= 0xdfff && out.length >= 2) return out.codePointAt(out.length - 2)
  return last
}

const charOf = (cp: number | undefined): string => (cp === undefined ? "" : String.fromCodePoint(cp))

/** Removes hidden characters and escapes, recording which kinds were found. */
const clean = (text: string, found: Set<SanitizeFlag>): string => {
  let out = ""
  let i = 0
  while (i < text.length) {
    const cp = text.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    if (cp === BLACK_FLAG) {
      const length = flagSequenceLength(text, i)
      if (length > 0) {
        out += text.slice(i, i + length)
        i += length
        continue
      }
      out += charOf(cp)
      i += width
      continue
    }
    if (cp < 0x80 && cp >= 0x20 && cp !== 0x7f) {
      out += text[i]
      i += 1
      continue
    }
    if (cp === 0x0d) {
      out += "\n"
      i += text.charCodeAt(i + 1) === 0x0a ? 2 : 1
      continue
    }
    if (cp === ESC || cp === 0x9b || cp === 0x9d) {
      found.add("ansi")
      i = skipEscape(text, i)
      continue
    }
    if (isTag(cp)) {
      found.add("tag-characters")
      i += width
      continue
    }
    if (isBidi(cp)) {
      found.add("bidi")
      i += width
      continue
    }
    if (isControl(cp)) {
      found.add("control")
      i += width
      continue
    }
    if (cp === 0x200d || cp === 0x200c) {
      const before = codePointBefore(out)
      const after = text.codePointAt(i + 1)
      const keep = cp === 0x200d
        ? before !== undefined && after !== undefined && PICTOGRAPHIC.test(charOf(after)) &&
          (PICTOGRAPHIC.test(charOf(before)) || EMOJI_MODIFIER.test(charOf(before)) || isVariationSelector(before))
        : before !== undefined && after !== undefined && before >= 0x80 && after >= 0x80 &&
          LETTER_OR_MARK.test(charOf(before)) && LETTER.test(charOf(after))
      if (keep) out += text[i]
      else found.add("zero-width")
      i += 1
      continue
    }
    if (isZeroWidth(cp)) {
      found.add("zero-width")
      i += width
      continue
    }
    if (isVariationSelector(cp)) {
      const before = codePointBefore(out)
      const visibleBefore = before !== undefined && !isVariationSelector(before) && before !== 0x0a &&
        before !== 0x20 && before !== 0x09
      if (visibleBefore) out += text[i]
      else found.add("zero-width")
      i += 1
      continue
    }
    out += text.slice(i, i + width)
    i += width
  }
  return out
}

/** Cuts `text` to at most `max` units including the final "…", at a safe boundary. */
const truncate = (text: string, max: number): string => {
  let end = Math.max(0, max - 1)
  const unit = text.charCodeAt(end - 1)
  if (unit >= 0xd800 && unit <= 0xdbff) end -= 1
  let cut = text.slice(0, end)
  // Never leave half of a kept flag sequence or a dangling joiner behind.
  const lastFlag = cut.lastIndexOf("\u{1F3F4}")
  if (lastFlag >= 0 && flagSequenceLength(cut, lastFlag) === 0 && flagSequenceLength(text, lastFlag) > 0) {
    cut = cut.slice(0, lastFlag)
  }
  while (cut.endsWith("\u200D") || cut.endsWith("\u200C")) cut = cut.slice(0, -1)
  return `${cut.trimEnd()}…`
}

/**
 * Sanitizes an untrusted description: hidden characters and terminal escapes removed, the
 * length capped; `flags` says what was done.
 */
export const sanitizeDescription = (text: string, maxLength: number = MAX_DESCRIPTION_LENGTH): Sanitized => {
  // Most descriptions need no cleaning: no set of flags is made for them.
  let found: Set<SanitizeFlag> | undefined
  let out = text
  if (SUSPECT.test(text)) out = clean(text, found = new Set())
  out = out.trim()
  if (out.length > maxLength) {
    out = truncate(out, maxLength)
    ;(found ??= new Set()).add("truncated")
  }
  const flags = found
  return { text: out, flags: flags === undefined || flags.size === 0 ? NO_FLAGS : FLAG_ORDER.filter((flag) => flags.has(flag)) }
}

const NO_FLAGS: ReadonlyArray<SanitizeFlag> = []

/**
 * The widest a tool name (or any name or path cell) is shown in a text line or table, in UTF-16
 * code units with the final "…": a 5,000-character name must not widen every row of a listing.
 */
export const MAX_NAME_WIDTH = 80

/** `text` within `max` UTF-16 code units: cut with a final "…" at a safe boundary when longer. */
export const fitText = (text: string, max: number): string => (text.length <= max ? text : truncate(text, max))

/**
 * An untrusted name (a tool's, a group's, a path typed or found) as text shows it: through the
 * one rule of `inventory/domain/untrusted.ts` (`neutralize`: controls, line separators, bidi
 * controls and lone surrogates as U+FFFD), then cut to `max` with "…" (no cut by default).
 */
export const displayName = (name: string, max: number = Number.POSITIVE_INFINITY): string => fitText(neutralize(name), max)
