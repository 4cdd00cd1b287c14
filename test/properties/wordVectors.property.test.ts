import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { decodeTable, encodeTable, isTable, quantize, vectorOf } from "../../src/catalog/core/router/wordVectors.js"

const vectorArb = (dimensions: number) =>
  fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true, noDefaultInfinity: true }), { minLength: dimensions, maxLength: dimensions })

describe("word-vector quantization", () => {
  it("gives back every component within half the vector's scale (the largest absolute component / 127)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }).chain((dimensions) => fc.array(vectorArb(dimensions), { minLength: 1, maxLength: 8 }).map((vectors) => ({ dimensions, vectors }))),
        ({ dimensions, vectors }) => {
          const decoded = decodeTable(encodeTable(dimensions, vectors.map((vector, i) => ({ word: `w${i}`, vector }))))
          if (!isTable(decoded)) throw new Error(decoded.problem)
          vectors.forEach((vector, row) => {
            const largest = Math.max(...vector.map(Math.abs))
            const { scale } = quantize(vector)
            expect(decoded.scales[row]).toBe(scale)
            // Half a step, plus what rounding the scale to float32 can add at the largest component
            // (and, below float32's normal range, 1e-36: such a scale is subnormal or zero).
            const bound = scale / 2 + largest * 1e-6 + 1e-36
            vectorOf(decoded, row).forEach((component, i) => expect(Math.abs(component - vector[i]!)).toBeLessThanOrEqual(bound))
          })
        }
      ),
      { numRuns: 300 }
    )
  })
})
