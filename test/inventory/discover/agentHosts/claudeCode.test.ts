import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree, type Tree } from "../../../../bench/hostGenerators.js"
import type { AgentHostItem, AgentHostsInventory } from "../../../../src/inventory/domain/agentHosts.js"
import { claudeManagedDir } from "../../../../src/inventory/discover/agentHosts/claudeCode.js"
import { renderAgentHostsMarkdown, summarizeAgentHosts } from "../../../../src/inventory/render/agentHosts.js"

const CANARY = "sk-CANARYcanaryCANARY0123456789"

/** `[kind, scope, name, enabled, shadowedBy]` of one host's items, in inventory order. */
const rows = (inventory: AgentHostsInventory, kind: AgentHostItem["kind"], host = "claude-code") =>
  inventory.items
    .filter((item) => item.host === host && item.kind === kind)
    .map((item) => [item.scope, item.name, item.enabled, item.shadowedBy] as const)

const plugin = (id: string, version: string) => `/home/u/.claude/plugins/cache/mkt/${id}/${version}`

const precedenceTree: Tree = {
  "etc/claude-code/.claude/agents/reviewer.md": markdown({ name: "reviewer", description: "managed" }),
  "work/proj/.claude/agents/reviewer.md": markdown({ name: "reviewer", description: "project" }),
  "work/.claude/agents/reviewer.md": markdown({ name: "reviewer", description: "parent project" }),
  "work/.claude/agents/parent-only.md": markdown({ name: "parent-only", description: "parent project" }),
  "home/u/.claude/agents/reviewer.md": markdown({ name: "reviewer", description: "user" }),
  "home/u/.claude/agents/nested/deep/planner.md": markdown({ name: "planner", description: "in a subfolder" }),
  "home/u/.claude/agents/no-frontmatter.md": "You are a helper.\n",
  "home/u/.claude/agents/broken.md": "---\nname: broken\ndescription: d\ntools: [Read\n---\n",
  "home/u/.claude/agents/odd.md": "---\nname: odd\ndescription: odd fields\ntools: 42\nmax_turns: 7\nbackground: true\n---\n",
  "home/u/.claude/skills/review/SKILL.md": markdown({ name: "review", description: "user review" }),
  "home/u/.claude/skills/helpers/notes.txt": "not a skill\n",
  "work/proj/.claude/skills/review/SKILL.md": markdown({ name: "review", description: "project review" }),
  "work/proj/.claude/skills/lint/SKILL.md": "---\ndescription: Lints\nallowed-tools: Read Grep Bash(npm run lint:*)\n---\n",
  "work/proj/.claude/skills/lint/scripts/run.sh": "#!/bin/sh\n",
  "home/u/.claude/commands/lint.md": markdown({ description: "legacy lint command", "argument-hint": "[path]" }),
  "home/u/.claude/commands/ship.md": "Ship it: run every check.\n\nMore text.\n",
  "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "sp@mkt": true } }),
  "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
    version: 2,
    plugins: { "sp@mkt": [{ scope: "user", installPath: plugin("sp", "2.0.0"), version: "2.0.0" }] }
  }),
  "home/u/.claude/plugins/known_marketplaces.json": JSON.stringify({ mkt: { installLocation: "/home/u/.claude/plugins/marketplaces/mkt" } }),
  "home/u/.claude/plugins/marketplaces/mkt/.claude-plugin/marketplace.json": "{}",
  [`${plugin("sp", "2.0.0").slice(1)}/agents/reviewer.md`]: markdown({ name: "reviewer", description: "plugin" }),
  [`${plugin("sp", "2.0.0").slice(1)}/agents/plugin-only.md`]: markdown({ name: "plugin-only", description: "plugin", tools: "Read" }),
  [`${plugin("sp", "2.0.0").slice(1)}/skills/review/SKILL.md`]: markdown({ name: "review", description: "plugin review" }),
  [`${plugin("sp", "2.0.0").slice(1)}/skills/review/agents/helper.md`]: markdown({ name: "reviewer", description: "nested in a skill" }),
  [`${plugin("sp", "2.0.0").slice(1)}/commands/review.md`]: markdown({ description: "plugin command" }),
  [`${plugin("sp", "1.0.0").slice(1)}/agents/stale.md`]: markdown({ name: "stale", description: "old version" })
}

