import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { hookCommandWords, namedTextFiles, sessionStartHooks } from "../../../../src/inventory/discover/agentHosts/claudeHooks.js"

describe("Claude Code SessionStart hooks, read and never run (issue 28, point 2)", () => {
  it("finds the context-adding hooks of either layout, commands by their line, http hooks without one", () => {
    const hooks = [{ type: "command", command: "a.sh" }, { type: "http", url: "http://127.0.0.1/x" }, { type: "prompt", prompt: "p" }]
    expect(sessionStartHooks({ hooks: { SessionStart: [{ hooks }] } })).toEqual([{ command: "a.sh" }, { command: null }])
    expect(sessionStartHooks({ SessionStart: [{ matcher: "startup", hooks }] })).toEqual([{ command: "a.sh" }, { command: null }])
    expect(sessionStartHooks({ hooks: { PreToolUse: [{ hooks }] } })).toEqual([])
    expect(sessionStartHooks({ hooks: { SessionStart: "nope" } })).toEqual([])
    expect(sessionStartHooks(null)).toEqual([])
  })

  it("reads a command line's plugin scripts and the words a dispatcher is given", () => {
    expect(hookCommandWords("\"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd\" session-start")).toEqual({ scripts: ["hooks/run-hook.cmd"], words: ["session-start"] })
    expect(hookCommandWords("cat $CLAUDE_PLUGIN_ROOT/intro.md")).toEqual({ scripts: ["intro.md"], words: [] })
    // Words before the first plugin script are the interpreter, not a script's argument.
    expect(hookCommandWords("node ${CLAUDE_PLUGIN_ROOT}/start.js --quiet")).toEqual({ scripts: ["start.js"], words: ["--quiet"] })
    expect(hookCommandWords("echo hello")).toEqual({ scripts: [], words: [] })
  })

  it("finds the text files a script names, plugin-relative", () => {
    expect(namedTextFiles("x=$(cat \"${PLUGIN_ROOT}/skills/using-superpowers/SKILL.md\" 2>&1)\ncat notes.txt\ncat README.markdown")).toEqual([
      "skills/using-superpowers/SKILL.md",
      "notes.txt"
    ])
    expect(namedTextFiles("cat ../../etc/secret.md ./x/../y.md")).toEqual([])
  })

  it.prop("never names a path that climbs out of the plugin", [FastCheck.string({ unit: FastCheck.constantFrom("a", ".", "/", "m", "d", " ", "\"", "t", "x") })], ([script]) => {
    for (const path of namedTextFiles(script)) {
      expect(path.split("/")).not.toContain("..")
      expect(path.startsWith("/")).toBe(false)
    }
  })
})
