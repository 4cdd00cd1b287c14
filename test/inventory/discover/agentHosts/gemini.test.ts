import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree, type Tree } from "../../../../bench/hostGenerators.js"
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
  "work/proj/GEMINI.md": "project\n"
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
})
