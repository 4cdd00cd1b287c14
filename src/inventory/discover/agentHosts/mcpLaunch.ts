/**
 * How an MCP server entry of a host's config is started, and the key its tool snapshot is kept
 * under: the configuration the gateway launches (command, args and env with `${NAME}` filled in
 * from the environment, or URL and headers) and its hash. One rule for the gateway, which starts
 * the server and keeps the snapshot, and for the inventory's ledger, which counts the snapshot's
 * tool schemas (issue 14). Env and header values are carried to the child or the request only:
 * the hash holds their names, never their values.
 */
import * as NodePath from "node:path"
import type { AgentHostName } from "../../domain/agentHosts.js"
import { sha256 } from "../../../catalog/core/definitions.js"
import { claudeDenies } from "./claudePermissions.js"
import { decodeMcpEntry, type McpDialect, type McpEntry, type McpEntryKeys, stringEntries } from "./config/mcpEntry.js"
import { codexToolFilter } from "./policy/codex.js"
import { geminiToolFilter } from "./policy/gemini.js"

/** The config dialects of MCP server entries (defined with their entry shapes). */
export type { McpDialect } from "./config/mcpEntry.js"

/** The dialect of each agent host's MCP server entries. */
export const MCP_DIALECT: Readonly<Record<AgentHostName, McpDialect>> = {
  "claude-code": "claude",
  codex: "codex",
  cursor: "cursor",
  gemini: "gemini",
  opencode: "opencode"
}

/**
 * Which of a server's own tools a host offers (names as the server lists them): a tool is
 * offered when `include` is absent or names it, and `exclude` does not name it (exclude wins),
 * and no Claude Code deny rule of `claudeDeny` denies it.
 */
export interface ToolFilter {
  readonly include?: ReadonlyArray<string> | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  /** Claude Code's content-free `mcp__…` deny rules, matched against the server's name as Claude Code spells it. */
  readonly claudeDeny?: { readonly server: string; readonly rules: ReadonlyArray<string> } | undefined
}

/** Whether `filter` lets the server's tool `tool` through (no filter: every tool). */
export const toolAllowed = (filter: ToolFilter | undefined, tool: string): boolean => {
  if (filter === undefined) return true
  if (filter.exclude?.includes(tool) === true) return false
  if (filter.include !== undefined && !filter.include.includes(tool)) return false
  const deny = filter.claudeDeny
  return deny === undefined || !deny.rules.some((rule) => claudeDenies(rule, deny.server, tool))
}

/** A stdio server: a command run as a child of the gateway. */
export interface StdioServerConfig {
  readonly _tag: "Stdio"
  /** The name in the configuration (untrusted: neutralize before printing). */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Values passed to the child only. */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
  readonly tools?: ToolFilter | undefined
}

/** A Streamable HTTP server. */
export interface HttpServerConfig {
  readonly _tag: "Http"
  readonly name: string
  readonly url: string
  /** Values sent with each request only. */
  readonly headers: Readonly<Record<string, string>>
  readonly tools?: ToolFilter | undefined
}

/** One server as the gateway starts it. */
export type ServerConfig = StdioServerConfig | HttpServerConfig

/** A server of a host the gateway leaves out, and why (a transport it does not speak, an entry changed since). */
export interface SkippedServer {
  readonly name: string
  readonly reason: string
}

/**
 * The key of a server's snapshot: SHA-256 of its transport, command, args, env names (sorted)
 * and cwd, or its URL and header names. A changed value of an env variable keeps the key;
 * anything that may change which program answers does not.
 */
export const configHash = (config: ServerConfig): string =>
  sha256(JSON.stringify(
    config._tag === "Stdio"
      ? { transport: "stdio", command: config.command, args: config.args, env: Object.keys(config.env).sort(), cwd: config.cwd ?? null }
      : { transport: "http", url: config.url, headers: Object.keys(config.headers).sort() }
  ))

const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** `${NAME}`, `${NAME:-default}` and Cursor's `${env:NAME}` replaced from the environment (unset: the default, else empty). */
export const expandReferences = (text: string, env: Readonly<Record<string, string | undefined>>): string =>
  text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => env[name] ?? fallback ?? "")

const stringRecord = (map: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, string>> => Object.fromEntries(stringEntries(map))

const expandAll = (record: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandReferences(value, env)]))

/**
 * The tool filter of an entry, as its host applies it (Codex: `codexToolFilter`, Gemini CLI:
 * `geminiToolFilter`); undefined when it has none.
 */
const filterOfEntry = (decoded: McpEntry): ToolFilter | undefined =>
  decoded.dialect === "codex" ? codexToolFilter(decoded.entry) : decoded.dialect === "gemini" ? geminiToolFilter(decoded.entry) : undefined

