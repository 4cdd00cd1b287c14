/**
 * Codex's policy over its decoded config (0.171.0; issue 28): a project's `.codex/config.toml`
 * loads only in a trusted project, and a server's `enabled_tools`/`disabled_tools` filter its
 * tools. Pure: the reader decodes the files, these rules decide.
 */
import type { CodexConfig } from "../config/codexConfig.js"
import type { CodexMcpEntry } from "../config/mcpEntry.js"

/** Why Codex ignores a project's own config file. */
export const CODEX_UNTRUSTED = "the project is not trusted in config.toml, so Codex ignores its config"

/**
 * Whether the user's `config.toml` trusts a project: a `[projects."<folder>"]` table with
 * `trust_level = "trusted"` for the project's folder or one of its parents (`folders`: the folder
 * and its parents).
 */
export const codexTrusts = (config: CodexConfig | null, folders: ReadonlyArray<string>): boolean => {
  const projects = config?.projects
  if (projects === undefined) return false
  return folders.some((folder) => Object.hasOwn(projects, folder) && projects[folder]!.trust_level === "trusted")
}

/**
 * The tool filter of a Codex entry (`ToolFilter` in codex-rs' mcp_connection_manager.rs): a
 * tool is allowed when `enabled_tools` is absent or holds its exact name, and `disabled_tools`
 * does not; the order does not matter, and an empty `enabled_tools` allows nothing. Undefined
 * when the entry has neither list.
 */
export const codexToolFilter = (entry: CodexMcpEntry): { readonly include?: ReadonlyArray<string>; readonly exclude?: ReadonlyArray<string> } | undefined =>
  entry.enabled_tools === undefined && entry.disabled_tools === undefined
    ? undefined
    : { ...(entry.enabled_tools === undefined ? {} : { include: entry.enabled_tools }), ...(entry.disabled_tools === undefined ? {} : { exclude: entry.disabled_tools }) }
