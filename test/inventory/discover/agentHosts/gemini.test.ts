import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree, type Tree } from "../../../../bench/hostGenerators.js"
import type { AgentHostsInventory } from "../../../../src/inventory/domain/agentHosts.js"
import { geminiSystemSettings } from "../../../../src/inventory/discover/agentHosts/gemini.js"

const CANARY = "AIzaCANARYcanaryCANARYcanaryCANARY012345"

const tree: Tree = {
  "home/u/.gemini/settings.json": `{
    // user settings, with comments
    "mcpServers": {
      "maps": { "command": "maps-mcp", "env": { "MAPS_KEY": "${CANARY}" }, "includeTools": ["geocode"], "trust": true },
      "shared": { "httpUrl": "https://user.example.com/mcp", "headers": { "Authorization": "Bearer ${CANARY}" } },
      "blocked": { "url": "https://sse.example.com/sse", "excludeTools": ["rm"] },
    },
    "mcp": { "excluded": ["blocked"] }
  }`,
  "work/proj/.gemini/settings.json": JSON.stringify({ mcpServers: { shared: { command: "project-shared" } } }),
  "home/u/.gemini/commands/git/commit.toml": `description = "Commit staged work"\nprompt = "Write a commit message"\n`,
  "home/u/.gemini/commands/review.toml": `prompt = "Review"\n`,
  "home/u/.gemini/commands/empty.toml": `description = "no prompt"\n`,
  "work/proj/.gemini/commands/review.toml": `description = "Project review"\nprompt = "Review this project"\n`,
  "home/u/.gemini/agents/helper.md": markdown({ name: "helper", description: "Helps", tools: ["read_file", "glob"] }),
  "work/proj/.gemini/agents/helper.md": markdown({ name: "helper", description: "Project helper" }),
  "home/u/.gemini/extensions/ext1/gemini-extension.json": JSON.stringify({ name: "ext1", version: "1.2.0", mcpServers: { extsrv: { command: "ext-mcp" } }, contextFileName: "EXT.md" }),
  "home/u/.gemini/extensions/ext1/EXT.md": "extension context\n",
  "home/u/.gemini/extensions/ext1/commands/deploy.toml": `prompt = "Deploy"\n`,
  "home/u/.gemini/GEMINI.md": "global\n",
  "work/proj/.git/HEAD": "ref\n",
  "work/proj/GEMINI.md": "project\n",
  "home/u/.gemini/trustedFolders.json": JSON.stringify({ "/work/proj": "TRUST_FOLDER" })
}

