import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option } from "effect"
import { filterTools, filterToolsInterruptibly } from "../../../src/inventory/query/toolQueries.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

describe("filterTools", () => {
  const inventory = inventoryOf([
    toolNamed("python3.12", { alsoAt: ["/bin/python3"], category: "runtimes" }),
    toolNamed("git", { category: "version-control" }),
    toolNamed("gh", { category: "version-control" }),
    toolNamed(".hidden")
  ])
  const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name)

  it.effect("matches names and aliases by glob, and categories exactly; the effect gives the same tools", () =>
    Effect.gen(function* () {
      const cases = [
        { category: Option.none(), name: Option.some("python3") },
        { category: Option.none(), name: Option.some("{git,gh}") },
        { category: Option.some("version-control"), name: Option.some("g?") },
        { category: Option.none(), name: Option.some("*") },
        { category: Option.some("runtimes"), name: Option.none() }
      ]
      const expected = [["python3.12"], ["git", "gh"], ["gh"], ["python3.12", "git", "gh", ".hidden"], ["python3.12"]]
      expect(cases.map((filters) => names(filterTools(inventory, filters)))).toEqual(expected)
      expect(names((yield* Effect.forEach(cases, (filters) => filterToolsInterruptibly(inventory, filters))).flat())).toEqual(expected.flat())
    }))

  it.live("a long filter is interrupted while it runs: it lets the event loop run", () =>
    Effect.gen(function* () {
      // 20,000 names of 250 characters against a glob of 1,000: about a minute of matching.
      const big = inventoryOf(Array.from({ length: 20_000 }, (_, index) => toolNamed(`${"a".repeat(240)}${String(index).padStart(10, "0")}`)))
      const fiber = yield* Effect.fork(filterToolsInterruptibly(big, { category: Option.none(), name: Option.some(`${"*a".repeat(499)}*b`) }))
      yield* Effect.sleep("200 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
    }))
})
