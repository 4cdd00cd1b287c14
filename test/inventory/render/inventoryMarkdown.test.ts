import { describe, expect, it } from "vitest"
import { categorize } from "../../../src/inventory/domain/categories.js"
import { renderSummary, renderToolsMarkdown } from "../../../src/inventory/render/inventoryMarkdown.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

/** rustup's proxies in ~/.cargo/bin: links to one binary, each a command name of its own. */
const cargoBin = "/home/u/.cargo/bin"
const rustupTools = ["cargo", "rustc", "rustup"].map((name, _, all) =>
  toolNamed(name, {
    path: `${cargoBin}/${name}`,
    root: cargoBin,
    linkTarget: name === "rustup" ? null : `${cargoBin}/rustup`,
    sameFileAs: all.filter((other) => other !== name).map((other) => `${cargoBin}/${other}`),
    category: categorize(name)
  })
)

describe("a record per command name in the markdown files", () => {
  it("tools.md: each name its row, with its link target and the other names of its file", () => {
    const rows = renderToolsMarkdown(inventoryOf(rustupTools, { pathDir: cargoBin })).split("\n").filter((line) => line.startsWith("| ") && line.includes(cargoBin))
    expect(rows).toEqual([
      `| rustc |  | 1 B | 2026-01-01T00:00:00Z | \`${cargoBin}/rustc\` | → \`${cargoBin}/rustup\`; same file as \`${cargoBin}/cargo\`, \`${cargoBin}/rustup\` |`,
      `| rustup |  | 1 B | 2026-01-01T00:00:00Z | \`${cargoBin}/rustup\` | same file as \`${cargoBin}/cargo\`, \`${cargoBin}/rustc\` |`,
      `| cargo |  | 1 B | 2026-01-01T00:00:00Z | \`${cargoBin}/cargo\` | → \`${cargoBin}/rustup\`; same file as \`${cargoBin}/rustc\`, \`${cargoBin}/rustup\` |`,
      `| 0 | \`${cargoBin}\` | ok | 3 |`
    ])
  })

  it("tools.md: the other names of a busybox of 400 names take at most 400 bytes of a row", () => {
    const paths = Array.from({ length: 400 }, (_, index) => `/bin/a${String(index).padStart(3, "0")}`)
    const tools = paths.map((path) => toolNamed(path.slice(5), { path, sameFileAs: paths.filter((other) => other !== path) }))
    const row = renderToolsMarkdown(inventoryOf(tools)).split("\n").find((line) => line.startsWith("| a000 |"))
    const shown = paths.slice(1, 30).map((path) => `\`${path}\``).join(", ")
    expect(row).toBe(`| a000 |  | 1 B | 2026-01-01T00:00:00Z | \`/bin/a000\` | same file as ${shown} … and 370 more |`)
  })

  it("the summary names each proxy in its category and counts command names", () => {
    const summary = renderSummary(inventoryOf(rustupTools, { pathDir: cargoBin }), { markdown: "/d/tools.md", json: "/d/tools.json", refreshCommand: "tool-map scan --if-stale" })
    const lines = summary.split("\n")
    expect(lines.filter((line) => line.startsWith("- ") || line.includes("command names"))).toEqual([
      "3 command names (3 callable, 0 shadowed) in 1 PATH dirs and 0 other roots.",
      "- Language runtimes (2): rustc, rustup",
      "- Package managers (1): cargo",
      "- No agent host scanned."
    ])
  })
})
