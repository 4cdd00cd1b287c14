import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { compileNameGlob } from "../../../src/inventory/query/nameGlob.js"

const matches = (glob: string, name: string, caseInsensitive = false) => compileNameGlob(glob, { caseInsensitive })(name)

describe("compileNameGlob", () => {
  it("matches the documented syntax", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["python*", "python3.12", true],
      ["python*", "xpython", false],
      ["*", ".hidden", true],
      ["*", "", true],
      ["?", "", false],
      ["g?t", "git", true],
      ["g?t", "gt", false],
      ["[gh]it", "hit", true],
      ["[gh]it", "kit", false],
      ["[a-c]x", "bx", true],
      ["[c-a]x", "bx", true],
      ["[!a-c]x", "bx", false],
      ["[^a-c]x", "dx", true],
      ["[]]x", "]x", true],
      ["[!]]x", "]x", false],
      ["[a-]", "-", true],
      ["[\\]]", "]", true],
      ["[ab", "[ab", true],
      ["[ab", "a", false],
      ["{git,gh}*", "gh", true],
      ["{git,gh}*", "git-lfs", true],
      ["{git,gh}*", "go", false],
      ["{,x}y", "y", true],
      ["{a,{b,c}d}", "cd", true],
      ["{a,{b,c}d}", "c", false],
      ["{a}", "{a}", true],
      ["{a}", "a", false],
      ["{a,b", "{a,b", true],
      ["a,b}", "a,b}", true],
      ["\\*", "*", true],
      ["\\*", "x", false],
      ["\\", "\\", true],
      ["[{]a,b}", "{a,b}", true],
      ["[{]a,b}", "a", false],
      ["**x", "ax", true],
      ["é?", "éü", true],
      ["?", "😀", true]
    ]
    expect(cases.map(([glob, name]) => [glob, name, matches(glob, name)])).toEqual(cases)
  })

  it("ignores case only when asked (Windows names)", () => {
    expect([matches("Git*", "git.EXE", true), matches("[A-C]x", "bX", true), matches("Git*", "git.exe")]).toEqual([true, true, false])
  })

  it("answers the backtracking cases at once: no exponential blow-up on many stars", () => {
    const long = "a".repeat(200)
    expect([
      matches("*a*a*a*a*a*b", long),
      matches("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", long),
      matches("*a*a*a*a*a*b", `${long}b`),
      matches("{*a,*a*}*{a,*a}*b", long),
      matches("*".repeat(500) + "b", long)
    ]).toEqual([false, false, true, false, false])
  })

  it.prop(
    "agrees with a regular expression of the same glob on short names",
    [
      FastCheck.array(FastCheck.constantFrom("a", "b", ".", "*", "?", "[ab]", "[!a]", "{a,b*}", "{,b}", "\\*"), { maxLength: 7 }),
      FastCheck.array(FastCheck.constantFrom("a", "b", ".", "*"), { maxLength: 8 })
    ],
    ([tokens, name]) => {
      const toRegExp = (token: string): string =>
        ({
          "*": "[^]*",
          "?": "[^]",
          "[ab]": "[ab]",
          "[!a]": "[^a]",
          "{a,b*}": "(?:a|b[^]*)",
          "{,b}": "(?:|b)",
          "\\*": "\\*",
          ".": "\\."
        } as Record<string, string>)[token] ?? token
      const expected = new RegExp(`^${tokens.map(toRegExp).join("")}$`, "u").test(name.join(""))
      expect(matches(tokens.join(""), name.join(""))).toBe(expected)
    }
  )
})
