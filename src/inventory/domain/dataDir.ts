/**
 * The default data directory, where the bundle and the catalog's files live unless a flag says
 * otherwise: a pure rule over the environment, read by the bundle's location, the agent-host
 * scan, the layers and the CLI.
 */
import * as NodePath from "node:path"

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value !== ""

/**
 * The default output directory: `$PLUGIN_DATA`, else `$XDG_DATA_HOME/tool-map`, else
 * `~/.local/share/tool-map`. An empty variable counts as unset; a relative `XDG_DATA_HOME` is
 * ignored, as the XDG base directory spec requires.
 */
export const defaultDataDir = (env: Readonly<Record<string, string | undefined>>, homedir: string): string => {
  const pluginData = env["PLUGIN_DATA"]
  if (nonEmpty(pluginData)) return pluginData
  const xdgDataHome = env["XDG_DATA_HOME"]
  if (nonEmpty(xdgDataHome) && NodePath.isAbsolute(xdgDataHome)) return NodePath.join(xdgDataHome, "tool-map")
  return NodePath.join(homedir, ".local", "share", "tool-map")
}

/**
 * Why the default data directory cannot be used, or null: it derives from an empty or relative
 * home directory (`HOME=` or `HOME=.`) with no `$PLUGIN_DATA` and no absolute `$XDG_DATA_HOME`, so
 * it would be a directory under whatever the working directory happens to be.
 */
export const defaultDataDirProblem = (env: Readonly<Record<string, string | undefined>>, homedir: string): string | null => {
  const dir = defaultDataDir(env, homedir)
  if (NodePath.isAbsolute(dir) || nonEmpty(env["PLUGIN_DATA"])) return null
  const xdg = env["XDG_DATA_HOME"]
  const why = homedir === "" ? "HOME is empty" : `HOME is the relative path ${homedir}`
  return `the data directory would be ${dir} under the working directory: ${why}${nonEmpty(xdg) ? ` and XDG_DATA_HOME (${xdg}) is relative` : ""}. Set HOME (or XDG_DATA_HOME, or PLUGIN_DATA) to an absolute directory`
}
