// Issue 29, point 6: tables that fit the terminal, whole in a pipe and in --json; a multi-line
// untrusted text on one line.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Column, fitColumns, printFitted, printResult, printTable, renderTable, wrappedLines } from "../../src/cli/output.js"
import { TerminalFacts, terminalColumns } from "../../src/cli/terminal.js"
import { displayWidth, truncateDisplay, wrapDisplay } from "../../src/inventory/domain/displayWidth.js"
import { cleanLine, neutralizeLine } from "../../src/inventory/domain/untrusted.js"
import { captureConsole } from "./inProcess.js"

const MCP_COLUMNS: ReadonlyArray<Column> = [
  { title: "name", shrink: "key" },
  { title: "host", shrink: "normal" },
  { title: "command / url", shrink: "text" },
  { title: "ready", shrink: "normal" },
  { title: "file", shrink: "text" }
]
const MCP_ROWS = [
  ["github", "claude-code", "npx -y @modelcontextprotocol/server-github --verbose", "first start downloads @modelcontextprotocol/server-github", "/home/user/.claude.json"],
  ["a-server-with-a-rather-long-name", "codex", "uvx mcp-server-fetch", "ok", "/home/user/.codex/config.toml"]
]

const widest = (text: string) => Math.max(...text.split("\n").map(displayWidth))

const onTerminal = (columns: number | undefined, stdoutIsTty = true) =>
  Effect.provideService(TerminalFacts, { stdoutIsTty, columns, stdinIsTty: false })

describe("renderTable within a width", () => {
  it("without a width every cell is whole", () => {
    expect(renderTable(MCP_COLUMNS, MCP_ROWS)).toBe(
      [
        "name                              host         command / url                                         ready                                                      file",
        "--------------------------------  -----------  ----------------------------------------------------  ---------------------------------------------------------  -----------------------------",
        "github                            claude-code  npx -y @modelcontextprotocol/server-github --verbose  first start downloads @modelcontextprotocol/server-github  /home/user/.claude.json",
        "a-server-with-a-rather-long-name  codex        uvx mcp-server-fetch                                  ok                                                         /home/user/.codex/config.toml"
      ].join("\n")
    )
  })

  it("at 80 columns: the commands and paths give way first, then the widest of the others; the name keeps 16 or more", () => {
    const table = renderTable(MCP_COLUMNS, MCP_ROWS, 80)
    expect(table).toBe(
      [
        "name                host         command / url  ready               file",
        "------------------  -----------  -------------  ------------------  ------------",
        "github              claude-code  npx -y @mode…  first start downl…  /home/user/…",
        "a-server-with-a-r…  codex        uvx mcp-serv…  ok                  /home/user/…"
      ].join("\n")
    )
    expect(widest(table)).toBe(80)
  })

  it("at 100 columns the room left goes to the widest columns", () => {
    expect(renderTable(MCP_COLUMNS, MCP_ROWS, 100)).toBe(
      [
        "name                          host         command / url  ready                         file",
        "----------------------------  -----------  -------------  ----------------------------  ------------",
        "github                        claude-code  npx -y @mode…  first start downloads @mode…  /home/user/…",
        "a-server-with-a-rather-long…  codex        uvx mcp-serv…  ok                            /home/user/…"
      ].join("\n")
    )
  })

  it("when even the narrowest columns do not fit, text columns are left out from the right, then others, never the key, and named", () => {
    expect(renderTable(MCP_COLUMNS, MCP_ROWS, 50)).toBe(
      [
        "name                host         ready",
        "------------------  -----------  -----------------",
        "github              claude-code  first start down…",
        "a-server-with-a-r…  codex        ok",
        "(not shown at this width: command / url, file; a",
        "pipe or --json has every column)"
      ].join("\n")
    )
    const narrowest = renderTable(MCP_COLUMNS, MCP_ROWS, 20)
    expect(narrowest.split("\n").slice(0, 4)).toEqual(["name", "--------------------", "github", "a-server-with-a-rat…"])
    expect(narrowest.split("\n").slice(4).join(" ")).toBe("(not shown at this width: host, command / url, ready, file; a pipe or --json has every column)")
  })

  it("a column empty in every row is left out first when the table does not fit, without a note", () => {
    const columns: ReadonlyArray<Column> = [
      { title: "name", shrink: "key" },
      { title: "plugin", shrink: "text" },
      { title: "also loaded by", shrink: "text" },
      { title: "description", shrink: "text" }
    ]
    const rows = [["long-skill", "", "", "Reviews pull requests for correctness, security and style"]]
    expect(renderTable(columns, rows, 40)).toBe("name        description\n----------  ----------------------------\nlong-skill  Reviews pull requests for c…")
    // It fits whole: every column is kept.
    expect(renderTable(columns, rows, 120).split("\n")[0]).toBe("name        plugin  also loaded by  description")
  })

  it("plain titles: the first column is the key, the others give way widest first", () => {
    expect(fitColumns([{ title: "name", shrink: "key" }, { title: "a", shrink: "normal" }, { title: "b", shrink: "normal" }], [30, 30, 10], 50)).toEqual([18, 18, 10])
    expect(renderTable(["tool", "path"], [["git", "/usr/local/libexec/git-core/git"]], 20)).toBe("tool  path\n----  --------------\ngit   /usr/local/li…")
  })

  it("cuts wide characters, emoji and accented letters whole, by display width", () => {
    const table = renderTable([{ title: "name", shrink: "key" }, { title: "description", shrink: "text" }], [["日本", "日本語のテキストです 👍🏽 café"]], 30)
    expect(table).toBe("name  description\n----  ------------------------\n日本  日本語のテキストです 👍🏽…")
    expect(widest(table)).toBe(30)
  })

  it("shows a multi-line cell on one line with ⏎ between its lines, other controls as U+FFFD", () => {
    expect(renderTable(["server", "error"], [["fetch", "spawn uvx ENOENT\r\n    at ChildProcess._handle\n\n\x1b[31mexit 1\t(code)\n"]])).toBe(
      [
        "server  error",
        "------  ---------------------------------------------------------------",
        "fetch   spawn uvx ENOENT ⏎ at ChildProcess._handle ⏎ \uFFFD[31mexit 1\uFFFD(code)"
      ].join("\n")
    )
  })
})

