/**
 * Where a text stops being JSON, without quoting it: V8's `JSON.parse` messages quote the text
 * around the fault (`Unexpected token 'x', "…" is not valid JSON`), and the text can hold
 * secrets. The one rule for every JSON file tool-map reads.
 */
import { type ParseError, parse as parseJsonc } from "jsonc-parser"

/** The line (1-based) of character `offset` of `text`. */
export const lineAt = (text: string, offset: number): number => {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/**
 * The line (1-based) where `text`, which `JSON.parse` refused with `error`, stops being JSON:
 * the line V8's message names, else the offset of the first error of a strict parse by
 * jsonc-parser (V8 names no place for an unexpected token), or null.
 */
export const jsonErrorLine = (error: unknown, text: string): number | null => {
  const message = error instanceof Error ? error.message : ""
  const line = /line (\d+)/.exec(message)
  if (line !== null) return Number(line[1])
  const position = /position (\d+)/.exec(message)
  if (position !== null) return lineAt(text, Number(position[1]))
  const errors: Array<ParseError> = []
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  const first = errors[0]
  return first === undefined ? null : lineAt(text, first.offset)
}

/** Why `text` is not JSON, for a user: "it is not JSON (line N)", never a quote of the text. */
export const notJsonReason = (error: unknown, text: string): string => {
  const line = jsonErrorLine(error, text)
  return line === null ? "it is not JSON" : `it is not JSON (line ${line})`
}
