/**
 * `catalog ... --host H` and `catalog snapshot --host H` through the built CLI (issue 29, point
 * 5): a temp HOME whose Claude Code config names two servers, the notes fixture and one that
 * exits at once; before any snapshot the catalog names both and exits 1; the snapshot command
 * lists them (one fails, exit 1), keeps the snapshot where the gateway keeps it and refreshes
 * the inventory; then the catalog has the notes tools and `query context` their tokens. Codex's
 * entry of the same server shares its snapshot, its `enabled_tools` applied.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const NOTES = path.resolve(import.meta.dirname, "../mcp/fixtures/notes.mjs")

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

const NO_SNAPSHOT_WARNING =
  "tool-map: warning: 1 MCP server(s) of claude-code have no tool snapshot, so their tools are not in this catalog: broken; run `tool-map catalog snapshot --host claude-code` to list them (it starts them)\n"

/** The notes server's tools under the gateway's names, as load and unload list them. */
const NOTES_TOOLS = ["  mcp__notes__add_note", "  mcp__notes__list_notes", "  mcp__notes__search_notes"]

describe("the catalog over Claude Code's MCP servers, through the built CLI", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let project: string
  let data: string
  const run = (...args: ReadonlyArray<string>) => runCli(args, env, project)

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-catalog-host-")
    const home = path.join(temp.dir, "home")
    project = path.join(temp.dir, "project")
    data = path.join(temp.dir, "data")
    fs.mkdirSync(project, { recursive: true })
    fs.mkdirSync(path.join(temp.dir, "bin"))
    write(path.join(home, ".claude.json"), JSON.stringify({
      mcpServers: {
        notes: { command: process.execPath, args: [NOTES] },
        broken: { command: process.execPath, args: ["-e", "process.exit(3)"] }
      }
    }))
    env = { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: data }
    const scan = run("scan", "--no-probes", "--quiet")
    expect(scan.stderr).toBe("")
    expect(scan.status).toBe(0)
  })
  afterAll(() => temp?.remove())

  it("before any snapshot: names the servers and what to run, exit 1, and query context does not know their cost", () => {
    const ls = run("catalog", "ls", "--host", "claude-code")
    expect(ls.stdout).toBe("")
    expect(ls.stderr).toBe(
      "tool-map: None of the 2 MCP server(s) claude-code loads has a tool snapshot yet (notes, broken): run `tool-map catalog snapshot --host claude-code` to list them once (it starts them), then run this again.\n"
    )
    expect(ls.status).toBe(1)
    const context = JSON.parse(run("query", "context", "--host", "claude-code", "--json").stdout) as {
      rows: ReadonlyArray<{ name: string; alwaysOnTokens: number | null }>
    }
    expect(context.rows.map((row) => [row.name, row.alwaysOnTokens])).toEqual([["broken", null], ["notes", null]])
  })

  it("a host that loads no MCP server here: said, exit 1, for the catalog and for snapshot", () => {
    const message = `tool-map: codex loads no MCP server in ${project} that tool-map's gateway could front (what it loads: \`tool-map query mcp --host codex\`).\n`
    for (const args of [["catalog", "ls", "--host", "codex"], ["catalog", "snapshot", "--host", "codex"]]) {
      const answer = run(...args)
      expect([answer.stdout, answer.stderr, answer.status]).toEqual(["", message, 1])
    }
  })

  it("--host and --schemas together: a usage error, exit 2", () => {
    const both = run("catalog", "ls", "--host", "claude-code", "--schemas", path.join(temp.dir, "tools.json"))
    expect(both.stdout).toBe("")
    expect(both.stderr).toBe("tool-map: The flags --host and --schemas contradict each other: give one of them.\n")
    expect(both.status).toBe(2)
  })

  it("catalog snapshot lists each server once: a summary per server, the failure with its reason, progress on stderr, exit 1", () => {
    const snapshot = run("catalog", "snapshot", "--host", "claude-code")
    const logs = path.join(data, "gateway", "logs")
    expect(snapshot.stdout).toBe([
      `MCP servers of claude-code (snapshots in ${path.join(data, "gateway", "snapshots")}):`,
      "  notes: 3 tools, ~113 tok",
      `  broken: failed: exited before it answered initialize; its stderr is logged in ${path.join(logs, "broken.log")}`,
      "1 of 2 listed. `tool-map catalog ls --host claude-code` browses their tools, `tool-map query context --host claude-code` counts them.",
      ""
    ].join("\n"))
    // The two servers are listed at the same time: their lines come in either order.
    const progress = snapshot.stderr.split("\n")
    expect(progress.slice(0, 1)).toEqual(["tool-map: listing the tools of 2 MCP server(s) of claude-code, each started once…"])
    expect(progress.slice(1, 3).sort()).toEqual(["tool-map: broken: failed", "tool-map: notes: 3 tools"])
    expect(progress.slice(3)).toEqual([
      "tool-map: refreshing the inventory…",
      "tool-map: 1 of the 2 MCP server(s) of claude-code could not be listed: broken.",
      ""
    ])
    expect(snapshot.status).toBe(1)
    // Where the gateway keeps it, in its format: the server's name, its tools as listed.
    const snapshots = path.join(data, "gateway", "snapshots")
    const files = fs.readdirSync(snapshots)
    expect(files.length).toBe(1)
    const kept = JSON.parse(fs.readFileSync(path.join(snapshots, files[0]!), "utf8")) as {
      version: number
      server: string
      configHash: string
      tools: ReadonlyArray<{ name: string }>
    }
    expect([kept.version, kept.server, `${kept.configHash}.json`, kept.tools.map((tool) => tool.name)]).toEqual([
      1,
      "notes",
      files[0],
      ["add_note", "search_notes", "list_notes"]
    ])
  })

  it("--json: one value with each server's figures, the inventory refreshed or up to date", () => {
    const snapshot = run("catalog", "snapshot", "--host", "claude-code", "--json")
    expect(snapshot.stderr).toBe("tool-map: 1 of the 2 MCP server(s) of claude-code could not be listed: broken.\n")
    expect(snapshot.status).toBe(1)
    const answer = JSON.parse(snapshot.stdout) as {
      servers: ReadonlyArray<Record<string, unknown>>
      inventory: { refreshed: boolean; generation: string; error: null }
    } & Record<string, unknown>
    const logs = path.join(data, "gateway", "logs")
    expect(answer.servers.map(({ takenAt, ...rest }) => ({ ...rest, taken: typeof takenAt === "string" }))).toEqual([
      { name: "notes", segment: "notes", outcome: "listed", tools: 3, tokens: 113, reason: null, log: path.join(logs, "notes.log"), taken: true },
      { name: "broken", segment: "broken", outcome: "failed", tools: null, tokens: null, reason: "exited before it answered initialize", log: path.join(logs, "broken.log"), taken: false }
    ])
    expect([answer["host"], answer["snapshots"], answer["leftOut"], answer.inventory.refreshed, answer.inventory.error]).toEqual([
      "claude-code",
      path.join(data, "gateway", "snapshots"),
      [],
      // The same tools again: the snapshot is not rewritten, the bundle stays up to date.
      false,
      null
    ])
  })

  it("catalog ls --host: the gateway's category and the notes tools, the server without a snapshot named", () => {
    const root = run("catalog", "ls", "--host", "claude-code")
    expect(root.stdout).toBe([
      "/  categories. * = loaded (callable now), ! = high risk (load it on its own), [denied] = loaded but hidden by the host. `tool-map catalog ls --query WORDS` searches everything.",
      "  mcp/  3 tools  0 loaded  ~122 tok  Tools of the MCP servers behind the gateway, one group per server",
      ""
    ].join("\n"))
    expect(root.stderr).toBe(NO_SNAPSHOT_WARNING)
    expect(root.status).toBe(0)
    const group = run("catalog", "ls", "--host", "claude-code", "/mcp/notes")
    expect(group.stdout).toBe([
      "/mcp/notes/",
      "      add_note      ~49 tok  Add a note with a title and a body to the notebook.",
      "      list_notes    ~32 tok  List the titles of every note in the notebook.",
      "      search_notes  ~41 tok  Search the notebook for notes whose text contains the given words.",
      ""
    ].join("\n"))
    expect(group.status).toBe(0)
    const json = JSON.parse(run("catalog", "ls", "--host", "claude-code", "--json").stdout) as Record<string, unknown>
    expect(json["warnings"]).toEqual([{
      kind: "no-snapshot",
      subject: "claude-code",
      message: NO_SNAPSHOT_WARNING.slice("tool-map: warning: ".length, -1),
      names: ["broken"]
    }])
  })

  it("catalog find --host ranks the notes tools", () => {
    const found = run("catalog", "find", "--host", "claude-code", "search my notes for a word", "-k", "2")
    expect(found.stdout).toBe([
      "2 tools for \"search my notes for a word\", best first (load with `tool-map catalog load TARGET`):",
      "     4.20  /mcp/notes/search_notes  ~41 tok  Search the notebook for notes whose text contains the given words.",
      "        why: name: search, notes; server: notes; description: search, notes, word; parameters: word",
      "     0.36  /mcp/notes/list_notes  ~32 tok  List the titles of every note in the notebook.",
      "        why: name: notes; server: notes; description: notes",
      ""
    ].join("\n"))
    expect(found.stderr).toBe(NO_SNAPSHOT_WARNING)
    expect(found.status).toBe(0)
  })

  it("catalog load and unload --host: by the server's group, under the gateway's names", () => {
    const load = run("catalog", "load", "--host", "claude-code", "notes")
    expect(load.stdout).toBe([
      "Loaded 3 tool(s), ~122 tok; callable from the agent's next step:",
      ...NOTES_TOOLS,
      ""
    ].join("\n"))
    expect(load.status).toBe(0)
    expect(run("catalog", "ls", "--host", "claude-code", "/mcp").stdout).toBe([
      "/mcp/  Tools of the MCP servers behind the gateway, one group per server",
      "  notes/  3 tools  3 loaded  ~122 tok",
      ""
    ].join("\n"))
    const unload = run("catalog", "unload", "--host", "claude-code", "all")
    expect(unload.stdout).toBe([
      "Unloaded 3 tool(s):",
      ...NOTES_TOOLS,
      ""
    ].join("\n"))
    expect(unload.status).toBe(0)
  })

  it("query context counts the listed server's tokens (the snapshot summary's figure); the failed one stays unknown", () => {
    const context = run("query", "context", "--host", "claude-code")
    expect(context.stdout.split("\n").slice(0, 4)).toEqual([
      "always-on  on-invoke  host         kind       scope  plugin  name",
      "---------  ---------  -----------  ---------  -----  ------  ------",
      "~113 tok   unknown    claude-code  mcpServer  user           notes",
      "unknown    unknown    claude-code  mcpServer  user           broken"
    ])
    expect(context.status).toBe(0)
  })

  it("Codex: the same server, the same snapshot (one configuration, one key), the host's enabled_tools applied", () => {
    write(path.join(env.HOME!, ".codex", "config.toml"), [
      "[mcp_servers.notes]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(NOTES)}]`,
      'enabled_tools = ["add_note", "list_notes"]',
      ""
    ].join("\n"))
    // No server started: Claude Code's listing serves Codex's entry.
    const group = run("catalog", "ls", "--host", "codex", "/mcp/notes")
    expect([group.stdout, group.stderr, group.status]).toEqual([
      [
        "/mcp/notes/",
        "      add_note    ~49 tok  Add a note with a title and a body to the notebook.",
        "      list_notes  ~32 tok  List the titles of every note in the notebook.",
        ""
      ].join("\n"),
      // The catalog's record of its last build (Claude Code's three tools) says what changed.
      "tool-map: tool definitions differ from the last recorded build (removed: mcp__notes__search_notes)\n",
      0
    ])
    const snapshot = run("catalog", "snapshot", "--host", "codex")
    expect(snapshot.stdout).toBe([
      `MCP servers of codex (snapshots in ${path.join(data, "gateway", "snapshots")}):`,
      "  notes: 2 tools, ~75 tok",
      "1 of 1 listed. `tool-map catalog ls --host codex` browses their tools, `tool-map query context --host codex` counts them.",
      ""
    ].join("\n"))
    expect(snapshot.status).toBe(0)
    expect(run("query", "context", "--host", "codex").stdout.split("\n").slice(2, 3)).toEqual([
      "~75 tok    unknown    codex  mcpServer  user           notes"
    ])
  })
})
