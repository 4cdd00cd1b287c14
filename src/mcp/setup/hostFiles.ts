/**
 * Where each agent host keeps the MCP servers `tool-map gateway setup` moves: one file per host
 * and scope, the same files the inventory's readers load them from (agentHosts/*.ts). Pure: the
 * caller gives the environment, the home and the working directory.
 */
import * as NodePath from "node:path"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"
import type { McpDialect } from "../../inventory/discover/agentHosts/mcpLaunch.js"

/** Which of a host's configs setup edits: the user's (every project) or the working directory's project. */
export type SetupScope = "user" | "project"

/** Every scope, the default first. */
export const SETUP_SCOPES: ReadonlyArray<SetupScope> = ["user", "project"]

/** How a host's config file is written. */
export type ConfigFormat = "jsonc" | "toml"

/** The file a host keeps its servers in for one scope, and how the servers sit in it. */
export interface HostConfigTarget {
  readonly host: AgentHostName
  readonly scope: SetupScope
  /** The files that may hold the servers, most likely first; setup edits the first that exists and holds servers. */
  readonly candidates: ReadonlyArray<string>
  readonly format: ConfigFormat
  /** The key of the map of servers at the file's top level. */
  readonly mapKey: string
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
 * The file `host` loads its `scope` MCP servers from. The project scope is the working
 * directory's (`.mcp.json`, `.codex/config.toml`, `.cursor/mcp.json`, `.gemini/settings.json`,
 * `opencode.json(c)`); Claude Code's local-scope servers (`projects[cwd]` of `~/.claude.json`)
 * stay where they are.
 */
export const hostConfigTarget = (host: AgentHostName, scope: SetupScope, machine: HostFilesEnvironment): HostConfigTarget => {
  const { env, homedir, cwd } = machine
  const at = (...candidates: ReadonlyArray<string>) => candidates.map((file) => NodePath.resolve(cwd, file))
  switch (host) {
    case "claude-code": {
      const configDir = env["CLAUDE_CONFIG_DIR"]
      const user = set(configDir) ? NodePath.join(NodePath.resolve(configDir), ".claude.json") : NodePath.join(homedir, ".claude.json")
      return { host, scope, candidates: at(scope === "user" ? user : ".mcp.json"), format: "jsonc", mapKey: "mcpServers", dialect: "claude" }
    }
    case "codex": {
      const codexHome = set(env["CODEX_HOME"]) ? NodePath.resolve(env["CODEX_HOME"]) : NodePath.join(homedir, ".codex")
      const file = scope === "user" ? NodePath.join(codexHome, "config.toml") : NodePath.join(".codex", "config.toml")
      return { host, scope, candidates: at(file), format: "toml", mapKey: "mcp_servers", dialect: "codex" }
    }
    case "cursor": {
      const file = scope === "user" ? NodePath.join(homedir, ".cursor", "mcp.json") : NodePath.join(".cursor", "mcp.json")
      return { host, scope, candidates: at(file), format: "jsonc", mapKey: "mcpServers", dialect: "cursor" }
    }
    case "gemini": {
      const file = scope === "user" ? NodePath.join(homedir, ".gemini", "settings.json") : NodePath.join(".gemini", "settings.json")
      return { host, scope, candidates: at(file), format: "jsonc", mapKey: "mcpServers", dialect: "gemini" }
    }
    case "opencode": {
      const xdg = env["XDG_CONFIG_HOME"]
      const configDir = set(env["OPENCODE_CONFIG_DIR"])
        ? NodePath.resolve(cwd, env["OPENCODE_CONFIG_DIR"])
        : NodePath.join(set(xdg) ? xdg : NodePath.join(homedir, ".config"), "opencode")
      const dir = scope === "user" ? configDir : cwd
      const names = scope === "user" ? ["opencode.json", "opencode.jsonc", "config.json"] : ["opencode.json", "opencode.jsonc"]
      return { host, scope, candidates: at(...names.map((name) => NodePath.join(dir, name))), format: "jsonc", mapKey: "mcp", dialect: "opencode" }
    }
  }
}
