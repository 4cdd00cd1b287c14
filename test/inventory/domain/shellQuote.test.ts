import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { spawnSync } from "node:child_process"
import { shellQuote } from "../../../src/inventory/domain/shellQuote.js"

describe("shellQuote (the summary's refresh command, the Claude Code snippet of mcp --print-config)", () => {
  it("leaves a plain path as it is and quotes one the shell would split or expand", () => {
    expect(shellQuote("/tmp/a/inv.md", "linux")).toBe("/tmp/a/inv.md")
    expect(shellQuote("/tmp/my dir/inv.md", "linux")).toBe("'/tmp/my dir/inv.md'")
    expect(shellQuote("/tmp/it's/$HOME/inv.md", "darwin")).toBe("'/tmp/it'\\''s/$HOME/inv.md'")
    expect(shellQuote("/tmp/back\\slash.md", "linux")).toBe("'/tmp/back\\slash.md'")
    expect(shellQuote(`{"a":["b c"]}`, "linux")).toBe(`'{"a":["b c"]}'`)
    expect(shellQuote("", "linux")).toBe("''")
  })

  it("uses double quotes on Windows, where backslashes are plain", () => {
    expect(shellQuote("C:\\Users\\me\\inv.md", "win32")).toBe("C:\\Users\\me\\inv.md")
    expect(shellQuote("C:\\My Docs\\inv.md", "win32")).toBe('"C:\\My Docs\\inv.md"')
    expect(shellQuote(`say "hi"`, "win32")).toBe(`"say ""hi"""`)
  })

  it("POSIX: /bin/sh reads every quoted word back as exactly the text, one argument each", () => {
    // Any text without NUL (which no argument can hold); 400 of them in one shell run.
    const words = FastCheck.sample(FastCheck.string({ unit: "binary", maxLength: 40 }).filter((text) => !text.includes("\0")), 400)
    const script = `printf '%s\\0' ${words.map((text) => shellQuote(text, "linux")).join(" ")}`
    const shell = spawnSync("/bin/sh", ["-c", script], { encoding: "utf8" })
    expect(shell.status).toBe(0)
    expect(shell.stdout.split("\0").slice(0, -1)).toEqual(words)
  })
})
