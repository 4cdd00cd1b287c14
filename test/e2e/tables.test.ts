// Issue 29, point 6: the built CLI's tables on a terminal (a pseudo-terminal made by `script`, its
// width set with `stty cols`, or COLUMNS) fit its width; in a pipe and with --json every value is
// whole; `query context --by host` has one host column and its footer wraps on a terminal.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { displayWidth } from "../../src/inventory/domain/displayWidth.js"
import { BIN, makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

const widths = (text: string) => text.split("\n").map(displayWidth)

const DESCRIPTION = "Reviews pull requests for correctness, security, performance and style, and writes a summary with one line per finding and a verdict at the end"

describe("tables that fit the terminal (issue 29, point 6)", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let project: string
  let config: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-tables-")
    const home = path.join(temp.dir, "home")
    project = path.join(temp.dir, "project")
    config = path.join(home, ".claude.json")
    write(config, JSON.stringify({
      mcpServers: {
        github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github", "--toolsets", "repos,issues,pull_requests,actions"], env: { GITHUB_TOKEN: "x" } },
        "a-server-with-a-rather-long-name-indeed": { type: "http", url: "https://mcp.example.com/v1/servers/a-server-with-a-rather-long-name-indeed/stream" }
      }
    }))
    write(path.join(home, ".claude", "skills", "long-skill", "SKILL.md"), `---\nname: long-skill\ndescription: ${DESCRIPTION}\n---\nBody\n`)
    fs.mkdirSync(project, { recursive: true })
    fs.mkdirSync(path.join(temp.dir, "bin"))
    env = { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
    const scan = runCli(["scan", "--no-probes", "--quiet"], env, project)
    expect([scan.status, scan.stderr]).toEqual([0, ""])
  })
  afterAll(() => temp.remove())

  /**
   * `tool-map ARGS` on a terminal `columns` wide (util-linux `script` makes the pseudo-terminal),
   * with `extra` in its environment; `script` and `stty` are found on the system's PATH, tool-map
   * runs with the PATH of the scan (another would make its answers stale).
   */
  const onTerminal = (columns: number, args: ReadonlyArray<string>, extra: Record<string, string> = {}) => {
    const command = `stty cols ${columns} && PATH="${env.PATH}" "${process.execPath}" "${BIN}" ${args.join(" ")}`
    return execFileSync("script", ["-qec", command, "/dev/null"], {
      cwd: project,
      env: { ...env, PATH: `${env.PATH}:/usr/bin:/bin`, TERM: "dumb", ...extra },
      encoding: "utf8"
    }).replace(/\r/g, "").replace(/\n$/, "")
  }

  it("query mcp: whole in a pipe, within 80 columns on a terminal, with the commands and paths cut first", () => {
    const piped = runCli(["query", "mcp"], env, project)
    expect(piped.status).toBe(0)
    expect(piped.stdout).toContain("  npx -y @modelcontextprotocol/server-github --toolsets repos,issues,pull_requests,actions  GITHUB_TOKEN  missing command  loaded  ")
    expect(Math.max(...widths(piped.stdout))).toBeGreaterThan(200)
    expect(onTerminal(80, ["query", "mcp"])).toBe(
      [
        "name               host       scope  transport  command / url  ready      state",
        "-----------------  ---------  -----  ---------  -------------  ---------  ------",
        "github             claude-c…  user   stdio      npx -y @mode…  missing …  loaded",
        "a-server-with-a-…  claude-c…  user   http       https://mcp.…  ok         loaded",
        "(not shown at this width: env vars, file; a pipe or --json has every column)"
      ].join("\n")
    )
    expect(onTerminal(120, ["query", "mcp"])).toBe(
      [
        "name                   host         scope  transport  command / url  env vars      ready            state   file",
        "---------------------  -----------  -----  ---------  -------------  ------------  ---------------  ------  ------------",
        `github                 claude-code  user   stdio      npx -y @mode…  GITHUB_TOKEN  missing command  loaded  ${config.slice(0, 11)}…`,
        `a-server-with-a-rath…  claude-code  user   http       https://mcp.…                ok               loaded  ${config.slice(0, 11)}…`
      ].join("\n")
    )
  })

  it("COLUMNS overrides the terminal's width; --json stays whole on a terminal", () => {
    expect(Math.max(...widths(onTerminal(200, ["query", "mcp"], { COLUMNS: "100" })))).toBe(100)
    const json = onTerminal(60, ["query", "mcp", "--json"])
    expect(json).toBe(runCli(["query", "mcp", "--json"], env, project).stdout.replace(/\n$/, ""))
    expect(json).toContain(`"https://mcp.example.com/v1/servers/a-server-with-a-rather-long-name-indeed/stream"`)
    expect(json).toContain(`"path": ${JSON.stringify(config)}`)
  })

  it("query skills: the description whole in a pipe, cut with … on a terminal, empty columns left out", () => {
    expect(runCli(["query", "skills"], env, project).stdout.trimEnd().split("\n")[2]).toBe(`long-skill  claude-code  user                    loaded                  ${DESCRIPTION}`)
    expect(onTerminal(60, ["query", "skills"])).toBe(
      [
        "name        host         scope  state   description",
        "----------  -----------  -----  ------  --------------------",
        "long-skill  claude-code  user   loaded  Reviews pull reques…"
      ].join("\n")
    )
  })

  it("catalog ls and find: rows cut at the terminal's edge, headings wrapped; whole in a pipe", () => {
    const schemas = path.join(temp.dir, "schemas.json")
    write(schemas, JSON.stringify([
      { name: "mcp__github__create_issue", description: "Create a new issue in a GitHub repository, with a title, a body, labels, assignees and a milestone", inputSchema: { type: "object" } },
      { name: "mcp__github__list_issues", description: "List the issues of a GitHub repository, filtered by state, labels, assignee and date, sorted and paged", inputSchema: { type: "object" } }
    ]))
    const args = ["catalog", "ls", "/code/github", "--schemas", schemas]
    expect(runCli(args, env, project).stdout).toBe(
      [
        "/code/github/",
        "      create_issue  ~41 tok  Create a new issue in a GitHub repository, with a title, a body, labels, assignees and a milestone",
        "      list_issues   ~40 tok  List the issues of a GitHub repository, filtered by state, labels, assignee and date, sorted and paged",
        ""
      ].join("\n")
    )
    expect(onTerminal(60, args)).toBe(
      [
        "/code/github/",
        "      create_issue  ~41 tok  Create a new issue in a GitHub…",
        "      list_issues   ~40 tok  List the issues of a GitHub re…"
      ].join("\n")
    )
    const found = onTerminal(60, ["catalog", "find", "'create issue'", "--schemas", schemas]).split("\n")
    expect(found[0]).toBe('2 tools for "create issue", best first (load with')
    expect(found[2]).toBe("     2.36  /code/github/create_issue  ~41 tok  Create a new…")
    expect(Math.max(...widths(found.join("\n")))).toBeLessThanOrEqual(60)
  })

  it("query context --by host: one host column; the footer wraps at words on a terminal, whole lines in a pipe", () => {
    const piped = runCli(["query", "context", "--by", "host"], env, project)
    expect(piped.stdout.split("\n").slice(0, 3)).toEqual([
      "always-on  on-invoke  items  unknown  host",
      "---------  ---------  -----  -------  -----------",
      "~39 tok    ~1 tok     3      2        claude-code"
    ])
    const footer = piped.stdout.trimEnd().split("\n").slice(4)
    expect(footer.length).toBe(2)
    expect(Math.max(...widths(footer.join("\n")))).toBeGreaterThan(200)
    const shown = onTerminal(80, ["query", "context", "--by", "host"]).split("\n")
    expect(shown.slice(0, 5)).toEqual([...piped.stdout.split("\n").slice(0, 3), "", "Claude Code: ~39 tok in every session, ~1 tok more when all 3 items are used"])
    expect(Math.max(...widths(shown.join("\n")))).toBeLessThanOrEqual(80)
    // The same words, wrapped: continuation lines indented by two spaces.
    expect(shown.slice(4).filter((line) => !line.startsWith("  ")).length).toBe(2)
    expect(shown.slice(4).join(" ").replace(/ +/g, " ")).toBe(footer.join(" ").replace(/ +/g, " "))
  })
})
