/**
 * The agent-host readers' public entry: what the scanner, the layers, the MCP gateway and its
 * setup, and the queries use of them. Modules outside this folder import only this module
 * (`npm run lint:imports`, rule `agent-hosts-through-their-entry`); everything else here is the
 * readers' own.
 */

/** The readers' file access, its two layers, its caps and the values it reads. */
export { AgentHostFiles, defaultHostFileLimits, type HostFileLimits, makeAgentHostFiles, sha256 } from "./AgentHostFiles.js"
/** Config text: JSON, JSONC and TOML parsed with a line and a reason of our own, and parsed values read safely. */
export { asRecord, asStringArray, parseJsoncText, parseTomlText } from "./configText.js"
/** Each host's reader, and the context to run one outside a scan. */
export { agentHostReadContext, HOST_READERS } from "./hostReaders.js"
/** What a reader gets and returns. */
export type { HostReadContext, HostReadResult } from "./hostReading.js"
/** What one scan has read already, shared by the readers. */
export { ScanMemo } from "./scanMemo.js"
/** Each host's precedence, and the link between items that are the same file. */
export { linkSameFiles, resolvePrecedence } from "./precedence.js"
/** An MCP server entry normalized and hashed as the inventory keeps it; secrets out of its args and URL. */
export { normalizeMcpEntry, redactArgs, redactUrl } from "./mcp.js"
/** How a host launches an MCP server entry, and which entries run tool-map itself. */
export {
  configHash,
  configOfEntry,
  entryRunsToolMap,
  type HttpServerConfig,
  launchEnvironment,
  MCP_DIALECT,
  type McpDialect,
  runsToolMap,
  type ServerConfig,
  type SkippedServer,
  type StdioServerConfig,
  TOOL_MAP_ITSELF,
  type ToolFilter,
  toolAllowed
} from "./mcpLaunch.js"
/** Claude Code's settings files, managed folder, project folders and local project key. */
export { claudeManagedDir, claudeProjectDirs, claudeSettingsPaths, localProjectKey } from "./claudeCode.js"
/** Claude Code's permission rules for MCP servers. */
export { claudeDeniesServer, claudePluginServerName, claudeRulesFor, mcpDenyRules } from "./claudePermissions.js"
/** The hosts' config files decoded by Schemas, as leniently as the hosts read them: a refused file or a left-out key names file, key and reason (issue 28). */
export { ConfigFileInvalid, ConfigKeyIgnored, decodeConfig, decodedOrNull } from "./config/decode.js"
/** Claude Code's settings file (the keys tool-map reads). */
export { ClaudeSettings } from "./config/claudeSettings.js"
/** `~/.claude.json`, Claude Code's state file (its MCP servers and projects). */
export { ClaudeJson } from "./config/claudeJson.js"
/** Where any host's config file may hold an MCP server's entry. */
export { mcpEntriesNamed } from "./config/mcpServersFile.js"
/** Claude Code's deny rules of every settings file together. */
export { claudeDenyRulesOf } from "./policy/claude.js"
