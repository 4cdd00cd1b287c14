/**
 * opencode's policy over its decoded config (1.18.33; issue 28): the environment switches, the
 * folders its config and skills come from, `skills.paths`, an agent's switched-off tools, and a
 * later file's `enabled: false` switching off a server an earlier one defines. Pure: the reader
 * decodes the files, these rules decide.
 */
import type * as NodePath from "node:path"
import type { OpencodeAgent, OpencodeConfig } from "../config/opencodeConfig.js"

// opencode reads its `OPENCODE_DISABLE_*` switches two ways: `true`/`1` for the project config,
// Effect's boolean config (`true`, `yes`, `on`, `1`, `y`, any case) for the skill scans.
const isSet = (value: string | undefined, words: ReadonlyArray<string>): boolean => value !== undefined && words.includes(value.toLowerCase())
const PLAIN_TRUE = ["true", "1"]
const EFFECT_TRUE = ["true", "yes", "on", "1", "y"]

/** What opencode's environment switches on and off. */
export interface OpencodeSwitches {
  /** The project's config files and `.opencode` folders (`OPENCODE_DISABLE_PROJECT_CONFIG`). */
  readonly projectConfig: boolean
  /** Skills of `~/.claude`, `~/.agents` and the project's (`OPENCODE_DISABLE_EXTERNAL_SKILLS`). */
  readonly externalSkills: boolean
  /** `.claude/skills` among them (`OPENCODE_DISABLE_CLAUDE_CODE`, `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS`). */
  readonly claudeSkills: boolean
}

/** {@link OpencodeSwitches} of the environment. */
export const opencodeSwitches = (env: Readonly<Record<string, string | undefined>>): OpencodeSwitches => ({
  projectConfig: !isSet(env["OPENCODE_DISABLE_PROJECT_CONFIG"], PLAIN_TRUE),
  externalSkills: !isSet(env["OPENCODE_DISABLE_EXTERNAL_SKILLS"], EFFECT_TRUE),
  claudeSkills: !isSet(env["OPENCODE_DISABLE_CLAUDE_CODE"], EFFECT_TRUE) && !isSet(env["OPENCODE_DISABLE_CLAUDE_CODE_SKILLS"], EFFECT_TRUE)
})

/** The global config folder: `OPENCODE_CONFIG_DIR` (from the working directory), else `$XDG_CONFIG_HOME/opencode` or `~/.config/opencode`. */
export const opencodeConfigDir = (
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cwd: string,
  path: NodePath.PlatformPath
): { readonly configDir: string; readonly customDir: string | null } => {
  const custom = env["OPENCODE_CONFIG_DIR"]
  const customDir = custom !== undefined && custom.length > 0 ? path.resolve(cwd, custom) : null
  const xdg = env["XDG_CONFIG_HOME"]
  return { configDir: customDir ?? path.join(xdg !== undefined && xdg.length > 0 ? xdg : path.join(home, ".config"), "opencode"), customDir }
}

/** The skill folders `skills.paths` of a config names: `~/` from home, a relative path from the working directory. */
export const opencodeSkillPaths = (
  config: OpencodeConfig,
  home: string,
  cwd: string,
  path: NodePath.PlatformPath
): ReadonlyArray<string> =>
  (config.skills?.paths ?? []).map((entry) => {
    const expanded = entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry
    return path.isAbsolute(expanded) ? expanded : path.join(cwd, expanded)
  })

/** The tools an agent switches off (`tools: { name: false }`). */
export const opencodeToolsOff = (agent: OpencodeAgent): ReadonlyArray<string> => {
  const tools = agent.tools
  return tools === undefined ? [] : Object.keys(tools).filter((tool) => tools[tool] === false)
}

/** A server entry as the switch rule sees it: its name's namespace, its rank (lower wins), its own switch, its file. */
export interface OpencodeServerSwitch {
  readonly namespace: string | null
  readonly rank: number
  readonly enabled: boolean
  readonly path: string | null
}

/**
 * opencode merges its config files key by key, so a later file's `enabled: false` switches off
 * the server an earlier one defines (`opencode mcp list` says disabled): the winning entry's
 * switch holds for every entry of its name. The reason each entry is switched off so, or null.
 */
export const opencodeInheritedSwitches = (servers: ReadonlyArray<OpencodeServerSwitch>): ReadonlyArray<string | null> => {
  const winners = new Map<string, OpencodeServerSwitch>()
  for (const server of servers) {
    if (server.namespace === null) continue
    const known = winners.get(server.namespace)
    if (known === undefined || server.rank < known.rank) winners.set(server.namespace, server)
  }
  return servers.map((server) => {
    const winner = server.namespace === null ? undefined : winners.get(server.namespace)
    return winner === undefined || winner === server || winner.enabled || !server.enabled ? null : `switched off by enabled: false in ${winner.path}`
  })
}