describe("Gemini CLI reader", () => {
  it.effect("settings (JSONC) mcpServers with includeTools/excludeTools/trust; workspace over user; mcp.excluded", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(tree)
      const servers = inventory.items.filter((item) => item.host === "gemini" && item.kind === "mcpServer")
      expect(servers.map((item) => item.kind === "mcpServer" && [item.scope, item.name, item.enabled, item.disabledReason, item.shadowedBy, item.transport, item.enabledTools, item.disabledTools, item.trust, item.envVars, item.headerNames])).toEqual([
        ["project", "shared", true, null, null, "stdio", null, [], null, [], []],
        ["user", "maps", true, null, null, "stdio", ["geocode"], [], true, ["MAPS_KEY"], []],
        ["user", "shared", true, null, "gemini:mcpServer:project:/work/proj/.gemini/settings.json#shared", "http", null, [], null, [], ["Authorization"]],
        ["user", "blocked", false, "excluded by mcp.excluded", null, "sse", null, ["rm"], null, [], []],
        ["plugin", "extsrv", true, null, null, "stdio", null, [], null, [], []]
      ])
      expect(JSON.stringify(inventory)).not.toContain("CANARY")
    }))

  it.effect("commands **/*.toml named by path with ':', project over user; agents; extensions; GEMINI.md", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(tree)
      const rows = inventory.items
        .filter((item) => item.host === "gemini" && item.kind !== "mcpServer")
        .map((item) => [item.kind, item.scope, item.name, item.shadowedBy])
      expect(rows).toEqual([
        ["plugin", "user", "ext1", null],
        ["instructions", "plugin", "EXT.md", null],
        ["command", "project", "review", null],
        ["command", "user", "review", "gemini:command:project:/work/proj/.gemini/commands/review.toml"],
        ["command", "user", "git:commit", null],
        ["command", "plugin", "deploy", null],
        ["agent", "project", "helper", null],
        ["agent", "user", "helper", "gemini:agent:project:/work/proj/.gemini/agents/helper.md"],
        ["instructions", "user", "GEMINI.md", null],
        ["instructions", "project", "GEMINI.md", null]
      ])
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.message])).toEqual([
        ["/home/u/.gemini/commands/empty.toml", "command has no `prompt` string; Gemini CLI skips it"]
      ])
    }))

  it("system settings live in a per-OS place", () => {
    const ctx = (os: "linux" | "darwin" | "win32", env: Record<string, string> = {}) =>
      ({ env: { os, env, homedir: "/h", cwd: "/c", arch: "x64", nodeVersion: "v20" } }) as unknown as Parameters<typeof geminiSystemSettings>[0]
    expect(geminiSystemSettings(ctx("linux"))).toBe("/etc/gemini-cli/settings.json")
    expect(geminiSystemSettings(ctx("darwin"))).toBe("/Library/Application Support/GeminiCli/settings.json")
    expect(geminiSystemSettings(ctx("win32"))).toBe("C:\\ProgramData\\gemini-cli\\settings.json")
    expect(geminiSystemSettings(ctx("linux", { GEMINI_CLI_SYSTEM_SETTINGS_PATH: "/opt/g.json" }))).toBe("/opt/g.json")
  })

  it.effect("folder trust (0.61.0) is on by default: with no trustedFolders.json rule every MCP server is off, workspace settings unread, project skills and agents off", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({ ...tree, "home/u/.gemini/trustedFolders.json": JSON.stringify({ "/elsewhere": "TRUST_FOLDER" }) })
      const reason = "the folder is not trusted: no rule of /home/u/.gemini/trustedFolders.json covers it (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)"
      const gemini = inventory.items.filter((item) => item.host === "gemini" && (item.kind === "mcpServer" || item.kind === "agent"))
      expect(gemini.map((item) => [item.kind, item.scope, item.name, item.enabled, item.disabledReason, item.shadowedBy])).toEqual([
        ["mcpServer", "project", "shared", false, reason, null],
        ["mcpServer", "user", "maps", false, reason, null],
        ["mcpServer", "user", "shared", false, reason, null],
        ["mcpServer", "user", "blocked", false, reason, null],
        ["mcpServer", "plugin", "extsrv", false, reason, null],
        ["agent", "project", "helper", false, reason, "gemini:agent:user:/home/u/.gemini/agents/helper.md"],
        ["agent", "user", "helper", true, null, null]
      ])
      expect(inventory.items.filter((item) => item.host === "gemini" && item.kind === "instructions").map((item) => [item.scope, item.name, item.enabled, item.disabledReason])).toEqual([
        ["plugin", "EXT.md", true, null],
        ["user", "GEMINI.md", true, null],
        ["project", "GEMINI.md", false, reason]
      ])
      const missing = yield* scanTree(Object.fromEntries(Object.entries(tree).filter(([file]) => !file.endsWith("trustedFolders.json"))))
      expect(missing.inventory.items.find((item) => item.host === "gemini" && item.name === "maps")?.disabledReason).toBe(
        "the folder is not trusted: no /home/u/.gemini/trustedFolders.json (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)"
      )
    }))

  it.effect("trust rules: the longest rule path wins, TRUST_PARENT covers its parent, env overrides, security.folderTrust.enabled false in user settings (not the workspace's), an invalid file stops the host", () =>
    Effect.gen(function* () {
      const mapsState = (files: Tree, env: Record<string, string> = {}) =>
        Effect.map(scanTree({ ...files, "home/u/.gemini/settings.json": JSON.stringify({ mcpServers: { maps: { command: "maps-mcp" } } }) }, { env }), ({ inventory }) => {
          const maps = inventory.items.find((item) => item.host === "gemini" && item.name === "maps")
          return maps === undefined ? "missing" : maps.enabled ? "on" : maps.disabledReason
        })
      const rules = (value: unknown): Tree => ({ "home/u/.gemini/trustedFolders.json": JSON.stringify(value) })
      expect(yield* mapsState(rules({ "/work": "TRUST_FOLDER" }))).toBe("on")
      expect(yield* mapsState(rules({ "/work/proj/child": "TRUST_PARENT" }))).toBe("on")
      expect(yield* mapsState(rules({ "/work/proj/child": "TRUST_FOLDER" }))).toMatch(/^the folder is not trusted: no rule/)
      expect(yield* mapsState(rules({ "/work": "TRUST_FOLDER", "/work/proj": "DO_NOT_TRUST" }))).toBe(
        "the folder is not trusted: /home/u/.gemini/trustedFolders.json says DO_NOT_TRUST for /work/proj (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)"
      )
      expect(yield* mapsState(rules({ "/work": "DO_NOT_TRUST", "/work/proj": "TRUST_FOLDER" }))).toBe("on")
      expect(yield* mapsState({}, { GEMINI_CLI_TRUST_WORKSPACE: "true" })).toBe("on")
      expect(yield* mapsState(rules({ "/work": "TRUST_FOLDER" }), { GEMINI_CLI_TRUST_WORKSPACE: "false" })).toBe("the folder is not trusted: GEMINI_CLI_TRUST_WORKSPACE=false")
      expect(yield* mapsState(rules({ "/work": "TRUST_FOLDER" }), { GEMINI_RESTRICTED_MODE: "true" })).toBe("the folder is not trusted: GEMINI_RESTRICTED_MODE=true")
      expect(yield* mapsState({ "etc/trust.json": JSON.stringify({ "/work/proj": "TRUST_FOLDER" }) }, { GEMINI_CLI_TRUSTED_FOLDERS_PATH: "/etc/trust.json" })).toBe("on")
      expect(yield* mapsState({ "etc/gemini-cli/settings.json": JSON.stringify({ security: { folderTrust: { enabled: false } } }) })).toBe("on")
      expect(yield* mapsState({ "work/proj/.gemini/settings.json": JSON.stringify({ security: { folderTrust: { enabled: false } } }) })).toMatch(/^the folder is not trusted: no \/home/)
      const invalid = yield* scanTree({ ...rules({ "/work/proj": "YES" }), "home/u/.gemini/settings.json": JSON.stringify({ mcpServers: { maps: { command: "maps-mcp" } } }) })
      expect(invalid.inventory.items.find((item) => item.name === "maps")?.disabledReason).toBe("Gemini CLI does not start: /home/u/.gemini/trustedFolders.json is invalid")
      expect(invalid.inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/gemini").map((diagnostic) => diagnostic.message)).toEqual([
        "the trust level of \"/work/proj\" is not one of TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST: Gemini CLI refuses to start until it is fixed"
      ])
    }))

  it.effect("skills (0.61.0): ~/.gemini/skills, ~/.agents/skills, then the project's .gemini/skills and .agents/skills; SKILL.md at the top or one level down; name and description required; never ~/.claude/skills", () =>
    Effect.gen(function* () {
      const skills: Tree = {
        "home/u/.gemini/trustedFolders.json": JSON.stringify({ "/work/proj": "TRUST_FOLDER" }),
        "home/u/.gemini/settings.json": JSON.stringify({ skills: { disabled: ["off"] } }),
        "home/u/.gemini/skills/gs/SKILL.md": markdown({ name: "gs", description: "gemini user skill" }),
        "home/u/.gemini/skills/SKILL.md": markdown({ name: "rootskill", description: "root" }),
        "home/u/.gemini/skills/deep/a/SKILL.md": markdown({ name: "deepa", description: "too deep" }),
        "home/u/.gemini/skills/.hidden/SKILL.md": markdown({ name: "hidden", description: "dotted" }),
        "home/u/.gemini/skills/nodesc/SKILL.md": markdown({ name: "nodesc" }),
        "home/u/.gemini/skills/colon/SKILL.md": markdown({ name: "a:b", description: "sanitized" }),
        "home/u/.gemini/skills/off/SKILL.md": markdown({ name: "off", description: "disabled" }),
        "home/u/.gemini/skills/dup/SKILL.md": markdown({ name: "dup", description: "gemini user" }),
        "home/u/.agents/skills/dup/SKILL.md": markdown({ name: "dup", description: "agents user" }),
        "home/u/.claude/skills/cs/SKILL.md": markdown({ name: "cs", description: "claude only" }),
        "work/proj/.git/HEAD": "ref\n",
        "work/proj/.gemini/skills/pgs/SKILL.md": markdown({ name: "pgs", description: "project gemini" }),
        "work/proj/.agents/skills/dup/SKILL.md": markdown({ name: "dup", description: "project agents" })
      }
      const rows = (inventory: AgentHostsInventory) =>
        inventory.items.filter((item) => item.host === "gemini" && item.kind === "skill").map((item) => [item.scope, item.name, item.enabled, item.disabledReason, item.shadowedBy === null ? "" : "shadowed", item.path])
      const trusted = yield* scanTree(skills)
      expect(rows(trusted.inventory)).toEqual([
        ["user", "rootskill", true, null, "", "/home/u/.gemini/skills/SKILL.md"],
        ["user", "a-b", true, null, "", "/home/u/.gemini/skills/colon/SKILL.md"],
        ["user", "dup", true, null, "shadowed", "/home/u/.gemini/skills/dup/SKILL.md"],
        ["user", "gs", true, null, "", "/home/u/.gemini/skills/gs/SKILL.md"],
        ["user", "off", false, "named in skills.disabled", "", "/home/u/.gemini/skills/off/SKILL.md"],
        ["user", "dup", true, null, "shadowed", "/home/u/.agents/skills/dup/SKILL.md"],
        ["project", "pgs", true, null, "", "/work/proj/.gemini/skills/pgs/SKILL.md"],
        ["project", "dup", true, null, "", "/work/proj/.agents/skills/dup/SKILL.md"]
      ])
      expect(trusted.inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/gemini").map((diagnostic) => [diagnostic.path, diagnostic.message])).toEqual([
        ["/home/u/.gemini/skills/nodesc/SKILL.md", "a skill needs `name` and `description` strings; Gemini CLI skips it"]
      ])
      const untrusted = yield* scanTree({ ...skills, "home/u/.gemini/trustedFolders.json": "{}" })
      expect(rows(untrusted.inventory).filter((row) => row[0] === "project").map((row) => [row[1], row[2]])).toEqual([["pgs", false], ["dup", false]])
      expect(rows(untrusted.inventory).find((row) => row[5] === "/home/u/.agents/skills/dup/SKILL.md")?.[4]).toBe("")
    }))
})
