import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { Composer, LineCounter, Parser } from "yaml"
import { defaultFrontmatterLimits, makeFrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"

/*
 * The parser finds repeated keys itself, in one pass, instead of the YAML library's pairwise
 * check (issue 15's hostile-input budget): it must refuse exactly the blocks the library refuses
 * for a repeated key, at the same line, in block and flow mappings at any depth.
 */
const parser = makeFrontmatterParser(defaultFrontmatterLimits)

/** Keys that collide in YAML's eyes (`1` and `1.0`, `~` and `null`) and some that do not (`'1'`, `.nan`). */
const key = fc.constantFrom("a", "b", "1", "1.0", "0x1", "'1'", "\"a\"", "~", "null", ".nan", ".NaN", "true", "True", "x y", "-0", "0", "<<", "? a")
const scalar = fc.constantFrom("1", "x", "'q'", "~", "[1, 2]", "[]", "{}")
const flowMap = fc.array(fc.tuple(key.filter((k) => !k.startsWith("?")), scalar), { maxLength: 4 })
  .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`)

type Block = ReadonlyArray<string>
/** A block mapping at `indent`: lines of `key: scalar`, `key: {flow}`, `key:` + nested map or list of maps. */
const blockMap = (depth: number): fc.Arbitrary<Block> =>
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: fc.tuple(key, scalar).map(([k, v]): Block => [k.startsWith("?") ? `${k}\n: ${v}` : `${k}: ${v}`]) },
      { weight: 1, arbitrary: fc.tuple(key.filter((k) => !k.startsWith("?")), flowMap).map(([k, v]): Block => [`${k}: ${v}`]) },
      ...(depth < 3
        ? [
            { weight: 1, arbitrary: fc.tuple(key.filter((k) => !k.startsWith("?")), blockMap(depth + 1)).map(([k, inner]): Block => [`${k}:`, ...inner.map((l) => `  ${l}`)]) },
            {
              weight: 1,
              arbitrary: fc.tuple(key.filter((k) => !k.startsWith("?")), fc.array(blockMap(depth + 1), { minLength: 1, maxLength: 2 })).map(([k, items]): Block => [
                `${k}:`,
                ...items.flatMap((inner) => inner.map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`)))
              ])
            }
          ]
        : [])
    ),
    { minLength: 1, maxLength: 5 }
  ).map((entries) => entries.flat().flatMap((entry) => entry.split("\n")))

/** The library's verdict with its own unique-keys check: the first error's code and file line. */
const libraryVerdict = (block: string): { readonly code: string; readonly line: number } | null => {
  const lines = new LineCounter()
  const tokens = Array.from(new Parser(lines.addNewLine).parse(block))
  const [document] = Array.from(
    new Composer({ version: "1.2", schema: "core", uniqueKeys: true, strict: true, merge: false, customTags: [] }).compose(tokens, true, block.length)
  )
  const error = document?.errors[0]
  // The block starts on the file's second line, after the opening fence.
  return error === undefined ? null : { code: error.code, line: lines.linePos(error.pos[0]).line + 1 }
}

describe("repeated frontmatter keys", () => {
  it("are refused exactly where the YAML library's own check refuses them", () => {
    let duplicates = 0
    fc.assert(
      fc.property(blockMap(0), (lines) => {
        const block = `${lines.join("\n")}\n`
        const verdict = libraryVerdict(block)
        const result = parser.parseBytes("/p.md", new TextEncoder().encode(`---\n${block}---\nBody.\n`), "yaml")
        if (verdict?.code === "DUPLICATE_KEY") {
          duplicates++
          expect(Either.isLeft(result) ? { line: result.left.line, reason: result.left.reason } : "read").toEqual({
            line: verdict.line,
            reason: "invalid YAML: Map keys must be unique"
          })
        } else if (verdict === null) {
          expect(Either.isLeft(result) ? result.left.reason : "read").not.toBe("invalid YAML: Map keys must be unique")
        } else {
          expect(Either.isLeft(result) ? result.left.line : "read").toBe(verdict.line)
        }
      }),
      { numRuns: 3_000 }
    )
    // The generator must actually exercise the rule.
    expect(duplicates).toBeGreaterThan(500)
  })

  it("of a large non-plain block (5,000 distinct keys, under the 64 KB cap) are all read", () => {
    // Block scalars keep the block off the plain-lines fast path.
    const block = Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? `k${i}: |\n  x` : `? k${i}\n: v`)).join("\n")
    const result = parser.parseBytes("/p.md", new TextEncoder().encode(`---\n${block}\n---\n`), "yaml")
    expect(Either.isRight(result) ? Object.keys(result.right.fields).length : result.left.reason).toBe(5_000)
  })
})
