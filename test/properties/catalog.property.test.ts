import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  catalogInputArb,
  optionsOf,
  prng,
  toolSetArb
} from "../../bench/catalogGenerators.js"
import { buildCatalog, resolveTarget, searchCatalog, toolsUnder } from "../../src/catalog/catalog.js"
import type { Catalog } from "../../src/catalog/model.js"
import { sanitizeDescription } from "../../src/catalog/sanitize.js"

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
