import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { createHash } from "node:crypto"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import type { ToolEntry, ToolSchema } from "../../../src/catalog/core/model.js"
import { generateTools } from "../../../bench/catalogGenerators.js"
import { bodyChecksum, encodeIndex, INDEX_PREAMBLE_BYTES, indexDigest, indexHeadBytes, openIndex } from "../../../src/catalog/core/router/indexFile.js"
import { addDocuments, buildIndex, type RouterIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { explainMatch, explainSteps, rankDocuments, rankSteps } from "../../../src/catalog/core/router/rank.js"
import type { Needs } from "../../../src/catalog/core/router/rankIndex.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { decodeIndex, object, ROUTER_FIXTURE } from "./routerFixture.js"


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

/** `indexDigest` as one line-separated text per field (what it hashes, in pieces). */
const digestInOnePiece = (tools: ReadonlyArray<ToolEntry>): string => {
  const texts = ["name", "shortName", "group", "category"] as const
  const hash = createHash("sha256")
  const lengths = new Int32Array(tools.length * (texts.length + 1))
  texts.forEach((text, t) => {
    hash.update(tools.map((tool, position) => {
      lengths[position * (texts.length + 1) + t] = tool[text].length
      return tool[text]
    }).join("\n"))
  })
  tools.forEach((tool, position) => lengths[position * (texts.length + 1) + texts.length] = tool.description.length)
  return hash.update(new Uint8Array(lengths.buffer)).digest("hex")
}

describe("router index file", () => {
  it("has a digest of the texts of all tools, hashed a batch of tools at a time", () => {
    const large = buildCatalog(generateTools(2_500))
    for (const count of [0, 1, 1_023, 1_024, 1_025, 2_048, 2_500]) {
      const tools = large.tools.slice(0, count)
      expect(indexDigest({ tools })).toBe(digestInOnePiece(tools))
    }
  })

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
    const head = headOf(bytes)
    for (const length of [0, 4, 19, 20, 40, head - 1, head, bytes.length - 4, bytes.length - 1]) {
      expect(decodeIndex(bytes.subarray(0, length), catalog)).toEqual(Option.none())
    }
    expect(decodeIndex(Uint8Array.from([...bytes, 0, 0, 0, 0]), catalog)).toEqual(Option.none())
    // A byte of a posting list, of a document's terms, of the head's arrays, of its JSON.
    for (const at of [head + 5, bytes.length - 3, head - 9, INDEX_PREAMBLE_BYTES + 30]) {
      const flipped = Uint8Array.from(bytes)
      flipped[at]! ^= 0x10
      expect(decodeIndex(flipped, catalog)).toEqual(Option.none())
    }
    const text = new TextDecoder().decode(bytes.subarray(INDEX_PREAMBLE_BYTES, 200))
    expect(text.startsWith("{\"version\":5,")).toBe(true)
    const otherVersion = Uint8Array.from(bytes)
    otherVersion.set(new TextEncoder().encode("{\"version\":9,"), INDEX_PREAMBLE_BYTES)
    expect(decodeIndex(otherVersion, catalog)).toEqual(Option.none())
    expect(decodeIndex(resealed(otherVersion), catalog)).toEqual(Option.none())
    expect(decodeIndex(new TextEncoder().encode("{\"tools\": []}\n"), catalog)).toEqual(Option.none())
    const badHeader = Uint8Array.from(bytes)
    badHeader[INDEX_PREAMBLE_BYTES + 1] = 0xff
    expect(decodeIndex(resealed(badHeader), catalog)).toEqual(Option.none())
  })

  it("is not taken when its arrays point out of range, even with right checksums", () => {
    expect(Option.isSome(decodeIndex(resealed(Uint8Array.from(bytes)), catalog))).toBe(true)
    const n = catalog.tools.length
    const terms = fresh.postings.length
    // The head's arrays: field lengths (n * 6, float), intents (n), groups (n), name hashes (2n),
    // document starts (n + 1), their checksums (n), term starts (terms + 1), their checksums.
    const intentsAt = n * 6
    const groupsAt = intentsAt + n
    const docStartAt = groupsAt + 3 * n
    const termStartAt = docStartAt + 2 * n + 1
    expect(decodeIndex(inHead((arrays) => arrays[0] = 0x7fc00000), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[intentsAt] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[docStartAt + 1] = 1_000_000), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[termStartAt + terms] = 0), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[groupsAt] = fresh.groups.length), catalog)).toEqual(Option.none())
    // A document's group is its tool's: read_text_file has none, the github tools have github.
    const plain = catalog.tools.findIndex((tool) => tool.name === "read_text_file")
    const github = catalog.tools.findIndex((tool) => tool.name === "mcp__github__search_code")
    expect(fresh.documents[plain]!.group).toBe(-1)
    expect(decodeIndex(inHead((arrays) => arrays[groupsAt + plain] = 0), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[groupsAt + github] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(inHead((arrays) => arrays[groupsAt + github] = fresh.groups.indexOf("slack")), catalog)).toEqual(Option.none())
    expect(fresh.groups.indexOf("slack")).toBeGreaterThanOrEqual(0)
    // A posting list whose documents are out of range or out of order, with its checksum made right.
    const github0 = fresh.terms.get("github")!
    expect(fresh.postings[github0]!.size).toBeGreaterThan(1)
    expect(decodeIndex(inBlock(github0, (block) => block[0] = n), catalog)).toEqual(Option.none())
    expect(decodeIndex(inBlock(github0, (block) => block[0] = -1), catalog)).toEqual(Option.none())
    expect(decodeIndex(inBlock(github0, (block) => block[1] = block[0]!), catalog)).toEqual(Option.none())
  })

  it("read piece by piece, ranks and explains byte for byte as the index built in memory, reading only what each task needs", () => {
    const schemas = generateTools(2000)
    const generated = buildCatalog(schemas)
    const built = buildIndex(routerDocuments(generated, schemas))
    const file = encodeIndex(built, generated.toolSetKey, indexDigest(generated))
    const tasks = [
      "list issue", "create a pull request in the repository", "send a message to the channel", "read file contents",
      "delete old records", "search documents", "update user profile", "find the invoice", "zzz unknown words", "write",
      // Joined needs: sibling diversity reads the terms of the first hits too.
      "create a pull request and then send a message to the channel; read file contents",
      ...generated.tools.slice(0, 40).map((tool) => tool.shortName.replaceAll("_", " ")),
      generated.tools[7]!.name,
      generated.tools[9]!.shortName
    ]
    const kept = new Set(generated.tools.filter((_, position) => position % 3 === 0).map((tool) => tool.name))
    for (const task of tasks) {
      const stored = Option.getOrThrow(openIndex(file.subarray(0, headOf(file)), file.length, generated))
      let read = 0
      const fetch = (needs: Needs) => {
        for (const range of stored.rangesOf(needs)) {
          read += range.length
          expect(stored.accept(range, file.slice(range.offset, range.offset + range.length))).toBe(true)
        }
      }
      const ranked = drive(rankSteps(stored, { query: task, limit: 20 }), fetch)
      const expected = rankDocuments(built, { query: task, limit: 20 })
      expect(ranked).toEqual(expected)
      expect(ranked.map((hit) => stored.idOf(hit.position))).toEqual(expected.map((hit) => built.documents[hit.position]!.document.id))
      expect(drive(explainSteps(stored, ranked.map((hit) => hit.position), task), fetch))
        .toEqual(expected.map((hit) => explainMatch(built, hit.position, task)))
      // A task reads a part of the body, never all of it.
      expect(read).toBeLessThan(file.length - headOf(file))
      const missing = stored.missing()
      expect(missing.terms.length).toBeGreaterThan(stored.termCount / 2)
      expect(missing.documents.length).toBeGreaterThan(stored.documentCount / 2)
      const keep = (position: number) => kept.has(stored.idOf(position))
      expect(drive(rankSteps(stored, { query: task, limit: 5, keep }), fetch))
        .toEqual(rankDocuments(built, { query: task, limit: 5, keep: (position) => kept.has(built.documents[position]!.document.id) }))
    }
  })
})

