import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree } from "../../../../bench/hostGenerators.js"
import { loadedBy } from "../../../../src/inventory/domain/agentHosts.js"
import { filterSkills } from "../../../../src/inventory/query/agentQueries.js"

describe("one file, several hosts (issue 12, finding 5)", () => {
  it.effect("a skill of ~/.claude/skills is an item of Claude Code and of opencode, each with its own state, linked by sameFileAs", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/skills/alpha/SKILL.md": markdown({ name: "alpha", description: "Alpha" }),
        // opencode's own folder wins the name there; Claude Code never reads it.
        "home/u/.claude/skills/beta/SKILL.md": markdown({ name: "beta", description: "Claude's beta" }),
        "home/u/.config/opencode/skills/beta/SKILL.md": markdown({ name: "beta", description: "opencode's beta" }),
        "home/u/.agents/skills/shared/SKILL.md": markdown({ name: "shared", description: "Shared" }),
        "home/u/.gemini/trustedFolders.json": "{}",
        "work/proj/.git/HEAD": "ref\n",
        "work/proj/AGENTS.md": "rules\n"
      })
      const byId = new Map(inventory.items.map((item) => [item.id, item] as const))
      const rows = inventory.items
        .filter((item) => item.kind === "skill" || item.kind === "instructions")
        .map((item) => [item.host, item.kind, item.name, item.shadowedBy === null ? "loaded" : "shadowed", item.sameFileAs ?? null, loadedBy(item, byId)])
      expect(rows).toEqual([
        ["claude-code", "skill", "alpha", "loaded", ["opencode:skill:user:/home/u/.claude/skills/alpha/SKILL.md"], ["claude-code", "opencode"]],
        ["claude-code", "skill", "beta", "loaded", ["opencode:skill:user:/home/u/.claude/skills/beta/SKILL.md"], ["claude-code", "opencode"]],
        ["codex", "skill", "shared", "loaded", ["gemini:skill:user:/home/u/.agents/skills/shared/SKILL.md", "opencode:skill:user:/home/u/.agents/skills/shared/SKILL.md"], ["codex", "gemini", "opencode"]],
        ["codex", "instructions", "AGENTS.md", "loaded", ["opencode:instructions:project:/work/proj/AGENTS.md"], ["codex", "opencode"]],
        ["gemini", "skill", "shared", "loaded", ["codex:skill:user:/home/u/.agents/skills/shared/SKILL.md", "opencode:skill:user:/home/u/.agents/skills/shared/SKILL.md"], ["codex", "gemini", "opencode"]],
        ["opencode", "skill", "alpha", "loaded", ["claude-code:skill:user:/home/u/.claude/skills/alpha/SKILL.md"], ["claude-code", "opencode"]],
        ["opencode", "skill", "beta", "shadowed", ["claude-code:skill:user:/home/u/.claude/skills/beta/SKILL.md"], ["claude-code", "opencode"]],
        ["opencode", "skill", "shared", "loaded", ["codex:skill:user:/home/u/.agents/skills/shared/SKILL.md", "gemini:skill:user:/home/u/.agents/skills/shared/SKILL.md"], ["codex", "gemini", "opencode"]],
        ["opencode", "skill", "beta", "loaded", null, ["opencode"]],
        ["opencode", "instructions", "AGENTS.md", "loaded", ["codex:instructions:project:/work/proj/AGENTS.md"], ["codex", "opencode"]]
      ])
      // query skills lists every host's item; by default the shadowed one is left out.
      expect(filterSkills(inventory, {}).map((item) => `${item.host}:${item.name}`)).toEqual([
        "claude-code:alpha",
        "claude-code:beta",
        "codex:shared",
        "gemini:shared",
        "opencode:alpha",
        "opencode:shared",
        "opencode:beta"
      ])
    }))

  it.effect("a host none of whose own locations exists is not found, and loads nothing from the folders it shares", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.claude/skills/alpha/SKILL.md": markdown({ name: "alpha", description: "Alpha" }),
        "home/u/.agents/skills/shared/SKILL.md": markdown({ name: "shared", description: "Shared" })
      })
      expect(inventory.hosts.map((report) => [report.host, report.detected, report.counts.skills])).toEqual([
        ["claude-code", true, 1],
        ["codex", false, 0],
        ["cursor", false, 0],
        ["gemini", false, 0],
        ["opencode", false, 0]
      ])
      expect(inventory.items.map((item) => [item.host, item.name, item.sameFileAs ?? null])).toEqual([["claude-code", "alpha", null]])
      const withCodex = yield* scanTree({
        "home/u/.agents/skills/shared/SKILL.md": markdown({ name: "shared", description: "Shared" }),
        "home/u/.codex/config.toml": "model = \"gpt-5\"\n"
      })
      expect(withCodex.inventory.items.map((item) => [item.host, item.name])).toEqual([["codex", "shared"]])
    }))
})
