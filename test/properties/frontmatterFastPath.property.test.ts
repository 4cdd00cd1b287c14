import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { defaultFrontmatterLimits, type FrontmatterDialect, makeFrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"
import { simpleFrontmatter } from "../../src/inventory/discover/simpleFrontmatter.js"

const withFastPath = makeFrontmatterParser(defaultFrontmatterLimits)
const libraryOnly = makeFrontmatterParser(defaultFrontmatterLimits, { simpleLines: false })

/** Characters that mean something to YAML somewhere, and some that do not. */
const piece = fc.constantFrom(
  "a", "Read", "x y", " ", "  ", ":", ": ", " #", "#", "'", "\"", "\\", "\\n", "\\u00e9", "\\x41", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">",
  "%", "@", "`", "-", "- ", "?", "~", "0", "7", ".", "e", "é", "日本", "🙂", "\u00a0", "\t", "\u0085", "(", ")", "/", "_"
)
const benign = fc.constantFrom("a", "Read", "Grep", "x y", " ", "(", ")", "/", "_", ".", ",", "'", "\"", "é", "日本", "🙂", "7", "-", ":", "#", "!")
const text = fc.oneof(
  fc.array(piece, { maxLength: 8 }).map((parts) => parts.join("")),
  fc.tuple(fc.constantFrom("a", "Read", "_x", "/usr", "(x)"), fc.array(benign, { maxLength: 8 })).map(([first, rest]) => first + rest.join(""))
)
const word = fc.constantFrom("true", "True", "TRUE", "tRUE", "false", "FALSE", "null", "Null", "NULL", "~", "yes", "no", "on", "nan", ".nan", ".inf", "-.inf")
const number = fc.constantFrom("0", "7", "42", "007", "-1", "+1", "1.5", ".5", "1e3", "0x1f", "0o17", "1_000", "123456789012345", "1234567890123456", "12345678901234567890")
const value = fc.oneof(
  text,
  word,
  number,
  text.map((inner) => JSON.stringify(inner)),
  text.map((inner) => `"${inner}"`),
  text.map((inner) => `'${inner}'`),
  fc.array(fc.oneof(text, text.map((inner) => JSON.stringify(inner)), word), { maxLength: 4 }).map((items) => `[${items.join(", ")}]`),
  fc.array(fc.oneof(text, word), { maxLength: 4 }).map((items) => `[${items.join(",")}]`)
)
const key = fc.oneof(
  fc.constantFrom("name", "description", "tools", "allowed-tools", "when_to_use", "model", "a", "__proto__", "true", "True", "Null", "x y", "k.e", "-k", "1k", "<<"),
  // YAML refuses an implicit key over 1,024 characters (1,023 after a line with no value).
  fc.constantFrom(1000, 1001, 1023, 1024, 1025, 2000).map((length) => "k".repeat(length))
)
const separator = fc.oneof({ weight: 6, arbitrary: fc.constant(": ") }, { weight: 1, arbitrary: fc.constantFrom(":  ", ":", ":\t", " : ", ": \t") })
const line = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(key, separator, value).map(([k, s, v]) => `${k}${s}${v}`) },
  { weight: 1, arbitrary: fc.constantFrom("", "  ", "  continued", "- item", "# comment", "name: x # comment", "...", "---x", "key:", "key:   ", "\r") }
)
const plain = fc.tuple(fc.constantFrom("a", "Read", "_x", "/usr", "(x)"), fc.array(benign, { maxLength: 8 })).map(([first, rest]) => first + rest.join(""))
const friendlyValue = fc.oneof(plain, word, number, plain.map((inner) => JSON.stringify(inner)), plain.map((inner) => `'${inner}'`), fc.array(plain, { maxLength: 3 }).map((items) => JSON.stringify(items)))
const friendlyLine = fc.tuple(fc.constantFrom("name", "description", "tools", "allowed-tools", "when_to_use", "__proto__"), friendlyValue).map(([k, v]) => `${k}: ${v}`)
// Hostile blocks, and blocks of the lines real files hold (which the fast path must read right).
const block = fc.oneof(
  fc.array(line, { minLength: 1, maxLength: 6 }).map((lines) => lines.join("\n")),
  fc.array(friendlyLine, { minLength: 1, maxLength: 5 }).map((lines) => lines.join("\n"))
)

