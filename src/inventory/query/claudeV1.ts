import { type AgentHostsInventory, type AgentItem, type CommandItem, isEffective, type McpServerItem, type SkillItem } from "../domain/agentHosts.js"
import { effectiveToolNames } from "./agentQueries.js"

/** The fixed enumeration of orchestration patterns of the seed's v1 schema. */
export const ORCHESTRATION_PATTERNS = [
  "A-single",
  "B-parallel-explore",
  "C-orchestrator-worker",
  "D-pipeline",
  "E-agent-teams",
  "F-map-reduce"
] as const

/** The default role → model mapping of the seed's v1 schema. */
export const MODEL_TIERS = { orchestrator: "opus", reviewer: "sonnet", research: "haiku" } as const

/** `agents[]` of the v1 schema. */
export interface ClaudeV1Agent {
  readonly name: string
  readonly path: string
  readonly model: string | null
  /** Effective tool names: the inherited set when the agent has no `tools`, `Bash(…)` as `Bash`. */
  readonly tools: ReadonlyArray<string>
  readonly background: boolean
  readonly max_turns: number | null
  readonly description: string
  readonly agent_source: "local" | "plugin-root" | "plugin-nested"
  readonly mcpServers: ReadonlyArray<string> | null
}

/** `skills[]` of the v1 schema. */
export interface ClaudeV1Skill {
  readonly name: string
  readonly path: string
  readonly source: "local" | "plugin"
  readonly description: string
  readonly allowed_tools: ReadonlyArray<string>
}

/** `commands[]` of the v1 schema. */
export interface ClaudeV1Command {
  readonly name: string
  readonly path: string
  readonly description: string
  readonly argument_hint: string | null
}

/** `mcp_servers[]` of the v1 schema: the command line (or URL of a remote server) and env var NAMES. */
export interface ClaudeV1McpServer {
  readonly name: string
  readonly command: string | null
  readonly env_vars: ReadonlyArray<string>
}

/** The seed's `~/.claude/tools-inventory.json`, version 1, field for field. */
export interface ClaudeV1Inventory {
  readonly version: 1
  readonly generated_at: string
  readonly scanned_roots: ReadonlyArray<string>
  readonly agents: ReadonlyArray<ClaudeV1Agent>
  readonly skills: ReadonlyArray<ClaudeV1Skill>
  readonly commands: ReadonlyArray<ClaudeV1Command>
  readonly mcp_servers: ReadonlyArray<ClaudeV1McpServer>
  readonly enabled_plugins: ReadonlyArray<string>
  readonly orchestration_patterns: ReadonlyArray<string>
  readonly model_tiers: { readonly orchestrator: string; readonly reviewer: string; readonly research: string }
}

/** What the export needs besides the inventory. */
export interface ClaudeV1Options {
  /** `generatedAt` of the bundle (ISO 8601 UTC). */
  readonly generatedAt: string
  /** Paths under it are written `~/…`, as the seed does. */
  readonly homedir: string
}

/** `path` with the home directory written as `~`. */
export const tildePath = (path: string, homedir: string): string => {
  const separator = homedir.includes("\\") ? "\\" : "/"
  const home = homedir.endsWith(separator) ? homedir.slice(0, -1) : homedir
  if (path === home) return "~"
  return path.startsWith(home + separator) ? `~/${path.slice(home.length + 1).split(separator).join("/")}` : path
}

/**
 * The seed's v1 inventory from the normalized items: Claude Code only, and only what Claude
 * Code will really load (enabled, not shadowed; `mcpServers` of settings.json are not in it).
 */
export const exportClaudeV1 = (inventory: AgentHostsInventory, options: ClaudeV1Options): ClaudeV1Inventory => {
  const loaded = inventory.items.filter((item) => item.host === "claude-code" && isEffective(item))
  const tilde = (path: string) => tildePath(path, options.homedir)
  const host = inventory.hosts.find((report) => report.host === "claude-code")
  return {
    version: 1,
    generated_at: options.generatedAt,
    scanned_roots: (host?.roots ?? []).filter((root) => root.status === "ok").map((root) => tilde(root.path)),
    agents: loaded
      .filter((item): item is AgentItem => item.kind === "agent")
      .map((agent) => ({
        name: agent.name,
        path: tilde(agent.path),
        model: agent.model,
        tools: effectiveToolNames(agent),
        background: agent.background,
        max_turns: agent.maxTurns,
        description: agent.description ?? "",
        agent_source: agent.source,
        mcpServers: agent.mcpServers
      })),
    skills: loaded
      .filter((item): item is SkillItem => item.kind === "skill")
      .map((skill) => ({
        name: skill.name,
        path: tilde(skill.path),
        source: skill.plugin === null ? "local" : "plugin",
        description: skill.description ?? "",
        allowed_tools: skill.allowedTools ?? []
      })),
    commands: loaded
      .filter((item): item is CommandItem => item.kind === "command")
      .map((command) => ({ name: command.name, path: tilde(command.path), description: command.description ?? "", argument_hint: command.argumentHint })),
    mcp_servers: loaded
      .filter((item): item is McpServerItem => item.kind === "mcpServer")
      .map((server) => ({
        name: server.name,
        command: server.command === null ? server.url : [server.command, ...server.args].join(" "),
        env_vars: server.envVars
      })),
    enabled_plugins: loaded.flatMap((item) => (item.kind === "plugin" && item.plugin !== null ? [item.plugin] : [])),
    orchestration_patterns: ORCHESTRATION_PATTERNS,
    model_tiers: MODEL_TIERS
  }
}
