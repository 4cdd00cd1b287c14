import { describe, expect, it } from "@effect/vitest"
import { jsonErrorLine, notJsonReason } from "../../../src/inventory/domain/jsonText.js"

const errorOf = (text: string): unknown => {
  try {
    JSON.parse(text)
  } catch (error) {
    return error
  }
  throw new Error(`${text} parsed`)
}

describe("where a text stops being JSON", () => {
  it.each([
    ["{", 1],
    ["{\n\"a\": 1,\n}", 3],
    ["[1,\n2\n3]", 3],
    ["\n\n", 3],
    ["{\"token\": ghp_CANARYSECRETgggg}", 1],
    ["[1] x", 1]
  ])("names the line of %j, never the text", (text, line) => {
    const error = errorOf(text)
    expect(jsonErrorLine(error, text)).toBe(line)
    expect(notJsonReason(error, text)).toBe(`it is not JSON (line ${line})`)
  })

  it("says only that it is not JSON when the error names no place", () => {
    // Valid JSON refused for another reason (here a made-up error): no line to name.
    expect(notJsonReason(new Error("something else"), "[1]")).toBe("it is not JSON")
  })
})
