import { describe, expect, it } from "@effect/vitest"
import { displayWidth, padEndDisplay } from "../../../src/inventory/domain/displayWidth.js"

describe("displayWidth", () => {
  it("counts terminal columns: CJK and emoji 2, combining marks and zero-width characters 0", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["git", 3],
      ["", 0],
      ["工具", 4],
      ["ｆｕｌｌ", 8],
      ["한글", 4],
      ["🔧fix", 5],
      ["cafe\u0301", 4],
      ["a\u200Bb", 2],
      ["👨‍👩‍👧", 2],
      ["🇫🇷", 2],
      ["❤️", 2],
      ["\uFFFD", 1],
      ["…", 1]
    ]
    expect(cases.map(([text]) => [text, displayWidth(text)])).toEqual(cases)
  })

  it("pads to display columns, never cuts", () => {
    expect(padEndDisplay("工具", 6)).toBe("工具  ")
    expect(padEndDisplay("cafe\u0301", 5)).toBe("cafe\u0301 ")
    expect(padEndDisplay("toolong", 3)).toBe("toolong")
  })
})
