import {
  type AgentHostItem,
  type AgentHostName,
  type AgentHostsInventory,
  type AgentItem,
  type AgentItemScope,
  type AgentSource,
  type CommandItem,
  isEffective,
  type McpServerItem,
  type PluginItem,
  type SkillItem
} from "../domain/agentHosts.js"

/**
 * The tools an agent gets when it has no `tools` field: it inherits the main session's tools.
 * The built-in set of each host stands for "everything", so that `--tool Bash` finds such an
 * agent and `--read-only` does not call it read-only.
 */
export const INHERITED_TOOLS: Readonly<Record<AgentHostName, ReadonlyArray<string>>> = {
  "claude-code": ["Agent", "Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "Skill", "TodoWrite", "WebFetch", "WebSearch", "Write"],
  codex: ["apply_patch", "shell", "update_plan", "view_image", "web_search"],
  cursor: [],
  gemini: ["glob", "google_web_search", "list_directory", "read_file", "read_many_files", "replace", "run_shell_command", "save_memory", "search_file_content", "web_fetch", "write_file"],
  opencode: ["bash", "edit", "glob", "grep", "list", "patch", "read", "todoread", "todowrite", "webfetch", "write"]
}

/**
 * The tools that make an agent not read-only: Bash, Write and Edit (SPEC section 5), and their
 * counterparts in the other hosts.
 */
export const WRITE_TOOLS: Readonly<Record<AgentHostName, ReadonlyArray<string>>> = {
  "claude-code": ["Bash", "Write", "Edit"],
  codex: ["shell", "apply_patch"],
  cursor: [],
  gemini: ["run_shell_command", "write_file", "replace"],
  opencode: ["bash", "write", "edit", "patch"]
}

/** `Bash(git diff:*)` → `Bash`: the tool a permission-style entry is about. */
export const baseToolName = (entry: string): string => {
  const paren = entry.indexOf("(")
  return (paren === -1 ? entry : entry.slice(0, paren)).trim()
}

/**
 * The tool names an agent can use: its `tools` (or the inherited set when it has none), by base
 * name, minus whole tools in `disallowedTools` (a pattern like `Bash(rm:*)` removes nothing whole).
 */
export const effectiveToolNames = (agent: AgentItem): ReadonlyArray<string> => {
  const granted = agent.tools === null ? INHERITED_TOOLS[agent.host] : agent.tools.map(baseToolName)
  const denied = new Set(agent.disallowedTools.filter((entry) => !entry.includes("(")).map((entry) => entry.trim()))
  return Array.from(new Set(granted.filter((tool) => tool.length > 0 && !denied.has(tool))))
}

/**
 * Read-only: none of Bash, Write, Edit (or the host's counterparts) among the effective tools.
 * An agent without `tools` inherits every tool, so it is NOT read-only.
 */
export const isReadOnly = (agent: AgentItem): boolean => {
  const tools = effectiveToolNames(agent)
  return !WRITE_TOOLS[agent.host].some((tool) => tools.includes(tool))
}

/** Filters shared by every query: by host, by scope, and whether to keep what the host will not load. */
export interface CommonFilters {
  readonly host?: AgentHostName | undefined
  readonly scope?: AgentItemScope | undefined
  /** Also list items that are disabled or shadowed (by default only what the host loads). */
  readonly all?: boolean | undefined
}

/** The filters of `query agents`. */
export interface AgentFilters extends CommonFilters {
  /** An effective tool, by exact base name (`Bash` matches `Bash(git diff:*)`). */
  readonly tool?: string | undefined
  readonly model?: string | undefined
  readonly readOnly?: boolean | undefined
  readonly background?: boolean | undefined
  readonly source?: AgentSource | undefined
}

/** The filters of `query skills`. */
export interface SkillFilters extends CommonFilters {
  /** Case-insensitive text that the skill's description contains (what the seed's recipe tests). */
  readonly keyword?: string | undefined
}

const common = (filters: CommonFilters) => (item: AgentHostItem): boolean =>
  (filters.host === undefined || item.host === filters.host) &&
  (filters.scope === undefined || item.scope === filters.scope) &&
  (filters.all === true || isEffective(item))

/** The agents matching `query agents`, in inventory order. */
export const filterAgents = (inventory: AgentHostsInventory, filters: AgentFilters): ReadonlyArray<AgentItem> => {
  const base = common(filters)
  return inventory.items.filter(
    (item): item is AgentItem =>
      item.kind === "agent" &&
      base(item) &&
      (filters.tool === undefined || effectiveToolNames(item).includes(filters.tool)) &&
      (filters.model === undefined || item.model === filters.model) &&
      (filters.readOnly !== true || isReadOnly(item)) &&
      (filters.background !== true || item.background) &&
      (filters.source === undefined || item.source === filters.source)
  )
}

/** The skills matching `query skills`. */
export const filterSkills = (inventory: AgentHostsInventory, filters: SkillFilters): ReadonlyArray<SkillItem> => {
  const base = common(filters)
  const keyword = filters.keyword?.toLowerCase()
  return inventory.items.filter(
    (item): item is SkillItem =>
      item.kind === "skill" && base(item) && (keyword === undefined || (item.description ?? "").toLowerCase().includes(keyword))
  )
}

/** The commands matching `query commands`. */
export const filterCommands = (inventory: AgentHostsInventory, filters: CommonFilters): ReadonlyArray<CommandItem> => {
  const base = common(filters)
  return inventory.items.filter((item): item is CommandItem => item.kind === "command" && base(item))
}

/** The MCP servers matching `query mcp`. */
export const filterMcpServers = (inventory: AgentHostsInventory, filters: CommonFilters): ReadonlyArray<McpServerItem> => {
  const base = common(filters)
  return inventory.items.filter((item): item is McpServerItem => item.kind === "mcpServer" && base(item))
}

/** The plugins (and Gemini extensions) matching `query plugins`. */
export const filterPlugins = (inventory: AgentHostsInventory, filters: CommonFilters): ReadonlyArray<PluginItem> => {
  const base = common(filters)
  return inventory.items.filter((item): item is PluginItem => item.kind === "plugin" && base(item))
}
