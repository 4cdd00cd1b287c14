/**
 * Claude Code's deny rules naming MCP tools, matched as Claude Code 2.1.332 matches them against
 * `mcp__<server>__<tool>` (names with characters outside [A-Za-z0-9_-] spelled with `_`).
 */
import { describe, expect, it } from "vitest"
import {
  claudeDenies,
  claudeDeniesServer,
  claudePluginServerName,
  claudeRulesFor,
  claudeToolName,
  mcpDenyRules
} from "../../../../src/inventory/discover/agentHosts/claudePermissions.js"

describe("Claude Code's MCP deny rules", () => {
  it("keeps the content-free mcp__ rules of a deny list", () => {
    expect(mcpDenyRules(["Bash(rm:*)", "mcp__a__b", "mcp__a__c()", "mcp__a__d(*)", "mcp__a__e(x)", "mcp__a", "Read", "mcp__a__b", "mcp__bad(x"])).toEqual([
      "mcp__a__b",
      "mcp__a__c",
      "mcp__a__d",
      "mcp__a"
    ])
  })

  it("spells names as Claude Code does", () => {
    expect(claudeToolName("my files", "write.file")).toBe("mcp__my_files__write_file")
    expect(claudeToolName("claude.ai Google Drive", "search")).toBe("mcp__claude_ai_Google_Drive__search")
    expect(claudePluginServerName("github@claude-plugins-official", "github")).toBe("plugin:github:github")
    expect(claudeToolName(claudePluginServerName("gh@market", "api"), "x")).toBe("mcp__plugin_gh_api__x")
  })

  it("denies a tool by its name, a glob, its server's name, or its server with *", () => {
    const denied = (rule: string) => ["list_issues", "merge_pull_request", "merge.all"].filter((tool) => claudeDenies(rule, "github", tool))
    expect(denied("mcp__github__merge_pull_request")).toEqual(["merge_pull_request"])
    expect(denied("mcp__github__merge_*")).toEqual(["merge_pull_request", "merge.all"])
    expect(denied("mcp__git*__list_*")).toEqual(["list_issues"])
    expect(denied("mcp__github")).toEqual(["list_issues", "merge_pull_request", "merge.all"])
    expect(denied("mcp__github__*")).toEqual(["list_issues", "merge_pull_request", "merge.all"])
    expect(denied("mcp__*")).toEqual(["list_issues", "merge_pull_request", "merge.all"])
    expect(denied("mcp__gitlab")).toEqual([])
    expect(denied("mcp__github__list")).toEqual([])
  })

  it("knows a rule that denies every tool of a server, and which rules concern a server", () => {
    expect(claudeDeniesServer(["mcp__github__merge_*", "mcp__memory"], "memory")).toBe("mcp__memory")
    expect(claudeDeniesServer(["mcp__github__merge_*"], "github")).toBe(undefined)
    expect(claudeDeniesServer(["mcp__git*"], "github")).toBe("mcp__git*")
    expect(claudeDeniesServer(["mcp__my_files__*"], "my files")).toBe("mcp__my_files__*")
    expect(claudeRulesFor(["mcp__github__a", "mcp__memory", "mcp__*__x", "mcp__github", "mcp__memory__*", "mcp__git*"], "github")).toEqual([
      "mcp__github__a",
      "mcp__*__x",
      "mcp__github",
      "mcp__git*"
    ])
  })
})
