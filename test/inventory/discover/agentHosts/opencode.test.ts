import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree } from "../../../../bench/hostGenerators.js"

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
        ["mcpServer", "project", "search", true, null],
        ["mcpServer", "user", "search", true, "opencode:mcpServer:project:/work/proj/opencode.json#mcp/search"],
        ["mcpServer", "user", "fs", false, null],
        ["agent", "user", "reviewer", true, "opencode:agent:project:/work/proj/.opencode/agent/reviewer.md"],
        ["command", "user", "test", true, null],
        ["agent", "project", "reviewer", true, null],
        ["command", "project", "ship", true, null],
        ["skill", "user", "notes", true, null],
        ["skill", "project", "compat", true, null],
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
})
