import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { arbitraryClaudeHome, claudeHome, HOSTILE_FILES, scanTree, type Tree } from "../../bench/hostGenerators.js"
import { exportClaudeV1 } from "../../src/inventory/query/claudeV1.js"
import { summarizeAgentHosts } from "../../src/inventory/render/agentHosts.js"
import { byteLength } from "../../src/inventory/render/text.js"
import { defaultFrontmatterLimits, makeFrontmatterParser, splitToolList } from "../../src/inventory/discover/FrontmatterParser.js"

const totalBytes = (lines: ReadonlyArray<string>) => lines.reduce((sum, line) => sum + byteLength(line) + 1, 0)

/** Builds the tree of one generated home, scans it and checks the invariants. */
const checkHome = (input: { readonly count: number; readonly seed: number; readonly hostile: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const { tree, items } = claudeHome(input.count, input.seed)
    const hostile = HOSTILE_FILES.filter(([name]) => input.hostile.includes(name))
    const files: Tree = {
      ...Object.fromEntries(Object.entries(tree).map(([path, content]) => [`home/u/${path}`, content])),
      ...Object.fromEntries(hostile.map(([name, content]) => [`home/u/.claude/agents/zz-hostile-${name}.md`, content])),
      // opencode is installed too: it loads the same ~/.claude/skills files.
      "home/u/.config/opencode/opencode.json": "{}"
    }
    const { inventory } = yield* scanTree(files)

    // Every generated item found exactly once, nothing else.
    const found = inventory.items.filter((item) => item.host === "claude-code" && (item.kind === "agent" || item.kind === "skill" || item.kind === "command"))
    const key = (kind: string, name: string) => `${kind}:${name}`
    expect(found.map((item) => key(item.kind, item.name)).sort()).toEqual(items.map((item) => key(item.kind, item.name)).sort())
    expect(found.every((item) => item.enabled && item.shadowedBy === null)).toBe(true)

    // opencode loads the same ~/.claude/skills files (issue 12, finding 4): each skill once, the same file.
    const opencodeSkills = inventory.items.filter((item) => item.host === "opencode" && item.kind === "skill")
    expect(opencodeSkills.map((item) => item.path).sort()).toEqual(found.filter((item) => item.kind === "skill").map((item) => item.path).sort())

    // Ids unique.
    expect(new Set(inventory.items.map((item) => item.id)).size).toBe(inventory.items.length)

    // Each hostile file is one diagnostic naming it, never an item.
    for (const [name] of hostile) {
      const path = `/home/u/.claude/agents/zz-hostile-${name}.md`
      expect(inventory.diagnostics.filter((diagnostic) => diagnostic.path === path)).toHaveLength(1)
      expect(inventory.items.some((item) => item.path === path)).toBe(false)
    }

    // The summary stays within its cap, whatever the size.
    for (const cap of [6144, 1536, 256]) expect(totalBytes(summarizeAgentHosts(inventory, cap))).toBeLessThanOrEqual(cap)

    // The export lists each generated agent once.
    const v1 = exportClaudeV1(inventory, { generatedAt: "2026-01-01T00:00:00.000Z", homedir: "/home/u" })
    expect(v1.agents.map((agent) => agent.name).sort()).toEqual(items.filter((item) => item.kind === "agent").map((item) => item.name).sort())
  })

describe("agent hosts properties", () => {
  it.live(
    "generated Claude Code homes of up to 5,000 items: every item found once, ids unique, summary within its cap",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(arbitraryClaudeHome(5000), (input) => Effect.runPromise(checkHome(input))),
          {
            numRuns: 4,
            examples: [[{ count: 5000, seed: 7, hostile: HOSTILE_FILES.map(([name]) => name) }], [{ count: 0, seed: 1, hostile: [] }]]
          }
        )
      ),
    600_000
  )

  it("the frontmatter parser never throws, whatever the bytes", () => {
    const parser = makeFrontmatterParser(defaultFrontmatterLimits)
    const fenced = fc.string({ maxLength: 400 }).map((text) => `---\n${text}\n---\nbody`)
    const yamlish = fc
      .array(fc.constantFrom("---", "name: x", "tools: [", "]", "&a", "*a", "<<: *a", "- ", "  ", "\t", "!!js/function", "__proto__:", "'", "\"", "{", "}", ",", ":", "\n", "\r\n", "\uFEFF", "\u0000"), { maxLength: 60 })
      .map((parts) => parts.join(""))
    fc.assert(
      fc.property(fc.oneof(fenced, yamlish, fc.string({ maxLength: 200 })), (text) => {
        const result = Effect.runSync(Effect.either(parser.parseText("/p.md", text)))
        if (Either.isLeft(result)) expect(typeof result.left.reason).toBe("string")
        else expect(Object.getPrototypeOf(result.right.fields)).toBeNull()
      }),
      { numRuns: 2000 }
    )
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(Either.isEither(Effect.runSync(Effect.either(parser.parse("/p.md", bytes))))).toBe(true)
      }),
      { numRuns: 1000 }
    )
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted")
  })

  it("tool lists: entries joined with commas split back into the same entries", () => {
    const entry = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}(\([a-z :*,-]{0,12}\))?$/)
    fc.assert(
      fc.property(fc.array(entry, { minLength: 2, maxLength: 8 }), (entries) => {
        expect(splitToolList(entries.join(", "))).toEqual(entries)
      }),
      { numRuns: 500 }
    )
  })
})
