import { describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { markdown, scanTree } from "../../../bench/hostGenerators.js"
import { printResult, printTable, renderTable } from "../../../src/cli/output.js"
import { Identity, VersionReport } from "../../../src/inventory/domain/inventory.js"
import { renderAgentHostsMarkdown, summarizeAgentHosts } from "../../../src/inventory/render/agentHosts.js"
import { renderSummary, renderToolsMarkdown, SUMMARY_MAX_BYTES } from "../../../src/inventory/render/inventoryMarkdown.js"
import { mdCell, mdCellFit, mdCode, mdInlineCodeFit, mdTextFit, neutralize, truncateBytes, truncateChars } from "../../../src/inventory/render/text.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

const FFFD = "\uFFFD"
const ESC = "\u001b"

/** The executables of the tester's report. */
const FAKE_HEADING = "aa\n\n## Core versions\n| git | 9.9.9 |"
const CLEAR_SCREEN = `${ESC}[2J${ESC}[Hclear`
const FAKE_MARKER = "<!-- tool-map generation=FAKE -->"
const CONDA = ["gcc", "g++", "ld", "nm", "ar", "as", "cpp", "strip", "objdump", "ranlib"].map((tool) => `x86_64-conda-linux-gnu-toolchain-wrapper-${tool}`)

const tool = (name: string, category = "other") => toolNamed(name, { category })

const location = { markdown: "/data/tools.md", json: "/data/tools.json", refreshCommand: "tool-map scan --if-stale" }

const linesOf = (text: string) => text.split("\n")
const lineStarting = (text: string, prefix: string) => linesOf(text).filter((line) => line.startsWith(prefix))

describe("neutralize and the markdown helpers", () => {
  it("shows every control, separator, bidi control and lone surrogate as one U+FFFD", () => {
    const unsafe = [
      "\u0000", "\t", "\n", "\r", ESC, "\u007f", "\u0085", "\u009b", "\u2028", "\u2029",
      "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
      "\u061c", "\u200e", "\u200f", "\ud800", "\udfff"
    ]
    for (const char of unsafe) expect(neutralize(`a${char}b`)).toBe(`a${FFFD}b`)
    expect(neutralize("x\ud83d\ude00y")).toBe("x\ud83d\ude00y")
    expect(neutralize("\udc00\ud800")).toBe(`${FFFD}${FFFD}`)
    // Ordinary text is untouched, non-ASCII included.
    for (const text of ["node", "g++", "python3.12", "工具 ✓", "café", "C:\\Tools\\x.exe", "a|b`c<d"]) expect(neutralize(text)).toBe(text)
  })

  it("tools.md cells: bidi controls like the other control characters", () => {
    expect(mdCell("ab\u202egnp.exe")).toBe(`ab${FFFD}gnp.exe`)
    expect(mdCell("\u2066x\u2069")).toBe(`${FFFD}x${FFFD}`)
    expect(mdCode("/bin/ab\u202egnp.exe")).toBe(`\`/bin/ab${FFFD}gnp.exe\``)
    expect(mdCell(FAKE_HEADING)).toBe(`aa${FFFD}${FFFD}## Core versions${FFFD}\\| git \\| 9.9.9 \\|`)
    expect(mdCell(CLEAR_SCREEN)).toBe(`${FFFD}[2J${FFFD}[Hclear`)
    expect(mdCell(FAKE_MARKER)).toBe("&lt;!-- tool-map generation=FAKE -->")
  })

  it("truncation never splits a surrogate pair and keeps its cap", () => {
    const smileys = "\u{1F600}".repeat(3)
    expect(truncateBytes(smileys, 12)).toBe(smileys)
    expect(truncateBytes(smileys, 10)).toBe("\u{1F600}…")
    expect(truncateBytes(smileys, 9)).toBe("\u{1F600}…")
    expect(truncateBytes(smileys, 6)).toBe("…")
    expect(truncateBytes("abcdef", 5)).toBe("ab…")
    expect(truncateChars(smileys, 6)).toBe(smileys)
    expect(truncateChars(smileys, 4)).toBe("\u{1F600}…")
    expect(truncateChars(smileys, 3)).toBe("\u{1F600}…")
    expect(truncateChars("abcdef", 4)).toBe("abc…")
    for (let max = 3; max <= 14; max++) {
      const cut = truncateBytes(`a${smileys}b`, max)
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max)
      expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
      expect(Buffer.from(cut).toString("utf8")).toBe(cut)
    }
  })

  it("mdCellFit cuts between escapes, never inside one, at the end or in the middle", () => {
    expect(mdCellFit("abc|def", 8)).toBe("abc\\|def")
    expect(mdCellFit("abc|def", 7)).toBe("abc…")
    expect(mdCellFit("ab|cdef", 6)).toBe("ab…")
    expect(mdCellFit("ab|cdef", 7)).toBe("ab\\|…")
    expect(mdCellFit("x86_64-conda-linux-gnu-toolchain-wrapper-gcc", 40, "middle")).toBe("x86_64-conda-linux-…lchain-wrapper-gcc")
    expect(mdCellFit("short", 40, "middle")).toBe("short")
    expect(mdCellFit(`${"a".repeat(30)}<${"b".repeat(30)}`, 20, "middle")).toBe(`${"a".repeat(9)}…${"b".repeat(8)}`)
  })

  it("running-text paths: U+FFFD for controls, ` and < escaped, Windows backslashes kept", () => {
    expect(mdTextFit("/home/u/.local/share/tool-map/tools.md", 400)).toBe("/home/u/.local/share/tool-map/tools.md")
    expect(mdTextFit("C:\\Users\\me\\AppData\\tool-map\\tools.md", 400)).toBe("C:\\Users\\me\\AppData\\tool-map\\tools.md")
    expect(mdTextFit("/d\n## x/<!-- a -->/`q`/tools.md", 400)).toBe(`/d${FFFD}## x/&lt;!-- a -->/\\\`q\\\`/tools.md`)
    // A backslash before ` or < is doubled so that the escape after it holds.
    expect(mdTextFit("a\\`b\\\\<c", 400)).toBe("a\\\\\\`b\\\\\\\\&lt;c")
    expect(mdTextFit("/x/<<<<<<", 10)).toBe("/x/&lt;…")
    expect(mdTextFit("/x/<<<<<<", 9)).toBe("/x/…")
    expect(mdInlineCodeFit("tool-map scan --if-stale /x/inv.md", 400)).toBe("`tool-map scan --if-stale /x/inv.md`")
    expect(mdInlineCodeFit("tool-map scan --if-stale /d/`x`\n/a|b.md", 400)).toBe(`\`\`tool-map scan --if-stale /d/\`x\`${FFFD}/a|b.md\`\``)
    expect(mdInlineCodeFit("abcdef", 5)).toBe("`ab…`")
  })
})

