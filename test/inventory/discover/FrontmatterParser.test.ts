import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import {
  defaultFrontmatterLimits,
  FrontmatterParser,
  readToolList,
  splitToolList
} from "../../../src/inventory/discover/FrontmatterParser.js"

const encode = (text: string) => new TextEncoder().encode(text)

/** Parses and returns either `{ error: [line, reason] }` or the plain JSON of the result. */
const outcome = (input: string | Uint8Array) =>
  Effect.gen(function* () {
    const parser = yield* FrontmatterParser
    const result = yield* Effect.either(parser.parse("/x/agent.md", typeof input === "string" ? encode(input) : input))
    return Either.match(result, {
      onLeft: (error) => ({ error: [error.line, error.reason] as const }),
      onRight: (doc) => ({
        fields: JSON.parse(JSON.stringify(doc.fields)) as unknown,
        hasFrontmatter: doc.hasFrontmatter,
        body: doc.body,
        bodyLine: doc.bodyLine,
        warnings: doc.warnings
      })
    })
  }).pipe(Effect.provide(FrontmatterParser.layer))

const objectPrototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort()

describe("FrontmatterParser: hostile frontmatter", () => {
  it.effect("billion laughs stops at the alias cap", () =>
    Effect.gen(function* () {
      const text = [
        "---",
        `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`,
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
        "---",
        ""
      ].join("\n")
      expect(yield* outcome(text)).toEqual({ error: [4, "frontmatter uses more than 100 aliases"] })
    }))

  it.effect("100 aliases are fine, 101 are a diagnostic", () =>
    Effect.gen(function* () {
      const aliases = (count: number) => `---\nname: x\na: &a v\nb: [${Array(count).fill("*a").join(", ")}]\n---\n`
      const ok = yield* outcome(aliases(100))
      expect(ok).toMatchObject({ fields: { name: "x", a: "v" } })
      expect((ok as { fields: { b: ReadonlyArray<string> } }).fields.b).toHaveLength(100)
      expect(yield* outcome(aliases(101))).toEqual({ error: [4, "frontmatter uses more than 100 aliases"] })
    }))

  it.effect("5,000-deep nesting (flow and block) is refused before composing", () =>
    Effect.gen(function* () {
      const flow = `---\nname: x\ntools: ${"[".repeat(5000)}${"]".repeat(5000)}\n---\n`
      expect(yield* outcome(flow)).toEqual({ error: [3, "frontmatter nests deeper than 64 levels"] })
      const block = `---\nname: x\ntools:\n${"- ".repeat(5000)}x\n---\n`
      expect(yield* outcome(block)).toEqual({ error: [4, "frontmatter nests deeper than 64 levels"] })
      // 20,000 levels crash the YAML composer outright; the token-level check stops them first.
      const deeper = `---\na: ${"{a: ".repeat(20000)}1${"}".repeat(20000)}\n---\n`
      expect(yield* outcome(deeper)).toEqual({ error: [2, "frontmatter is over the 65536-byte cap"] })
      const justUnderCap = `---\na: ${"[".repeat(20000)}${"]".repeat(20000)}\n---\n`
      expect(yield* outcome(justUnderCap)).toEqual({ error: [2, "frontmatter nests deeper than 64 levels"] })
    }))

  it.effect("a 5 MB value is refused by the file cap before parsing", () =>
    Effect.gen(function* () {
      const huge = `---\nname: x\ndescription: ${"a".repeat(5 * 1024 * 1024)}\n---\n`
      expect(yield* outcome(huge)).toEqual({ error: [null, `file is ${5 * 1024 * 1024 + 30} bytes, over the ${defaultFrontmatterLimits.maxFileBytes}-byte cap`] })
    }))

  it.effect("---js frontmatter is never evaluated: the file is body only, with a warning", () =>
    Effect.gen(function* () {
      ;(globalThis as Record<string, unknown>)["__toolMapPwned"] = undefined
      const text = "---js\n{ name: (globalThis.__toolMapPwned = 'yes') }\n---\nBody\n"
      expect(yield* outcome(text)).toEqual({
        fields: {},
        hasFrontmatter: false,
        body: text,
        bodyLine: 1,
        warnings: [{ line: 1, message: "a `---js` block is not YAML frontmatter; it was neither parsed nor evaluated" }]
      })
      expect((globalThis as Record<string, unknown>)["__toolMapPwned"]).toBeUndefined()
    }))

  it.effect("a diagnostic never quotes the file: a custom tag, a bad escape, an unexpected token", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: !CANARY_SECRET_tag1 x\n---\n")).toEqual({
        error: [2, "a custom tag is not allowed (only plain YAML values are read)"]
      })
      expect(yield* outcome("---\nname: !<tag:yaml.org,2002:CANARY_SECRET_tag2> x\n---\n")).toEqual({
        error: [2, "a custom tag is not allowed (only plain YAML values are read)"]
      })
      expect(yield* outcome('---\nname: "CANARY_SECRET_esc \\q"\n---\n')).toEqual({ error: [2, "invalid YAML: bad dq escape"] })
    }))

  it.effect("!!js/function and unknown tags are diagnostics, never executed", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: x\ntools: !!js/function 'function () { return 1 }'\n---\n")).toEqual({
        error: [3, "tag tag:yaml.org,2002:js/function is not allowed (only plain YAML values are read)"]
      })
      expect(yield* outcome("---\nname: !shell rm -rf /\n---\n")).toEqual({
        error: [2, "a custom tag is not allowed (only plain YAML values are read)"]
      })
      expect(yield* outcome("---\nname: !!binary aGVsbG8=\n---\n")).toEqual({
        error: [2, "tag tag:yaml.org,2002:binary is not allowed (only plain YAML values are read)"]
      })
    }))

  it.effect("__proto__ and constructor keys, directly and through << merges, leave Object.prototype untouched", () =>
    Effect.gen(function* () {
      const before = objectPrototypeKeys()
      const text = [
        "---",
        "__proto__: { polluted: yes }",
        "constructor: { prototype: { polluted2: yes } }",
        "base: &base { __proto__: { polluted3: yes }, isAdmin: true }",
        "merged:",
        "  <<: *base",
        "  name: m",
        "list:",
        "  <<: [ { __proto__: { polluted4: yes } } ]",
        "---",
        ""
      ].join("\n")
      const result = yield* outcome(text)
      expect(result).toEqual({
        fields: {
          ["__proto__"]: { polluted: "yes" },
          constructor: { prototype: { polluted2: "yes" } },
          base: { ["__proto__"]: { polluted3: "yes" }, isAdmin: true },
          merged: { name: "m", ["__proto__"]: { polluted3: "yes" }, isAdmin: true },
          list: { ["__proto__"]: { polluted4: "yes" } }
        },
        hasFrontmatter: true,
        body: "",
        bodyLine: 11,
        warnings: []
      })
      const parsed = yield* Effect.flatMap(FrontmatterParser, (parser) => parser.parseText("/x.md", text)).pipe(Effect.provide(FrontmatterParser.layer))
      expect(Object.getPrototypeOf(parsed.fields)).toBeNull()
      expect(Object.getPrototypeOf(parsed.fields["merged"])).toBeNull()
      expect(objectPrototypeKeys()).toEqual(before)
      const probe: Record<string, unknown> = {}
      expect([probe["polluted"], probe["polluted2"], probe["polluted3"], probe["polluted4"], probe["isAdmin"]]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined
      ])
    }))

  it.effect("an unclosed fence is a diagnostic", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: x\ndescription: y\n")).toEqual({
        error: [1, "unclosed frontmatter: the opening `---` has no closing `---`"]
      })
      expect(yield* outcome("---")).toEqual({ error: [1, "unclosed frontmatter: the opening `---` has no closing `---`"] })
    }))

  it.effect("frontmatter that is a scalar or a list is a diagnostic; null or empty is an item without fields", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\njust a string\n---\n")).toEqual({ error: [2, "frontmatter is a string, not a mapping of fields"] })
      expect(yield* outcome("---\n42\n---\n")).toEqual({ error: [2, "frontmatter is a number, not a mapping of fields"] })
      expect(yield* outcome("---\n- a\n- b\n---\n")).toEqual({ error: [2, "frontmatter is a list, not a mapping of fields"] })
      expect(yield* outcome("---\nnull\n---\nBody\n")).toEqual({ fields: {}, hasFrontmatter: true, body: "Body\n", bodyLine: 4, warnings: [] })
      expect(yield* outcome("---\n---\nBody\n")).toEqual({ fields: {}, hasFrontmatter: true, body: "Body\n", bodyLine: 3, warnings: [] })
    }))

  it.effect("BOM, CRLF and tabs after a colon are fine; tab indentation is a diagnostic", () =>
    Effect.gen(function* () {
      expect(yield* outcome("\uFEFF---\r\nname: a\r\ntools: Read, Grep\r\n---\r\nBody\r\n")).toEqual({
        fields: { name: "a", tools: "Read, Grep" },
        hasFrontmatter: true,
        body: "Body\n",
        bodyLine: 5,
        warnings: []
      })
      expect(yield* outcome("---\nname:\tb\n---\n")).toMatchObject({ fields: { name: "b" } })
      expect(yield* outcome("---\ntools:\n\t- Read\n---\n")).toEqual({ error: [3, "invalid YAML: Tabs are not allowed as indentation"] })
    }))

  it.effect("duplicate keys are a diagnostic", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: a\nname: b\n---\n")).toEqual({ error: [3, "invalid YAML: Map keys must be unique"] })
    }))

  it.effect("NUL bytes and invalid UTF-8 are diagnostics", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: a\n---\nline\n\u0000")).toEqual({ error: [5, "file contains NUL bytes (binary, not markdown)"] })
      expect(yield* outcome(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x6e, 0x3a, 0x20, 0xff, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]))).toEqual({
        error: [null, "file is not valid UTF-8"]
      })
    }))

  it.effect("a non-string name and tools: 42 parse as values (the readers judge them)", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: 42\ntools: 42\nmodel: [a]\n---\n")).toEqual({
        fields: { name: 42, tools: 42, model: ["a"] },
        hasFrontmatter: true,
        body: "",
        bodyLine: 6,
        warnings: []
      })
      expect(readToolList(42)).toEqual({ _tag: "invalid", reason: "a number, not a list or a comma-separated string" })
      expect(readToolList({ a: 1 } as never)).toEqual({ _tag: "invalid", reason: "a mapping, not a list or a comma-separated string" })
      expect(readToolList(["Read", 3])).toEqual({ _tag: "invalid", reason: "a list with entries that are not strings" })
    }))

  it.effect("no frontmatter: the whole file is the body", () =>
    Effect.gen(function* () {
      expect(yield* outcome("# Title\n\nText\n")).toEqual({ fields: {}, hasFrontmatter: false, body: "# Title\n\nText\n", bodyLine: 1, warnings: [] })
      expect(yield* outcome("")).toEqual({ fields: {}, hasFrontmatter: false, body: "", bodyLine: 1, warnings: [] })
    }))

  it.effect("a YAML syntax error names its line", () =>
    Effect.gen(function* () {
      expect(yield* outcome("---\nname: a\ndescription: \"unterminated\n---\n")).toMatchObject({ error: [4, expect.stringMatching(/^invalid YAML: /)] })
    }))
})