describe("the display-width rules", () => {
  it("truncateDisplay keeps whole clusters and puts … in the last column", () => {
    expect(truncateDisplay("abcdef", 6)).toBe("abcdef")
    expect(truncateDisplay("abcdef", 4)).toBe("abc…")
    expect(truncateDisplay("abcdef", 1)).toBe("…")
    expect(truncateDisplay("abcdef", 0)).toBe("")
    // 漢 is 2 columns: 3 columns hold one of them and the ellipsis.
    expect(truncateDisplay("漢字漢字", 4)).toBe("漢…")
    expect(truncateDisplay("漢字漢字", 3)).toBe("漢…")
    // A surrogate pair, an emoji with its skin tone, a letter with its combining accent.
    expect(truncateDisplay("𝒳𝒴𝒵", 2)).toBe("𝒳…")
    expect(truncateDisplay("👍🏽👍🏽", 3)).toBe("👍🏽…")
    expect(truncateDisplay("e\u0301e\u0301e\u0301", 2)).toBe("e\u0301…")
  })

  it("wrapDisplay breaks at spaces, and a word wider than the line between clusters", () => {
    expect(wrapDisplay("one two three four", 9)).toEqual(["one two", "three", "four"])
    expect(wrapDisplay("漢字漢字漢字", 5)).toEqual(["漢字", "漢字", "漢字"])
  })

  it("neutralizeLine: one ⏎ for each run of line breaks, none at the ends; cleanLine redacts secrets too", () => {
    expect(neutralizeLine("a\nb")).toBe("a ⏎ b")
    expect(neutralizeLine("\n a \r\n\r\n b\u2028c\u0085d \n")).toBe("a ⏎ b ⏎ c ⏎ d")
    expect(neutralizeLine("tab\there, escape \x1b[2J, bidi \u202e")).toBe("tab\uFFFDhere, escape \uFFFD[2J, bidi \uFFFD")
    expect(neutralizeLine("one line")).toBe("one line")
    expect(cleanLine("401 Unauthorized\nAuthorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe("401 Unauthorized ⏎ Authorization: Bearer [redacted]")
  })
})

describe("the terminal's width", () => {
  it("COLUMNS over the reported width on a terminal; nothing in a pipe", () => {
    expect(terminalColumns(true, 120, undefined)).toBe(120)
    expect(terminalColumns(true, 120, "72")).toBe(72)
    expect(terminalColumns(true, 120, "0")).toBe(120)
    expect(terminalColumns(true, 120, "wide")).toBe(120)
    expect(terminalColumns(true, undefined, undefined)).toBe(undefined)
    expect(terminalColumns(false, 120, "72")).toBe(undefined)
  })

  it.effect("printTable fits a terminal, prints whole cells in a pipe, and --json is whole", () =>
    Effect.gen(function* () {
      const value = MCP_ROWS.map(([name, host, command, ready, file]) => ({ name, host, command, ready, file }))
      const table = (list: typeof value) => printTable(MCP_COLUMNS, list.map((row) => Object.values(row)), "none")
      const narrow = yield* captureConsole(printResult(false, value, table)).pipe(onTerminal(80))
      expect(narrow.stdout).toBe(renderTable(MCP_COLUMNS, MCP_ROWS, 80))
      const piped = yield* captureConsole(printResult(false, value, table)).pipe(onTerminal(undefined, false))
      expect(piped.stdout).toBe(renderTable(MCP_COLUMNS, MCP_ROWS))
      // A width without a terminal (a test's or a stale one) is not used.
      expect((yield* captureConsole(printResult(false, value, table)).pipe(onTerminal(80, false))).stdout).toBe(piped.stdout)
      const json = yield* captureConsole(printResult(true, value, table)).pipe(onTerminal(40))
      expect(JSON.parse(json.stdout)).toEqual(value)
    }))

  it.effect("a footer wraps at word boundaries on a terminal, later lines indented; whole in a pipe", () =>
    Effect.gen(function* () {
      const footer = ["Claude Code: 12.3k in every session, 40.1k more when all 57 items are used", "short"]
      expect(yield* wrappedLines(footer).pipe(onTerminal(40))).toEqual([
        "Claude Code: 12.3k in every session,",
        "  40.1k more when all 57 items are used",
        "short"
      ])
      expect(yield* wrappedLines(footer).pipe(onTerminal(undefined, false))).toEqual(footer)
    }))

  it.effect("printFitted cuts each row of a laid-out listing to the terminal and wraps its headings, whole in a pipe", () =>
    Effect.gen(function* () {
      const listing = "/  categories. * = loaded (callable now), ! = high risk\n  github/  3 tools  Create issues and pull requests in GitHub repositories\n  slack/   1 tool   Post"
      expect((yield* captureConsole(printFitted(listing)).pipe(onTerminal(40))).stdout).toBe(
        [
          "/ categories. * = loaded (callable",
          "  now), ! = high risk",
          "  github/  3 tools  Create issues and p…",
          "  slack/   1 tool   Post"
        ].join("\n")
      )
      expect((yield* captureConsole(printFitted(listing)).pipe(onTerminal(undefined, false))).stdout).toBe(listing)
    }))
})
