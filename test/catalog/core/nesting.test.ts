import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { MAX_NESTING, nestsDeeperText, nestsDeeperThan } from "../../../src/catalog/core/nesting.js"

/** The nesting of a value by an explicit stack (no recursion): the reference of the bounded walk. */
const depthOf = (value: unknown): number => {
  let deepest = 0
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, above] = stack.pop()!
    if (typeof item !== "object" || item === null) continue
    deepest = Math.max(deepest, above + 1)
    for (const child of Object.values(item)) stack.push([child, above + 1])
  }
  return deepest
}

/** `levels` objects or arrays inside one another, as JSON.parse builds them from text. */
const nested = (levels: number, kind: "array" | "object") =>
  JSON.parse(kind === "array" ? `${"[".repeat(levels)}${"]".repeat(levels)}` : `${"{\"a\":".repeat(levels - 1)}{}${"}".repeat(levels - 1)}`) as unknown

describe("nestsDeeperThan", () => {
  it.prop("is true exactly when the value nests deeper than the cap", [
    fc.jsonValue({ depthSize: "large", maxDepth: 12 }),
    fc.integer({ min: 0, max: 14 })
  ], ([value, max]) => {
    expect(nestsDeeperThan(value, max)).toBe(depthOf(value) > max)
  }, { fastCheck: { numRuns: 500 } })

  it("counts `{}` and `[]` as one level and a scalar as none", () => {
    expect([nestsDeeperThan("x", 0), nestsDeeperThan({}, 0), nestsDeeperThan({}, 1), nestsDeeperThan({ a: [] }, 1), nestsDeeperThan({ a: [] }, 2)])
      .toEqual([false, true, false, true, false])
  })

  it("takes values far deeper than the stack allows, at the cap and one level past it", () => {
    for (const kind of ["array", "object"] as const) {
      expect([nestsDeeperThan(nested(MAX_NESTING, kind)), nestsDeeperThan(nested(MAX_NESTING + 1, kind)), nestsDeeperThan(nested(200_000, kind))])
        .toEqual([false, true, true])
    }
    expect(() => JSON.stringify(nested(200_000, "array"))).toThrow(RangeError)
  })

  it("says what is wrong, with the cap", () => {
    expect(nestsDeeperText()).toBe("nests deeper than 256 levels of arrays and objects")
  })
})
