import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  catalogInputArb,
  generateTools,
  optionsOf,
  prng,
  toolSetArb
} from "../../bench/catalogGenerators.js"
import {
  buildCatalog,
  keyOfHashes,
  resolveTarget,
  SEARCH_SCORES,
  searchCatalog,
  summary,
  toolSetKey,
  toolsUnder
} from "../../src/catalog/core/catalog.js"
import type { SearchOptions, SearchResult } from "../../src/catalog/core/catalog.js"
import {
  canonicalJson,
  definitionFacts,
  referenceCanonicalJson,
  sha256
} from "../../src/catalog/core/definitions.js"
import type { Catalog, CatalogNode, ToolEntry, ToolSchema } from "../../src/catalog/core/model.js"
import { nameWords } from "../../src/catalog/core/risk.js"
import { sanitizeDescription } from "../../src/catalog/core/sanitize.js"
import { countFeatures, estimateTokensFromJson, jsonStringWithFeatures, noFeatures } from "../../src/inventory/domain/tokens.js"

const RUNS = { fastCheck: { numRuns: 300 } }

const shuffled = <A>(items: ReadonlyArray<A>, seed: number): Array<A> => {
  const random = prng(seed)
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** Everything a build decides, as plain data. */
const projection = (catalog: Catalog) => ({
  categories: catalog.root.children.map((c) => [c.path, c.description, c.toolCount, c.tokens]),
  groups: [...catalog.groups].map(([name, nodes]) => [name, nodes.map((n) => n.path)]),
  tools: catalog.tools.map((t) => ({ ...t, meta: { ...t.meta } })),
  aliases: [...catalog.aliases.values()].map((a) => [a.path, a.children.map((t) => t.name), a.missing]),
  key: catalog.toolSetKey,
  diagnostics: catalog.diagnostics
})

describe("catalog properties", () => {
  it.prop("every tool is under exactly one group of exactly one category", [catalogInputArb], ([input]) => {
    const catalog = buildCatalog(input.tools, optionsOf(input))
    const names = new Set(input.tools.map((t) => t.name).filter((n) => n.length > 0))
    const homes = new Map<string, number>()
    for (const category of catalog.root.children) {
      for (const group of category.children) {
        expect(group.category).toBe(category.name)
        for (const tool of group.children) {
          homes.set(tool.name, (homes.get(tool.name) ?? 0) + 1)
          expect(tool.category).toBe(category.name)
          expect(tool.group).toBe(group.name)
          expect(tool.path.startsWith(`${group.path}/`)).toBe(true)
          expect(tool.path.split("/")).toHaveLength(4)
        }
      }
    }
    expect([...homes.keys()].sort()).toEqual([...names].sort())
    expect([...homes.values()].every((count) => count === 1)).toBe(true)
    expect(catalog.tools).toHaveLength(names.size)
    expect(toolsUnder(catalog.root)).toEqual(catalog.tools)
    expect(catalog.root.toolCount).toBe(names.size)
  }, RUNS)

  it.prop("paths are unique and every node resolves to itself", [catalogInputArb], ([input]) => {
    const catalog = buildCatalog(input.tools, optionsOf(input))
    for (const tool of catalog.tools) {
      expect(catalog.byPath.get(tool.path)).toBe(tool)
      const resolution = resolveTarget(catalog, tool.path)
      expect(resolution.kind === "tool" && resolution.node === tool).toBe(true)
      expect(catalog.byName.get(tool.name)).toBe(tool)
    }
    for (const category of catalog.root.children) {
      for (const group of category.children) {
        const resolution = resolveTarget(catalog, group.path)
        expect(resolution.kind === "group" ? resolution.tools : []).toEqual(group.children)
      }
    }
  }, RUNS)

  it.prop(
    "a build is deterministic and does not depend on the order tools are given in",
    [catalogInputArb, fc.integer()],
    ([input, seed]) => {
      const options = optionsOf(input)
      const first = projection(buildCatalog(input.tools, options))
      expect(projection(buildCatalog(input.tools, options))).toEqual(first)
      expect(projection(buildCatalog(shuffled(input.tools, seed), options))).toEqual(first)
    },
    RUNS
  )

  it.prop("alias categories only view tools that live elsewhere", [catalogInputArb], ([input]) => {
    const catalog = buildCatalog(input.tools, optionsOf(input))
    for (const alias of catalog.aliases.values()) {
      for (const tool of alias.children) expect(catalog.byPath.get(tool.path)).toBe(tool)
      const taken = catalog.categories.has(alias.name)
      expect(catalog.byPath.get(alias.path)).toBe(taken ? catalog.categories.get(alias.name) : alias)
      expect(catalog.diagnostics.some((d) => d.kind === "alias-name-taken" && d.name === alias.name)).toBe(taken)
    }
  }, RUNS)

  it.prop("search hits contain every query word and never exceed the limit", [
    toolSetArb,
    fc.constantFrom("get", "delete item", "a", "file", "zzz", "x y")
  ], ([tools, query]) => {
    const catalog = buildCatalog(tools)
    const result = searchCatalog(catalog, query, { limit: 5 })
    expect(result.tools.length).toBe(Math.min(5, result.total))
    for (const tool of searchCatalog(catalog, query).tools) {
      const hay = `${tool.name} ${tool.group} ${tool.category} ${tool.description}`.toLowerCase()
      for (const word of query.split(" ")) expect(hay.includes(word)).toBe(true)
    }
  }, RUNS)

  it.prop("sanitizing is idempotent and leaves no escape, bidi or control character", [
    fc.string({ unit: fc.oneof(fc.constantFrom("\u001b", "[", "]", "m", "\u0007", "\u202E", "\u200D", "\u200B", "\u{1F3F4}", "\u{E0067}", "\u{E007F}", "\u{1F468}", "\uFE0F", "\r", "a", " ", "\u0645"), fc.constant("b")), maxLength: 60 }),
    fc.integer({ min: 1, max: 80 })
  ], ([text, cap]) => {
    const once = sanitizeDescription(text, cap)
    expect(once.text.length).toBeLessThanOrEqual(cap)
    expect(once.text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200B\u200E\u200F]/u)
    expect(sanitizeDescription(once.text, cap)).toEqual({ text: once.text, flags: [] })
  }, { fastCheck: { numRuns: 1000 } })
})