describe("tools.summary.md with hostile names", () => {
  const hostile = inventoryOf(
    [tool(FAKE_HEADING), tool(CLEAR_SCREEN), tool(FAKE_MARKER), tool("ab\u202egnp.exe"), tool("git", "version-control")],
    {
      versions: [new VersionReport({ name: "git", version: `2.1${ESC}]0;pwn\u0007|x`, path: "/bin/git", status: "ok", durationMs: 3, detail: null })],
      identity: new Identity({ gitUserName: "Eve\n## Owned <!-- x -->", gitUserEmail: `e\`v|e@x${ESC}[31m`, sshFiles: ["id_ed25519", "id_ed25519.pub"] })
    }
  )
  const summary = renderSummary(hostile, {
    markdown: "/d\n## x/<!-- a -->/tools.md",
    json: `/d/${ESC}[2Jtools.json`,
    refreshCommand: "tool-map scan --if-stale /d/`x`\n/inv.md"
  })

  it("escapes tool names, versions, identity and paths exactly as tools.md does", () => {
    expect(linesOf(summary)).toEqual([
      "<!-- tool-map generation=20260101T000000Z-00000000 -->",
      "# Tools on this machine (tool-map summary)",
      "",
      "Scanned 2026-01-01T00:00:00.000Z · linux x64 · Node v20.20.2 · tool-map 0.1.0",
      "5 command names (5 callable, 0 shadowed) in 1 PATH dirs and 0 other roots.",
      "",
      "## Core versions",
      "| tool | version |",
      "|---|---|",
      `| git | 2.1${FFFD}]0;pwn${FFFD}\\|x |`,
      "",
      "## By category",
      "- Version control (1): git",
      // Names are neutralized at the boundary, before they are sorted: U+FFFD sorts last.
      `- Other (4): &lt;!-- tool-map generation=FAKE -->, aa${FFFD}${FFFD}## Core ver…\\| git \\| 9.9.9 \\|, ab${FFFD}gnp.exe, ${FFFD}[2J${FFFD}[Hclear`,
      "",
      "## Agent hosts",
      "- No agent host scanned.",
      "",
      "## Identity",
      `git user: Eve${FFFD}## Owned &lt;!-- x --> <e\\\`v\\|e@x${FFFD}[31m> · SSH keys: 1`,
      "",
      "## More",
      `Full list: /d${FFFD}## x/&lt;!-- a -->/tools.md · JSON: /d/${FFFD}[2Jtools.json`,
      `Refresh: \`\`tool-map scan --if-stale /d/\`x\`${FFFD}/inv.md\`\` (add --force after an install). Ask: \`tool-map query which NAME\`.`,
      ""
    ])
  })

  it("has no control byte, no second marker and no heading but its own", () => {
    expect(summary).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(summary.match(/<!--/g)).toHaveLength(1)
    expect(lineStarting(summary, "#")).toEqual(["# Tools on this machine (tool-map summary)", "## Core versions", "## By category", "## Agent hosts", "## Identity", "## More"])
  })

  it("normal names and paths are printed as they are", () => {
    const plain = renderSummary(inventoryOf([tool("node", "runtimes"), tool("g++", "build"), tool("my_tool-2.0"), tool("工具")]), {
      markdown: "C:\\Users\\me\\tool-map\\tools.md",
      json: "C:\\Users\\me\\tool-map\\tools.json",
      refreshCommand: "tool-map scan --if-stale C:\\Users\\me\\tool-map\\tools.md"
    })
    expect(lineStarting(plain, "- Other")).toEqual(["- Other (2): my_tool-2.0, 工具"])
    expect(lineStarting(plain, "git user:")).toEqual(["git user: Test User <test@example.com> · SSH keys: 0"])
    expect(lineStarting(plain, "Full list:")).toEqual(["Full list: C:\\Users\\me\\tool-map\\tools.md · JSON: C:\\Users\\me\\tool-map\\tools.json"])
    expect(lineStarting(plain, "Refresh:")).toEqual([
      "Refresh: `tool-map scan --if-stale C:\\Users\\me\\tool-map\\tools.md` (add --force after an install). Ask: `tool-map query which NAME`."
    ])
  })

  it("dedupes by full name before cutting for display, and counts the distinct names not shown", () => {
    const others = Array.from({ length: 10 }, (_, index) => `zz-tool-${index}`)
    const inventory = inventoryOf([...CONDA, ...others].map((name) => tool(name)))
    const [line] = lineStarting(renderSummary(inventory, location), "- Other")
    expect(line).toBe(
      "- Other (20): x86_64-conda-linux-…olchain-wrapper-ar, x86_64-conda-linux-…olchain-wrapper-as, x86_64-conda-linux-…lchain-wrapper-cpp, x86_64-conda-linux-…lchain-wrapper-g++ … and 16 more"
    )
    // Full names that are the same tool twice (a winner per name only) still count once.
    const twice = inventoryOf([tool("dup"), tool("dup"), tool("solo")])
    expect(lineStarting(renderSummary(twice, location), "- Other")).toEqual(["- Other (3): dup, solo"])
  })

  it("a name cut on a surrogate pair boundary: no U+FFFD where the pair was", () => {
    const inventory = inventoryOf([tool("\u{1F600}".repeat(15)), tool(`a${"\u{1F600}".repeat(15)}`)])
    const [line] = lineStarting(renderSummary(inventory, location), "- Other")
    // 60 bytes each, cut to 40: the head gets half the room (19 bytes), the tail the rest.
    expect(line).toBe(`- Other (2): a${"\u{1F600}".repeat(4)}…${"\u{1F600}".repeat(5)}, ${"\u{1F600}".repeat(4)}…${"\u{1F600}".repeat(5)}`)
    expect(line).not.toContain(FFFD)
  })

  it("stays within its cap with thousands of hostile names", () => {
    const names = Array.from({ length: 3000 }, (_, index) => `${ESC}[2J<!--${"|`\n".repeat(index % 50)}\u202e${index}`)
    const summary = renderSummary(inventoryOf(names.map((name) => tool(name))), {
      markdown: `/${"<\n".repeat(2000)}/tools.md`,
      json: `/${"`".repeat(2000)}/tools.json`,
      refreshCommand: `tool-map scan --if-stale ${"\u0007".repeat(2000)}`
    })
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)
    expect(summary).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/)
    expect(summary.match(/<!--/g)).toHaveLength(1)
  })
})

