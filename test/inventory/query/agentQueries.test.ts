import { describe, expect, it } from "@effect/vitest"
import {
  AgentHostsInventory,
  AgentItem,
  type AgentItemScope,
  McpServerItem,
  PluginItem,
  SkillItem
} from "../../../src/inventory/domain/agentHosts.js"
import {
  baseToolName,
  effectiveToolNames,
  filterAgents,
  filterMcpServers,
  filterPlugins,
  filterSkills,
  isReadOnly
} from "../../../src/inventory/query/agentQueries.js"

const base = (name: string, scope: AgentItemScope = "user") => ({
  host: "claude-code" as const,
  scope,
  name,
  id: `claude-code:${scope}:${name}`,
  path: `/home/u/.claude/agents/${name}.md`,
  enabled: true,
  disabledReason: null,
  shadowedBy: null,
  sha256: null,
  mtime: null,
  plugin: null
})

const agent = (name: string, fields: Partial<ConstructorParameters<typeof AgentItem>[0]> = {}) =>
  new AgentItem({
    kind: "agent",
    ...base(name),
    description: null,
    tools: null,
    disallowedTools: [],
    model: null,
    background: false,
    maxTurns: null,
    mcpServers: null,
    source: "local",
    ...fields
  })

const inventory = new AgentHostsInventory({
  hosts: [],
  diagnostics: [],
  items: [
    agent("inherits"),
    agent("inherits-no-bash", { disallowedTools: ["Bash", "Write", "Edit"] }),
    agent("git-diff", { tools: ["Read", "Bash(git diff:*)"], model: "sonnet" }),
    agent("pattern-deny", { tools: ["Read", "Bash"], disallowedTools: ["Bash(rm:*)"] }),
    agent("reader", { tools: ["Read", "Grep", "Glob"], model: "sonnet", background: true }),
    agent("no-tools", { tools: [], model: "sonnet" }),
    agent("shadowed", { tools: ["Bash"], shadowedBy: "claude-code:project:shadowed" }),
    agent("disabled", { tools: ["Bash"], enabled: false, disabledReason: "plugin disabled" }),
    agent("nested", { tools: ["Read"], source: "plugin-nested", scope: "plugin", plugin: "p@m" }),
    new AgentItem({ ...agent("gemini-helper", { tools: ["read_file", "run_shell_command"] }), host: "gemini", id: "gemini:helper" }),
    new SkillItem({ kind: "skill", ...base("review-skill"), description: "Deep Code REVIEW of diffs", allowedTools: null, hasScripts: false }),
    new SkillItem({ kind: "skill", ...base("notes"), description: null, allowedTools: null, hasScripts: true }),
    new McpServerItem({
      kind: "mcpServer",
      ...base("notion"),
      transport: "stdio",
      command: "npx",
      args: [],
      url: null,
      envVars: ["NOTION_API_KEY"],
      headerNames: [],
      enabledTools: null,
      disabledTools: [],
      trust: null
    }),
    new PluginItem({ kind: "plugin", ...base("sp"), plugin: "sp@mkt", marketplace: "mkt", version: "1.0.0" }),
    new PluginItem({ kind: "plugin", ...base("off"), enabled: false, disabledReason: "off", plugin: "off@mkt", marketplace: "mkt", version: "1.0.0" })
  ]
})

const names = (items: ReadonlyArray<{ readonly name: string }>) => items.map((item) => item.name)

describe("agent queries", () => {
  it("base tool names and effective tools: no tools field inherits every tool", () => {
    expect(baseToolName("Bash(git diff:*)")).toBe("Bash")
    expect(baseToolName(" Read ")).toBe("Read")
    expect(effectiveToolNames(agent("x"))).toEqual(["Agent", "Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "Skill", "TodoWrite", "WebFetch", "WebSearch", "Write"])
    expect(effectiveToolNames(agent("x", { disallowedTools: ["Bash", "Write", "Edit"] }))).toEqual(["Agent", "Glob", "Grep", "NotebookEdit", "Read", "Skill", "TodoWrite", "WebFetch", "WebSearch"])
    expect(effectiveToolNames(agent("x", { tools: ["Read", "Bash(git diff:*)", "Bash(git log:*)"] }))).toEqual(["Read", "Bash"])
    expect(effectiveToolNames(agent("x", { tools: ["Bash"], disallowedTools: ["Bash(rm:*)"] }))).toEqual(["Bash"])
  })

  it("--read-only: none of Bash, Write, Edit; an agent without tools is NOT read-only", () => {
    expect(isReadOnly(agent("x"))).toBe(false)
    expect(isReadOnly(agent("x", { tools: [] }))).toBe(true)
    expect(isReadOnly(agent("x", { tools: ["Read", "Bash(git diff:*)"] }))).toBe(false)
    expect(names(filterAgents(inventory, { readOnly: true }))).toEqual(["inherits-no-bash", "reader", "no-tools", "nested"])
    expect(names(filterAgents(inventory, { readOnly: true, host: "claude-code", model: "sonnet" }))).toEqual(["reader", "no-tools"])
  })

  it("--tool matches base names of effective tools; only loaded agents unless --all", () => {
    expect(names(filterAgents(inventory, { tool: "Bash" }))).toEqual(["inherits", "git-diff", "pattern-deny"])
    expect(names(filterAgents(inventory, { tool: "Bash", all: true }))).toEqual(["inherits", "git-diff", "pattern-deny", "shadowed", "disabled"])
    expect(names(filterAgents(inventory, { tool: "run_shell_command" }))).toEqual(["gemini-helper"])
    expect(names(filterAgents(inventory, { host: "gemini", readOnly: true }))).toEqual([])
  })

  it("--model, --background, --source, --scope, --host", () => {
    expect(names(filterAgents(inventory, { model: "sonnet" }))).toEqual(["git-diff", "reader", "no-tools"])
    expect(names(filterAgents(inventory, { background: true }))).toEqual(["reader"])
    expect(names(filterAgents(inventory, { source: "plugin-nested" }))).toEqual(["nested"])
    expect(names(filterAgents(inventory, { scope: "plugin" }))).toEqual(["nested"])
    expect(names(filterAgents(inventory, { host: "gemini" }))).toEqual(["gemini-helper"])
  })

  it("skills by keyword (description, any case); mcp; plugins (enabled unless --all)", () => {
    expect(names(filterSkills(inventory, { keyword: "review" }))).toEqual(["review-skill"])
    expect(names(filterSkills(inventory, {}))).toEqual(["review-skill", "notes"])
    expect(names(filterMcpServers(inventory, {}))).toEqual(["notion"])
    expect(filterPlugins(inventory, {}).map((item) => item.plugin)).toEqual(["sp@mkt"])
    expect(filterPlugins(inventory, { all: true }).map((item) => item.plugin)).toEqual(["sp@mkt", "off@mkt"])
  })
})
