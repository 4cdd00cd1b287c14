import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { markdown, scanTree } from "../../../bench/hostGenerators.js"
import { AgentHostsInventory } from "../../../src/inventory/domain/agentHosts.js"
import { exportClaudeV1, tildePath } from "../../../src/inventory/query/claudeV1.js"

const installPath = "/home/u/.claude/plugins/cache/claude-plugins-official/superpowers/4.0.3"

describe("export claude-v1", () => {
  it.effect("prints the seed's v1 schema, field for field, from what Claude Code really loads", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/agents/security-reviewer.md": markdown({
          name: "security-reviewer",
          description: "Review code proactively after auth/payment/secret changes.",
          tools: "Read, Grep, Glob",
          model: "opus",
          background: true,
          max_turns: 12
        }),
        "home/u/.claude/agents/notion-writer.md": "---\nname: notion-writer\ndescription: Writes pages to Notion\nmcpServers:\n  - notion\n---\n",
        "home/u/.claude/skills/deep-researcher/SKILL.md": markdown({
          name: "deep-researcher",
          description: "5-step methodology, >=20 sources, credibility scoring.",
          "allowed-tools": ["WebSearch", "WebFetch", "Read", "Write"]
        }),
        "home/u/.claude/commands/ship-check.md": markdown({
          description: "Pre-merge / pre-release validation gate with hard evidence",
          "argument-hint": "[optional: base branch, default=main]"
        }),
        "home/u/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["@notionhq/notion-mcp-server"], env: { NOTION_API_KEY: "secret" } } } }),
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "superpowers@claude-plugins-official": true, "context7@claude-plugins-official": false } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
          version: 2,
          plugins: {
            "superpowers@claude-plugins-official": [{ scope: "user", installPath, version: "4.0.3" }],
            "context7@claude-plugins-official": [{ scope: "user", installPath: "/home/u/.claude/plugins/cache/claude-plugins-official/context7/1.0.0", version: "1.0.0" }]
          }
        }),
        [`${installPath.slice(1)}/skills/brainstorming/SKILL.md`]: markdown({ name: "brainstorming", description: "Turn ideas into designs" })
      })
      const v1 = exportClaudeV1(inventory, { generatedAt: "2026-04-15T14:23:00.000Z", homedir: "/home/u" })
      expect(v1).toEqual({
        version: 1,
        generated_at: "2026-04-15T14:23:00.000Z",
        scanned_roots: [
          "~/.claude/settings.json",
          "~/.claude/agents",
          "~/.claude/skills",
          "~/.claude/commands",
          "~/.claude/plugins/installed_plugins.json",
          "~/.claude/plugins/cache/claude-plugins-official/superpowers/4.0.3",
          "~/.claude/plugins/cache",
          "~/.claude.json"
        ],
        agents: [
          {
            name: "notion-writer",
            path: "~/.claude/agents/notion-writer.md",
            model: null,
            tools: ["Agent", "Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "Skill", "TodoWrite", "WebFetch", "WebSearch", "Write"],
            background: false,
            max_turns: null,
            description: "Writes pages to Notion",
            agent_source: "local",
            mcpServers: ["notion"]
          },
          {
            name: "security-reviewer",
            path: "~/.claude/agents/security-reviewer.md",
            model: "opus",
            tools: ["Read", "Grep", "Glob"],
            background: true,
            max_turns: 12,
            description: "Review code proactively after auth/payment/secret changes.",
            agent_source: "local",
            mcpServers: null
          }
        ],
        skills: [
          {
            name: "deep-researcher",
            path: "~/.claude/skills/deep-researcher/SKILL.md",
            source: "local",
            description: "5-step methodology, >=20 sources, credibility scoring.",
            allowed_tools: ["WebSearch", "WebFetch", "Read", "Write"]
          },
          {
            name: "brainstorming",
            path: "~/.claude/plugins/cache/claude-plugins-official/superpowers/4.0.3/skills/brainstorming/SKILL.md",
            source: "plugin",
            description: "Turn ideas into designs",
            allowed_tools: []
          }
        ],
        commands: [
          {
            name: "ship-check",
            path: "~/.claude/commands/ship-check.md",
            description: "Pre-merge / pre-release validation gate with hard evidence",
            argument_hint: "[optional: base branch, default=main]"
          }
        ],
        mcp_servers: [{ name: "notion", command: "npx @notionhq/notion-mcp-server", env_vars: ["NOTION_API_KEY"] }],
        enabled_plugins: ["superpowers@claude-plugins-official"],
        orchestration_patterns: ["A-single", "B-parallel-explore", "C-orchestrator-worker", "D-pipeline", "E-agent-teams", "F-map-reduce"],
        model_tiers: { orchestrator: "opus", reviewer: "sonnet", research: "haiku" }
      })
      expect(Object.keys(v1)).toEqual([
        "version",
        "generated_at",
        "scanned_roots",
        "agents",
        "skills",
        "commands",
        "mcp_servers",
        "enabled_plugins",
        "orchestration_patterns",
        "model_tiers"
      ])
    }))

  it("writes the home directory as ~", () => {
    expect(tildePath("/home/u/.claude/agents/a.md", "/home/u")).toBe("~/.claude/agents/a.md")
    expect(tildePath("/home/u", "/home/u/")).toBe("~")
    expect(tildePath("/home/user2/x", "/home/u")).toBe("/home/user2/x")
    expect(tildePath("C:\\Users\\u\\.claude\\agents\\a.md", "C:\\Users\\u")).toBe("~/.claude/agents/a.md")
  })
})

describe("AgentHostsInventory schema", () => {
  it.effect("round-trips through JSON with the same Schema that wrote it (as tools.json embeds it)", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/agents/a.md": markdown({ name: "a", tools: "Read" }),
        "home/u/.claude/skills/s/SKILL.md": markdown({ name: "s" }),
        "home/u/.claude.json": JSON.stringify({ mcpServers: { m: { command: "m" } } }),
        "home/u/.claude/agents/bad.md": "---\n- x\n---\n"
      })
      const codec = Schema.parseJson(AgentHostsInventory)
      const json = yield* Schema.encode(codec)(inventory)
      const decoded = yield* Schema.decodeUnknown(codec)(json)
      expect(decoded).toEqual(inventory)
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(inventory)))
      expect(AgentHostsInventory.empty).toEqual(new AgentHostsInventory({ hosts: [], items: [], diagnostics: [] }))
    }))
})
