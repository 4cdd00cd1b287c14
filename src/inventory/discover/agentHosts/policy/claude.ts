/**
 * Claude Code's precedence and policy over its decoded config files (issue 28): which settings
 * file wins a key, which plugins are enabled, which MCP servers its switches let through, and
 * the model that sets the skill listing's budget. Pure: the reader decodes the files, these
 * rules decide (checked against Claude Code 2.1.332 by `npm run conformance`).
 */
import type * as NodePath from "node:path"
import type { AgentItemScope } from "../../../domain/agentHosts.js"
import { claudeListingModel, type ClaudeListingModel } from "../../../domain/ledger.js"
import type { ClaudeProjectEntry } from "../config/claudeJson.js"
import type { InstalledPlugins } from "../config/claudePlugins.js"
import type { ClaudeMcpServerRule, ClaudeSettings } from "../config/claudeSettings.js"
import { ancestors } from "../hostPaths.js"

/** A settings file read and decoded, with its scope. */
export interface ClaudeSettingsSource {
  readonly path: string
  readonly scope: AgentItemScope
  readonly settings: ClaudeSettings
}

/**
 * The settings files Claude Code reads, highest precedence first: the managed drop-ins (given in
 * name order; the last wins), the managed file, each project's `settings.local.json`, then each
 * project's `settings.json`, then the user's.
 */
export const claudeSettingsPaths = (
  path: NodePath.PlatformPath,
  dirs: { readonly managedDir: string; readonly dropIns: ReadonlyArray<string>; readonly projectClaudeDirs: ReadonlyArray<string>; readonly userDir: string }
): ReadonlyArray<{ readonly file: string; readonly scope: AgentItemScope; readonly role: string }> => [
  ...[...dirs.dropIns].reverse().map((file) => ({ file, scope: "managed" as const, role: "managed settings" })),
  { file: path.join(dirs.managedDir, "managed-settings.json"), scope: "managed", role: "managed settings" },
  ...dirs.projectClaudeDirs.map((claude) => ({ file: path.join(claude, "settings.local.json"), scope: "local" as const, role: "local settings" })),
  ...dirs.projectClaudeDirs.map((claude) => ({ file: path.join(claude, "settings.json"), scope: "project" as const, role: "project settings" })),
  { file: path.join(dirs.userDir, "settings.json"), scope: "user", role: "user settings" }
]

/**
 * The key of `projects` in ~/.claude.json whose local-scope servers Claude Code loads in `cwd`:
 * the nearest of `cwd` and its ancestors that is a key (compared as resolved paths; on Windows
 * and macOS without case). Shared by the reader and `tool-map gateway setup --scope local`.
 */
export const localProjectKey = (
  projects: Readonly<Record<string, unknown>> | null,
  cwd: string,
  path: NodePath.PlatformPath,
  os: string
): string | undefined => {
  if (projects === null) return undefined
  const normalize = (dir: string) => path.resolve(dir).replace(/\\/g, "/").toLowerCase()
  return ancestors(path, cwd)
    .map((dir) => Object.keys(projects).find((key) => (os === "linux" ? path.resolve(key) === dir : normalize(key) === normalize(dir))))
    .find((key) => key !== undefined)
}

/** Every settings file (highest precedence first) that holds `key`, with its value. */
export const settingsWith = <K extends keyof ClaudeSettings>(
  sources: ReadonlyArray<ClaudeSettingsSource>,
  key: K
): ReadonlyArray<{ readonly source: ClaudeSettingsSource; readonly value: NonNullable<ClaudeSettings[K]> }> =>
  sources.flatMap((source) => {
    const value = source.settings[key]
    return value === undefined ? [] : [{ source, value: value as NonNullable<ClaudeSettings[K]> }]
  })

/** The effective value of `enabledPlugins[id]`: the highest-precedence settings file that names it, or null. */
export const claudePluginSwitch = (sources: ReadonlyArray<ClaudeSettingsSource>, id: string): { readonly on: boolean; readonly file: string } | null => {
  for (const { source, value } of settingsWith(sources, "enabledPlugins")) {
    if (Object.hasOwn(value, id)) return { on: value[id]!, file: source.path }
  }
  return null
}

