// `tool-map catalog approve` through the built CLI (issue 26, point 5): without a terminal on
// stdin it approves nothing unless --yes, whatever the code; the list and --yes work without one.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const CODE = "ABCD-EFGH"

describe("tool-map catalog approve through the built CLI", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let file: string
  let stored: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-catalog-approve-")
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    env = { HOME: home, PLUGIN_DATA: path.join(temp.dir, "data"), PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }
    file = path.join(temp.dir, "data", "catalog", "approvals.json")
    fs.mkdirSync(path.dirname(file), { recursive: true })
    // A code the gateway handed out a minute ago, for ten minutes.
    stored = JSON.stringify({
      version: 1,
      approvals: [{
        code: CODE,
        agentId: "gemini-cli",
        tool: "mcp__memory__delete_entities",
        server: "memory",
        summary: "Delete entities\u001b[2J from the graph",
        evidence: ["MCP destructiveHint=true (untrusted hint)"],
        status: "pending",
        requestedAt: Date.now() - 60_000,
        expiresAt: Date.now() + 9 * 60_000 + 30_000
      }]
    })
    fs.writeFileSync(file, stored, { mode: 0o600 })
  })
  afterAll(() => temp.remove())

  it("refuses to approve when stdin is not a terminal and --yes is not given, and writes nothing", () => {
    const run = runCli(["catalog", "approve", CODE], env)
    expect(run).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "tool-map: tool-map catalog approve: stdin is not a terminal, and an approval needs a person to confirm it: run it in your own terminal (see --help).\n"
    })
    expect(fs.readFileSync(file, "utf8")).toBe(stored)
    // An unknown code is refused the same way: nothing tells a caller without a terminal whether it exists.
    expect(runCli(["catalog", "approve", "ZZZZ-ZZZZ"], env).status).toBe(2)
  })

  it("says why in --help", () => {
    const run = runCli(["catalog", "approve", "--help"], env)
    expect(run.status).toBe(0)
    expect(run.stdout.replace(/\s+/g, " ")).toContain(
      "Without it, approve asks on a terminal and refuses when stdin is not one: an agent that can run shell commands could run this command itself, but it has no terminal to answer on."
    )
  })

  it("lists the approvals waiting without a terminal, then approves with --yes", () => {
    const listed = runCli(["catalog", "approve", "--json"], env)
    expect([listed.status, listed.stderr]).toEqual([0, ""])
    expect(JSON.parse(listed.stdout).approvals.map((approval: Record<string, unknown>) => [approval.code, approval.status, approval.agent, approval.summary]))
      .toEqual([[CODE, "pending", "gemini-cli", "Delete entities\uFFFD[2J from the graph"]])
    const approved = runCli(["catalog", "approve", CODE.toLowerCase(), "--yes"], env)
    expect(approved).toEqual({
      status: 0,
      stdout: `Approved ${CODE}: the next tools_load of mcp__memory__delete_entities by gemini-cli within 10 min loads it, once.\n`,
      stderr: [
        `An agent asks to load a high-risk tool (code ${CODE}):`,
        "  agent:   gemini-cli",
        "  tool:    mcp__memory__delete_entities",
        "  server:  memory",
        "  summary: Delete entities\uFFFD[2J from the graph",
        "  why it is high risk: MCP destructiveHint=true (untrusted hint)",
        "  the code expires in 10 min",
        ""
      ].join("\n")
    })
    expect(JSON.parse(fs.readFileSync(file, "utf8")).approvals[0].status).toBe("approved")
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })
})
