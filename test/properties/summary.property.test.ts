import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { categorize } from "../../src/inventory/domain/categories.js"
import { Identity, type Tool, VersionReport } from "../../src/inventory/domain/inventory.js"
import { renderSummary, renderToolsMarkdown, SUMMARY_MAX_BYTES } from "../../src/inventory/render/inventoryMarkdown.js"
import { mdCell } from "../../src/inventory/render/text.js"
import { inventoryOf, toolNamed } from "../support/inventory.js"

const nameArb = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9._+-]{0,30}$/),
  fc.string({ minLength: 1, maxLength: 300, unit: "grapheme" }),
  fc.constantFrom("node", "git", "python3.12", "docker", "kubectl", "jq", "x|y`z", "<!-- -->")
)

const inventoryArb = fc
  .record({
    names: fc.array(nameArb, { minLength: 0, maxLength: 400 }),
    repeat: fc.integer({ min: 1, max: 50 }),
    versions: fc.array(fc.record({ name: nameArb, version: fc.string({ maxLength: 200 }) }), { maxLength: 60 }),
    gitName: fc.option(fc.string({ maxLength: 2000 }), { nil: null }),
    sshFiles: fc.array(fc.string({ minLength: 1, maxLength: 50 }), { maxLength: 30 }),
    dataDir: fc.string({ minLength: 1, maxLength: 3000 })
  })
  .map(({ names, repeat, versions, gitName, sshFiles, dataDir }) => {
    const tools: Array<Tool> = []
    for (let copy = 0; copy < repeat && tools.length < 20_000; copy++) {
      for (const name of names) {
        if (tools.length >= 20_000) break
        tools.push(toolNamed(copy === 0 ? name : `${name}-${copy}`, {
          path: `/dir${copy}/${name}`,
          root: `/dir${copy}`,
          pathIndex: copy,
          category: categorize(name)
        }))
      }
    }
    const inventory = inventoryOf(tools, {
      versions: versions.map((v) => new VersionReport({ name: v.name, version: v.version, path: "/x", status: "ok", durationMs: 3, detail: null })),
      identity: new Identity({ gitUserName: gitName, gitUserEmail: gitName, sshFiles }),
      pathDir: "/dir0"
    })
    return { inventory, dataDir }
  })

describe("tools.summary.md", () => {
  it("never exceeds 6,144 bytes for machines of up to 20,000 tools, and starts with the generation marker", () => {
    fc.assert(
      fc.property(inventoryArb, ({ inventory, dataDir }) => {
        const summary = renderSummary(inventory, { markdown: `${dataDir}/tools.md`, json: `${dataDir}/tools.json`, refreshCommand: `tool-map scan --if-stale ${dataDir}` })
        expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)
        expect(summary.split("\n")[0]).toBe("<!-- tool-map generation=20260101T000000Z-00000000 -->")
      }),
      { numRuns: 60 }
    )
  })

  it("lists every tool in tools.md", () => {
    fc.assert(
      fc.property(inventoryArb, ({ inventory }) => {
        const markdown = renderToolsMarkdown(inventory)
        const lines = new Set(markdown.split("\n").map((line) => line.split(" | ")[0]))
        for (const tool of inventory.tools) expect(lines.has(`| ${mdCell(tool.name)}`)).toBe(true)
        expect(markdown.split("\n")[0]).toBe("<!-- tool-map generation=20260101T000000Z-00000000 -->")
      }),
      { numRuns: 15 }
    )
  })
})
