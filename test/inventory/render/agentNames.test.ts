import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree } from "../../../bench/hostGenerators.js"
import { filterAgents } from "../../../src/inventory/query/agentQueries.js"
import { agentQueryCells } from "../../../src/inventory/render/agentHosts.js"

/** Two plugins that ship a `code-reviewer`, and a user's own agent. */
const plugin = (name: string) => `home/u/.claude/plugins/cache/mkt/${name}/1.0.0`
const TREE = {
  "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "toolkit@mkt": true, "python-development@mkt": true } }),
  "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
    version: 2,
    plugins: {
      "toolkit@mkt": [{ scope: "user", installPath: `/${plugin("toolkit")}`, version: "1.0.0" }],
      "python-development@mkt": [{ scope: "user", installPath: `/${plugin("python-development")}`, version: "1.0.0" }]
    }
  }),
  [`${plugin("toolkit")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "toolkit" }),
  [`${plugin("toolkit")}/agents/code-reviewer.md`]: markdown({ name: "code-reviewer", description: "Reviews code" }, "Review.\n"),
  [`${plugin("python-development")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "python-development" }),
  [`${plugin("python-development")}/agents/code-reviewer.md`]: markdown({ name: "code-reviewer", description: "Reviews Python", tools: "Read" }, "Review.\n"),
  "home/u/.claude/agents/planner.md": markdown({ name: "planner", description: "Plans" }, "Plan.\n")
}

describe("query agents' rows (issue 28, point 6)", () => {
  it.effect("a plugin's agent is named <plugin>:<name>, as Claude Code 2.1.332 names it; the user's own by its name", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(TREE)
      const rows = filterAgents(inventory, { host: "claude-code", all: false }).map((agent) => agentQueryCells(agent, "loaded"))
      expect([...rows].sort((a, b) => (a[0]! < b[0]! ? -1 : 1))).toEqual([
        ["planner", "claude-code", "user", "", "(all)", "", "local", "loaded"],
        ["python-development:code-reviewer", "claude-code", "plugin", "", "Read", "", "plugin-root", "loaded"],
        ["toolkit:code-reviewer", "claude-code", "plugin", "", "(all)", "", "plugin-root", "loaded"]
      ])
    }))
})
