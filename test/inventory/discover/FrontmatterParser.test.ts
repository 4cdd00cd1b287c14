import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import {
  defaultFrontmatterLimits,
  type FrontmatterDialect,
  FrontmatterParser,
  makeFrontmatterParser,
  quoteLikeClaudeCode,
  readToolList,
  splitToolList
} from "../../../src/inventory/discover/FrontmatterParser.js"

const encode = (text: string) => new TextEncoder().encode(text)

/** Parses and returns either `{ error: [line, reason] }` or the plain JSON of the result. */
const outcome = (input: string | Uint8Array, dialect: FrontmatterDialect = "yaml") =>
  Effect.gen(function* () {
    const parser = yield* FrontmatterParser
    const result = yield* Effect.either(parser.parse("/x/agent.md", typeof input === "string" ? encode(input) : input, dialect))
    return Either.match(result, {
      onLeft: (error) => ({ error: [error.line, error.reason] as const }),
      onRight: (doc) => ({
        fields: JSON.parse(JSON.stringify(doc.fields)) as unknown,
        hasFrontmatter: doc.hasFrontmatter,
        body: doc.body,
        bodyLine: doc.bodyLine,
        warnings: doc.warnings,
        ...(doc.fieldsDropped === undefined ? {} : { fieldsDropped: doc.fieldsDropped })
      })
    })
  }).pipe(Effect.provide(FrontmatterParser.layer))

const claude = (input: string | Uint8Array) => outcome(input, "claude-code")

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

