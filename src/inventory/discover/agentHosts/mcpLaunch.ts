/**
 * How an MCP server entry of a host's config is started, and the key its tool snapshot is kept
 * under: the configuration the gateway launches (command, args and env with `${NAME}` filled in
 * from the environment, or URL and headers) and its hash. One rule for the gateway, which starts
 * the server and keeps the snapshot, and for the inventory's ledger, which counts the snapshot's
 * tool schemas (issue 14). Env and header values are carried to the child or the request only:
 * the hash holds their names, never their values.
 */
import * as NodePath from "node:path"
import { sha256 } from "../../../catalog/core/definitions.js"
import { asRecord, asString, asStringArray } from "./shared.js"

/** The config dialects of MCP server entries. */
export type McpDialect = "claude" | "cursor" | "codex" | "gemini" | "opencode"

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
}

/** A Streamable HTTP server. */
export interface HttpServerConfig {
  readonly _tag: "Http"
  readonly name: string
  readonly url: string
  /** Values sent with each request only. */
  readonly headers: Readonly<Record<string, string>>
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

const stringRecord = (value: unknown): Readonly<Record<string, string>> => {
  const record = asRecord(value)
  if (record === null) return {}
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
}

const expandAll = (record: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandReferences(value, env)]))

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
  const entry = asRecord(raw) ?? {}
  const expand = (text: string) => expandReferences(text, env)
  if (transport === "stdio") {
    const commandList = dialect === "opencode" ? asStringArray(entry["command"]) : null
    const command = commandList?.[0] ?? asString(entry["command"]) ?? ""
    const args = commandList !== null ? commandList.slice(1) : (asStringArray(entry["args"]) ?? [])
    const given = expandAll(stringRecord(dialect === "opencode" ? entry["environment"] : entry["env"]), env)
    // Codex's env_vars names variables passed on from the host's own environment.
    const passed = dialect === "codex"
      ? Object.fromEntries((asStringArray(entry["env_vars"]) ?? []).flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]!]])))
      : {}
    const dir = asString(entry["cwd"])
    return {
      _tag: "Stdio",
      name,
      command: expand(command),
      args: args.map(expand),
      env: { ...passed, ...given },
      cwd: dir === null ? cwd : NodePath.resolve(cwd, expand(dir))
    }
  }
  if (transport === "http") {
    const url = asString(dialect === "gemini" ? (entry["httpUrl"] ?? entry["url"]) : entry["url"]) ?? ""
    const headers: Record<string, string> = { ...expandAll(stringRecord(entry[dialect === "codex" ? "http_headers" : "headers"]), env) }
    if (dialect === "codex") {
      for (const [header, variable] of Object.entries(stringRecord(entry["env_http_headers"]))) {
        if (env[variable] !== undefined) headers[header] = env[variable]!
      }
      const bearer = asString(entry["bearer_token_env_var"])
      if (bearer !== null && env[bearer] !== undefined) headers["Authorization"] = `Bearer ${env[bearer]}`
    }
    const expanded = expand(url)
    if (!URL.canParse(expanded)) return { name, reason: "its url is not a URL" }
    return { _tag: "Http", name, url: expanded, headers }
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
