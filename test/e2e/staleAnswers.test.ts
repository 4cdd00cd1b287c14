import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

/*
 * Stale answers say so (issue 29, point 3), through the built CLI: `query which NAME [--json]` is
 * answered by the launcher's everyday entry, `query tools` and every `--fresh` by the whole CLI.
 */

interface Machine {
  readonly bin: string
  readonly env: Record<string, string>
  /** The generation the first scan wrote. */
  readonly generation: string
  /** The line a stale answer of the default bundle prints on stderr, for a change named `change`. */
  readonly notice: (change: string) => string
}

let temps: Array<ReturnType<typeof makeTempDir>> = []

/** `2026-12-07 08:50:12 UTC` from the generation id `20261207T085012Z-…`. */
const scanTime = (generation: string): string => {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/.exec(generation)!
  return `${y}-${mo}-${d} ${h}:${mi}:${s} UTC`
}

const noticeFor = (generation: string, change: string, refresh = "run `tool-map scan --if-stale`, or add --fresh") =>
  `tool-map: this answer is from the scan of ${scanTime(generation)}; since then ${change}. To refresh it, ${refresh}.\n`

/** A HOME, a PATH of one directory holding `git`, a data dir, and a first scan of them. */
const scannedMachine = (): Machine => {
  const temp = makeTempDir("tool-map-stale-")
  temps.push(temp)
  const home = path.join(temp.dir, "home")
  const bin = path.join(temp.dir, "bin")
  fs.mkdirSync(home)
  writeExecutable(path.join(bin, "git"), "#!/bin/sh\necho 'git version 2.99.1'\n")
  const env = { HOME: home, PATH: bin, PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
  const scan = runCli(["scan", "--json"], env)
  expect(scan.status).toBe(0)
  const generation = (JSON.parse(scan.stdout) as { generation: string }).generation
  return { bin, env, generation, notice: (change) => noticeFor(generation, change) }
}

/** Adds an executable to the PATH directory, its mtime moved on so the change shows at any clock resolution. */
const install = (machine: Machine, name: string) => {
  writeExecutable(path.join(machine.bin, name), "#!/bin/sh\nexit 0\n")
  const later = new Date(Date.now() + 5_000)
  fs.utimesSync(machine.bin, later, later)
}

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>
/** The names `query tools --json` lists in the PATH directory (the scan also walks the machine's well-known tool roots). */
const toolNames = (stdout: string, bin: string) =>
  (json(stdout)["tools"] as ReadonlyArray<{ readonly name: string; readonly path: string }>).filter((tool) => path.dirname(tool.path) === bin).map((tool) => tool.name)

describe("a query answers from the bundle and says when it is stale", () => {
  beforeAll(() => requireBuiltCli())
  afterEach(() => {
    for (const temp of temps) temp.remove()
    temps = []
  })

  it("an unchanged bundle: no line on stderr, and stale false in the JSON", () => {
    const machine = scannedMachine()
    const which = runCli(["query", "which", "git", "--json"], machine.env)
    expect([which.status, which.stderr]).toEqual([0, ""])
    const answer = json(which.stdout)
    expect([answer["stale"], answer["staleReason"], answer["name"], answer["winner"]]).toEqual([false, null, "git", path.join(machine.bin, "git")])
    const tools = runCli(["query", "tools", "--json"], machine.env)
    expect([tools.status, tools.stderr, json(tools.stdout)["stale"], json(tools.stdout)["staleReason"], toolNames(tools.stdout, machine.bin)]).toEqual([0, "", false, null, ["git"]])
    const table = runCli(["query", "tools"], machine.env)
    expect([table.status, table.stderr]).toEqual([0, ""])
  })

  it("a tool added to a PATH directory: query which and query tools say what changed and how to refresh", () => {
    const machine = scannedMachine()
    install(machine, "newtool")
    const notice = machine.notice(`${machine.bin} changed`)

    const missing = runCli(["query", "which", "newtool"], machine.env)
    expect(missing.status).toBe(1)
    expect(missing.stderr).toBe(
      `${notice}tool-map: No tool named newtool is on PATH or in the scanned roots (run \`tool-map scan --force\` if it was just installed).\n`
    )

    const which = runCli(["query", "which", "git", "--json"], machine.env)
    expect([which.status, which.stderr]).toEqual([0, notice])
    expect([json(which.stdout)["stale"], json(which.stdout)["staleReason"]]).toEqual([true, `${machine.bin} changed`])

    const table = runCli(["query", "tools"], machine.env)
    expect([table.status, table.stderr]).toEqual([0, notice])
    expect(table.stdout).not.toContain("newtool")
    const tools = runCli(["query", "tools", "--json"], machine.env)
    expect([tools.stderr, json(tools.stdout)["stale"], toolNames(tools.stdout, machine.bin)]).toEqual([notice, true, ["git"]])
  })

  it("--fresh rescans a stale bundle first: the answer has the new tool, stale false and no notice", () => {
    const machine = scannedMachine()
    install(machine, "newtool")
    const which = runCli(["query", "which", "newtool", "--fresh", "--json"], machine.env)
    expect([which.status, which.stderr]).toEqual([0, ""])
    const answer = json(which.stdout)
    expect([answer["stale"], answer["staleReason"], answer["winner"]]).toEqual([false, null, path.join(machine.bin, "newtool")])
    const after = runCli(["query", "stale", "--json"], machine.env)
    expect(json(after.stdout)["generation"]).not.toBe(machine.generation)

    install(machine, "othertool")
    const tools = runCli(["query", "tools", "--fresh"], machine.env)
    expect([tools.status, tools.stderr]).toEqual([0, ""])
    expect(tools.stdout).toContain(path.join(machine.bin, "othertool"))
    const listed = runCli(["query", "tools", "--json"], machine.env)
    expect([listed.stderr, json(listed.stdout)["stale"], toolNames(listed.stdout, machine.bin)]).toEqual(["", false, ["git", "newtool", "othertool"]])
  })

  it("--fresh on an unchanged bundle answers at once: no rescan", () => {
    const machine = scannedMachine()
    const tools = runCli(["query", "tools", "--fresh", "--json"], machine.env)
    expect([tools.status, tools.stderr, json(tools.stdout)["stale"]]).toEqual([0, "", false])
    expect(json(runCli(["query", "stale", "--json"], machine.env).stdout)["generation"]).toBe(machine.generation)
  })

  it("an agent host's file appeared: query mcp says so, and query context --fresh answers with its server", () => {
    const machine = scannedMachine()
    const claudeJson = path.join(machine.env.HOME!, ".claude.json")
    fs.writeFileSync(claudeJson, JSON.stringify({ mcpServers: { notes: { command: "npx", args: ["-y", "notes-mcp"] } } }))
    const mcp = runCli(["query", "mcp", "--json"], machine.env)
    expect([mcp.status, mcp.stderr, mcp.stdout]).toEqual([
      0,
      machine.notice(`${claudeJson} appeared`),
      `${JSON.stringify({ stale: true, staleReason: `${claudeJson} appeared`, mcp: [] }, null, 2)}\n`
    ])
    const context = runCli(["query", "context", "--fresh", "--json"], machine.env)
    expect([context.status, context.stderr]).toEqual([0, ""])
    const ledger = json(context.stdout)
    expect([ledger["stale"], ledger["staleReason"], ledger["by"], (ledger["rows"] as ReadonlyArray<{ readonly name: string }>).map((row) => row.name)]).toEqual([false, null, "item", ["notes"]])
    const changes = runCli(["query", "changes", "--json"], machine.env)
    expect([changes.stderr, json(changes.stdout)["stale"]]).toEqual(["", false])
  })

  it("PATH itself changed: the notice says PATH changed", () => {
    const machine = scannedMachine()
    const other = path.join(path.dirname(machine.bin), "other")
    fs.mkdirSync(other)
    const env = { ...machine.env, PATH: `${machine.bin}${path.delimiter}${other}` }
    const versions = runCli(["query", "versions", "--json"], env)
    expect([versions.status, versions.stderr]).toEqual([0, machine.notice("PATH changed")])
    expect([json(versions.stdout)["stale"], json(versions.stdout)["staleReason"], Array.isArray(json(versions.stdout)["versions"])]).toEqual([
      true,
      "PATH changed",
      true
    ])
  })

  it("a --from bundle: the notice names its own refresh, and --fresh with --from is refused (exit 2)", () => {
    const machine = scannedMachine()
    const redirect = path.join(path.dirname(machine.bin), "my inv.md")
    const scan = runCli(["scan", redirect, "--json"], machine.env)
    expect(scan.status).toBe(0)
    const generation = (JSON.parse(scan.stdout) as { generation: string }).generation
    install(machine, "newtool")
    const which = runCli(["query", "which", "git", "--from", redirect], machine.env)
    expect([which.status, which.stderr]).toEqual([
      0,
      noticeFor(generation, `${machine.bin} changed`, `run \`tool-map scan --if-stale '${redirect}'\``)
    ])
    const refused = runCli(["query", "tools", "--from", redirect, "--fresh"], machine.env)
    expect([refused.status, refused.stdout, refused.stderr]).toEqual([
      2,
      "",
      "tool-map: --fresh refreshes the default bundle, and --from only reads another one: give one of them (a bundle written by `tool-map scan PATH.md` is refreshed by `tool-map scan --if-stale PATH.md`). See `tool-map query tools --help`.\n"
    ])
  })
})
