/**
 * Claude Code's permission deny rules that name MCP tools, matched as Claude Code 2.1.332 matches
 * them (read from its bundle: the rule parser `ro`/`bD`, the name builders `Hn`/`ur`/`gr`, the
 * glob class and the rule matcher `k` with `coversMcpTool`). A tool of server S named T is
 * `mcp__<Hn(S)>__<Hn(T)>`, where `Hn` turns every character outside `[A-Za-z0-9_-]` into `_`
 * (a `claude.ai ` server's runs of `_` folded, and its leading and trailing `_` dropped). A
 * content-free deny rule R denies the tool when R is that name, when R holds `*` and matches it
 * as a glob, when R is `mcp__<server>` (the name up to the first `__`) or `mcp__<server>__*`, or
 * when R's tool part is a glob that matches the tool part. A plugin's server is
 * `plugin:<plugin>:<server>` to Claude Code. Rules with content (`mcp__s__t(x)`) never deny a
 * whole tool and are left out.
 */
const PREFIX = "mcp__"

/** Claude Code's `Hn`: the name of a server or tool as it is spelled in `mcp__…` names. */
export const claudeNamePart = (name: string): string => {
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, "_")
  return name.startsWith("claude.ai ") ? replaced.replace(/_+/g, "_").replace(/^_|_$/g, "") : replaced
}

/** Claude Code's name of a tool: `mcp__<server>__<tool>`. */
export const claudeToolName = (server: string, tool: string): string => `${PREFIX}${claudeNamePart(server)}__${claudeNamePart(tool)}`

/** Claude Code's name of a plugin's server (`name@marketplace` of the plugin, then the server's own name). */
export const claudePluginServerName = (plugin: string, server: string): string => {
  const at = plugin.lastIndexOf("@")
  return `plugin:${at > 0 ? plugin.slice(0, at) : plugin}:${server}`
}

/** Claude Code's `gr`: the server and tool parts of an `mcp__` name (the server ends at the first `__`). */
const parseMcpName = (name: string): { readonly server: string; readonly tool: string | undefined } | null => {
  if (!name.startsWith(PREFIX)) return null
  const end = name.indexOf("__", PREFIX.length)
  if (end === -1) {
    const server = name.slice(PREFIX.length)
    return server === "" ? null : { server, tool: undefined }
  }
  if (end === PREFIX.length) return null
  return { server: name.slice(PREFIX.length, end), tool: name.slice(end + 2) }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Claude Code's glob: `*` matches any run of characters, everything else itself, the whole text. */
const globMatches = (pattern: string, text: string): boolean =>
  new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`, "s").test(text)

/**
 * The tool name of a rule that denies a whole tool, or null: `Tool` and `Tool()`/`Tool(*)` (which
 * Claude Code reads as `Tool`) do; `Tool(content)` does not, nor a malformed rule with parentheses
 * (which names no tool there is).
 */
const bareRule = (rule: string): string | null => {
  if (!rule.includes("(") && !rule.includes(")")) return rule
  const open = rule.indexOf("(")
  if (open > 0 && rule.endsWith(")") && !/[()]/.test(rule.slice(0, open))) {
    const content = rule.slice(open + 1, -1)
    return content === "" || content === "*" ? rule.slice(0, open) : null
  }
  return null
}

/** The deny rules of a settings list that can name an MCP tool (content-free, `mcp__…`). */
export const mcpDenyRules = (rules: ReadonlyArray<string>): ReadonlyArray<string> =>
  Array.from(new Set(rules.flatMap((rule) => {
    const bare = bareRule(rule)
    return bare !== null && bare.startsWith(PREFIX) ? [bare] : []
  })))

/** Whether deny rule `rule` (as {@link mcpDenyRules} keeps it) denies tool `tool` of server `server` (Claude Code's names). */
export const claudeDenies = (rule: string, server: string, tool: string): boolean => {
  const name = claudeToolName(server, tool)
  if (rule === name) return true
  const lower = rule.startsWith("mcp__plugin_*_")
  if (rule.includes("*") && globMatches(lower ? rule.toLowerCase() : rule, lower ? name.toLowerCase() : name)) return true
  const ruleParts = parseMcpName(rule)
  const toolParts = parseMcpName(name)
  if (ruleParts !== null && toolParts !== null && ruleParts.server === toolParts.server) {
    if (ruleParts.tool === undefined || ruleParts.tool === "*") return true
    if (ruleParts.tool.includes("*") && toolParts.tool !== undefined && globMatches(ruleParts.tool, toolParts.tool)) return true
  }
  // The server-level names of the tool: `mcp__<server>` as spelled, and up to its first `__`.
  const spelled = claudeNamePart(server)
  return rule === `${PREFIX}${spelled}` || rule === `${PREFIX}${parseMcpName(`${PREFIX}${spelled}__x`)?.server ?? spelled}`
}

/**
 * The rule among `rules` that denies every tool server `server` could have, or undefined: one
 * that denies the tool whatever its name. A glob ending in `*` denies every name that starts with
 * a text it matches, and one that does not end in `*` cannot deny every name.
 */
export const claudeDeniesServer = (rules: ReadonlyArray<string>, server: string): string | undefined => {
  const spelled = claudeNamePart(server)
  const prefix = `${PREFIX}${spelled}__`
  const serverPart = parseMcpName(`${prefix}x`)?.server
  return rules.find((rule) => {
    const parts = parseMcpName(rule)
    if (parts !== null && parts.server === serverPart && (parts.tool === undefined || parts.tool === "*")) return true
    if (rule === `${PREFIX}${spelled}`) return true
    const lower = rule.startsWith("mcp__plugin_*_")
    return rule.endsWith("*") && globMatches(lower ? rule.toLowerCase() : rule, lower ? prefix.toLowerCase() : prefix)
  })
}

/**
 * The rules among `rules` that may deny a tool of server `server`: those whose server part (up to
 * the first `__`) is the server's or holds a `*`. Any other rule starts with another literal
 * `mcp__<server>__`, which no name of this server's tools does.
 */
export const claudeRulesFor = (rules: ReadonlyArray<string>, server: string): ReadonlyArray<string> => {
  const spelled = claudeNamePart(server)
  const serverPart = parseMcpName(`${PREFIX}${spelled}__x`)?.server
  return rules.filter((rule) => {
    const part = parseMcpName(rule)?.server
    return rule === `${PREFIX}${spelled}` || part === serverPart || part?.includes("*") === true
  })
}
