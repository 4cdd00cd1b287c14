import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { scanTree } from "../../../../bench/hostGenerators.js"

const CANARY = "xoxb-CANARY-canary-CANARY-0123456789"

describe("Cursor reader", () => {
  it.effect("project mcp.json wins over the user's; rules and .cursorrules are instructions; env values never read", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.cursor/mcp.json": JSON.stringify({ mcpServers: { slack: { command: "slack-mcp", env: { SLACK_TOKEN: CANARY } }, web: { url: "https://w.example.com/mcp", headers: { "X-Key": CANARY } } } }),
        "work/proj/.git/HEAD": "ref\n",
        "work/proj/.cursor/mcp.json": JSON.stringify({ mcpServers: { slack: { command: "project-slack" } } }),
        "work/proj/.cursor/rules/style.mdc": "---\ndescription: House style\nglobs: \"*.ts\"\nalwaysApply: false\n---\nUse tabs.\n",
        "work/proj/.cursor/rules/nested/tests.mdc": "---\ndescription: Tests\n---\n",
        "work/proj/.cursor/rules/bad.mdc": "---\ndescription: [unclosed\n---\n",
        "work/proj/.cursorrules": "Be terse.\n"
      })
      const items = inventory.items.filter((item) => item.host === "cursor")
      expect(items.map((item) => [item.kind, item.scope, item.name, item.enabled, item.shadowedBy, item.kind === "instructions" ? item.description : null])).toEqual([
        ["mcpServer", "project", "slack", true, null, null],
        ["mcpServer", "user", "slack", true, "cursor:mcpServer:project:/work/proj/.cursor/mcp.json#slack", null],
        ["mcpServer", "user", "web", true, null, null],
        ["instructions", "project", "style.mdc", true, null, "House style"],
        ["instructions", "project", "tests.mdc", true, null, "Tests"],
        ["instructions", "project", ".cursorrules", true, null, null]
      ])
      const web = items.find((item) => item.name === "web")
      expect(web?.kind === "mcpServer" && [web.transport, web.url, web.headerNames]).toEqual(["http", "https://w.example.com/mcp", ["X-Key"]])
      expect(inventory.diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.line])).toEqual([["/work/proj/.cursor/rules/bad.mdc", 3]])
      expect(JSON.stringify(inventory)).not.toContain("CANARY")
    }))
})
