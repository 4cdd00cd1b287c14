import { sanitizeDescription } from "../../catalog/core/sanitize.js"
import { cleanText } from "../../inventory/domain/untrusted.js"

/** A JSON value as the MCP server sends it. */
export type JsonValue = string | number | boolean | null | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

/**
 * The boundary of untrusted text on its way to an MCP client: every string of `value` (names,
 * paths, versions, frontmatter, the client's own arguments echoed back) through the one rule
 * of `inventory/domain/untrusted.ts` (`cleanText`: secrets redacted, controls, line separators
 * and bidi controls shown as U+FFFD; a no-op on the inventory, which the scan cleaned), and
 * each `description` field first through the catalog's `sanitizeDescription` (uncapped: tag
 * characters, zero-width characters and ANSI sequences removed), as tool descriptions are
 * before they reach a model. Objects (class instances included) come out as plain objects.
 */
export const untrustedJson = (value: unknown, key?: string): JsonValue => {
  if (typeof value === "string") return cleanText(key === "description" ? sanitizeDescription(value, Number.POSITIVE_INFINITY).text : value)
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value
  if (Array.isArray(value)) return value.map((item) => untrustedJson(item))
  if (typeof value === "object") {
    const out: Record<string, JsonValue> = {}
    for (const [field, item] of Object.entries(value)) if (item !== undefined) out[field] = untrustedJson(item, field)
    return out
  }
  return null
}

/** Text of lines holding untrusted names or paths, through the same rule. */
export const untrustedText = (lines: ReadonlyArray<string>): string => lines.map(cleanText).join("\n")
