/**
 * Where each agent host keeps the MCP servers `tool-map gateway setup` moves: one file per host
 * and scope, the same files the inventory's readers load them from (agentHosts/*.ts). Pure: the
 * caller gives the environment, the home and the working directory.
 */
import * as NodePath from "node:path"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"
import { MCP_DIALECT, type McpDialect } from "../../inventory/discover/agentHosts/index.js"

/**
 * Which of a host's configs setup edits: the user's (every project), the working directory's
 * project file, or (Claude Code only) the local scope, the project's own entry in the user's
 * ~/.claude.json (`projects[<dir>].mcpServers`, where `claude mcp add` puts a server by default).
 */
export type SetupScope = "user" | "project" | "local"

/** Every scope, the default first. */
export const SETUP_SCOPES: ReadonlyArray<SetupScope> = ["user", "project", "local"]

/** How a host's config file is written. */
export type ConfigFormat = "jsonc" | "toml"

/** The file a host keeps its servers in for one scope, and how the servers sit in it. */
export interface HostConfigTarget {
  readonly host: AgentHostName
  readonly scope: SetupScope
  /** The files that may hold the servers, most likely first; setup edits the first that exists and holds servers. */
  readonly candidates: ReadonlyArray<string>
  readonly format: ConfigFormat
  /**
   * Where the map of servers sits in the file: a top-level key (`mcpServers`), or for Claude
   * Code's local scope `projects`, the project's key, `mcpServers`. The key the planner is given
   * for the local scope is the working directory until the file is read (`withProjectKey`).
   */
  readonly mapPath: ReadonlyArray<string>
  readonly dialect: McpDialect
}

/** The environment the host files derive from. */
export interface HostFilesEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homedir: string
  readonly cwd: string
}

const set = (value: string | undefined): value is string => value !== undefined && value.length > 0

/**
 * The file `host` loads its `scope` MCP servers from, or null for a scope the host does not
 * have (only Claude Code has a local one). The project scope is the working directory's
 * (`.mcp.json`, `.codex/config.toml`, `.cursor/mcp.json`, `.gemini/settings.json`, `opencode.json(c)`).
 */
export const hostConfigTarget = (host: AgentHostName, scope: SetupScope, machine: HostFilesEnvironment): HostConfigTarget | null => {
  const { env, homedir, cwd } = machine
  const at = (...candidates: ReadonlyArray<string>) => candidates.map((file) => NodePath.resolve(cwd, file))
  if (scope === "local" && host !== "claude-code") return null
  switch (host) {
    case "claude-code": {
      const configDir = env["CLAUDE_CONFIG_DIR"]
      const user = set(configDir) ? NodePath.join(NodePath.resolve(configDir), ".claude.json") : NodePath.join(homedir, ".claude.json")
      if (scope === "local") return { host, scope, candidates: at(user), format: "jsonc", mapPath: ["projects", NodePath.resolve(cwd), "mcpServers"], dialect: MCP_DIALECT[host] }
      return { host, scope, candidates: at(scope === "user" ? user : ".mcp.json"), format: "jsonc", mapPath: ["mcpServers"], dialect: MCP_DIALECT[host] }
    }
    case "codex": {
      const codexHome = set(env["CODEX_HOME"]) ? NodePath.resolve(env["CODEX_HOME"]) : NodePath.join(homedir, ".codex")
      const file = scope === "user" ? NodePath.join(codexHome, "config.toml") : NodePath.join(".codex", "config.toml")
      // One segment: the TOML editor edits top-level tables only.
      return { host, scope, candidates: at(file), format: "toml", mapPath: ["mcp_servers"], dialect: MCP_DIALECT[host] }
    }
    case "cursor": {
      const file = scope === "user" ? NodePath.join(homedir, ".cursor", "mcp.json") : NodePath.join(".cursor", "mcp.json")
      return { host, scope, candidates: at(file), format: "jsonc", mapPath: ["mcpServers"], dialect: MCP_DIALECT[host] }
    }
    case "gemini": {
      const file = scope === "user" ? NodePath.join(homedir, ".gemini", "settings.json") : NodePath.join(".gemini", "settings.json")
      return { host, scope, candidates: at(file), format: "jsonc", mapPath: ["mcpServers"], dialect: MCP_DIALECT[host] }
    }
    case "opencode": {
      const xdg = env["XDG_CONFIG_HOME"]
      const configDir = set(env["OPENCODE_CONFIG_DIR"])
        ? NodePath.resolve(cwd, env["OPENCODE_CONFIG_DIR"])
        : NodePath.join(set(xdg) ? xdg : NodePath.join(homedir, ".config"), "opencode")
      const dir = scope === "user" ? configDir : cwd
      const names = scope === "user" ? ["opencode.json", "opencode.jsonc", "config.json"] : ["opencode.json", "opencode.jsonc"]
      return { host, scope, candidates: at(...names.map((name) => NodePath.join(dir, name))), format: "jsonc", mapPath: ["mcp"], dialect: MCP_DIALECT[host] }
    }
  }
}

/** The target with the local scope's project key as the file has it (the nearest project of the working directory; see `localProjectKey`). */
export const withProjectKey = (target: HostConfigTarget, key: string): HostConfigTarget =>
  target.scope === "local" ? { ...target, mapPath: ["projects", key, "mcpServers"] } : target