describe("Claude Code reader: precedence and shadowing", () => {
  it.effect("agents: managed > project (nearest first) > user; plugin agents (`<plugin>:<name>`) and nested ones never compete with them", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(precedenceTree)
      const id = (scope: string, path: string) => `claude-code:agent:${scope}:${path}`
      const managed = id("managed", "/etc/claude-code/.claude/agents/reviewer.md")
      expect(rows(inventory, "agent")).toEqual([
        ["managed", "reviewer", true, null],
        ["project", "reviewer", true, managed],
        ["project", "parent-only", true, null],
        ["project", "reviewer", true, managed],
        ["user", "broken", true, null],
        ["user", "odd", true, null],
        ["user", "reviewer", true, managed],
        ["user", "planner", true, null],
        ["plugin", "plugin-only", true, null],
        ["plugin", "reviewer", true, null],
        ["plugin", "reviewer", true, null]
      ])
      const agents = inventory.items.filter((item) => item.kind === "agent")
      expect(agents.map((item) => item.kind === "agent" && [item.name, item.source, item.path])).toEqual([
        ["reviewer", "local", "/etc/claude-code/.claude/agents/reviewer.md"],
        ["reviewer", "local", "/work/proj/.claude/agents/reviewer.md"],
        ["parent-only", "local", "/work/.claude/agents/parent-only.md"],
        ["reviewer", "local", "/work/.claude/agents/reviewer.md"],
        ["broken", "local", "/home/u/.claude/agents/broken.md"],
        ["odd", "local", "/home/u/.claude/agents/odd.md"],
        ["reviewer", "local", "/home/u/.claude/agents/reviewer.md"],
        ["planner", "local", "/home/u/.claude/agents/nested/deep/planner.md"],
        ["plugin-only", "plugin-root", `${plugin("sp", "2.0.0")}/agents/plugin-only.md`],
        ["reviewer", "plugin-root", `${plugin("sp", "2.0.0")}/agents/reviewer.md`],
        ["reviewer", "plugin-nested", `${plugin("sp", "2.0.0")}/skills/review/agents/helper.md`]
      ])
      const odd = agents.find((item) => item.name === "odd")
      expect(odd?.kind === "agent" && [odd.tools, odd.maxTurns, odd.background]).toEqual([null, 7, true])
      // Claude Code quotes `[Read` on its second reading: the agent loads with that one tool.
      const broken = agents.find((item) => item.name === "broken")
      expect(broken?.kind === "agent" && broken.tools).toEqual(["[Read"])
      expect(inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/claude-code").map((diagnostic) => [diagnostic.path, diagnostic.line, diagnostic.message])).toEqual([
        [
          "/home/u/.claude/agents/broken.md",
          5,
          "invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]; Claude Code reads it after quoting the values of its top-level `key: value` lines"
        ],
        ["/home/u/.claude/agents/no-frontmatter.md", null, "no `name` string in the frontmatter: Claude Code reads the file as a reference document, not an agent"],
        ["/home/u/.claude/agents/odd.md", null, "field `tools` is a number, not a list or a comma-separated string; treated as absent"]
      ])
    }))

  it.effect("skills: user > project, plugin skills namespaced; a skill shadows a command of its name", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(precedenceTree)
      const userReview = "claude-code:skill:user:/home/u/.claude/skills/review/SKILL.md"
      const projectLint = "claude-code:skill:project:/work/proj/.claude/skills/lint/SKILL.md"
      expect(rows(inventory, "skill")).toEqual([
        ["project", "lint", true, null],
        ["project", "review", true, userReview],
        ["user", "review", true, null],
        ["plugin", "review", true, null]
      ])
      expect(rows(inventory, "command")).toEqual([
        ["user", "lint", true, projectLint],
        ["user", "ship", true, null],
        ["plugin", "review", true, `claude-code:skill:plugin:${plugin("sp", "2.0.0")}/skills/review/SKILL.md`]
      ])
      const lint = inventory.items.find((item) => item.id === projectLint)
      expect(lint?.kind === "skill" && [lint.allowedTools, lint.hasScripts, lint.description]).toEqual([["Read", "Grep", "Bash(npm run lint:*)"], true, "Lints"])
      const ship = inventory.items.find((item) => item.kind === "command" && item.name === "ship")
      expect(ship?.kind === "command" && [ship.description, ship.argumentHint]).toEqual(["Ship it: run every check.", null])
      const legacy = inventory.items.find((item) => item.kind === "command" && item.name === "lint")
      expect(legacy?.kind === "command" && legacy.argumentHint).toBe("[path]")
    }))

  it.effect("only the installed plugin version counts: the stale one is an inactive root, its items absent", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(precedenceTree)
      expect(inventory.items.some((item) => item.name === "stale")).toBe(false)
      const roots = inventory.hosts.find((host) => host.host === "claude-code")!.roots
      expect(roots.filter((root) => root.path.includes("/plugins/")).map((root) => [root.path, root.status])).toEqual([
        ["/home/u/.claude/plugins/installed_plugins.json", "ok"],
        ["/home/u/.claude/plugins/known_marketplaces.json", "ok"],
        ["/home/u/.claude/plugins/marketplaces/mkt", "ok"],
        [plugin("sp", "2.0.0"), "ok"],
        ["/home/u/.claude/plugins/cache", "ok"],
        [plugin("sp", "1.0.0"), "inactive"]
      ])
      expect(rows(inventory, "plugin")).toEqual([["user", "sp", true, null]])
    }))
})

