import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree, type Tree } from "../../../../bench/hostGenerators.js"
import type { AgentHostsInventory } from "../../../../src/inventory/domain/agentHosts.js"

const CANARY = "npm_CANARYcanaryCANARYcanary0123456789"

describe("opencode reader", () => {
  it.effect("JSONC with comments; project config over global; enabled false; agents and commands from config and markdown", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.config/opencode/opencode.jsonc": `{
          // global config
          "mcp": {
            "search": { "type": "remote", "url": "https://s.example.com/mcp", "headers": { "Authorization": "Bearer ${CANARY}" } },
            "fs": { "type": "local", "command": ["npx", "-y", "fs-mcp"], "environment": { "FS_TOKEN": "${CANARY}" }, "enabled": false },
          },
          /* block comment */
          "agent": { "reviewer": { "description": "Reviews", "model": "anthropic/claude-sonnet", "tools": { "write": false, "edit": false } } },
          "command": { "test": { "template": "Run tests", "description": "Runs the tests" } },
        }`,
        "work/proj/.git/HEAD": "ref\n",
        "work/proj/opencode.json": JSON.stringify({ mcp: { search: { type: "local", command: ["project-search"] } } }),
        "work/proj/.opencode/agent/reviewer.md": markdown({ description: "Project reviewer", tools: "read" }),
        "work/proj/.opencode/commands/ship.md": markdown({ description: "Ship" }),
        "home/u/.config/opencode/skills/notes/SKILL.md": markdown({ name: "notes", description: "Notes" }),
        "work/proj/.claude/skills/compat/SKILL.md": markdown({ name: "compat", description: "Claude-compatible" }),
        "home/u/.config/opencode/AGENTS.md": "global rules\n"
      })
      const items = inventory.items.filter((item) => item.host === "opencode")
      expect(items.map((item) => [item.kind, item.scope, item.name, item.enabled, item.shadowedBy])).toEqual([
        ["mcpServer", "user", "search", true, "opencode:mcpServer:project:/work/proj/opencode.json#mcp/search"],
        ["mcpServer", "user", "fs", false, null],
        ["agent", "user", "reviewer", true, "opencode:agent:project:/work/proj/.opencode/agent/reviewer.md"],
        ["command", "user", "test", true, null],
        ["mcpServer", "project", "search", true, null],
        ["command", "project", "ship", true, null],
        ["agent", "project", "reviewer", true, null],
        ["skill", "project", "compat", true, null],
        ["skill", "user", "notes", true, null],
        ["instructions", "user", "AGENTS.md", true, null]
      ])
      const fs = items.find((item) => item.name === "fs")
      expect(fs?.kind === "mcpServer" && [fs.transport, fs.command, fs.args, fs.envVars, fs.disabledReason]).toEqual(["stdio", "npx", ["-y", "fs-mcp"], ["FS_TOKEN"], "enabled: false"])
      const globalReviewer = items.find((item) => item.kind === "agent" && item.scope === "user")
      expect(globalReviewer?.kind === "agent" && [globalReviewer.tools, globalReviewer.disallowedTools, globalReviewer.model]).toEqual([null, ["write", "edit"], "anthropic/claude-sonnet"])
      expect(JSON.stringify(inventory)).not.toContain("CANARY")
    }))

  it.effect("a JSONC syntax error is a diagnostic with its line", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({ "home/u/.config/opencode/opencode.json": `{\n  "mcp": {\n    "a": { "type": "local" \n  }\n` })
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.line, diagnostic.message])).toEqual([
        ["/home/u/.config/opencode/opencode.json", 5, "invalid JSONC: CloseBraceExpected"]
      ])
    }))

  it.effect("skills (1.18.33): ~/.claude/skills and ~/.agents/skills, the same under each folder to the git root, skill(s)/ of the config folders; any depth; named by the `name` field only", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(SKILL_TREE, { cwd: "/work/proj/sub" })
      expect(skillRows(inventory)).toEqual([
        ["user", "hidden", true, null, "/home/u/.claude/skills/.hidden/SKILL.md"],
        ["user", "Bad_Name", true, null, "/home/u/.claude/skills/Bad_Name/SKILL.md"],
        ["user", "alpha", true, null, "/home/u/.claude/skills/alpha/SKILL.md"],
        ["user", "dup", true, "opencode:skill:user:/home/u/.config/opencode/skills/dup/SKILL.md", "/home/u/.claude/skills/dup/SKILL.md"],
        ["user", "other-name", true, null, "/home/u/.claude/skills/mismatch/SKILL.md"],
        ["user", "deep", true, null, "/home/u/.claude/skills/nested/deep/SKILL.md"],
        ["user", "nodesc", true, null, "/home/u/.claude/skills/nodesc/SKILL.md"],
        ["user", "dup", true, "opencode:skill:user:/home/u/.config/opencode/skills/dup/SKILL.md", "/home/u/.agents/skills/dup/SKILL.md"],
        ["project", "nearer", true, null, "/work/proj/sub/.claude/skills/nearer/SKILL.md"],
        ["project", "pc", true, null, "/work/proj/.claude/skills/pc/SKILL.md"],
        ["project", "pa", true, null, "/work/proj/.agents/skills/pa/SKILL.md"],
        ["user", "single", true, null, "/home/u/.config/opencode/skill/single/SKILL.md"],
        ["user", "dup", true, null, "/home/u/.config/opencode/skills/dup/SKILL.md"],
        ["project", "po", true, null, "/work/proj/.opencode/skills/po/SKILL.md"],
        ["user", "homeoc", true, null, "/home/u/.opencode/skills/homeoc/SKILL.md"]
      ])
      const nodesc = inventory.items.find((item) => item.host === "opencode" && item.name === "nodesc")
      expect(nodesc?.kind === "skill" && nodesc.description).toBe(null)
      expect(inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/opencode").map((diagnostic) => [diagnostic.path, diagnostic.message])).toEqual([
        ["/home/u/.claude/skills/noname/SKILL.md", "no `name` string in the frontmatter; opencode does not load the skill"]
      ])
    }))

  it.effect("OPENCODE_DISABLE_CLAUDE_CODE_SKILLS drops the ~/.claude and .claude skills, OPENCODE_DISABLE_EXTERNAL_SKILLS the .agents ones too", () =>
    Effect.gen(function* () {
      const noClaude = yield* scanTree(SKILL_TREE, { cwd: "/work/proj/sub", env: { OPENCODE_DISABLE_CLAUDE_CODE_SKILLS: "1" } })
      expect(skillRows(noClaude.inventory).map((row) => row[4])).toEqual([
        "/home/u/.agents/skills/dup/SKILL.md",
        "/work/proj/.agents/skills/pa/SKILL.md",
        "/home/u/.config/opencode/skill/single/SKILL.md",
        "/home/u/.config/opencode/skills/dup/SKILL.md",
        "/work/proj/.opencode/skills/po/SKILL.md",
        "/home/u/.opencode/skills/homeoc/SKILL.md"
      ])
      const broad = yield* scanTree(SKILL_TREE, { cwd: "/work/proj/sub", env: { OPENCODE_DISABLE_CLAUDE_CODE: "yes" } })
      expect(skillRows(broad.inventory)).toEqual(skillRows(noClaude.inventory))
      const noExternal = yield* scanTree(SKILL_TREE, { cwd: "/work/proj/sub", env: { OPENCODE_DISABLE_EXTERNAL_SKILLS: "TRUE" } })
      expect(skillRows(noExternal.inventory).map((row) => row[4])).toEqual([
        "/home/u/.config/opencode/skill/single/SKILL.md",
        "/home/u/.config/opencode/skills/dup/SKILL.md",
        "/work/proj/.opencode/skills/po/SKILL.md",
        "/home/u/.opencode/skills/homeoc/SKILL.md"
      ])
      const noProject = yield* scanTree(SKILL_TREE, { cwd: "/work/proj/sub", env: { OPENCODE_DISABLE_PROJECT_CONFIG: "true" } })
      expect(skillRows(noProject.inventory).map((row) => row[4])).not.toContain("/work/proj/.opencode/skills/po/SKILL.md")
      expect(skillRows(noProject.inventory).map((row) => row[4])).toContain("/work/proj/.claude/skills/pc/SKILL.md")
    }))

  it.effect("not there (no config folder, file or AGENTS.md): the shared skill folders are roots of its report, not walked, and none of their skills is its", () =>
    Effect.gen(function* () {
      const looked: Array<string> = []
      const { inventory, watched } = yield* scanTree(
        {
          "home/u/.claude/skills/alpha/SKILL.md": markdown({ name: "alpha", description: "Alpha" }),
          "home/u/.agents/skills/beta/deeper/SKILL.md": markdown({ name: "beta", description: "Beta" })
        },
        {},
        (op, path) => {
          looked.push(`${op} ${path}`)
          return false
        }
      )
      const report = inventory.hosts.find((host) => host.host === "opencode")!
      expect(report.detected).toBe(false)
      expect(report.roots.filter((root) => root.path.includes("skills")).map((root) => [root.path, root.role, root.status])).toEqual([
        ["/home/u/.claude/skills", "Claude Code skills (~/.claude/skills)", "ok"],
        ["/home/u/.agents/skills", "shared skills (~/.agents/skills)", "ok"],
        ["/home/u/.config/opencode/skills", "global skills", "missing"]
      ])
      expect(inventory.items.filter((item) => item.host === "opencode")).toEqual([])
      // Claude Code lists its skill folders without a stat; opencode's walk would stat each one.
      expect(looked.filter((entry) => entry === "stat /home/u/.claude/skills/alpha")).toEqual([])
      // Codex and Gemini CLI look for beta/SKILL.md; the deeper one only opencode would find is not watched.
      expect(watched.filter((path) => path.startsWith("/home/u/.agents/skills"))).toEqual(["/home/u/.agents/skills", "/home/u/.agents/skills/beta", "/home/u/.agents/skills/beta/SKILL.md"])
    }))

  it.effect("outside a git repository the worktree is /: .claude/skills and opencode.json of every parent count", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "work/.claude/skills/far/SKILL.md": markdown({ name: "far", description: "a parent's" }),
        "work/opencode.json": JSON.stringify({ mcp: { far: { type: "local", command: ["far-mcp"] } } })
      }, { cwd: "/work/proj/sub" })
      expect(inventory.items.filter((item) => item.host === "opencode").map((item) => [item.kind, item.scope, item.name, item.path])).toEqual([
        ["mcpServer", "project", "far", "/work/opencode.json"],
        ["skill", "project", "far", "/work/.claude/skills/far/SKILL.md"]
      ])
    }))

  it.effect("agents: {agent,agents}/**/*.md named by their path, {mode,modes}/*.md, not ~/.claude/agents; the farthest .opencode wins; fields dropped when YAML fails", () =>
    Effect.gen(function* () {
      const agent = (description: string) => `---\ndescription: ${description}\nmode: subagent\n---\nPrompt\n`
      const { inventory } = yield* scanTree({
        "work/proj/.git/HEAD": "ref\n",
        "home/u/.config/opencode/agent/a1.md": agent("global a1"),
        "home/u/.config/opencode/agents/sub/a2.md": agent("global nested a2"),
        "home/u/.config/opencode/agent/broken.md": "---\ndescription: \"unclosed\n---\nx\n",
        "home/u/.config/opencode/mode/m1.md": agent("a mode"),
        "home/u/.config/opencode/command/g/c1.md": "---\ndescription: cmd\n---\nrun it\n",
        "home/u/.claude/agents/cl.md": agent("claude agent"),
        "home/u/.opencode/agent/homea.md": agent("home .opencode"),
        "work/proj/.opencode/agent/dupa.md": agent("root dupa"),
        "work/proj/sub/.opencode/agent/dupa.md": agent("sub dupa")
      }, { cwd: "/work/proj/sub" })
      expect(inventory.items.filter((item) => item.host === "opencode").map((item) => [item.kind, item.scope, item.name, item.shadowedBy === null ? "loaded" : "shadowed", item.path])).toEqual([
        ["command", "user", "g/c1", "loaded", "/home/u/.config/opencode/command/g/c1.md"],
        ["agent", "user", "a1", "loaded", "/home/u/.config/opencode/agent/a1.md"],
        ["agent", "user", "broken", "loaded", "/home/u/.config/opencode/agent/broken.md"],
        ["agent", "user", "sub/a2", "loaded", "/home/u/.config/opencode/agents/sub/a2.md"],
        ["agent", "user", "m1", "loaded", "/home/u/.config/opencode/mode/m1.md"],
        ["agent", "project", "dupa", "shadowed", "/work/proj/sub/.opencode/agent/dupa.md"],
        ["agent", "project", "dupa", "loaded", "/work/proj/.opencode/agent/dupa.md"],
        ["agent", "user", "homea", "loaded", "/home/u/.opencode/agent/homea.md"]
      ])
      const diagnostics = inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/opencode")
      expect(diagnostics.map((diagnostic) => diagnostic.path)).toEqual(["/home/u/.config/opencode/agent/broken.md"])
      expect(diagnostics[0]?.message).toMatch(/opencode reads none of its fields and loads the agent as "broken"$/)
    }))
})

describe("opencode MCP servers", () => {
  it.effect("a later file's enabled: false switches off the server an earlier file defines (configs merge key by key)", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.config/opencode/opencode.json": JSON.stringify({ mcp: { "on-srv": { type: "local", command: ["a"] }, "off-srv": { type: "local", command: ["b"], enabled: false } } }),
        "work/proj/.git/HEAD": "ref\n",
        "work/proj/opencode.json": JSON.stringify({ mcp: { "proj-srv": { type: "local", command: ["c"] }, "on-srv": { type: "local", command: ["a"], enabled: false } } })
      })
      expect(inventory.items.filter((item) => item.host === "opencode").map((item) => [item.scope, item.name, item.enabled, item.disabledReason, item.shadowedBy])).toEqual([
        ["user", "on-srv", false, "switched off by enabled: false in /work/proj/opencode.json", null],
        ["user", "off-srv", false, "enabled: false", null],
        ["project", "proj-srv", true, null, null],
        ["project", "on-srv", false, "enabled: false", null]
      ])
    }))
})

const skillRows = (inventory: AgentHostsInventory) =>
  inventory.items.filter((item) => item.host === "opencode" && item.kind === "skill").map((item) => [item.scope, item.name, item.enabled, item.shadowedBy, item.path] as const)

/** Skills in every directory opencode 1.18.33 reads, and the cases its docs forbid but it loads. */
const SKILL_TREE: Tree = {
  "work/proj/.git/HEAD": "ref\n",
  "home/u/.claude/skills/alpha/SKILL.md": markdown({ name: "alpha", description: "Alpha" }),
  "home/u/.claude/skills/nested/deep/SKILL.md": markdown({ name: "deep", description: "Deep" }),
  "home/u/.claude/skills/noname/SKILL.md": markdown({ description: "No name" }),
  "home/u/.claude/skills/mismatch/SKILL.md": markdown({ name: "other-name", description: "Mismatch" }),
  "home/u/.claude/skills/Bad_Name/SKILL.md": markdown({ name: "Bad_Name", description: "Bad" }),
  "home/u/.claude/skills/nodesc/SKILL.md": markdown({ name: "nodesc" }),
  "home/u/.claude/skills/loose.md": markdown({ name: "loose", description: "Loose" }),
  "home/u/.claude/skills/.hidden/SKILL.md": markdown({ name: "hidden", description: "hidden in claude" }),
  "home/u/.claude/skills/dup/SKILL.md": markdown({ name: "dup", description: "from claude" }),
  "home/u/.agents/skills/dup/SKILL.md": markdown({ name: "dup", description: "from agents" }),
  "home/u/.config/opencode/skills/dup/SKILL.md": markdown({ name: "dup", description: "from opencode" }),
  "home/u/.config/opencode/skill/single/SKILL.md": markdown({ name: "single", description: "Singular dir" }),
  "home/u/.config/opencode/skills/.hidden2/SKILL.md": markdown({ name: "hidden2", description: "hidden in opencode" }),
  "work/proj/.claude/skills/pc/SKILL.md": markdown({ name: "pc", description: "project claude" }),
  "work/proj/.agents/skills/pa/SKILL.md": markdown({ name: "pa", description: "project agents" }),
  "work/proj/.opencode/skills/po/SKILL.md": markdown({ name: "po", description: "project opencode" }),
  "work/proj/sub/.claude/skills/nearer/SKILL.md": markdown({ name: "nearer", description: "sub claude" }),
  "home/u/.opencode/skills/homeoc/SKILL.md": markdown({ name: "homeoc", description: "home .opencode" })
}
