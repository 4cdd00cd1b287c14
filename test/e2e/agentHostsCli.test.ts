import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const SECRET = "ntn_SecretCanaryValue12345"

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

describe("the built CLI on a fake Claude Code home", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let project: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-hosts-e2e-")
    const home = path.join(temp.dir, "home")
    project = path.join(temp.dir, "project")
    write(path.join(home, ".claude", "agents", "shell-runner.md"), "---\nname: shell-runner\ndescription: Runs shell commands\ntools: Bash, Read\nmodel: sonnet\nbackground: true\n---\nBody\n")
    write(path.join(home, ".claude", "agents", "reader.md"), "---\nname: reader\ndescription: Reads code for review\ntools: [Read, Grep]\nmodel: sonnet\n---\n")
    write(path.join(project, ".claude", "agents", "reader.md"), "---\nname: reader\ndescription: Project reader\ntools: Read\nmodel: haiku\n---\n")
    write(path.join(home, ".claude", "skills", "review-helper", "SKILL.md"), "---\nname: review-helper\ndescription: Helps review pull requests\nallowed-tools: Read, Bash(git diff:*)\n---\n")
    // opencode is there too (its global config), so it loads the same ~/.claude/skills file.
    write(path.join(home, ".config", "opencode", "opencode.json"), "{}\n")
    write(path.join(home, ".claude.json"), JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["@notionhq/notion-mcp-server"], env: { NOTION_API_KEY: SECRET } } } }))
    write(path.join(home, ".claude", "settings.json"), JSON.stringify({ mcpServers: { ignored: { command: "x" } } }))
    fs.mkdirSync(path.join(temp.dir, "bin"))
    env = { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: path.join(temp.dir, "data") }
    const scan = runCli(["scan", "--no-probes", "--quiet"], env, project)
    expect(scan.stderr).toBe("")
    expect(scan.status).toBe(0)
  })
  afterAll(() => temp.remove())

  it("answers the seed's recipes the same through query and through jq on export claude-v1", () => {
    const exported = runCli(["export", "claude-v1"], env, project)
    expect(exported.status).toBe(0)
    const jq = (filter: string) =>
      execFileSync("jq", ["-r", filter], { input: exported.stdout, encoding: "utf8" }).split("\n").filter((line) => line !== "").sort()
    // `--json` puts the list under the query's name (`{"stale": false, "staleReason": null, "agents": [...]}`).
    const query = (args: ReadonlyArray<string>) =>
      (JSON.parse(runCli(["query", ...args, "--json"], env, project).stdout) as Record<string, Array<{ name: string }>>)[args[0]!]!.map((item) => item.name).sort()

    expect(query(["agents", "--tool", "Bash"])).toEqual(["shell-runner"])
    expect(jq('.agents[] | select(.tools[] == "Bash") | .name')).toEqual(["shell-runner"])
    expect(query(["agents", "--model", "sonnet", "--read-only"])).toEqual([])
    expect(jq('.agents[] | select(.model == "sonnet") | select(.tools | index("Bash") | not) | select(.tools | index("Write") | not) | select(.tools | index("Edit") | not) | .name')).toEqual([])
    expect(query(["agents", "--background"])).toEqual(["shell-runner"])
    expect(jq(".agents[] | select(.background == true) | .name")).toEqual(["shell-runner"])
    expect(query(["skills", "--host", "claude-code", "--keyword", "review"])).toEqual(["review-helper"])
    expect(jq('.skills[] | select(.description | test("review"; "i")) | .name')).toEqual(["review-helper"])
    expect(query(["mcp"])).toEqual(["notion"])
    expect(jq(".mcp_servers[].name")).toEqual(["notion"])
  })

  it("lists a ~/.claude/skills skill for Claude Code and for opencode, linked by sameFileAs, and says so in the table (issue 12, finding 5)", () => {
    const skills = (JSON.parse(runCli(["query", "skills", "--json"], env, project).stdout) as { skills: Array<{ id: string; host: string; name: string; sameFileAs?: Array<string> }> }).skills
    expect(skills.map((skill) => [skill.host, skill.name, skill.sameFileAs])).toEqual([
      ["claude-code", "review-helper", [skills[1]!.id]],
      ["opencode", "review-helper", [skills[0]!.id]]
    ])
    const table = runCli(["query", "skills"], env, project).stdout.split("\n").filter((line) => line.includes("review-helper"))
    expect(table.map((line) => line.split(/\s{2,}/).slice(0, 6))).toEqual([
      ["review-helper", "claude-code", "user", "loaded", "opencode", "Helps review pull requests"],
      ["review-helper", "opencode", "user", "loaded", "claude-code", "Helps review pull requests"]
    ])
  })

  it("lets the project agent shadow the user agent of the same name", () => {
    const all = (JSON.parse(runCli(["query", "agents", "--all", "--json"], env, project).stdout) as { agents: Array<{ name: string; scope: string; shadowedBy: string | null; model: string }> }).agents
    const readers = all.filter((agent) => agent.name === "reader").map((agent) => [agent.scope, agent.model, agent.shadowedBy === null])
    expect(readers.sort()).toEqual([["project", "haiku", true], ["user", "sonnet", false]])
  })

  it("never writes an MCP env value", () => {
    for (const file of fs.readdirSync(env.PLUGIN_DATA!)) {
      expect(fs.readFileSync(path.join(env.PLUGIN_DATA!, file), "utf8")).not.toContain(SECRET)
    }
    expect(runCli(["export", "claude-v1"], env, project).stdout).not.toContain(SECRET)
    expect(runCli(["query", "mcp", "--json"], env, project).stdout).not.toContain(SECRET)
  })
})