/** Plugins switched on in a settings file that are not installed: `[file, id]`, in precedence order. */
export const enabledButNotInstalled = (
  sources: ReadonlyArray<ClaudeSettingsSource>,
  installed: ReadonlySet<string>
): ReadonlyArray<readonly [file: string, id: string]> =>
  settingsWith(sources, "enabledPlugins").flatMap(({ source, value }) =>
    Object.keys(value).filter((id) => value[id] === true && !installed.has(id)).map((id) => [source.path, id] as const)
  )

/** A plugin installation of `installed_plugins.json`, its folder resolved. */
export interface InstalledPlugin {
  readonly id: string
  readonly name: string
  readonly marketplace: string | null
  readonly version: string | null
  readonly installPath: string
  readonly scope: AgentItemScope
  readonly projectPath: string | null
}

/**
 * The installations `installed_plugins.json` lists (v1 or v2), in file order, and what is wrong
 * with it: no `plugins` object (nothing installed), an installation without `installPath`
 * (skipped). A scope other than project, local or managed is user.
 */
export const claudeInstalledPlugins = (
  file: InstalledPlugins,
  pluginsDir: string,
  path: NodePath.PlatformPath
): { readonly plugins: ReadonlyArray<InstalledPlugin>; readonly problems: ReadonlyArray<string> } => {
  if (file.plugins === undefined) return { plugins: [], problems: ["no `plugins` object; no plugin is installed"] }
  const problems: Array<string> = []
  const plugins = Object.keys(file.plugins).flatMap((id) => {
    const raw = file.plugins![id]!
    const at = id.lastIndexOf("@")
    return (Array.isArray(raw) ? raw : [raw]).flatMap((entry): ReadonlyArray<InstalledPlugin> => {
      if (entry.installPath === undefined) {
        problems.push(`plugin ${id} has no installPath; skipped`)
        return []
      }
      const scope = entry.scope
      return [{
        id,
        name: at > 0 ? id.slice(0, at) : id,
        marketplace: at > 0 ? id.slice(at + 1) : null,
        version: entry.version ?? null,
        installPath: path.resolve(pluginsDir, entry.installPath),
        scope: scope === "project" || scope === "local" || scope === "managed" ? scope : "user",
        projectPath: entry.projectPath ?? null
      }]
    })
  })
  return { plugins, problems }
}

/**
 * Whether an installed plugin loads in the working directory: switched on by the winning
 * `enabledPlugins`, and, installed for a project (project or local scope), installed for the
 * working directory or one of its parents (`cwdChain`).
 */
export const claudePluginEnabled = (
  plugin: InstalledPlugin,
  pluginSwitch: { readonly on: boolean; readonly file: string } | null,
  cwdChain: ReadonlyArray<string>,
  path: NodePath.PlatformPath
): { readonly enabled: boolean; readonly disabledReason: string | null } => {
  const sameDir = (a: string, b: string) => path.resolve(a).replace(/\\/g, "/") === path.resolve(b).replace(/\\/g, "/")
  const projectPath = plugin.projectPath
  const otherProject = (plugin.scope === "project" || plugin.scope === "local") && projectPath !== null && !cwdChain.some((dir) => sameDir(dir, projectPath))
  const enabled = pluginSwitch?.on === true && !otherProject
  return {
    enabled,
    disabledReason: enabled
      ? null
      : otherProject
      ? `installed for another project (${projectPath})`
      : pluginSwitch === null
      ? "not enabled in any settings file (enabledPlugins)"
      : `disabled by enabledPlugins in ${pluginSwitch.file}`
  }
}

/** The rank of a plugin among plugins of one id: local over project over user. */
export const claudePluginRank = (scope: AgentItemScope): number => (scope === "local" ? 0 : scope === "project" ? 1 : 2)