const pluginTree = (settings: Record<string, unknown>, extra: Tree = {}): Tree => ({
  "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "on@mkt": true, "off@mkt": true, "ghost@mkt": true } }),
  "work/proj/.claude/settings.json": JSON.stringify(settings),
  "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
    version: 2,
    plugins: {
      "on@mkt": [{ scope: "user", installPath: plugin("on", "1.0.0"), version: "1.0.0" }],
      "off@mkt": [{ scope: "user", installPath: plugin("off", "3.1.0"), version: "3.1.0" }],
      "never@mkt": [{ scope: "user", installPath: plugin("never", "1.0.0"), version: "1.0.0" }],
      "elsewhere@other": [{ scope: "project", projectPath: "/work/other", installPath: "/home/u/.claude/plugins/cache/other/elsewhere/0.1.0", version: "0.1.0" }],
      "gone@mkt": [{ scope: "user", installPath: plugin("gone", "9.9.9"), version: "9.9.9" }]
    }
  }),
  "home/u/.claude/plugins/known_marketplaces.json": JSON.stringify({ mkt: { installLocation: "/home/u/.claude/plugins/marketplaces/mkt" } }),
  [`${plugin("on", "1.0.0").slice(1)}/agents/a.md`]: markdown({ name: "on-agent" }),
  [`${plugin("off", "3.1.0").slice(1)}/agents/b.md`]: markdown({ name: "off-agent" }),
  [`${plugin("off", "3.1.0").slice(1)}/.mcp.json`]: JSON.stringify({ mcpServers: { offsrv: { command: "off-mcp" } } }),
  [`${plugin("never", "1.0.0").slice(1)}/skills/s/SKILL.md`]: markdown({ name: "never-skill" }),
  "home/u/.claude/plugins/cache/other/elsewhere/0.1.0/commands/c.md": "Elsewhere command\n",
  ...extra
})