describe("tools.md with hostile names", () => {
  it("cells: newlines, ESC, bidi controls and comments neutralized", () => {
    const markdown = renderToolsMarkdown(inventoryOf([tool(FAKE_HEADING), tool(CLEAR_SCREEN), tool(FAKE_MARKER), tool("ab\u202egnp.exe")]))
    expect(lineStarting(markdown, "| ").slice(1, 5).map((line) => line.split(" | ")[0])).toEqual([
      `| aa${FFFD}${FFFD}## Core versions${FFFD}\\| git \\| 9.9.9 \\|`,
      `| ${FFFD}[2J${FFFD}[Hclear`,
      "| &lt;!-- tool-map generation=FAKE -->",
      `| ab${FFFD}gnp.exe`
    ])
    expect(markdown).toContain(`| ab${FFFD}gnp.exe |  | 1 B | 2026-01-01T00:00:00Z | \`/bin/ab${FFFD}gnp.exe\` |  |`)
    expect(markdown).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e\u2066-\u2069]/)
  })
})

describe("agent host names in the summary", () => {
  it.effect("escaped as in tools.md, deduped by full name, cut in the middle for display", () =>
    Effect.gen(function* () {
      const long = "a".repeat(50)
      const { inventory } = yield* scanTree({
        "home/u/.claude/agents/one.md": markdown({ name: `${long}-one`, description: "x" }),
        "home/u/.claude/agents/two.md": markdown({ name: `${long}-two`, description: "x" }),
        "home/u/.claude/agents/bidi.md": markdown({ name: "b\u202eevil\u2066", description: "x" }),
        "home/u/.claude/skills/s/SKILL.md": markdown({ name: "s\n## Owned <!-- x -->", description: `${"\u{1F600}".repeat(60)}|tail` })
      })
      const lines = summarizeAgentHosts(inventory, 6144)
      expect(lines.slice(1, 4)).toEqual([
        `  - always-on: ~85 tok in every session; largest: s${FFFD}## Owned &lt;!-- x --> ~37 tok, ${"a".repeat(24)}…${"a".repeat(19)}-one ~20 tok, ${"a".repeat(24)}…${"a".repeat(19)}-two ~20 tok`,
        `  - agents: ${"a".repeat(24)}…${"a".repeat(19)}-one, ${"a".repeat(24)}…${"a".repeat(19)}-two, b${FFFD}evil${FFFD}`,
        `  - skills: s${FFFD}## Owned &lt;!-- x -->`
      ])
      // The description cell of tools.md is cut at 120 UTF-16 code units on a code point boundary.
      const md = renderAgentHostsMarkdown(inventory)
      expect(md).toContain(`| s${FFFD}## Owned &lt;!-- x --> | user | loaded | ${"\u{1F600}".repeat(59)}… |`)
      expect(md).not.toContain(FFFD + FFFD)
    }))
})

