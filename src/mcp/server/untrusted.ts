import { sanitizeDescription } from "../../catalog/core/sanitize.js"
import { neutralize } from "../../inventory/render/text.js"

/** A JSON value as the MCP server sends it. */
export type JsonValue = string | number | boolean | null | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

/**
 * The one boundary of untrusted text on its way to an MCP client: every string of `value`
 * (names, paths, versions, frontmatter) gets `neutralize` of the CLI's text output (controls,
 * line separators and bidi controls shown as U+FFFD), and each `description` field first the
 * catalog's `sanitizeDescription` (uncapped: tag characters, zero-width characters and ANSI
 * sequences removed), as tool descriptions are before they reach a model. Objects (class
 * instances of the inventory included) come out as plain objects of their own fields.
 */
export const untrustedJson = (value: unknown, key?: string): JsonValue => {
  if (typeof value === "string") return neutralize(key === "description" ? sanitizeDescription(value, Number.POSITIVE_INFINITY).text : value)
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value
  if (Array.isArray(value)) return value.map((item) => untrustedJson(item))
  if (typeof value === "object") {
    const out: Record<string, JsonValue> = {}
    for (const [field, item] of Object.entries(value)) if (item !== undefined) out[field] = untrustedJson(item, field)
    return out
  }
  return null
}

/** Text of lines holding untrusted names or paths, neutralized as the CLI prints them. */
export const untrustedText = (lines: ReadonlyArray<string>): string => lines.map(neutralize).join("\n")