describe("Claude Code reader: plugins", () => {
  it.effect("enabledPlugins: project settings override user; disabled plugins' items are listed but not enabled", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(pluginTree({ enabledPlugins: { "off@mkt": false } }))
      expect(inventory.items.filter((item) => item.host === "claude-code").map((item) => [item.kind, item.name, item.enabled, item.disabledReason])).toEqual([
        ["plugin", "on", true, null],
        ["agent", "on-agent", true, null],
        ["plugin", "off", false, "disabled by enabledPlugins in /work/proj/.claude/settings.json"],
        ["agent", "off-agent", false, "plugin disabled by enabledPlugins in /work/proj/.claude/settings.json"],
        ["plugin", "never", false, "not enabled in any settings file (enabledPlugins)"],
        ["skill", "never-skill", false, "plugin not enabled in any settings file (enabledPlugins)"],
        ["plugin", "elsewhere", false, "installed for another project (/work/other)"],
        ["command", "c", false, "plugin installed for another project (/work/other)"],
        ["plugin", "gone", false, "not enabled in any settings file (enabledPlugins)"],
        ["mcpServer", "offsrv", false, "plugin disabled by enabledPlugins in /work/proj/.claude/settings.json"]
      ])
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.message])).toEqual([
        ["/home/u/.claude/plugins/installed_plugins.json", "plugin elsewhere@other: marketplace other is not in known_marketplaces.json"],
        ["/home/u/.claude/plugins/installed_plugins.json", `plugin gone@mkt is installed at ${plugin("gone", "9.9.9")}, which does not exist`],
        ["/home/u/.claude/settings.json", "plugin ghost@mkt is enabled but not installed"]
      ])
    }))

  it.effect("local settings win over project settings, managed over all", () =>
    Effect.gen(function* () {
      const local = yield* scanTree(pluginTree({ enabledPlugins: { "off@mkt": false } }, {
        "work/proj/.claude/settings.local.json": JSON.stringify({ enabledPlugins: { "off@mkt": true } })
      }))
      expect(rows(local.inventory, "plugin").slice(0, 2)).toEqual([["user", "on", true, null], ["user", "off", true, null]])
      const managed = yield* scanTree(pluginTree({}, {
        "etc/claude-code/managed-settings.json": JSON.stringify({ enabledPlugins: { "on@mkt": false } })
      }))
      expect(rows(managed.inventory, "plugin").slice(0, 2)).toEqual([["user", "on", false, null], ["user", "off", true, null]])
    }))

  it.effect("installed_plugins.json v1 (one entry per plugin) is read too", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "v1@mkt": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({ version: 1, plugins: { "v1@mkt": { version: "0.3.0", installPath: plugin("v1", "0.3.0") } } }),
        [`${plugin("v1", "0.3.0").slice(1)}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "v1", mcpServers: { inline: { command: "inline-mcp" } }, agents: ["./extra/x.md", "../../../../../../etc/passwd"] }),
        [`${plugin("v1", "0.3.0").slice(1)}/extra/x.md`]: markdown({ name: "extra-agent" })
      })
      expect(inventory.items.map((item) => [item.kind, item.scope, item.name, item.enabled, item.plugin])).toEqual([
        ["plugin", "user", "v1", true, "v1@mkt"],
        ["agent", "plugin", "extra-agent", true, "v1@mkt"],
        ["mcpServer", "plugin", "inline", true, "v1@mkt"]
      ])
      expect(inventory.diagnostics.map((diagnostic) => diagnostic.message)).toEqual(["path ../../../../../../etc/passwd points outside the plugin; ignored"])
    }))
})

const mcpTree: Tree = {
  "home/u/.claude.json": JSON.stringify({
    mcpServers: {
      shared: { command: "user-shared" },
      notion: { command: "npx", args: ["-y", "@notionhq/notion-mcp-server"], env: { NOTION_API_KEY: CANARY } }
    },
    projects: {
      "/work/proj": { mcpServers: { shared: { type: "http", url: `https://mcp.example.com/v1?token=${CANARY}`, headers: { Authorization: `Bearer ${CANARY}` } } } },
      "/work/other": { mcpServers: { foreign: { command: "x" } } }
    }
  }),
  "work/proj/.mcp.json": JSON.stringify({
    mcpServers: {
      shared: { command: "project-shared" },
      github: { command: "docker", args: ["run", "-e", `GITHUB_TOKEN=${CANARY}`, "--api-key", CANARY, "ghcr.io/github/github-mcp-server"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH_PAT}" } },
      off: { command: "off-server" }
    }
  }),
  "work/proj/.claude/settings.json": JSON.stringify({
    enabledPlugins: { "mcp@mkt": true },
    disabledMcpjsonServers: ["off"],
    mcpServers: { wrongplace: { command: "ignored", env: { SECRET: CANARY } } }
  }),
  "work/proj/.claude/mcp.json": JSON.stringify({ mcpServers: { alsowrong: { command: "ignored-too", env: { K: CANARY } } } }),
  "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({ version: 2, plugins: { "mcp@mkt": [{ scope: "user", installPath: plugin("mcp", "1.0.0"), version: "1.0.0" }] } }),
  [`${plugin("mcp", "1.0.0").slice(1)}/.mcp.json`]: JSON.stringify({ shared: { command: "plugin-shared" }, pluginonly: { url: "https://p.example.com/sse", type: "sse", env: { P: CANARY } } }),
  "home/u/.claude/broken/.keep": "",
  "work/proj/.claude/agents/leak.md": markdown({ name: "leak", description: "fine" })
}

