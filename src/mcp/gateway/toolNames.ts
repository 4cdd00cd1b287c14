/**
 * The names the gateway lists a downstream server's tools by: `mcp__<server>__<tool>` when that
 * is 1–49 characters of `[A-Za-z0-9_-]`, else a safe name in its place. Hosts put their own
 * prefix in front (Claude Code `mcp__tool-map__`, 15 characters, for the entry `gateway setup`
 * writes), and the model APIs behind them take 64 characters of `[a-zA-Z0-9_-]` (OpenAI, and
 * Claude Code's tool search); a host that validates names may reject the whole list for one bad
 * name, and a raw name carries escapes, controls or bidi text into the model's context. Pure.
 */
import { createHash } from "node:crypto"
import { MCP_SERVER_NAME } from "../hostConfig.js"
import { gatewayToolName } from "./ServerConfig.js"

/** The longest name the gateway lists: with `mcp__tool-map__` in front, the 64 characters model APIs take. */
export const MAX_LISTED_NAME = 64 - `mcp__${MCP_SERVER_NAME}__`.length

const WELL_FORMED = /^[A-Za-z0-9_-]+$/

/** The hex digits of the hash a mapped name ends with (more when that name is taken). */
const HASH_DIGITS = 8

const hashOf = (raw: string): string => createHash("sha256").update(raw, "utf8").digest("hex")

/**
 * The mapped name of a tool the server names `raw`: its characters outside `[A-Za-z0-9_-]` as
 * `_` (a run as one), cut to fit, then `_` and `digits` hex digits of the SHA-256 of `raw`.
 */
const mappedName = (segment: string, raw: string, digits: number): string => {
  const prefix = gatewayToolName(segment, "")
  const hash = hashOf(raw).slice(0, digits)
  const cleaned = raw.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "")
  const room = MAX_LISTED_NAME - prefix.length - hash.length - 1
  const kept = room > 0 ? cleaned.slice(0, room).replace(/_+$/, "") : ""
  return kept === "" ? `${prefix}${hash}` : `${prefix}${kept}_${hash}`
}

/** True when the server's own name can be listed as it is. */
export const isListable = (segment: string, raw: string): boolean =>
  WELL_FORMED.test(raw) && gatewayToolName(segment, raw).length <= MAX_LISTED_NAME

/**
 * The listed names of one server's tools, in their order; `undefined` for a name the server
 * gives twice (the first is kept). A listable name is kept as it is and wins over a mapped one,
 * so a mapped name never takes a real one; mapped names are stable (a hash of the server's name,
 * longer only when a shorter one is taken).
 */
export const listedToolNames = (segment: string, raws: ReadonlyArray<string>): ReadonlyArray<string | undefined> => {
  const out: Array<string | undefined> = raws.map(() => undefined)
  const taken = new Set<string>()
  const seen = new Set<string>()
  const mapped: Array<number> = []
  for (const [index, raw] of raws.entries()) {
    if (seen.has(raw)) continue
    seen.add(raw)
    if (!isListable(segment, raw)) {
      mapped.push(index)
      continue
    }
    const name = gatewayToolName(segment, raw)
    out[index] = name
    taken.add(name)
  }
  for (const index of mapped) {
    const raw = raws[index]!
    let digits = HASH_DIGITS
    let name = mappedName(segment, raw, digits)
    while (taken.has(name) && digits < 64) {
      digits += 4
      name = mappedName(segment, raw, digits)
    }
    out[index] = name
    taken.add(name)
  }
  return out
}

/**
 * A server's name of a tool for a log line: every character outside printable ASCII as
 * `\u{…}` (controls, bidi and zero-width characters, lone surrogates show what they are), cut
 * to `max` characters with "…".
 */
export const escapedName = (raw: string, max = 80): string => {
  let out = ""
  for (let index = 0; index < raw.length && out.length <= max; index++) {
    const code = raw.charCodeAt(index)
    out += code >= 0x20 && code < 0x7f ? raw[index] : `\\u{${code.toString(16)}}`
  }
  return out.length > max ? `${out.slice(0, max)}…` : out
}
