/** Helpers for putting untrusted text (file names, paths, descriptions) into markdown. */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** One line of untrusted text, safe inside a markdown table cell. */
export const mdCell = (text: string): string =>
  text.replace(CONTROL, "\uFFFD").replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/`/g, "\\`").replace(/</g, "&lt;")

/** Untrusted text as inline code; the fence grows past any backtick run inside it. */
export const mdCode = (text: string): string => {
  const clean = text.replace(CONTROL, "\uFFFD").replace(/\|/g, "\\|")
  const longestRun = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(longestRun + 1)
  const pad = clean.startsWith("`") || clean.endsWith("`") ? " " : ""
  return `${fence}${pad}${clean}${pad}${fence}`
}

/** Byte length of a string in UTF-8. */
export const byteLength = (text: string): number => Buffer.byteLength(text, "utf8")

/** The first line of every markdown file of a bundle. */
export const generationMarker = (generation: string): string => `<!-- tool-map generation=${generation} -->`

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

/** Joins names into `a, b, c … and N more` within `budget` bytes. */
export const fitNames = (names: ReadonlyArray<string>, budget: number): string => {
  const out: Array<string> = []
  let used = 0
  for (let index = 0; index < names.length; index++) {
    const name = names[index] ?? ""
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
