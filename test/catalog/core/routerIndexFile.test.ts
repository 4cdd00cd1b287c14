import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { bodyChecksum, decodeIndex, encodeIndex, indexDigest } from "../../../src/catalog/core/router/indexFile.js"
import { addDocuments, buildIndex, type RouterIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { explainMatch, rankDocuments } from "../../../src/catalog/core/router/rank.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { object, ROUTER_FIXTURE } from "./routerFixture.js"


const catalog = buildCatalog(ROUTER_FIXTURE)
const fresh = buildIndex(routerDocuments(catalog, ROUTER_FIXTURE))
const bytes = encodeIndex(fresh, catalog.toolSetKey, indexDigest(catalog))

const QUERIES = [
  "post a message in the channel",
  "search github code",
  "remove the repository",
  "show me what a file contains",
  "latin1 encoded text",
  "delete_repository",
  "mcp__slack__list_channels"
]

const ranking = (index: RouterIndex, query: string) =>
  rankDocuments(index, { query, limit: 10 }).map((hit) => [index.documents[hit.position]!.document.id, hit.score, hit.exact])

/** The file with its body changed by `mutate` (an Int32Array over the body) and its checksum made right again. */
const tampered = (mutate: (body: Int32Array) => void): Uint8Array => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerBytes = view.getUint32(8, true)
  const start = 12 + headerBytes + ((4 - (headerBytes % 4)) % 4)
  const body = Int32Array.from(new Int32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length)))
  mutate(body)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerBytes))) as { checksum: string }
  const patched = new TextEncoder().encode(JSON.stringify({ ...header, checksum: bodyChecksum(body).toString(16).padStart(8, "0") }))
  // The header may grow by a digit: the body starts at the next multiple of 4 after it.
  const bodyAt = 12 + patched.length + ((4 - (patched.length % 4)) % 4)
  const out = new Uint8Array(bodyAt + body.byteLength)
  out.set(bytes.subarray(0, 12))
  new DataView(out.buffer).setUint32(8, patched.length, true)
  out.set(patched, 12)
  out.set(new Uint8Array(body.buffer), bodyAt)
  return out
}