describe("FrontmatterParser: the claude-code dialect (Claude Code 2.1.332)", () => {
  it.effect("a value holding `: ` fails as YAML and is read after the host's quoting, with a warning", () =>
    Effect.gen(function* () {
      expect(yield* claude("---\nname: r\ndescription: Use when: X\ntools: Read, Grep\n---\nBody\n")).toEqual({
        fields: { name: "r", description: "Use when: X", tools: "Read, Grep" },
        hasFrontmatter: true,
        body: "Body\n",
        bodyLine: 6,
        warnings: [{ line: 3, message: "invalid YAML: Nested mappings are not allowed in compact mappings; Claude Code reads it after quoting the values of its top-level `key: value` lines" }]
      })
      // Strict YAML still refuses it.
      expect(yield* outcome("---\nname: r\ndescription: Use when: X\n---\n")).toEqual({ error: [3, "invalid YAML: Nested mappings are not allowed in compact mappings"] })
    }))

  it.effect("tab indentation is read as two spaces per tab after a failure", () =>
    Effect.gen(function* () {
      expect(yield* claude("---\ntools:\n\t- Read\n---\n")).toMatchObject({ fields: { tools: ["Read"] }, warnings: [{ line: 3 }] })
    }))

  it.effect("YAML that fails even after the retry, a list or a scalar, and an unclosed block: no fields, and why", () =>
    Effect.gen(function* () {
      expect(yield* claude("---\nname: b\n<example>\n---\nBody\n")).toEqual({
        fields: {},
        hasFrontmatter: true,
        body: "Body\n",
        bodyLine: 5,
        warnings: [],
        fieldsDropped: { line: 3, message: "invalid YAML: Implicit map keys need to be followed by map values" }
      })
      expect(yield* claude("---\n- a\n- b\n---\n")).toMatchObject({ fields: {}, fieldsDropped: { line: 2, message: "frontmatter is a list, not a mapping of fields" } })
      expect(yield* claude("---\nname: x\ndescription: y\n")).toEqual({
        fields: {},
        hasFrontmatter: false,
        body: "---\nname: x\ndescription: y\n",
        bodyLine: 1,
        warnings: [],
        fieldsDropped: { line: 1, message: "unclosed frontmatter: no `---` closes the opening one" }
      })
    }))

  it.effect("a CRLF file is not retried: the host's line pattern stops at the carriage return", () =>
    Effect.gen(function* () {
      expect(yield* claude("---\r\nname: c\r\ndescription: Use when: X\r\n---\r\nBody\r\n")).toMatchObject({
        fields: {},
        body: "Body\n",
        fieldsDropped: { line: 3, message: "invalid YAML: Nested mappings are not allowed in compact mappings" }
      })
      expect(yield* claude("\uFEFF---\r\nname: c\r\n---\r\nBody\r\n")).toEqual({ fields: { name: "c" }, hasFrontmatter: true, body: "Body\n", bodyLine: 4, warnings: [] })
    }))

  it.effect("repeated keys: the last wins; unknown tags are ignored, values kept; the block ends at the first `---`", () =>
    Effect.gen(function* () {
      expect(yield* claude("---\nname: a\nname: b\n---\n")).toMatchObject({ fields: { name: "b" }, warnings: [] })
      expect(yield* claude("---\nname: !custom t\nlist: !!set [a]\n---\n")).toMatchObject({ fields: { name: "t", list: ["a"] }, warnings: [] })
      expect(yield* claude("---\nname: m\ndescription: a --- b\n---\nBody\n")).toEqual({
        fields: { name: "m", description: "a" },
        hasFrontmatter: true,
        body: "b\n---\nBody\n",
        bodyLine: 3,
        warnings: []
      })
    }))

  it.effect("tool-map's own caps and refusals hold in the dialect too", () =>
    Effect.gen(function* () {
      const aliases = `---\na: &a x\nb: [${Array(101).fill("*a").join(", ")}]\n---\n`
      expect(yield* claude(aliases)).toEqual({ error: [3, "frontmatter uses more than 100 aliases"] })
      expect(yield* claude("---\nname: x\n---\n\u0000")).toEqual({ error: [4, "file contains NUL bytes (binary, not markdown)"] })
    }))

  it("quoteLikeClaudeCode quotes exactly the host's lines", () => {
    expect(quoteLikeClaudeCode([
      "description: Use when: X",
      "plain: no specials here",
      "tags: [a, b]",
      "broken: [a, b",
      "quoted: \"already: quoted\"",
      "single: 'x: y'",
      "with_slash: a\\b: \"q\"",
      "x1: digits: in key",
      "  nested: a: b",
      "cr: a: b\r",
      "\t\t- tabbed"
    ].join("\n"))).toBe([
      "description: \"Use when: X\"",
      "plain: no specials here",
      "tags: [a, b]",
      "broken: \"[a, b\"",
      "quoted: \"already: quoted\"",
      "single: 'x: y'",
      "with_slash: \"a\\\\b: \\\"q\\\"\"",
      "x1: digits: in key",
      "  nested: a: b",
      "cr: a: b\r",
      "    - tabbed"
    ].join("\n"))
  })

  it("where strict YAML reads a mapping, the dialect reads the same fields with no warning", () => {
    const parser = makeFrontmatterParser(defaultFrontmatterLimits)
    const key = fc.constantFrom("name", "description", "tools", "model", "x")
    const value = fc.oneof(fc.stringMatching(/^[A-Za-z0-9 ,:#'"\[\]{}-]{0,24}$/), fc.constantFrom("[a, b]", "{a: 1}", "42", "true", "\"q: x\""))
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 6 }), (pairs) => {
        const text = `---\n${pairs.map(([k, v]) => `${k}: ${v}`).join("\n")}\n---\nbody\n`
        const strict = Effect.runSync(Effect.either(parser.parseText("/p.md", text)))
        const dialect = Effect.runSync(Effect.either(parser.parseText("/p.md", text, "claude-code")))
        expect(Either.isRight(dialect)).toBe(true)
        if (Either.isRight(dialect)) expect(Object.getPrototypeOf(dialect.right.fields)).toBeNull()
        if (Either.isRight(strict) && Either.isRight(dialect) && !text.slice(4, -8).includes("---")) {
          expect([dialect.right.fields, dialect.right.warnings, dialect.right.fieldsDropped]).toEqual([strict.right.fields, [], undefined])
        }
      }),
      { numRuns: 1500 }
    )
  })
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