describe("text tables of `tool-map query`", () => {
  it("shows controls, tabs and bidi controls in cells as U+FFFD and line breaks as ⏎, keeping the columns aligned", () => {
    const table = renderTable(
      ["name", "version", "path"],
      [
        [FAKE_HEADING, `1.0${ESC}]0;title\u0007`, "/bin/x"],
        [CLEAR_SCREEN, "2\t3", `/bin/ab\u202egnp.exe`],
        ["node", "22.0.0", "/usr/bin/node"]
      ]
    )
    expect(table).toBe(
      [
        "name                                     version        path",
        "---------------------------------------  -------------  ---------------",
        `aa ⏎ ## Core versions ⏎ | git | 9.9.9 |  1.0${FFFD}]0;title${FFFD}  /bin/x`,
        `${FFFD}[2J${FFFD}[Hclear                             2${FFFD}3            /bin/ab${FFFD}gnp.exe`,
        "node                                     22.0.0         /usr/bin/node"
      ].join("\n")
    )
  })

  it("normal tables are unchanged", () => {
    expect(renderTable(["tool", "version"], [["git", "2.45.0"], ["node", "22.1.0"]])).toBe("tool  version\n----  -------\ngit   2.45.0\nnode  22.1.0")
  })

  const capture = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const logged: Array<string> = []
      const console = new Proxy({} as Console.Console, {
        get: (_, key) => (key === "log" ? (...args: ReadonlyArray<unknown>) => Effect.sync(() => void logged.push(args.map(String).join(" "))) : () => Effect.void)
      })
      yield* Effect.withConsole(effect, console)
      return logged
    })

  it.effect("printTable prints the neutralized table; --json prints the exact strings", () =>
    Effect.gen(function* () {
      const value = [{ name: CLEAR_SCREEN, version: "1\n2" }]
      const table = (list: typeof value) => printTable(["name", "version"], list.map((row) => [row.name, row.version]), "none")
      expect(yield* capture(printResult(false, value, table))).toEqual([`name          version\n------------  -------\n${FFFD}[2J${FFFD}[Hclear  1 ⏎ 2`])
      const [json] = yield* capture(printResult(true, value, table))
      expect(JSON.parse(json!)).toEqual(value)
      expect(json).toBe(JSON.stringify(value, null, 2))
    }))
})