describe("router index file", () => {
  it("reads back an index that ranks and explains exactly as a fresh build", () => {
    const read = Option.getOrThrow(decodeIndex(bytes, catalog))
    for (const query of QUERIES) expect(ranking(read, query)).toEqual(ranking(fresh, query))
    const position = read.byId.get("mcp__slack__post_message")!
    expect(explainMatch(read, position, "post to the slack channel")).toEqual(explainMatch(fresh, position, "post to the slack channel"))
    expect(ranking(read, "post a message in the channel").map(([id]) => id)).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
  })

  it("is written the same for the same index, and a read index grows like a built one", () => {
    expect(encodeIndex(Option.getOrThrow(decodeIndex(bytes, catalog)), catalog.toolSetKey, indexDigest(catalog))).toEqual(bytes)
    const grown = [...ROUTER_FIXTURE, { name: "mcp__jira__create_ticket", description: "Open a ticket for a bug.", inputSchema: object({}) }]
    const grownCatalog = buildCatalog(grown)
    const read = Option.getOrThrow(decodeIndex(bytes, catalog))
    addDocuments(read, routerDocuments(grownCatalog, grown).filter((document) => !read.byId.has(document.id)))
    const built = buildIndex(routerDocuments(buildCatalog(ROUTER_FIXTURE), ROUTER_FIXTURE))
    addDocuments(built, routerDocuments(grownCatalog, grown).filter((document) => !built.byId.has(document.id)))
    for (const query of ["open a bug ticket", "create an issue", ...QUERIES]) expect(ranking(read, query)).toEqual(ranking(built, query))
    // The read index's arrays are views of the file's bytes: growing must not write into them.
    expect(Option.isSome(decodeIndex(bytes, catalog))).toBe(true)
  })

  it("keeps no tool name: the documents are the catalog's tools, in order", () => {
    const text = new TextDecoder().decode(bytes)
    for (const tool of catalog.tools) expect(text.includes(tool.name)).toBe(false)
    const read = Option.getOrThrow(decodeIndex(bytes, catalog))
    expect(read.documents.map((indexed) => indexed.document)).toEqual(fresh.documents.map((indexed) => indexed.document))
    expect(read.documents.map((indexed) => [indexed.nameKey, indexed.shortKey, indexed.group]))
      .toEqual(fresh.documents.map((indexed) => [indexed.nameKey, indexed.shortKey, indexed.group]))
  })

  it("is not taken for another tool set, another classification or other tools", () => {
    const other: ReadonlyArray<ToolSchema> = ROUTER_FIXTURE.map((tool) => tool.name === "read_text_file" ? { ...tool, description: "Read a file." } : tool)
    expect(decodeIndex(bytes, buildCatalog(other))).toEqual(Option.none())
    expect(decodeIndex(encodeIndex(fresh, catalog.toolSetKey, "0".repeat(64)), catalog)).toEqual(Option.none())
    expect(decodeIndex(bytes, { ...catalog, tools: [...catalog.tools].reverse() })).toEqual(Option.none())
  })

  it("is not taken for the same tools with other annotations, or with descriptions cut at another length", () => {
    // The MCP annotations lend the documents a title and intents: part of the definition hash.
    const hinted = ROUTER_FIXTURE.map((tool) => tool.name === "mcp__slack__post_message" ? { ...tool, annotations: { destructiveHint: true } } : tool)
    expect(decodeIndex(bytes, buildCatalog(hinted))).toEqual(Option.none())
    // The same definitions, built with a shorter description cap: other description texts.
    const cut = buildCatalog(ROUTER_FIXTURE, { maxDescriptionLength: 20 })
    expect(cut.toolSetKey).toBe(catalog.toolSetKey)
    expect(cut.byName.get("read_text_file")!.description).not.toBe(catalog.byName.get("read_text_file")!.description)
    expect(decodeIndex(bytes, cut)).toEqual(Option.none())
    expect(Option.isSome(decodeIndex(bytes, buildCatalog(ROUTER_FIXTURE, { maxDescriptionLength: 1024 })))).toBe(true)
  })

  it("is not taken when truncated, damaged, of another version or not an index at all", () => {
    for (const length of [0, 4, 11, 12, 40, bytes.length - 4, bytes.length - 1]) {
      expect(decodeIndex(bytes.subarray(0, length), catalog)).toEqual(Option.none())
    }
    expect(decodeIndex(Uint8Array.from([...bytes, 0, 0, 0, 0]), catalog)).toEqual(Option.none())
    const flipped = Uint8Array.from(bytes)
    flipped[bytes.length - 3]! ^= 0x10
    expect(decodeIndex(flipped, catalog)).toEqual(Option.none())
    const text = new TextDecoder().decode(bytes.subarray(12, 200))
    expect(text.startsWith("{\"version\":3,")).toBe(true)
    const otherVersion = Uint8Array.from(bytes)
    otherVersion.set(new TextEncoder().encode("{\"version\":9,"), 12)
    expect(decodeIndex(otherVersion, catalog)).toEqual(Option.none())
    expect(decodeIndex(new TextEncoder().encode("{\"tools\": []}\n"), catalog)).toEqual(Option.none())
    const badHeader = Uint8Array.from(bytes)
    badHeader[13] = 0xff
    expect(decodeIndex(badHeader, catalog)).toEqual(Option.none())
  })

  it("is not taken when its arrays point out of range, even with a right checksum", () => {
    expect(Option.isSome(decodeIndex(tampered(() => {}), catalog))).toBe(true)
    const n = catalog.tools.length
    // The body: field lengths (n * 6, float), document starts (n + 1), document terms, their counts, ...
    expect(decodeIndex(tampered((body) => body[n * 6] = 1), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[n * 6 + n + 1] = 1_000_000), catalog)).toEqual(Option.none())
    // ..., then the posting lists' documents and their field counts (any number is a count).
    const postings = fresh.postings.reduce((total, list) => total + list.size, 0)
    expect(decodeIndex(tampered((body) => body[body.length - postings - 1] = n), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[body.length - postings - 1] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[0] = 0x7fc00000), catalog)).toEqual(Option.none())
    // ..., and after the document terms' counts each document's intents and group.
    const terms = fresh.docStart[n]!
    const intentsAt = n * 6 + n + 1 + 2 * terms
    expect(decodeIndex(tampered((body) => body[intentsAt] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[intentsAt + n] = fresh.groups.length), catalog)).toEqual(Option.none())
    // A document's group is its tool's: read_text_file has none, the github tools have github.
    const plain = catalog.tools.findIndex((tool) => tool.name === "read_text_file")
    const github = catalog.tools.findIndex((tool) => tool.name === "mcp__github__search_code")
    expect(fresh.documents[plain]!.group).toBe(-1)
    expect(decodeIndex(tampered((body) => body[intentsAt + n + plain] = 0), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[intentsAt + n + github] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(tampered((body) => body[intentsAt + n + github] = fresh.groups.indexOf("slack")), catalog)).toEqual(Option.none())
    expect(fresh.groups.indexOf("slack")).toBeGreaterThanOrEqual(0)
  })
})
