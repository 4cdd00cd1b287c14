import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as NodePath from "node:path"
import { markdown, scanTree, type Tree } from "../../bench/hostGenerators.js"
import type { AgentHostsInventory } from "../../src/inventory/domain/agentHosts.js"
import { filterAgents, filterMcpServers, filterPlugins, filterSkills } from "../../src/inventory/query/agentQueries.js"
import { exportClaudeV1 } from "../../src/inventory/query/claudeV1.js"

const JQ = "/usr/bin/jq"

/** The recipes of seed 001, verbatim. */
const RECIPES = {
  bash: `.agents[] | select(.tools[] == "Bash") | .name`,
  readOnlySonnet: `.agents[] | select(.model == "sonnet") | select(.tools | index("Bash") | not) | select(.tools | index("Write") | not) | select(.tools | index("Edit") | not) | .name`,
  background: `.agents[] | select(.background == true) | {name, model, tools}`,
  keyword: `.skills[] | select(.description | test($kw; "i")) | {name, source}`,
  mcpAndPlugins: `{mcp: .mcp_servers, plugins: .enabled_plugins}`
} as const

const plugin = "/home/u/.claude/plugins/cache/mkt/sp/2.0.0"
const off = "/home/u/.claude/plugins/cache/mkt/off/1.0.0"

/** A home where the seed's recipe (reading everything) and Claude Code would disagree. */
const tree: Tree = {
  "home/u/.claude/agents/inherits.md": markdown({ name: "inherits", description: "no tools field: inherits all", model: "sonnet" }),
  "home/u/.claude/agents/differ.md": markdown({ name: "differ", description: "git diff only", tools: "Read, Bash(git diff:*)", model: "sonnet" }),
  "home/u/.claude/agents/reader.md": markdown({ name: "reader", description: "read only", tools: ["Read", "Grep", "Glob"], model: "sonnet", background: true }),
  "home/u/.claude/agents/writer.md": markdown({ name: "writer", description: "writes", tools: "Read, Write", model: "sonnet" }),
  "home/u/.claude/agents/denied.md": markdown({ name: "denied", description: "inherits minus", disallowedTools: "Bash, Write, Edit", model: "sonnet", background: true }),
  "home/u/.claude/agents/opus-bash.md": markdown({ name: "opus-bash", description: "runs commands", tools: "Bash", model: "opus" }),
  "home/u/.claude/agents/shadowed.md": markdown({ name: "shadowed", description: "user copy", tools: "Read", model: "sonnet" }),
  "work/proj/.claude/agents/shadowed.md": markdown({ name: "shadowed", description: "project copy", tools: "Bash", model: "haiku" }),
  "home/u/.claude/agents/malformed.md": "---\nname: [\n---\n",
  "home/u/.claude/skills/code-review/SKILL.md": markdown({ name: "code-review", description: "Structured code REVIEW" }),
  "home/u/.claude/skills/notes/SKILL.md": markdown({ name: "notes", description: "Take notes" }),
  "home/u/.claude/skills/no-desc/SKILL.md": "---\nname: no-desc\n---\n",
  "home/u/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["@notionhq/notion-mcp-server"], env: { NOTION_API_KEY: "x" } } } }),
  "home/u/.claude/settings.json": JSON.stringify({
    enabledPlugins: { "sp@mkt": true, "off@mkt": false },
    mcpServers: { "settings-only": { command: "never-loaded" } }
  }),
  "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
    version: 2,
    plugins: {
      "sp@mkt": [{ scope: "user", installPath: plugin, version: "2.0.0" }],
      "off@mkt": [{ scope: "user", installPath: off, version: "1.0.0" }]
    }
  }),
  [`${plugin.slice(1)}/agents/plugin-bash.md`]: markdown({ name: "plugin-bash", tools: "Bash, Read", model: "sonnet" }),
  [`${plugin.slice(1)}/skills/review-helper/SKILL.md`]: markdown({ name: "review-helper", description: "Helps with review" }),
  [`${plugin.slice(1)}/skills/review-helper/agents/nested.md`]: markdown({ name: "nested", tools: "Read", model: "sonnet", background: true }),
  [`${plugin.slice(1)}/.mcp.json`]: JSON.stringify({ mcpServers: { pluginsrv: { command: "p" } } }),
  [`${off.slice(1)}/agents/off-bash.md`]: markdown({ name: "off-bash", tools: "Bash", model: "sonnet" }),
  [`${off.slice(1)}/skills/off-review/SKILL.md`]: markdown({ name: "off-review", description: "review, but disabled" }),
  "home/u/.claude/plugins/cache/mkt/sp/1.0.0/agents/stale-bash.md": markdown({ name: "stale-bash", tools: "Bash" })
}