describe("tool lists", () => {
  it("split on commas outside parentheses", () => {
    expect(splitToolList("Bash(git diff:*), Read")).toEqual(["Bash(git diff:*)", "Read"])
    expect(splitToolList("Read,Grep ,  Glob,")).toEqual(["Read", "Grep", "Glob"])
    expect(splitToolList("Bash(a, b), Edit")).toEqual(["Bash(a, b)", "Edit"])
    expect(splitToolList("mcp__notion__search")).toEqual(["mcp__notion__search"])
  })

  it("without a comma, split on whitespace outside parentheses (skills' allowed-tools)", () => {
    expect(splitToolList("Read Grep Bash(ls *)")).toEqual(["Read", "Grep", "Bash(ls *)"])
    expect(splitToolList("  ")).toEqual([])
  })

  it("a YAML list is kept as written", () => {
    expect(readToolList(["Bash(git diff:*)", " Read "])).toEqual({ _tag: "list", tools: ["Bash(git diff:*)", "Read"] })
    expect(readToolList("Bash(git diff:*), Read")).toEqual({ _tag: "list", tools: ["Bash(git diff:*)", "Read"] })
    expect(readToolList(undefined)).toEqual({ _tag: "absent" })
    expect(readToolList(null)).toEqual({ _tag: "absent" })
  })
})