describe("frontmatter read without the YAML library (simpleFrontmatter)", () => {
  it("gives every block exactly what the YAML library gives, in both dialects (or leaves the block to it)", () => {
    let readHere = 0
    fc.assert(
      fc.property(block, fc.constantFrom<FrontmatterDialect>("yaml", "claude-code"), (lines, dialect) => {
        if (simpleFrontmatter(lines, defaultFrontmatterLimits) !== undefined) readHere++
        const bytes = new TextEncoder().encode(`---\n${lines}\n---\nBody.\n`)
        expect(withFastPath.parseBytes("/p.md", bytes, dialect)).toEqual(libraryOnly.parseBytes("/p.md", bytes, dialect))
      }),
      { numRuns: 6_000 }
    )
    // The comparison means something only if the fast path reads a good share of the blocks.
    expect(readHere).toBeGreaterThan(1_000)
  })

  it("keeps the parser's caps: a parser with other limits gives the same as the library with them", () => {
    fc.assert(
      fc.property(block, fc.constantFrom<FrontmatterDialect>("yaml", "claude-code"), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 6 }), (lines, dialect, maxDepth, maxNodes) => {
        const limits = { ...defaultFrontmatterLimits, maxDepth, maxNodes }
        const bytes = new TextEncoder().encode(`---\n${lines}\n---\nBody.\n`)
        expect(makeFrontmatterParser(limits).parseBytes("/p.md", bytes, dialect)).toEqual(makeFrontmatterParser(limits, { simpleLines: false }).parseBytes("/p.md", bytes, dialect))
      }),
      { numRuns: 1_500 }
    )
  })

  it("reads the common lines: plain, quoted and escaped strings, flow lists, booleans, null, small integers", () => {
    const fields = simpleFrontmatter(
      [
        "name: code-reviewer",
        "description: \"Reviews diffs.\\nUse after edits: \\\"always\\\".\"",
        "",
        "tools: Read, Grep, Bash(git diff:*)",
        "allowed-tools: [\"Write\", Read, 'Bash(ls *)']",
        "model: 'opus'",
        "background: true",
        "maxTurns: 12",
        "argument-hint:",
        "empty: []"
      ].join("\n"),
      defaultFrontmatterLimits
    )
    expect(fields === undefined ? undefined : { ...fields }).toEqual({
      name: "code-reviewer",
      description: "Reviews diffs.\nUse after edits: \"always\".",
      tools: "Read, Grep, Bash(git diff:*)",
      "allowed-tools": ["Write", "Read", "Bash(ls *)"],
      model: "opus",
      background: true,
      maxTurns: 12,
      "argument-hint": null,
      empty: []
    })
    expect(Object.getPrototypeOf(fields)).toBeNull()
  })

  it("leaves to the library what can be read more than one way or is an error", () => {
    for (const lines of [
      "description: Use when: the user asks",
      "name: x # comment",
      "name: x\nname: y",
      "True: x",
      "tools:\n  - Read",
      "description: >\n  folded",
      "n: 1e3",
      "n: 007",
      "a: &anchor x",
      "b: [a, b,]",
      "c: {a: 1}",
      "d: \"\\x41\"",
      "e: 'it''s'",
      "f:\tx",
      "",
      "# only a comment"
    ]) {
      expect([lines, simpleFrontmatter(lines, defaultFrontmatterLimits)]).toEqual([lines, undefined])
    }
  })

  it("leaves a block over the cap on values to the library, which refuses it", () => {
    const lines = Array.from({ length: 12 }, (_, index) => `k${index}: v`).join("\n")
    expect(simpleFrontmatter(lines, { ...defaultFrontmatterLimits, maxNodes: 12 })).toBeUndefined()
    expect(simpleFrontmatter(lines, { ...defaultFrontmatterLimits, maxNodes: 13 })).toBeDefined()
  })
})