// ---- the fast paths against straightforward reference implementations ----

/** Text units that reach the escapes, surrogates, case mappings and separators. */
const oddUnit = fc.constantFrom(
  "a", "B", "é", "É", "İ", "Σ", "ς", "K", " ", "\t", "\n", "\r", "\"", "\\", "\u0000", "\u0001", "\u001b", "\u007f",
  "\u00a0", "\u2028", "\uD800", "\uDC00", "\u{1F600}", "\u{E0041}", "_", "-", ".", "/", "x", "y", "1"
)
const oddString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.array(oddUnit, { maxLength: 20 }).map((units) => units.join(""))
)

/** JSON-like values with odd strings and keys, shuffled key orders and left-out members. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, -0, 1.5, -2e-7, 1e21, NaN, Infinity, undefined),
    oddString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(oddString, fc.constantFrom("10", "9", "01", "type", "__proto__", "toJSON")), tie("value"), {
      maxKeys: 5
    })
  )
})).value

const definitionArb: fc.Arbitrary<ToolSchema> = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), oddString.filter((name) => name.length > 0)),
  description: oddString,
  inputSchema: fc.oneof(valueArb, fc.jsonValue()),
  annotations: fc.option(fc.record({ title: oddString, readOnlyHint: fc.boolean() }, { requiredKeys: [] }), {
    nil: undefined
  })
})

/** Ranked search as the module comment defines it, tool by tool. */
const referenceSearch = (catalog: Catalog, query: string, options: SearchOptions = {}): SearchResult => {
  const words = query.toLowerCase().replace(/[\u0001]/g, "").split(/\s+/).filter((word) => word.length > 0)
  if (words.length === 0) return { tools: [], total: 0 }
  const position = new Map(catalog.tools.map((tool, i) => [tool, i]))
  const under: CatalogNode | undefined = options.under
  const pool = under === undefined || under.kind === "root"
    ? catalog.tools
    : toolsUnder(under).filter((tool) => position.has(tool)).sort((a, b) => position.get(a)! - position.get(b)!)
  const hits: Array<{ tool: ToolEntry; score: number }> = []
  for (const tool of pool) {
    const name = tool.name.toLowerCase()
    const short = tool.shortName.toLowerCase()
    const place = `${tool.group}\n${tool.category}`.toLowerCase()
    const all = `${name}\u0001${place}\u0001${tool.description.toLowerCase()}`
    let score = 0
    for (const word of words) {
      if (!all.includes(word)) {
        score = -1
        break
      }
      const inName = [...name.matchAll(new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g"))].map((m) => m.index)
      score += short === word || name === word
        ? SEARCH_SCORES.exactName
        : short.startsWith(word) || name.startsWith(word)
        ? SEARCH_SCORES.namePrefix
        : inName.some((at) => at === 0 || !/[a-z0-9\u0080-\uffff]/.test(name[at - 1]!))
        ? SEARCH_SCORES.nameWord
        : inName.length > 0
        ? SEARCH_SCORES.nameSubstring
        : place.includes(word)
        ? SEARCH_SCORES.groupOrCategory
        : SEARCH_SCORES.description
    }
    if (score >= 0) hits.push({ tool, score })
  }
  const ranked = hits.sort((a, b) => b.score - a.score).map((hit) => hit.tool)
  return { tools: ranked.slice(0, options.limit ?? ranked.length), total: ranked.length }
}

/** The summary as first written: a loop over the whole first line. */
const referenceSummary = (description: string): string => {
  const line0 = description.split("\n").map((line) => line.trim()).find((line) => line.length > 0) ?? ""
  const line = /\s{2}|[^\S ]/.test(line0) ? line0.replace(/\s+/g, " ") : line0
  let text = line
  for (let i = 0; i < line.length - 1; i++) {
    const c = line[i]!
    if ((c !== "." && c !== "!" && c !== "?") || line[i + 1] !== " ") continue
    const head = line.slice(0, i + 1)
    if (c === "." && /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|ex|\S)\.$/i.test(head)) continue
    text = head
    break
  }
  if (text.length <= 120) return text
  const cut = text.slice(0, 119)
  const space = text[119] === " " ? 119 : cut.lastIndexOf(" ")
  return `${(space > 60 ? cut.slice(0, space) : cut).trimEnd()}…`
}

describe("fast paths agree with the reference definitions", () => {
  it.prop("canonical JSON: the plain path writes what the general path writes", [
    fc.oneof(valueArb, fc.jsonValue(), fc.anything({ withDate: true, withMap: true, withNullPrototype: true }))
  ], ([value]) => {
    expect(canonicalJson(value)).toBe(referenceCanonicalJson(value))
  }, { fastCheck: { numRuns: 1000 } })

  it.prop("a definition's hash and token estimate follow the documented formulas", [definitionArb], ([tool]) => {
    const annotations = tool.annotations === undefined ? "" : `"annotations":${referenceCanonicalJson(tool.annotations)},`
    const inputSchemaJson = referenceCanonicalJson(tool.inputSchema)
    const json = `{${annotations}"description":${JSON.stringify(tool.description)},"inputSchema":${inputSchemaJson},"name":${
      JSON.stringify(tool.name)
    }}`
    const facts = definitionFacts(tool)
    expect(facts.hash).toBe(sha256(json))
    expect(facts.tokens).toBe(estimateTokensFromJson(JSON.stringify(tool.name), JSON.stringify(tool.description), inputSchemaJson))
  }, { fastCheck: { numRuns: 1000 } })

  it.prop("a string's features are counted as on its JSON text", [oddString], ([text]) => {
    const features = noFeatures()
    expect(jsonStringWithFeatures(text, features)).toBe(JSON.stringify(text))
    expect(features).toEqual(countFeatures(JSON.stringify(text), noFeatures()))
  }, { fastCheck: { numRuns: 1000 } })

  it.prop("the tool-set key is the hash of the sorted definition hashes", [
    fc.array(definitionArb, { maxLength: 120 }),
    fc.array(fc.tuple(fc.constantFrom("0000000000", "00000000", "ffffffffff", "abc"), fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 54, maxLength: 56 })), { minLength: 60, maxLength: 90 })
  ], ([tools, crafted]) => {
    const seen = new Set<string>()
    const hashes = tools.filter((tool) => !seen.has(tool.name) && seen.add(tool.name)).map((tool) => definitionFacts(tool).hash)
    expect(toolSetKey(tools)).toBe(sha256([...hashes].sort().join("\n")))
    const shared = crafted.map(([prefix, rest]) => prefix + rest)
    expect(keyOfHashes([...shared])).toBe(sha256([...shared].sort().join("\n")))
  }, { fastCheck: { numRuns: 200 } })

  it.prop("search ranks and counts as the tool-by-tool definition does", [
    catalogInputArb,
    fc.array(fc.oneof(fc.constantFrom("get", "delete", "item", "a", "x", "github", "fs", "misc", "uncategorized", "ab", "mcp__", "_", "Σ", "i̇", "é"), oddString), { maxLength: 3 }),
    fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    fc.nat()
  ], ([input, words, limit, pick]) => {
    const catalog = buildCatalog(input.tools, optionsOf(input))
    const nodes = [...catalog.byPath.values(), ...catalog.aliases.values()]
    const under = pick % 3 === 0 ? undefined : nodes[pick % nodes.length]
    const query = words.join(pick % 2 === 0 ? " " : "  ")
    expect(searchCatalog(catalog, query, { under, limit })).toEqual(referenceSearch(catalog, query, { under, limit }))
  }, RUNS)

  it("search agrees with the definition on a catalog of many chunks, odd letters included", () => {
    const tools: Array<ToolSchema> = generateTools(1500, 3).map((tool, i) =>
      i % 97 === 0 ? { ...tool, description: `${tool.description} İstanbul ΣΟΦΟΣ café \u{1F600}` } : tool
    )
    const catalog = buildCatalog(tools)
    const random = prng(5)
    const words = ["delete", "issue", "repository", "workspace", "the", "server1", "get_", "i̇stanbul", "σοφος", "café", "zz", "e", "ticket_id", "\u{1F600}"]
    for (let i = 0; i < 150; i++) {
      const query = Array.from({ length: 1 + Math.floor(random() * 3) }, () => words[Math.floor(random() * words.length)]!).join(" ")
      const nodes = [undefined, catalog.root, ...catalog.root.children, ...catalog.root.children.flatMap((c) => c.children).slice(0, 5)]
      const under = nodes[Math.floor(random() * nodes.length)]
      const limit = random() < 0.5 ? 40 : undefined
      expect(searchCatalog(catalog, query, { under, limit })).toEqual(referenceSearch(catalog, query, { under, limit }))
    }
  })

  it.prop("a summary is the one the whole first line gives", [
    fc.oneof(
      oddString,
      fc.array(
        fc.oneof(
          fc.constantFrom("word", "x.", "e.g.", "etc. ", "No. ", "! ", "? ", ". ", " ", "  ", "\t", "\u00a0", "\n", "Ab. "),
          fc.tuple(fc.constantFrom("a", "word ", " ", "\t "), fc.integer({ min: 1, max: 80 })).map(([unit, n]) => unit.repeat(n))
        ),
        { maxLength: 12 }
      ).map((parts) => parts.join(""))
    )
  ], ([text]) => {
    expect(summary(text)).toBe(referenceSummary(text))
  }, { fastCheck: { numRuns: 2000 } })

  it.prop("name words are the ones the regex definition gives", [
    fc.oneof(oddString, fc.array(fc.constantFrom("delete", "File", "HTTP", "Request", "_", "-", "x1", "\u212A", "É", "rm"), { maxLength: 6 }).map((parts) => parts.join("")))
  ], ([name]) => {
    const reference = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").toLowerCase()
      .split(/[^a-z0-9]+/).filter((word) => word.length > 0)
    expect(nameWords(name)).toEqual(reference)
  }, { fastCheck: { numRuns: 1000 } })
})
