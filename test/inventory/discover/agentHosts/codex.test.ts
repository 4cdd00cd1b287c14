import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree, type Tree } from "../../../../bench/hostGenerators.js"
import type { AgentHostsInventory } from "../../../../src/inventory/domain/agentHosts.js"

const CANARY = "ghp_CANARYcanaryCANARYcanary0123"

const codexRows = (inventory: AgentHostsInventory) =>
  inventory.items.filter((item) => item.host === "codex").map((item) => [item.kind, item.scope, item.name, item.enabled, item.shadowedBy] as const)

const config = `
model = "gpt-5"

[projects."/work/proj"]
trust_level = "trusted"

[mcp_servers.github]
command = "github-mcp"
args = ["--stdio"]
env_vars = ["GITHUB_HOST"]
enabled_tools = ["search_issues", "get_issue"]
disabled_tools = ["delete_repo"]

[mcp_servers.github.env]
GITHUB_TOKEN = "${CANARY}"

[mcp_servers.docs]
url = "https://docs.example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
enabled = false

[mcp_servers.docs.http_headers]
X-Tenant = "${CANARY}"
`

const tree: Tree = {
  "home/u/.codex/config.toml": config,
  "work/proj/.git/HEAD": "ref: refs/heads/main\n",
  "work/proj/.codex/config.toml": `[mcp_servers.github]\ncommand = "project-github"\n`,
  "work/proj/sub/.agents/skills/review/SKILL.md": markdown({ name: "review", description: "nearest" }),
  "work/proj/.agents/skills/review/SKILL.md": markdown({ name: "review", description: "repo root" }),
  "home/u/.agents/skills/review/SKILL.md": markdown({ name: "review", description: "user" }),
  "home/u/.codex/skills/legacy/SKILL.md": markdown({ name: "legacy", description: "user codex home" }),
  "home/u/.codex/agents/explorer.toml": `name = "explorer"\ndescription = "Explores"\nmodel = "gpt-5-mini"\ndeveloper_instructions = "Read only"\n[mcp_servers.docs]\nurl = "https://x"\n`,
  "home/u/.codex/agents/broken.toml": `name = "broken\n`,
  "work/proj/.codex/agents/explorer.toml": `name = "explorer"\ndescription = "Project explorer"\n`,
  "home/u/.codex/prompts/ship.md": markdown({ description: "Ship it", "argument-hint": "[branch]" }),
  "home/u/.codex/AGENTS.md": "global\n",
  "home/u/.codex/AGENTS.override.md": "override\n",
  "work/proj/AGENTS.md": "repo\n",
  "work/proj/sub/AGENTS.md": "sub\n"
}

describe("Codex reader", () => {
  it.effect("config.toml MCP servers: enabled = false, tool lists, trusted project config wins, names only", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(tree, { cwd: "/work/proj/sub" })
      const servers = inventory.items.filter((item) => item.kind === "mcpServer" && item.host === "codex")
      expect(servers.map((item) => item.kind === "mcpServer" && [item.scope, item.name, item.enabled, item.disabledReason, item.shadowedBy, item.transport, item.envVars, item.headerNames, item.enabledTools, item.disabledTools])).toEqual([
        ["project", "github", true, null, null, "stdio", [], [], null, []],
        [
          "user",
          "github",
          true,
          null,
          "codex:mcpServer:project:/work/proj/.codex/config.toml#github",
          "stdio",
          ["GITHUB_HOST", "GITHUB_TOKEN"],
          [],
          ["search_issues", "get_issue"],
          ["delete_repo"]
        ],
        ["user", "docs", false, "enabled = false", null, "http", ["DOCS_TOKEN"], ["Authorization", "X-Tenant"], null, []]
      ])
      expect(JSON.stringify(inventory)).not.toContain("CANARY")
    }))

  it.effect("an untrusted project's config is listed but not loaded", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({ ...tree, "home/u/.codex/config.toml": config.replace('trust_level = "trusted"', 'trust_level = "untrusted"') }, { cwd: "/work/proj/sub" })
      const github = inventory.items.filter((item) => item.kind === "mcpServer" && item.name === "github")
      expect(github.map((item) => [item.scope, item.enabled, item.disabledReason, item.shadowedBy])).toEqual([
        ["project", false, "the project is not trusted in config.toml, so Codex ignores its config", "codex:mcpServer:user:/home/u/.codex/config.toml#github"],
        ["user", true, null, null]
      ])
    }))

  it.effect("skills: repo (nearest first) > user > admin; agents project > user; prompts; AGENTS.md override", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(tree, { cwd: "/work/proj/sub" })
      const nearest = "codex:skill:project:/work/proj/sub/.agents/skills/review/SKILL.md"
      const projectExplorer = "codex:agent:project:/work/proj/.codex/agents/explorer.toml"
      expect(codexRows(inventory).filter(([kind]) => kind !== "mcpServer")).toEqual([
        ["skill", "project", "review", true, null],
        ["skill", "project", "review", true, nearest],
        ["skill", "user", "review", true, nearest],
        ["skill", "user", "legacy", true, null],
        ["agent", "project", "explorer", true, null],
        ["agent", "user", "explorer", true, projectExplorer],
        ["command", "user", "ship", true, null],
        ["instructions", "user", "AGENTS.override.md", true, null],
        ["instructions", "user", "AGENTS.md", true, "codex:instructions:user:/home/u/.codex/AGENTS.override.md"],
        ["instructions", "project", "AGENTS.md", true, null],
        ["instructions", "project", "AGENTS.md", true, null]
      ])
      const explorer = inventory.items.find((item) => item.kind === "agent" && item.scope === "user")
      expect(explorer?.kind === "agent" && [explorer.description, explorer.model, explorer.mcpServers, explorer.tools]).toEqual(["Explores", "gpt-5-mini", ["docs"], null])
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.line, diagnostic.message])).toEqual([
        ["/home/u/.codex/agents/broken.toml", 1, "invalid TOML at column 15"]
      ])
      expect(inventory.items.filter((item) => item.kind === "instructions" && item.host === "codex").map((item) => item.path)).toEqual([
        "/home/u/.codex/AGENTS.override.md",
        "/home/u/.codex/AGENTS.md",
        "/work/proj/AGENTS.md",
        "/work/proj/sub/AGENTS.md"
      ])
    }))

  it.effect("CODEX_HOME moves the config; a TOML error is a diagnostic with its line, never its text", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(
        { "ch/config.toml": `[mcp_servers.a]\ncommand = "a"\n\n[mcp_servers.b\nenv = { K = "${CANARY}" }\n` },
        { env: { CODEX_HOME: "/ch" } }
      )
      const host = inventory.hosts.find((report) => report.host === "codex")!
      expect(host.roots[0]).toMatchObject({ path: "/ch/config.toml", status: "invalid", reason: "invalid TOML at column 15" })
      expect(inventory.diagnostics).toHaveLength(1)
      expect(inventory.diagnostics[0]).toMatchObject({ path: "/ch/config.toml", line: 4, message: "invalid TOML at column 15" })
      expect(JSON.stringify(inventory)).not.toContain("CANARY")
    }))
})