describe("Claude Code reader: MCP servers", () => {
  it.effect("local > project > user > plugin; settings.json and .claude/mcp.json are present but ignored", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(mcpTree)
      const local = "claude-code:mcpServer:local:/home/u/.claude.json#projects//work/proj/shared"
      expect(rows(inventory, "mcpServer")).toEqual([
        ["user", "shared", true, local],
        ["user", "notion", true, null],
        ["local", "shared", true, null],
        ["project", "shared", true, local],
        ["project", "github", true, null],
        ["project", "off", false, null],
        ["plugin", "shared", true, local],
        ["plugin", "pluginonly", true, null],
        ["project", "wrongplace", false, null],
        ["project", "alsowrong", false, null]
      ])
      const byName = (name: string, scope: string) => inventory.items.find((item) => item.kind === "mcpServer" && item.name === name && item.scope === scope)
      const github = byName("github", "project")
      expect(github?.kind === "mcpServer" && [github.transport, github.command, github.args, github.envVars]).toEqual([
        "stdio",
        "docker",
        ["run", "-e", "GITHUB_TOKEN=[redacted]", "--api-key", "[redacted]", "ghcr.io/github/github-mcp-server"],
        ["GH_PAT", "GITHUB_PERSONAL_ACCESS_TOKEN"]
      ])
      const remote = byName("shared", "local")
      expect(remote?.kind === "mcpServer" && [remote.transport, remote.url, remote.headerNames, remote.envVars]).toEqual([
        "http",
        "https://mcp.example.com/v1?token=[redacted]",
        ["Authorization"],
        []
      ])
      expect(byName("off", "project")?.disabledReason).toBe("disabled by disabledMcpjsonServers")
      expect(byName("wrongplace", "project")?.disabledReason).toBe("ignored by the host: Claude Code does not read mcpServers from settings files")
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.message])).toEqual([
        ["/work/proj/.claude/mcp.json", "MCP servers in this file are ignored by the host: Claude Code reads MCP servers from ~/.claude.json, .mcp.json at the project root, plugins and managed-mcp.json"],
        ["/work/proj/.claude/settings.json", "1 MCP server entry under mcpServers: ignored by the host: Claude Code does not read mcpServers from settings files"]
      ])
    }))

  it.effect("a managed-mcp.json takes exclusive control", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({ ...mcpTree, "etc/claude-code/managed-mcp.json": JSON.stringify({ mcpServers: { corp: { command: "corp-mcp" } } }) })
      const effective = inventory.items.filter((item) => item.kind === "mcpServer" && item.enabled && item.shadowedBy === null).map((item) => item.name)
      expect(effective).toEqual(["corp"])
      expect(inventory.items.find((item) => item.kind === "mcpServer" && item.name === "notion")?.disabledReason).toBe("managed-mcp.json takes exclusive control of MCP servers")
    }))

  it.effect("deniedMcpServers and a managed allowlist switch servers off", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        ...mcpTree,
        "etc/claude-code/managed-settings.json": JSON.stringify({
          allowedMcpServers: [{ serverName: "notion" }, { serverName: "github" }, { serverCommand: ["plugin-shared"] }],
          deniedMcpServers: [{ serverName: "github" }]
        })
      })
      const state = inventory.items
        .filter((item) => item.kind === "mcpServer" && item.disabledReason?.startsWith("ignored") !== true)
        .map((item) => [item.scope, item.name, item.enabled, item.disabledReason])
      expect(state).toEqual([
        ["user", "shared", false, "not in the managed allowedMcpServers"],
        ["user", "notion", true, null],
        ["local", "shared", false, "not in the managed allowedMcpServers"],
        ["project", "shared", false, "not in the managed allowedMcpServers"],
        ["project", "github", false, "denied by deniedMcpServers"],
        ["project", "off", false, "not in the managed allowedMcpServers"],
        ["plugin", "shared", true, null],
        ["plugin", "pluginonly", false, "not in the managed allowedMcpServers"]
      ])
    }))

  it.effect("a secret in an MCP env value, header, URL or arg appears nowhere: items, markdown, summary, diagnostics", () =>
    Effect.gen(function* () {
      const { inventory, watched } = yield* scanTree({
        ...mcpTree,
        // A malformed file with a secret in it: the diagnostic names the line only.
        "home/u/.claude/plugins/known_marketplaces.json": `{"mkt": {"token": "${CANARY}" ,,}}`
      })
      const outputs = [
        JSON.stringify(inventory),
        renderAgentHostsMarkdown(inventory),
        summarizeAgentHosts(inventory, 6144).join("\n"),
        JSON.stringify(watched)
      ]
      for (const output of outputs) expect(output).not.toContain("CANARY")
      expect(inventory.diagnostics.find((diagnostic) => diagnostic.path === "/home/u/.claude/plugins/known_marketplaces.json")).toMatchObject({
        line: 1,
        message: "invalid JSON"
      })
    }))
})