const jq = (file: string, filter: string, args: ReadonlyArray<string> = []): ReadonlyArray<unknown> =>
  execFileSync(JQ, ["-c", ...args, filter, file], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown)

const withExport = <A>(inventory: AgentHostsInventory, use: (file: string) => A) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "tool-map-jq-" })
    const file = NodePath.join(dir, "tools-inventory.json")
    yield* fs.writeFileString(file, JSON.stringify(exportClaudeV1(inventory, { generatedAt: "2026-01-01T00:00:00.000Z", homedir: "/home/u" }), null, 2))
    return use(file)
  }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))

describe("seed 001 jq recipes on `export claude-v1` = the matching query", () => {
  it.effect("every recipe gives the same names as its query", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(tree)
      const claude = { host: "claude-code" } as const
      const queryNames = (items: ReadonlyArray<{ readonly name: string }>) => items.map((item) => item.name)
      yield* withExport(inventory, (file) => {
        // Which agents have Bash?  ⇔  query agents --host claude-code --tool Bash --json
        const bash = jq(file, RECIPES.bash)
        expect(bash).toEqual(queryNames(filterAgents(inventory, { ...claude, tool: "Bash" })))
        expect(bash).toEqual(["shadowed", "differ", "inherits", "opus-bash", "plugin-bash"])

        // Read-only sonnet reviewers  ⇔  query agents --host claude-code --model sonnet --read-only --json
        const readOnly = jq(file, RECIPES.readOnlySonnet)
        expect(readOnly).toEqual(queryNames(filterAgents(inventory, { ...claude, model: "sonnet", readOnly: true })))
        expect(readOnly).toEqual(["denied", "reader", "nested"])

        // Background-safe agents  ⇔  query agents --host claude-code --background --json
        const background = jq(file, RECIPES.background)
        const backgroundQuery = filterAgents(inventory, { ...claude, background: true })
        expect(background.map((entry) => (entry as { name: string }).name)).toEqual(queryNames(backgroundQuery))
        expect(background).toEqual([
          { name: "denied", model: "sonnet", tools: ["Agent", "Glob", "Grep", "NotebookEdit", "Read", "Skill", "TodoWrite", "WebFetch", "WebSearch"] },
          { name: "reader", model: "sonnet", tools: ["Read", "Grep", "Glob"] },
          { name: "nested", model: "sonnet", tools: ["Read"] }
        ])

        // Skills matching a keyword  ⇔  query skills --host claude-code --keyword review --json
        const keyword = jq(file, RECIPES.keyword, ["--arg", "kw", "review"])
        expect(keyword.map((entry) => (entry as { name: string }).name)).toEqual(queryNames(filterSkills(inventory, { ...claude, keyword: "review" })))
        expect(keyword).toEqual([
          { name: "code-review", source: "local" },
          { name: "review-helper", source: "plugin" }
        ])

        // MCP servers + enabled plugins  ⇔  query mcp / query plugins --host claude-code --json
        const [both] = jq(file, RECIPES.mcpAndPlugins) as ReadonlyArray<{ mcp: ReadonlyArray<{ name: string }>; plugins: ReadonlyArray<string> }>
        expect(both!.mcp.map((server) => server.name)).toEqual(queryNames(filterMcpServers(inventory, claude)))
        expect(both!.plugins).toEqual(filterPlugins(inventory, claude).map((item) => item.plugin))
        expect(both).toEqual({
          mcp: [
            { name: "notion", command: "npx @notionhq/notion-mcp-server", env_vars: ["NOTION_API_KEY"] },
            { name: "pluginsrv", command: "p", env_vars: [] }
          ],
          plugins: ["sp@mkt"]
        })
      })
    }))
})
