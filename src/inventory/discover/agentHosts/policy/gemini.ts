/**
 * Gemini CLI's precedence and policy over its decoded config files (0.61.0; issue 28): the first
 * settings file (system > workspace > user) that sets a key wins it; folder trust decides whether
 * the workspace settings, MCP servers, project skills, agents and context load; `mcp.excluded`
 * and `mcp.allowed` filter servers. Pure: the reader decodes the files, these rules decide.
 */
import type * as NodePath from "node:path"
import { Schema } from "effect"
import type { AgentItemScope } from "../../../domain/agentHosts.js"
import type { GeminiMcpEntry } from "../config/mcpEntry.js"
import { type GeminiContextFileName, type GeminiSettings, type GeminiTrustedFolders, GeminiTrustLevel } from "../config/geminiSettings.js"

/** A settings file read and decoded, with its scope. */
export interface GeminiSettingsSource {
  readonly path: string
  readonly scope: AgentItemScope
  readonly settings: GeminiSettings
}

/** Whether Gemini CLI trusts the working directory, and if not, which rule says so. */
export type GeminiTrust = { readonly trusted: true } | { readonly trusted: false; readonly reason: string }

/** The value of the first settings file (in precedence order) for which `read` gives one. */
export const geminiFirstSetting = <A>(sources: ReadonlyArray<GeminiSettingsSource>, read: (settings: GeminiSettings) => A | undefined): A | undefined => {
  for (const source of sources) {
    const found = read(source.settings)
    if (found !== undefined) return found
  }
  return undefined
}

/** The settings that count: an untrusted folder's workspace settings are read by nobody (0.61.0 merges `{}` in their place). */
export const geminiMergedSettings = (sources: ReadonlyArray<GeminiSettingsSource>, trust: GeminiTrust): ReadonlyArray<GeminiSettingsSource> =>
  trust.trusted ? sources : sources.filter((source) => source.scope !== "project")

/** The server filter of the settings: `mcp.excluded` (or `excludeMCPServers`), `mcp.allowed` (or `allowMCPServers`; null: no list). */
export const geminiServerFilter = (merged: ReadonlyArray<GeminiSettingsSource>): { readonly excluded: ReadonlySet<string>; readonly allowed: ReadonlyArray<string> | null } => ({
  excluded: new Set(geminiFirstSetting(merged, (settings) => settings.mcp?.excluded ?? settings.excludeMCPServers) ?? []),
  allowed: geminiFirstSetting(merged, (settings) => settings.mcp?.allowed ?? settings.allowMCPServers) ?? null
})

/** Why Gemini CLI does not start an enabled server, or null: untrusted, 0.61.0 starts none; then the filter. */
export const geminiServerOff = (
  trust: GeminiTrust,
  filter: { readonly excluded: ReadonlySet<string>; readonly allowed: ReadonlyArray<string> | null },
  name: string
): string | null =>
  !trust.trusted
    ? trust.reason
    : filter.excluded.has(name)
    ? "excluded by mcp.excluded"
    : filter.allowed !== null && !filter.allowed.includes(name)
    ? "not in mcp.allowed"
    : null

/** The skills switched off by `skills.disabled`. */
export const geminiDisabledSkills = (merged: ReadonlyArray<GeminiSettingsSource>): ReadonlySet<string> =>
  new Set(geminiFirstSetting(merged, (settings) => settings.skills?.disabled) ?? [])

/** The context file names a value names: file names only (no path), GEMINI.md when none. */
export const geminiContextFileNames = (value: GeminiContextFileName | undefined): ReadonlyArray<string> => {
  const names = value === undefined ? [] : typeof value === "string" ? [value] : value
  const safe = names.filter((name) => name.length > 0 && !name.includes("/") && !name.includes("\\"))
  return safe.length === 0 ? ["GEMINI.md"] : safe
}

/** The context file names of the settings: `context.fileName`, else the legacy `contextFileName`, of the first file that sets one. */
export const geminiSettingsContextNames = (merged: ReadonlyArray<GeminiSettingsSource>): ReadonlyArray<string> =>
  geminiContextFileNames(geminiFirstSetting(merged, (settings) => settings.context?.fileName ?? settings.contextFileName))

/** What the trust rule knows of `trustedFolders.json`. */
export type GeminiTrustedFoldersFile =
  | { readonly _tag: "Missing" }
  /** Unreadable, not JSON, or not an object (`why` says which). */
  | { readonly _tag: "Invalid"; readonly why: string }
  | { readonly _tag: "Rules"; readonly rules: GeminiTrustedFolders }

const TRUST_LEVELS = GeminiTrustLevel.literals
const isTrustLevel = Schema.is(GeminiTrustLevel)

