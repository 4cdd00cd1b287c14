import { describe, expect, it } from "vitest"
import { builtinCost } from "../../../../src/inventory/discover/agentHosts/claudeBuiltins.js"

/**
 * Claude Code 2.1.332's own agents and skills (issue 28, point 4): lengths of the lines its first
 * request lists (a 200k and a 1M model). Bundled skills stay whole in the listing (`q3n` of the
 * bundle fixes `source === "bundled"`); init and security-review take their name line.
 */
describe("builtinCost (Claude Code 2.1.332)", () => {
  it("counts the agent lines, and what the skills take of the listing's budget", () => {
    // Agents 132 + 746 + 309 + 364 + 111 = 1,662; skills: 11 bundled lines 6,041 (claude-api's
    // three lines 1,171), `- init` 6, `- security-review` 17, 13 newlines: 6,077.
    expect(builtinCost(4)).toEqual({
      version: "2.1.332",
      agents: ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
      skills: ["claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help", "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config", "workflow-authoring"],
      chars: 7739,
      budgetChars: 6077
    })
    // A model counted at 3 characters a token gets Explore's lean line (539).
    expect([builtinCost(3).chars, builtinCost(3).budgetChars]).toEqual([7532, 6077])
  })
})
