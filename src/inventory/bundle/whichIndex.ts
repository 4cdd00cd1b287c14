import { Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { fastDecodeUnknownOption } from "../../platform/schemaFastPath.js"
import { TOOL_MAP_VERSION } from "../../version.js"
import type { Inventory } from "../domain/inventory.js"
import { toOsFamily } from "../domain/machine.js"
import { pathLookup } from "../domain/toolNames.js"
import { WatchSet } from "../domain/watch.js"
import { whichAnswers, type WhichCopies } from "../domain/which.js"
import { parseJson, type RecordedBundle } from "./format.js"

// The bundle's which index (`<stem>.which.jsonl`): a header line, then one line per name as the
// OS compares names, `<name as JSON>\t<its which answer as JSON>`. It is derived from the exact
// bytes of tools.json by the commit that writes both, and names their SHA-256 and its own lines':
// a reader that finds another tools.json (an older index, an edit, a torn write) or other lines
// ignores the index and reads tools.json, so the index never answers differently from it. `query
// which` looks one line up and `--if-stale` takes the watch set from the header, instead of parsing
// a large tools.json (inventoryDecode.ts derives the index of a tools.json text).

const FORMAT = "tool-map-which/1"
const NEWLINE = 0x0a

const IndexHeader = Schema.Struct({
  format: Schema.Literal(FORMAT),
  /** The tool-map that wrote it: another one may answer differently, so it reads tools.json. */
  toolMap: Schema.String,
  /** SHA-256 (hex) of the tools.json bytes the index was derived from. */
  json: Schema.String,
  /** SHA-256 (hex) of the index's lines after this header: a corrupt or edited line is seen. */
  lines: Schema.String,
  /** The OS family of the bundle's host: how a typed name becomes an index key. */
  os: Schema.String,
  /** tools.json's generation and watch set, as `--if-stale` reads them there. */
  generation: Schema.String,
  watch: WatchSet
})
// Built on first use: a read never encodes (Schema.encodeSync compiles its parser at once).
let encodeHeader: ((header: typeof IndexHeader.Type) => typeof IndexHeader.Encoded) | undefined
const decodeHeaderJson = fastDecodeUnknownOption(IndexHeader)
const decodeHeader = (text: string) => Option.flatMap(parseJson(text), decodeHeaderJson)

const WhichLine = Schema.Struct({
  winner: Schema.NullOr(Schema.String),
  copies: Schema.Array(Schema.Struct({
    path: Schema.String,
    linkTarget: Schema.NullOr(Schema.String),
    pathIndex: Schema.NullOr(Schema.Number),
    root: Schema.String,
    sameFileAs: Schema.NullOr(Schema.String),
    version: Schema.NullOr(Schema.String),
    wins: Schema.Boolean
  }))
})
const decodeLineJson = fastDecodeUnknownOption(WhichLine)
const decodeLine = (text: string) => Option.flatMap(parseJson(text), decodeLineJson)

/** The SHA-256 (hex) of tools.json's bytes, as the index names them. */
export const jsonDigest = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

/**
 * The which index of `json`, given the inventory that text encodes (a scan has it at hand, so
 * nothing is parsed again). Keys are unique and JSON-quoted, so that no name (a tab or a newline
 * in it) can end a line or a key early.
 */
export const renderWhichIndexOf = (json: string, inventory: Inventory): string => {
  const lines: Array<string> = []
  for (const [key, answer] of whichAnswers(inventory)) lines.push(`\n${JSON.stringify(key)}\t${JSON.stringify(answer)}`)
  const body = `${lines.join("")}\n`
  const header = (encodeHeader ??= Schema.encodeSync(IndexHeader))({
    format: FORMAT,
    toolMap: TOOL_MAP_VERSION,
    json: jsonDigest(json),
    lines: jsonDigest(body),
    os: inventory.host.os,
    generation: inventory.generation,
    watch: inventory.watch
  })
  return `${JSON.stringify(header)}${body}`
}

/** A which index that vouches for the tools.json it was checked against. */
export interface WhichIndex {
  /** What tools.json records for `--if-stale`. */
  readonly recorded: RecordedBundle
  /** What `query which NAME` answers from that tools.json, apart from the name. */
  readonly lookup: (name: string) => Option.Option<WhichCopies>
}

/**
 * The index in `bytes` (a which index file) when it was written by this tool-map from the
 * tools.json whose SHA-256 is `jsonSha256`, its lines intact; none otherwise (an old, foreign or
 * corrupt index counts as no index). Looked up in place: only the header and the line asked for
 * are decoded.
 */
export const readWhichIndex = (bytes: Uint8Array, jsonSha256: string): Option.Option<WhichIndex> => {
  const index = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerEnd = index.indexOf(NEWLINE)
  if (headerEnd === -1) return Option.none()
  return Option.flatMap(decodeHeader(index.toString("utf8", 0, headerEnd)), (header) => {
    if (header.toolMap !== TOOL_MAP_VERSION || header.json !== jsonSha256 || header.lines !== jsonDigest(index.subarray(headerEnd))) {
      return Option.none()
    }
    const lookup = pathLookup(toOsFamily(header.os))
    return Option.some<WhichIndex>({
      recorded: { watch: header.watch, generation: Option.some(header.generation) },
      lookup: (name) => {
        const key = `\n${JSON.stringify(lookup.key(name))}\t`
        const start = index.indexOf(key, headerEnd)
        // Every name of the inventory has its line: no line is no copy.
        if (start === -1) return Option.some<WhichCopies>({ winner: null, copies: [] })
        const end = index.indexOf(NEWLINE, start + 1)
        return decodeLine(index.toString("utf8", start + Buffer.byteLength(key), end === -1 ? index.length : end))
      }
    })
  })
}