/**
 * Gemini CLI's folder trust, as 0.61.0 decides it (packages/core utils/trust.js and cli
 * config/trustedFolders.ts of its bundle; checked with `gemini mcp list` and `gemini skills list`),
 * before `trustedFolders.json`: `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false`
 * distrust, `=true` trusts; `security.folderTrust.enabled` of the system or user settings (never
 * the workspace's) is true unless set false, although the docs say folder trust is off by default:
 * the host wins. Null: the rules of `trustedFolders.json` decide ({@link geminiTrustByRules}).
 */
export const geminiTrustWithoutRules = (env: Readonly<Record<string, string | undefined>>, settings: ReadonlyArray<GeminiSettingsSource>): GeminiTrust | null => {
  if (env["GEMINI_RESTRICTED_MODE"] === "true") return { trusted: false, reason: "the folder is not trusted: GEMINI_RESTRICTED_MODE=true" }
  if (env["GEMINI_CLI_TRUST_WORKSPACE"] === "false") return { trusted: false, reason: "the folder is not trusted: GEMINI_CLI_TRUST_WORKSPACE=false" }
  if (env["GEMINI_CLI_TRUST_WORKSPACE"] === "true") return { trusted: true }
  const enabled = settings.filter((source) => source.scope !== "project").map((source) => source.settings.security?.folderTrust?.enabled).find((value) => value !== undefined)
  return enabled === false ? { trusted: true } : null
}

/**
 * The trust `trustedFolders.json` (at `file`) gives the working directory: the rule with the
 * longest path that holds it (`TRUST_PARENT` counts for the rule's parent) trusts or distrusts
 * it; with no rule (or no file) the folder is untrusted. A file that is not an object of known
 * levels stops the host ("Please fix the configuration file"): `problem` says why, for a
 * diagnostic on `file`.
 */
export const geminiTrustByRules = (
  file: string,
  read: GeminiTrustedFoldersFile,
  cwd: string,
  path: NodePath.PlatformPath
): { readonly trust: GeminiTrust; readonly problem: string | null } => {
  const untrusted = (why: string) => ({ trust: { trusted: false, reason: `the folder is not trusted: ${why} (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)` } as const, problem: null })
  const invalid = (why: string) => ({ trust: { trusted: false, reason: `Gemini CLI does not start: ${file} is invalid` } as const, problem: `${why}: Gemini CLI refuses to start until it is fixed` })
  if (read._tag === "Missing") return untrusted(`no ${file}`)
  if (read._tag === "Invalid") return invalid(read.why)
  const rules = read.rules
  const bad = Object.keys(rules).find((rule) => !isTrustLevel(rules[rule]))
  if (bad !== undefined) return invalid(`the trust level of ${JSON.stringify(bad)} is not one of ${TRUST_LEVELS.join(", ")}`)
  const resolved = path.resolve(cwd)
  let best: { readonly rule: string; readonly level: GeminiTrustLevel } | null = null
  for (const rule of Object.keys(rules)) {
    const level = rules[rule]
    if (!isTrustLevel(level)) continue
    const covered = path.resolve(level === "TRUST_PARENT" ? path.dirname(rule) : rule)
    const relative = path.relative(covered, resolved)
    const inside = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
    if (inside && (best === null || rule.length > best.rule.length)) best = { rule, level }
  }
  if (best === null) return untrusted(`no rule of ${file} covers it`)
  return best.level === "DO_NOT_TRUST" ? untrusted(`${file} says DO_NOT_TRUST for ${best.rule}`) : { trust: { trusted: true }, problem: null }
}

/**
 * The tool filter of a Gemini CLI entry (`isEnabled` in packages/core/src/tools/mcp-client.ts):
 * `excludeTools` holding the exact name wins; else allowed when `includeTools` is absent or an
 * entry is the name or starts with `name(` (`"run(ls)"` includes `run`). Each include entry is
 * written as the exact names it includes: itself and its text before each `(`. Undefined when the
 * entry has neither list.
 */
export const geminiToolFilter = (entry: GeminiMcpEntry): { readonly include?: ReadonlyArray<string>; readonly exclude?: ReadonlyArray<string> } | undefined => {
  const include = entry.includeTools
  const exclude = entry.excludeTools
  if (include === undefined && exclude === undefined) return undefined
  const included = include === undefined
    ? undefined
    : Array.from(new Set(include.flatMap((name) => [name, ...Array.from(name.matchAll(/\(/g), (match) => name.slice(0, match.index))])))
  return { ...(included === undefined ? {} : { include: included }), ...(exclude === undefined ? {} : { exclude }) }
}
