import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { CatalogBuilder } from "../../../src/catalog/services/CatalogBuilder.js"

const tool = (name: string, description = `Does ${name}.`): ToolSchema => ({
  name,
  description,
  inputSchema: { type: "object" }
})

const TOOLS = [tool("mcp__a__one"), tool("mcp__a__two"), tool("three")]

describe("CatalogBuilder", () => {
  it.effect("builds lazily, once per distinct tool set, whatever the order", () =>
    Effect.gen(function*() {
      const catalogs = yield* CatalogBuilder
      expect(yield* catalogs.stats).toEqual({ hits: 0, builds: 0, size: 0, capacity: 16 })
      const first = yield* catalogs.getWithStatus(TOOLS)
      expect(first.rebuilt).toBe(true)
      expect(first.catalog.tools.map((t) => t.path)).toEqual([
        "/uncategorized/a/one",
        "/uncategorized/a/two",
        "/uncategorized/misc/three"
      ])
      const again = yield* catalogs.getWithStatus([...TOOLS].reverse())
      expect(again).toEqual({ catalog: first.catalog, rebuilt: false, key: first.key })
      expect(yield* catalogs.get(TOOLS.map((t) => ({ ...t })))).toBe(first.catalog)
      expect(yield* catalogs.stats).toEqual({ hits: 2, builds: 1, size: 1, capacity: 16 })
    }).pipe(Effect.provide(CatalogBuilder.layer)))

  it.effect("rebuilds when a definition or an option changes", () =>
    Effect.gen(function*() {
      const catalogs = yield* CatalogBuilder
      const base = yield* catalogs.get(TOOLS)
      const edited = yield* catalogs.getWithStatus([TOOLS[0]!, TOOLS[1]!, tool("three", "Does more now.")])
      expect(edited.rebuilt).toBe(true)
      expect(edited.catalog.byName.get("three")?.description).toBe("Does more now.")
      const annotated = yield* catalogs.getWithStatus(TOOLS, {
        annotations: { user: { three: { category: "x" } } }
      })
      expect(annotated.rebuilt).toBe(true)
      expect(annotated.catalog.byName.get("three")?.path).toBe("/x/misc/three")
      const sameAgain = yield* catalogs.getWithStatus(TOOLS, {
        annotations: { user: new Map([["three", { category: "x" }]]) }
      })
      expect(sameAgain.rebuilt).toBe(false)
      const classified = yield* catalogs.getWithStatus(TOOLS, {
        classifiers: [{ id: "c", priority: 1, classify: () => ({ category: "c" }) }]
      })
      expect(classified.rebuilt).toBe(true)
      expect(yield* catalogs.get(TOOLS)).toBe(base)
    }).pipe(Effect.provide(CatalogBuilder.layer)))

  it.effect("keeps at most `capacity` builds, dropping the least recently used", () =>
    Effect.gen(function*() {
      const catalogs = yield* CatalogBuilder
      const a = yield* catalogs.get([tool("a")])
      yield* catalogs.get([tool("b")])
      expect(yield* catalogs.get([tool("a")])).toBe(a)
      yield* catalogs.get([tool("c")])
      expect((yield* catalogs.getWithStatus([tool("a")])).rebuilt).toBe(false)
      expect((yield* catalogs.getWithStatus([tool("b")])).rebuilt).toBe(true)
      expect(yield* catalogs.stats).toEqual({ hits: 2, builds: 4, size: 2, capacity: 2 })
    }).pipe(Effect.provide(CatalogBuilder.layerWithCapacity(2))))

  it.effect("forgets every build on invalidate", () =>
    Effect.gen(function*() {
      const catalogs = yield* CatalogBuilder
      const first = yield* catalogs.get(TOOLS)
      yield* catalogs.invalidate
      const second = yield* catalogs.getWithStatus(TOOLS)
      expect(second.rebuilt).toBe(true)
      expect(second.catalog).not.toBe(first)
      expect(second.catalog.toolSetKey).toBe(first.toolSetKey)
    }).pipe(Effect.provide(CatalogBuilder.layer)))
})
