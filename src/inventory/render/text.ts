/** Helpers for putting untrusted text (file names, paths, descriptions) into markdown and text tables. */

import { neutralize, neutralizeLine } from "../domain/untrusted.js"

/**
 * Untrusted text with every unsafe character shown as U+FFFD, and the same on one line with its
 * line breaks as ` ⏎ ` (the rules live with the bundle's boundary, `domain/untrusted.ts`).
 */
export { neutralize, neutralizeLine }

/** One line of untrusted text, safe inside a markdown table cell. */
export const mdCell = (text: string): string =>
  neutralize(text).replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/`/g, "\\`").replace(/</g, "&lt;")

const codeSpan = (clean: string): string => {
  const longestRun = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(longestRun + 1)
  const pad = clean.startsWith("`") || clean.endsWith("`") ? " " : ""
  return `${fence}${pad}${clean}${pad}${fence}`
}

/** Untrusted text as inline code inside a table cell; the fence grows past any backtick run inside it. */
export const mdCode = (text: string): string => codeSpan(neutralize(text).replace(/\|/g, "\\|"))

/** Byte length of a string in UTF-8. */
export const byteLength = (text: string): number => Buffer.byteLength(text, "utf8")

const ELLIPSIS = "…"

/** How long a piece of text is, for a cap: UTF-8 bytes, or UTF-16 code units (`String#length`). */
export type Measure = (text: string) => number

export const utf16Length: Measure = (text) => text.length

/**
 * Joins `units` (whole code points, or whole escapes such as `\|`, which are never split) when
 * they fit in `max`; otherwise keeps what fits with `…` in place of the rest: at the end, or in
 * the middle (the head and the tail kept, which keeps long names that share a prefix apart).
 */
const cutUnits = (units: ReadonlyArray<string>, max: number, at: "end" | "middle", measure: Measure): string => {
  const sizes = units.map(measure)
  if (sizes.reduce((sum, size) => sum + size, 0) <= max) return units.join("")
  const room = max - measure(ELLIPSIS)
  let used = 0
  let head = 0
  const headRoom = at === "end" ? room : Math.ceil(room / 2)
  while (head < units.length && used + sizes[head]! <= headRoom) used += sizes[head++]!
  let tail = units.length
  if (at === "middle") while (tail > head && used + sizes[tail - 1]! <= room) used += sizes[--tail]!
  return `${units.slice(0, head).join("")}${ELLIPSIS}${units.slice(tail).join("")}`
}

/** `text` within `max` as `measure` counts, cut on a code point boundary with `…` at the end when too long. */
const truncateBy = (measure: Measure) => (text: string, max: number): string =>
  measure(text) <= max ? text : cutUnits([...text], max, "end", measure)

/** `text` within `max` UTF-8 bytes, cut on a code point boundary with `…` at the end when too long. */
export const truncateBytes = truncateBy(byteLength)

/** `text` within `max` UTF-16 code units, cut on a code point boundary with `…` at the end when too long. */
export const truncateChars = truncateBy(utf16Length)

/**
 * {@link mdCell} of `text` within `max` (UTF-8 bytes unless `measure` says otherwise), cut with
 * `…` at the end or in the middle; an escape is kept whole or dropped whole, never split.
 */
export const mdCellFit = (text: string, max: number, at: "end" | "middle" = "end", measure: Measure = byteLength): string => {
  const escaped = mdCell(text)
  return measure(escaped) <= max ? escaped : cutUnits([...text].map(mdCell), max, at, measure)
}

/** Turns a run of backslashes and the `` ` `` or `<` after it into its markdown escape. */
const escapeBeforeSpecial = (backslashes: string, special: string): string =>
  `${backslashes}${backslashes}${special === "`" ? "\\`" : "&lt;"}`

/**
 * Untrusted text (a path) in running markdown text, not in a table, within `max` bytes (cut with
 * `…` at the end): unsafe characters as U+FFFD, `` ` `` and `<` escaped (so no code span, HTML
 * tag or `<!--` comment starts), backslashes kept as they are (Windows paths stay readable)
 * except before those two, where they are doubled so that the escape holds.
 */
export const mdTextFit = (text: string, max: number): string => {
  const units: Array<string> = []
  let backslashes = ""
  for (const char of text) {
    if (char === "\\") {
      backslashes += char
      continue
    }
    if (char === "`" || char === "<") units.push(escapeBeforeSpecial(backslashes, char))
    else units.push(...backslashes, neutralize(char))
    backslashes = ""
  }
  units.push(...backslashes)
  return cutUnits(units, max, "end", byteLength)
}

/**
 * Untrusted text as inline code in running markdown text (not in a table, so `|` is left as it
 * is), within `max` bytes of content (cut with `…` at the end); the fence grows past any
 * backtick run inside it.
 */
export const mdInlineCodeFit = (text: string, max: number): string =>
  codeSpan(cutUnits([...neutralize(text)], max, "end", byteLength))

/**
 * Keeps whole lines while they fit in `budget` bytes (newlines counted); when some do not,
 * the last kept line is a `… and N more <noun>` line that fits as well.
 */
export const fitLines = (lines: ReadonlyArray<string>, budget: number, noun: string): ReadonlyArray<string> => {
  const total = lines.reduce((sum, line) => sum + byteLength(line) + 1, 0)
  if (total <= budget) return lines
  const kept: Array<string> = []
  let used = 0
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ""
    const more = `… and ${lines.length - index - 1} more ${noun}`
    if (used + byteLength(line) + 1 + byteLength(more) + 1 > budget) break
    kept.push(line)
    used += byteLength(line) + 1
  }
  const rest = lines.length - kept.length
  const tail = `… and ${rest} more ${noun}`
  return byteLength(tail) + 1 <= budget - used ? [...kept, tail] : kept
}

/**
 * Joins names into `a, b, c … and N more` within `budget` bytes, each shown as `render` makes it
 * (called only for the names reached, not for thousands cut anyway).
 */
export const fitNames = (names: ReadonlyArray<string>, budget: number, render: (name: string) => string = (name) => name): string => {
  const out: Array<string> = []
  let used = 0
  for (let index = 0; index < names.length; index++) {
    const name = render(names[index] ?? "")
    const suffix = index === names.length - 1 ? "" : ` … and ${names.length - index - 1} more`
    const cost = byteLength(name) + (out.length > 0 ? 2 : 0)
    if (used + cost + byteLength(suffix) > budget) {
      return `${out.join(", ")}${out.length > 0 ? " " : ""}… and ${names.length - out.length} more`
    }
    out.push(name)
    used += cost
  }
  return out.join(", ")
}