/**
 * The configuration to start one entry with, or why it is left out; `transport` is the one
 * `normalizeMcpEntry` reads in the entry.
 */
export const configOfEntry = (
  name: string,
  raw: unknown,
  dialect: McpDialect,
  transport: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string
): ServerConfig | SkippedServer => {
  const decoded = decodeMcpEntry(raw, dialect)
  const entry: McpEntryKeys = decoded.entry
  const expand = (text: string) => expandReferences(text, env)
  const tools = filterOfEntry(decoded)
  if (transport === "stdio") {
    const commandList = dialect === "opencode" && typeof entry.command !== "string" ? entry.command ?? null : null
    const command = commandList?.[0] ?? (typeof entry.command === "string" ? entry.command : "")
    const args = commandList !== null ? commandList.slice(1) : (entry.args ?? [])
    const given = expandAll(stringRecord(dialect === "opencode" ? entry.environment : entry.env), env)
    // Codex's env_vars names variables passed on from the host's own environment.
    const passed = dialect === "codex"
      ? Object.fromEntries((entry.env_vars ?? []).flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]!]])))
      : {}
    const dir = entry.cwd ?? null
    if (command === "") return { name, reason: "it names no command" }
    return {
      _tag: "Stdio",
      name,
      command: expand(command),
      args: args.map(expand),
      env: { ...passed, ...given },
      cwd: dir === null ? cwd : NodePath.resolve(cwd, expand(dir)),
      ...(tools === undefined ? {} : { tools })
    }
  }
  if (transport === "http") {
    const url = (dialect === "gemini" ? entry.httpUrl ?? entry.url : entry.url) ?? ""
    const headers: Record<string, string> = { ...expandAll(stringRecord(dialect === "codex" ? entry.http_headers : entry.headers), env) }
    if (dialect === "codex") {
      for (const [header, variable] of stringEntries(entry.env_http_headers)) {
        if (env[variable] !== undefined) headers[header] = env[variable]!
      }
      const bearer = entry.bearer_token_env_var
      if (bearer !== undefined && env[bearer] !== undefined) headers["Authorization"] = `Bearer ${env[bearer]}`
    }
    const expanded = expand(url)
    if (!URL.canParse(expanded)) return { name, reason: "its url is not a URL" }
    return { _tag: "Http", name, url: expanded, headers, ...(tools === undefined ? {} : { tools }) }
  }
  return { name, reason: `the gateway speaks stdio and Streamable HTTP, not ${transport}` }
}

/** A plugin's root: the directory of its `.mcp.json`, or the parent of its `.claude-plugin/`. */
export const pluginRootOf = (file: string): string => {
  const dir = NodePath.dirname(file)
  return NodePath.basename(dir) === ".claude-plugin" ? NodePath.dirname(dir) : dir
}

/**
 * The environment an entry is started in: the machine's, and for a plugin's server
 * `CLAUDE_PLUGIN_ROOT`, the plugin's root.
 */
export const launchEnvironment = (
  env: Readonly<Record<string, string | undefined>>,
  scope: string,
  file: string
): Readonly<Record<string, string | undefined>> => (scope === "plugin" ? { ...env, CLAUDE_PLUGIN_ROOT: pluginRootOf(file) } : env)

/** The last segment of a path of either OS, without an executable's extension, in lower case. */
const programOf = (word: string): string =>
  (word.replaceAll("\\", "/").split("/").at(-1) ?? "").toLowerCase().replace(/\.(exe|cmd|bat|ps1)$/, "")

const TOOL_MAP_SCRIPT = /^tool-map(\.gateway)?(\.(c|m)?js)?$/i
/** A script of a tool-map package or checkout: `…/tool-map/dist/bin.js`, `…/tool-map/dist/tool-map.cjs`. */
const TOOL_MAP_DIST = /(^|\/)tool-map\/dist\/[^/]+\.(c|m)?js$/i
const NODE_VALUE_FLAGS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title"])
const RUNTIMES = new Set(["node", "nodejs", "bun", "tsx"])
const SHELLS = new Set(["sh", "bash", "zsh", "dash"])

/** Whether `word` is a tool-map CLI: named so, in a tool-map package's dist, or the very file `ownCli` names. */
const isToolMapCli = (word: string, cwd: string, ownCli: ReadonlyArray<string>): boolean => {
  const slashed = word.replaceAll("\\", "/")
  if (TOOL_MAP_SCRIPT.test(slashed.split("/").at(-1) ?? "") || programOf(word) === "tool-map" || TOOL_MAP_DIST.test(slashed)) return true
  const resolved = NodePath.resolve(cwd, word)
  return ownCli.some((own) => NodePath.resolve(own) === resolved)
}

