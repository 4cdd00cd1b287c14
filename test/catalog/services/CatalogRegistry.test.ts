import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { CatalogRegistry, extensionsOf, type RiskGate } from "../../../src/catalog/services/CatalogRegistry.js"

describe("CatalogRegistry", () => {
  it.effect("a registration holds until its scope closes", () =>
    Effect.gen(function*() {
      const registry = yield* CatalogRegistry
      yield* Effect.scoped(Effect.gen(function*() {
        yield* registry.register("categories", { name: "code", description: "Source hosting" })
        yield* registry.register("annotations", { layer: "package", annotation: { match: /^fs_/, meta: { category: "files" }, source: "pkg" } })
        const current = yield* registry.current
        expect(current.categories.map((category) => category.name)).toEqual(["code"])
        expect(extensionsOf(current, ["file"]).annotations).toEqual([{ layer: "package", source: "pkg", match: "/^fs_/" }])
      }))
      expect(yield* registry.current).toEqual({
        classifiers: [],
        annotations: [],
        categories: [],
        filters: [],
        resolvers: [],
        riskGates: [],
        beforeLoad: [],
        beforeUnload: []
      })
    }).pipe(Effect.provide(CatalogRegistry.layer)))

  it.effect("closing one of two registrations of the same item keeps the other, in order", () =>
    Effect.gen(function*() {
      const registry = yield* CatalogRegistry
      const gate: RiskGate = { name: "ask" }
      const other: RiskGate = { name: "log" }
      const first = yield* Scope.make()
      yield* Scope.extend(registry.register("riskGates", gate), first)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* registry.register("riskGates", other)
        yield* registry.register("riskGates", gate)
        expect((yield* registry.current).riskGates).toEqual([gate, other, gate])
        yield* Scope.close(first, Exit.void)
        expect((yield* registry.current).riskGates).toEqual([gate, other])
      }))
      expect((yield* registry.current).riskGates).toEqual([])
    }).pipe(Effect.provide(CatalogRegistry.layer)))

  it.effect("every change is a new value, so builds can compare registries by identity", () =>
    Effect.gen(function*() {
      const registry = yield* CatalogRegistry
      const before = yield* registry.current
      yield* Effect.scoped(registry.register("filters", { name: "none", keep: () => true }))
      const after = yield* registry.current
      expect(after).not.toBe(before)
      expect(after).toEqual(before)
    }).pipe(Effect.provide(CatalogRegistry.layer)))
})
