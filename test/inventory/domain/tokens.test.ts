import { describe, expect, it } from "@effect/vitest"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { charsOverFour, loadCorpus, measureError } from "../../../bench/tokens.js"
import {
  countFeatures,
  estimateTokens,
  formatTokens,
  jsonStringWithFeatures,
  noFeatures,
  wireJson
} from "../../../src/inventory/domain/tokens.js"

describe("estimateTokens", () => {
  it("stays within 10% median error of o200k over the committed corpus of real MCP tools", () => {
    const corpus = loadCorpus()
    expect(corpus.tools.length).toBeGreaterThanOrEqual(300)
    expect(new Set(corpus.tools.map((t) => t.server)).size).toBeGreaterThanOrEqual(20)
    const stats = measureError(corpus.tools)
    expect(stats.median).toBeLessThanOrEqual(0.1)
    // The estimate must beat the rule of thumb it replaces, or it is not worth its code.
    expect(stats.median).toBeLessThan(measureError(corpus.tools, charsOverFour).median)
    expect(Math.abs(stats.totalRatio - 1)).toBeLessThan(0.05)
  })

  it("follows the documented formula on a small schema", () => {
    const tool = { name: "read_file", description: "Read a file.", inputSchema: { type: "object" } }
    // {"name":"read_file","description":"Read a file.","input_schema":{"type":"object"}}
    // words 11, 3 characters of "description" past the 8th, punctuation 27, non-ASCII 0:
    // 1.22·11 + 0.16·3 + 0.285·27 − 3.5 = 18.095 → 18
    expect(wireJson(tool)).toBe("{\"name\":\"read_file\",\"description\":\"Read a file.\",\"input_schema\":{\"type\":\"object\"}}")
    expect(estimateTokens(tool)).toBe(18)
    expect(encode(wireJson(tool)).length).toBe(19)
  })

  it("formats token counts for listings", () => {
    expect(formatTokens(850)).toBe("~850 tok")
    expect(formatTokens(1234)).toBe("~1.2k tok")
  })

  it("counts a string's JSON literal while writing it as counting the literal does", () => {
    for (
      const text of [
        "",
        "plain words and_identifiers_longer_than_eight 123",
        "quote \" backslash \\ newline \n control \u0001",
        "caf\u00e9 \u{1F600} lone \uD800",
        "x".repeat(40)
      ]
    ) {
      const features = noFeatures()
      expect(jsonStringWithFeatures(text, features)).toBe(JSON.stringify(text))
      expect(features).toEqual(countFeatures(JSON.stringify(text), noFeatures()))
    }
  })
})