/** Where the body of an index file starts. */
const headOf = (file: Uint8Array) => Option.getOrThrow(indexHeadBytes(file, file.length))

/** Runs ranking steps, fetching what they ask for. */
const drive = <A>(steps: Generator<Needs, A, void>, fetch: (needs: Needs) => void): A => {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value
    fetch(step.value)
  }
}

/** The file with its head's checksum made right again. */
const resealed = (file: Uint8Array): Uint8Array => {
  const head = new DataView(file.buffer, file.byteOffset).getUint32(8, true)
  const arrays = new DataView(file.buffer, file.byteOffset).getUint32(12, true)
  const end = INDEX_PREAMBLE_BYTES + head + ((4 - (head % 4)) % 4) + arrays
  const words = new Int32Array(file.buffer.slice(file.byteOffset + INDEX_PREAMBLE_BYTES, file.byteOffset + end))
  new DataView(file.buffer, file.byteOffset).setUint32(16, bodyChecksum(words), true)
  return file
}

/** The file with its head's arrays (an Int32Array over them) changed by `mutate`, resealed. */
const inHead = (mutate: (arrays: Int32Array) => void): Uint8Array => {
  const out = Uint8Array.from(bytes)
  const json = new DataView(out.buffer).getUint32(8, true)
  const arrays = new DataView(out.buffer).getUint32(12, true)
  mutate(new Int32Array(out.buffer, INDEX_PREAMBLE_BYTES + json + ((4 - (json % 4)) % 4), arrays / 4))
  return resealed(out)
}

/** The file with term `id`'s posting block (documents, then counts) changed by `mutate`, its checksum in the head made right. */
const inBlock = (id: number, mutate: (block: Int32Array) => void): Uint8Array => {
  const out = Uint8Array.from(bytes)
  const head = headOf(out)
  const n = catalog.tools.length
  const terms = fresh.postings.length
  const json = new DataView(out.buffer).getUint32(8, true)
  const arrays = new Int32Array(out.buffer, INDEX_PREAMBLE_BYTES + json + ((4 - (json % 4)) % 4), new DataView(out.buffer).getUint32(12, true) / 4)
  const termStartAt = 12 * n + 1
  const start = arrays[termStartAt + id]!
  const size = arrays[termStartAt + id + 1]! - start
  const block = new Int32Array(out.buffer, head + 8 * start, 2 * size)
  mutate(block)
  arrays[termStartAt + terms + 1 + id] = bodyChecksum(block)
  return resealed(out)
}