/** The switches of Claude Code's MCP servers, from every settings file and the project's entry in `~/.claude.json`. */
export interface ClaudeMcpSwitches {
  /** `managed-mcp.json` exists: it is the only source of servers. */
  readonly managedExclusive: boolean
  readonly denied: ReadonlyArray<ClaudeMcpServerRule>
  /** The managed files' `allowedMcpServers` together, or null when no managed file has one. */
  readonly allowed: ReadonlyArray<ClaudeMcpServerRule> | null
  /** `.mcp.json` servers switched off (settings files and the project entry). */
  readonly disabledProjectServers: ReadonlySet<string>
  /** Any server switched off for this project (`disabledMcpServers` of its entry). */
  readonly disabledServers: ReadonlySet<string>
}

/** {@link ClaudeMcpSwitches} of the decoded files. */
export const claudeMcpSwitches = (
  sources: ReadonlyArray<ClaudeSettingsSource>,
  project: ClaudeProjectEntry | null,
  managedExclusive: boolean
): ClaudeMcpSwitches => {
  const managedAllow = sources.filter((source) => source.scope === "managed" && source.settings.allowedMcpServers !== undefined)
  return {
    managedExclusive,
    denied: settingsWith(sources, "deniedMcpServers").flatMap(({ value }) => value),
    allowed: managedAllow.length === 0 ? null : managedAllow.flatMap((source) => source.settings.allowedMcpServers ?? []),
    disabledProjectServers: new Set([...settingsWith(sources, "disabledMcpjsonServers").flatMap(({ value }) => value), ...(project?.disabledMcpjsonServers ?? [])]),
    disabledServers: new Set(project?.disabledMcpServers ?? [])
  }
}

/** Whether a rule names the server: by its name, or by its whole command line. */
export const claudeRuleMatches = (rule: ClaudeMcpServerRule, name: string, command: ReadonlyArray<string>): boolean =>
  (rule.serverName !== undefined && rule.serverName === name) ||
  (rule.serverCommand !== undefined && rule.serverCommand.length === command.length && rule.serverCommand.every((part, index) => part === command[index]))

/**
 * Why Claude Code does not start an enabled server, or null when it does: managed exclusivity,
 * then `deniedMcpServers`, the managed `allowedMcpServers`, `disabledMcpjsonServers` (project
 * servers) and the project's `disabledMcpServers`, in that order. `command` is the command line
 * (empty for a remote server).
 */
export const claudeMcpServerOff = (
  switches: ClaudeMcpSwitches,
  server: { readonly name: string; readonly scope: AgentItemScope; readonly command: ReadonlyArray<string> }
): string | null =>
  switches.managedExclusive && server.scope !== "managed"
    ? "managed-mcp.json takes exclusive control of MCP servers"
    : switches.denied.some((rule) => claudeRuleMatches(rule, server.name, server.command))
    ? "denied by deniedMcpServers"
    : switches.allowed !== null && server.scope !== "managed" && !switches.allowed.some((rule) => claudeRuleMatches(rule, server.name, server.command))
    ? "not in the managed allowedMcpServers"
    : server.scope === "project" && switches.disabledProjectServers.has(server.name)
    ? "disabled by disabledMcpjsonServers"
    : switches.disabledServers.has(server.name)
    ? "disabled for this project in ~/.claude.json"
    : null

/**
 * The model the ledger assumes and its skill-listing budget: the highest-precedence `model` and
 * `skillListingBudgetFraction` of the settings files, through `claudeListingModel` (the
 * environment first).
 */
export const claudeSessionListing = (sources: ReadonlyArray<ClaudeSettingsSource>, env: Readonly<Record<string, string | undefined>>): ClaudeListingModel => {
  const model = settingsWith(sources, "model")[0]
  const fraction = settingsWith(sources, "skillListingBudgetFraction")[0]
  return claudeListingModel({
    env,
    settingsModel: model === undefined ? null : { value: model.value, file: model.source.path },
    budgetFraction: fraction === undefined ? null : fraction.value
  })
}

/** The `permissions.deny` rules of every settings file together (the gateway's deny filter reads them all). */
export const claudeDenyRulesOf = (sources: ReadonlyArray<ClaudeSettings>): ReadonlyArray<string> =>
  sources.flatMap((settings) => settings.permissions?.deny ?? [])