describe("Claude Code reader: locations", () => {
  it.effect("missing homes are recorded as missing roots; watched lists every file looked for", () =>
    Effect.gen(function* () {
      const { inventory, watched } = yield* scanTree({ "work/proj/README.md": "hi\n" })
      const host = inventory.hosts.find((report) => report.host === "claude-code")!
      expect(host.detected).toBe(false)
      expect(host.roots.map((root) => [root.path, root.role, root.status])).toEqual([
        ["/home/u/.claude/settings.json", "user settings", "missing"],
        ["/home/u/.claude/agents", "user agents", "missing"],
        ["/home/u/.claude/skills", "user skills", "missing"],
        ["/home/u/.claude/commands", "user commands", "missing"],
        ["/home/u/.claude/plugins/installed_plugins.json", "installed plugins", "missing"],
        ["/home/u/.claude/plugins/known_marketplaces.json", "known marketplaces", "missing"],
        ["/home/u/.claude/plugins/cache", "plugin cache", "missing"],
        ["/home/u/.claude.json", "user and local MCP servers (~/.claude.json)", "missing"]
      ])
      for (const path of ["/home/u/.claude.json", "/work/proj/.mcp.json", "/work/.mcp.json", "/work/proj/.claude", "/etc/claude-code/managed-mcp.json"]) {
        expect(watched).toContain(path)
      }
    }))

  it.effect("an unreadable directory is a recorded status, and the scan goes on", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(
        { "home/u/.claude/agents/a.md": markdown({ name: "a" }), "home/u/.claude/skills/s/SKILL.md": markdown({ name: "s" }) },
        {},
        (op, path) => op === "readDirectory" && path === "/home/u/.claude/agents"
      )
      const roots = inventory.hosts.find((report) => report.host === "claude-code")!.roots
      expect(roots.find((root) => root.path === "/home/u/.claude/agents")).toMatchObject({ status: "unreadable", reason: "PermissionDenied" })
      expect(rows(inventory, "skill")).toEqual([["user", "s", true, null]])
    }))

  it.effect("CLAUDE.md memory files of every scope are instructions", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/CLAUDE.md": "user memory\n",
        "work/CLAUDE.md": "parent\n",
        "work/proj/CLAUDE.md": "project\n",
        "work/proj/.claude/CLAUDE.md": "project dot\n",
        "work/proj/CLAUDE.local.md": "local\n"
      })
      expect(inventory.items.filter((item) => item.kind === "instructions").map((item) => [item.scope, item.path])).toEqual([
        ["user", "/home/u/.claude/CLAUDE.md"],
        ["project", "/work/proj/CLAUDE.md"],
        ["project", "/work/proj/.claude/CLAUDE.md"],
        ["local", "/work/proj/CLAUDE.local.md"],
        ["project", "/work/CLAUDE.md"]
      ])
    }))

  it.effect("CLAUDE_CONFIG_DIR moves the user directory and ~/.claude.json", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(
        {
          "cfg/agents/a.md": markdown({ name: "moved", description: "d" }),
          "cfg/.claude.json": JSON.stringify({ mcpServers: { m: { command: "m" } } }),
          "home/u/.claude/agents/b.md": markdown({ name: "not-read", description: "d" })
        },
        { env: { CLAUDE_CONFIG_DIR: "/cfg" } }
      )
      expect(inventory.items.filter((item) => item.host === "claude-code").map((item) => [item.kind, item.name, item.path])).toEqual([
        ["agent", "moved", "/cfg/agents/a.md"],
        ["mcpServer", "m", "/cfg/.claude.json"]
      ])
    }))

  it.effect("managed files are read from the OS's own place (macOS here), not another OS's", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(
        {
          "Library/Application Support/ClaudeCode/managed-mcp.json": JSON.stringify({ mcpServers: { mac: { command: "mac-mcp" } } }),
          "Library/Application Support/ClaudeCode/.claude/agents/corp.md": markdown({ name: "corp", description: "d" }),
          "etc/claude-code/managed-mcp.json": JSON.stringify({ mcpServers: { linux: { command: "linux-mcp" } } })
        },
        { os: "darwin" }
      )
      expect(inventory.items.map((item) => [item.kind, item.scope, item.name, item.path])).toEqual([
        ["agent", "managed", "corp", "/Library/Application Support/ClaudeCode/.claude/agents/corp.md"],
        ["mcpServer", "managed", "mac", "/Library/Application Support/ClaudeCode/managed-mcp.json"]
      ])
    }))

  it("the managed directory per OS", () => {
    const ctx = (os: "linux" | "darwin" | "win32") => os
    expect(claudeManagedDir(ctx("linux"))).toBe("/etc/claude-code")
    expect(claudeManagedDir(ctx("darwin"))).toBe("/Library/Application Support/ClaudeCode")
    expect(claudeManagedDir(ctx("win32"))).toBe("C:\\Program Files\\ClaudeCode")
  })

  it.effect("on Windows, the local-scope key of ~/.claude.json matches with forward slashes and any letter case", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(
        {
          "C:\\Users\\u\\.claude.json": JSON.stringify({
            mcpServers: { user: { command: "u.exe" } },
            projects: { "c:/Git/Proj": { mcpServers: { local: { command: "l.exe" } } } }
          })
        },
        { os: "win32", homedir: "C:\\Users\\u", cwd: "C:\\git\\proj" }
      )
      expect(inventory.items.map((item) => [item.scope, item.name, item.path, item.id])).toEqual([
        ["user", "user", "C:\\Users\\u\\.claude.json", "claude-code:mcpServer:user:C:\\Users\\u\\.claude.json#user"],
        ["local", "local", "C:\\Users\\u\\.claude.json", "claude-code:mcpServer:local:C:\\Users\\u\\.claude.json#projects/c:/Git/Proj/local"]
      ])
    }))
})