/** An npm package spec naming tool-map: `tool-map`, `tool-map@1.2.3`, `tool-map@latest`. */
const isToolMapPackage = (spec: string): boolean => /^tool-map(@[^/\s]*)?$/i.test(spec)

/** The words after leading options (and the value of those that take one). */
const afterOptions = (words: ReadonlyArray<string>, valueFlags: ReadonlySet<string>): ReadonlyArray<string> => {
  let index = 0
  while (index < words.length && words[index]!.startsWith("-") && words[index] !== "--") {
    index += valueFlags.has(words[index]!) ? 2 : 1
  }
  return words.slice(words[index] === "--" ? index + 1 : index)
}

const runsToolMapWords = (words: ReadonlyArray<string>, cwd: string, ownCli: ReadonlyArray<string>, depth: number): boolean => {
  const [command, ...args] = words
  if (command === undefined || depth > 3) return false
  const program = programOf(command)
  const again = (rest: ReadonlyArray<string>) => runsToolMapWords(rest, cwd, ownCli, depth + 1)
  if (program === "cmd" && /^\/[ck]$/i.test(args[0] ?? "")) return again(args.slice(1).flatMap((arg) => arg.split(/\s+/)).filter((word) => word !== ""))
  if (SHELLS.has(program) && args[0] === "-c" && args[1] !== undefined) return again(args[1].split(/\s+/).filter((word) => word !== ""))
  if (program === "env") {
    const rest = afterOptions(args, new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]))
    const first = rest.findIndex((word) => !word.includes("="))
    return first !== -1 && again(rest.slice(first))
  }
  // Every tool-map entry of an MCP config runs its MCP server; `mcp` is looked for all the same.
  const mcpAfter = (rest: ReadonlyArray<string>) => rest.includes("mcp")
  if (isToolMapCli(command, cwd, ownCli)) return mcpAfter(args)
  if (RUNTIMES.has(program)) {
    const [script, ...rest] = afterOptions(args, NODE_VALUE_FLAGS)
    return script !== undefined && isToolMapCli(script, cwd, ownCli) && mcpAfter(rest)
  }
  const launched = program === "npx" || program === "pnpx" || program === "bunx"
    ? args
    : (program === "pnpm" || program === "yarn") && args[0] === "dlx"
    ? args.slice(1)
    : program === "npm" && (args[0] === "exec" || args[0] === "x")
    ? args.slice(1)
    : null
  if (launched === null) return false
  const [spec, ...rest] = afterOptions(launched, new Set(["-p", "--package", "-c", "--call"]))
  return spec !== undefined && isToolMapPackage(spec) && mcpAfter(rest)
}

/**
 * Whether a server entry starts tool-map's own MCP server, told by what it runs, never by its
 * name: a `tool-map` executable (or `tool-map.cjs`) in any directory; node, bun or tsx running a
 * tool-map CLI script (`…/tool-map.cjs`, `…/tool-map/dist/bin.js`) or one of `ownCli`, the paths
 * of the running CLI (`process.argv[1]`, its real path); `npx [-y] tool-map`, `pnpm dlx`,
 * `yarn dlx`, `bunx`, `npm exec` of the tool-map package; each also behind `cmd /c`, `sh -c` or
 * `env`; in every case with `mcp` among its arguments. The gateway never fronts nor starts one: it
 * would front itself, and each copy would start the next.
 */
export const runsToolMap = (config: ServerConfig, ownCli: ReadonlyArray<string> = []): boolean =>
  config._tag === "Stdio" && runsToolMapWords([config.command, ...config.args], config.cwd ?? "/", ownCli, 0)

/** The words an entry as a host's config holds it runs: its command, then its args (opencode's command is the whole list). */
const entryWords = (entry: McpEntryKeys, dialect: McpDialect): ReadonlyArray<string> => {
  if (dialect === "opencode" && entry.command !== undefined && typeof entry.command !== "string") return entry.command
  return typeof entry.command === "string" ? [entry.command, ...(entry.args ?? [])] : []
}

/** {@link runsToolMap} of an entry as a host's config holds it, before its `${NAME}` references are filled in. */
export const entryRunsToolMap = (raw: unknown, dialect: McpDialect, ownCli: ReadonlyArray<string> = []): boolean => {
  const entry: McpEntryKeys = decodeMcpEntry(raw, dialect).entry
  return runsToolMapWords(entryWords(entry, dialect), entry.cwd ?? "/", ownCli, 0)
}

/** Why a server left out as tool-map itself is left out. */
export const TOOL_MAP_ITSELF = "it is tool-map itself"
