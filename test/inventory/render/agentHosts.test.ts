import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { claudeHome, markdown, scanTree } from "../../../bench/hostGenerators.js"
import { AgentHostsInventory } from "../../../src/inventory/domain/agentHosts.js"
import { renderAgentHostsMarkdown, summarizeAgentHosts } from "../../../src/inventory/render/agentHosts.js"
import { byteLength } from "../../../src/inventory/render/text.js"

const fixture = {
  "home/u/.claude/agents/rev.md": markdown({ name: "rev", description: "Reviews | pipes", tools: "Read, Bash(git diff:*)", model: "sonnet" }),
  "work/proj/.claude/agents/rev.md": markdown({ name: "rev", description: "project" }),
  "home/u/.claude/skills/s/SKILL.md": markdown({ name: "s", description: "Skill" }),
  "home/u/.claude/settings.json": JSON.stringify({ mcpServers: { bad: { command: "x" } } }),
  "home/u/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["n"], env: { K: "v" } } } }),
  "home/u/.codex/config.toml": "[mcp_servers.gh]\ncommand = \"gh\"\n"
}

const totalBytes = (lines: ReadonlyArray<string>) => lines.reduce((sum, line) => sum + byteLength(line) + 1, 0)

describe("agent hosts rendering", () => {
  it.effect("tools.md section: a part per host with its locations, a table per kind and its diagnostics", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(fixture)
      expect(renderAgentHostsMarkdown(inventory)).toBe(`## Agent hosts

### Claude Code

5 items, 3 loaded by the host; 1 diagnostic.

| location | reads | status |
|---|---|---|
| \`/home/u/.claude/settings.json\` | user settings | ok |
| \`/work/proj/.claude/agents\` | project agents | ok |
| \`/work/proj/.claude/skills\` | project skills | missing |
| \`/work/proj/.claude/commands\` | project commands | missing |
| \`/home/u/.claude/agents\` | user agents | ok |
| \`/home/u/.claude/skills\` | user skills | ok |
| \`/home/u/.claude/commands\` | user commands | missing |
| \`/home/u/.claude/plugins/installed_plugins.json\` | installed plugins | missing |
| \`/home/u/.claude/plugins/known_marketplaces.json\` | known marketplaces | missing |
| \`/home/u/.claude/plugins/cache\` | plugin cache | missing |
| \`/home/u/.claude.json\` | user and local MCP servers (~/.claude.json) | ok |

#### Agents (2)

| name | scope | state | model | tools | source | path |
|---|---|---|---|---|---|---|
| rev | project | loaded |  | (inherits all) | local | \`/work/proj/.claude/agents/rev.md\` |
| rev | user | shadowed by project rev | sonnet | Read, Bash | local | \`/home/u/.claude/agents/rev.md\` |

#### Skills (1)

| name | scope | state | description | path |
|---|---|---|---|---|
| s | user | loaded | Skill | \`/home/u/.claude/skills/s/SKILL.md\` |

#### MCP servers (2)

| name | scope | state | transport | command / url | env vars | path |
|---|---|---|---|---|---|---|
| notion | user | loaded | stdio | \`npx n\` | K | \`/home/u/.claude.json\` |
| bad | user | off: ignored by the host: Claude Code does not read mcpServers from settings files | stdio | \`x\` |  | \`/home/u/.claude/settings.json\` |

#### Diagnostics

- \`/home/u/.claude/settings.json\`: 1 MCP server entry under mcpServers: ignored by the host: Claude Code does not read mcpServers from settings files

### Codex

1 item, 1 loaded by the host; 0 diagnostics.

| location | reads | status |
|---|---|---|
| \`/home/u/.codex/config.toml\` | user config | ok |
| \`/home/u/.agents/skills\` | user skills | missing |
| \`/home/u/.codex/skills\` | user skills (CODEX_HOME) | missing |
| \`/etc/codex/skills\` | admin skills | missing |
| \`/home/u/.codex/agents\` | user agents | missing |
| \`/home/u/.codex/prompts\` | user prompts | missing |

#### MCP servers (1)

| name | scope | state | transport | command / url | env vars | path |
|---|---|---|---|---|---|---|
| gh | user | loaded | stdio | \`gh\` |  | \`/home/u/.codex/config.toml\` |

### Cursor

Not found (looked in 1 location).

### Gemini CLI

Not found (looked in 6 locations).

### opencode

Not found (looked in 6 locations).
`)
    }))

  it.effect("summary: counts and loaded names per host, then the hosts not found", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(fixture)
      expect(summarizeAgentHosts(inventory, 6144)).toEqual([
        "- Claude Code: 1/2 agents, 1 skill, 1/2 MCP servers loaded; 1 diagnostic; 1 MCP entry the host ignores",
        "  - always-on: ~10 tok + 1 item unknown in every session; largest: rev ~8 tok, s ~2 tok",
        "  - agents: rev",
        "  - skills: s",
        "  - MCP servers: notion",
        "- Codex: 1 MCP server loaded",
        "  - always-on: ~0 tok + 1 item unknown in every session",
        "  - MCP servers: gh",
        "- Not found: Cursor, Gemini CLI, opencode"
      ])
      expect(summarizeAgentHosts(inventory, 200)).toEqual([
        "- Claude Code: 1/2 agents, 1 skill, 1/2 MCP servers loaded; 1 diagnostic; 1 MCP entry the host ignores",
        "- Codex: 1 MCP server loaded",
        "- Not found: Cursor, Gemini CLI, opencode"
      ])
      expect(summarizeAgentHosts(inventory, 120)).toEqual(["… and 2 more hosts"])
      expect(summarizeAgentHosts(inventory, 5)).toEqual([])
      expect(summarizeAgentHosts(AgentHostsInventory.empty, 100)).toEqual(["- No agent host scanned."])
    }))

  it.effect("summary of thousands of items stays within its cap with '… and N more'", () =>
    Effect.gen(function* () {
      const { tree } = claudeHome(3000)
      const { inventory } = yield* scanTree(Object.fromEntries(Object.entries(tree).map(([path, content]) => [`home/u/${path}`, content])))
      for (const cap of [1536, 600, 300]) {
        const lines = summarizeAgentHosts(inventory, cap)
        expect(totalBytes(lines)).toBeLessThanOrEqual(cap)
        // Claude Code counts its command files among its skills.
        expect(lines[0]).toBe("- Claude Code: 1000 agents, 2000 skills (1000 from commands/) loaded")
      }
      expect(summarizeAgentHosts(inventory, 1536).slice(1, 3)).toEqual([
        "  - always-on: ~24.3k tok in every session; largest: agent-1611 ~29 tok, agent-2154 ~29 tok, agent-1284 ~28 tok",
        "  - agents: agent-0, agent-1002, agent-1005, agent-1008, agent-1011, agent-1014, agent-1017, agent-102 … and 992 more"
      ])
    }))

  it.effect("Claude Code counts command files among its skills, as `claude plugin details` does (issue 12, finding 3)", () =>
    Effect.gen(function* () {
      const plugin = "/home/u/.claude/plugins/cache/claude-code-plugins/pr-review-toolkit/1.0.0"
      const { inventory } = yield* scanTree({
        "home/u/.claude/skills/lint/SKILL.md": markdown({ name: "lint", description: "Lints" }),
        "home/u/.claude/commands/lint.md": markdown({ description: "the legacy lint command, shadowed by the skill" }),
        "home/u/.claude/commands/ship.md": markdown({ description: "Ships" }),
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "pr-review-toolkit@claude-code-plugins": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
          version: 2,
          plugins: { "pr-review-toolkit@claude-code-plugins": [{ scope: "user", installPath: plugin, version: "1.0.0" }] }
        }),
        [`${plugin.slice(1)}/commands/review-pr.md`]: markdown({ description: "Reviews a pull request" })
      })
      expect(summarizeAgentHosts(inventory, 6144).slice(0, 4)).toEqual([
        "- Claude Code: 3/4 skills (2 from commands/), 1 plugin loaded",
        "  - always-on: ~19 tok in every session; largest: review-pr ~13 tok, lint ~3 tok, ship ~3 tok",
        "  - skills: lint, review-pr, ship",
        "  - plugins: pr-review-toolkit@claude-code-plugins"
      ])
      const md = renderAgentHostsMarkdown(inventory)
      expect(md.match(/^#### .*$/gm)?.slice(0, 3)).toEqual(["#### Skills (1)", "#### Skills from commands/ (3)", "#### Plugins (1)"])
      // The kind stays `command` in the items.
      expect(inventory.items.filter((item) => item.kind === "command").map((item) => item.name)).toEqual(["lint", "ship", "review-pr"])
    }))

  it.effect("untrusted names cannot break the markdown or the summary", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/agents/evil.md": markdown({ name: "evil | `x` <b>\u001b[31m", description: "a\nb" })
      })
      const md = renderAgentHostsMarkdown(inventory)
      expect(md).toContain("| evil \\| \\`x\\` &lt;b>\uFFFD[31m | user | loaded |")
      // The summary escapes names as tools.md does (it used to strip these characters instead).
      expect(summarizeAgentHosts(inventory, 6144)[1]).toBe("  - always-on: ~11 tok in every session; largest: evil \\| \\`x\\` &lt;b>\uFFFD[31m ~11 tok")
      expect(summarizeAgentHosts(inventory, 6144)[2]).toBe("  - agents: evil \\| \\`x\\` &lt;b>\uFFFD[31m")
    }))
})
