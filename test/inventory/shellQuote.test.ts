import { describe, expect, it } from "vitest"
import { shellQuote } from "../../src/inventory/ScanProgram.js"

describe("shellQuote (the summary's refresh command)", () => {
  it("leaves a plain path as it is and quotes one the shell would split or expand", () => {
    expect(shellQuote("/tmp/a/inv.md", "linux")).toBe("/tmp/a/inv.md")
    expect(shellQuote("/tmp/my dir/inv.md", "linux")).toBe("'/tmp/my dir/inv.md'")
    expect(shellQuote("/tmp/it's/$HOME/inv.md", "darwin")).toBe("'/tmp/it'\\''s/$HOME/inv.md'")
    expect(shellQuote("/tmp/back\\slash.md", "linux")).toBe("'/tmp/back\\slash.md'")
  })

  it("uses double quotes on Windows, where backslashes are plain", () => {
    expect(shellQuote("C:\\Users\\me\\inv.md", "win32")).toBe("C:\\Users\\me\\inv.md")
    expect(shellQuote("C:\\My Docs\\inv.md", "win32")).toBe('"C:\\My Docs\\inv.md"')
  })
})
