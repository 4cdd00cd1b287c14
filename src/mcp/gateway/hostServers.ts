/**
 * `--gateway --host H`: the downstream servers are the MCP servers host H would load in the
 * working directory, as the inventory's reader of that host finds them (its scopes, its
 * precedence, its on/off switches). The inventory never keeps env or header values, nor
 * unredacted args; to start a server, its entry is read once more from the file the item names,
 * and taken only when its public fields hash to the item's (`normalizeMcpEntry`), so the entry
 * started is the very one the inventory judged enabled.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { type AgentHostName, isEffective, type McpServerItem } from "../../inventory/domain/agentHosts.js"
import { HOST_READERS } from "../../inventory/discover/AgentHostScanner.js"
import { type McpDialect, normalizeMcpEntry } from "../../inventory/discover/agentHosts/mcp.js"
import { resolvePrecedence } from "../../inventory/discover/agentHosts/precedence.js"
import { asRecord, asString, asStringArray, defaultHostFileLimits, parseJsoncText, parseTomlText } from "../../inventory/discover/agentHosts/shared.js"
import { FrontmatterParser } from "../../inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { readBoundedFile } from "./boundedFile.js"
import type { ServerConfig } from "./ServerConfig.js"

/** The servers of a host could not be read. */
export class HostServersUnreadable extends Schema.TaggedError<HostServersUnreadable>()("HostServersUnreadable", {
  host: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The MCP servers of ${this.host} cannot be read: ${this.reason}.`
  }
}

/** A server of the host the gateway leaves out, and why (a transport it does not speak, an entry changed since). */
export interface SkippedServer {
  readonly name: string
  readonly reason: string
}

const DIALECT: Readonly<Record<AgentHostName, McpDialect>> = {
  "claude-code": "claude",
  codex: "codex",
  cursor: "cursor",
  gemini: "gemini",
  opencode: "opencode"
}

const CONFIG_MAX_BYTES = 16 * 1024 * 1024

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

/** The entries a config file may hold a server named `name` in, for every host's layout. */
const candidatesIn = (root: unknown, name: string): ReadonlyArray<unknown> => {
  const record = asRecord(root)
  if (record === null) return []
  const at = (value: unknown) => asRecord(value)?.[name]
  const projects = Object.values(asRecord(record["projects"]) ?? {}).map((project) => at(asRecord(project)?.["mcpServers"]))
  return [at(record["mcpServers"]), at(record["mcp_servers"]), at(record["mcp"]), record[name], ...projects].filter((entry) => entry !== undefined)
}

/** The configuration to start one entry with, or why it is left out. */
export const configOfEntry = (
  name: string,
  raw: unknown,
  dialect: McpDialect,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string
): ServerConfig | SkippedServer => {
  const entry = asRecord(raw) ?? {}
  const expand = (text: string) => expandReferences(text, env)
  const fields = normalizeMcpEntry(raw, dialect)
  if (fields.transport === "stdio") {
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
  if (fields.transport === "http") {
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
  return { name, reason: `the gateway speaks stdio and Streamable HTTP, not ${fields.transport}` }
}

/** The servers host `host` would load in the working directory, and those left out. */
export const hostServers = Effect.fn("hostServers")(function*(host: AgentHostName) {
  const fs = yield* FileSystem.FileSystem
  const env = yield* MachineEnvironment
  const parser = yield* FrontmatterParser
  const result = yield* HOST_READERS[host]({
    fs,
    env,
    parser,
    limits: defaultHostFileLimits,
    path: env.os === "win32" ? NodePath.win32 : NodePath.posix
  })
  const items = resolvePrecedence(result.drafts).filter((item): item is McpServerItem => item.kind === "mcpServer" && isEffective(item))
  const dialect = DIALECT[host]
  const servers: Array<ServerConfig> = []
  const skipped: Array<SkippedServer> = []
  for (const item of items) {
    const bytes = yield* readBoundedFile(item.path, CONFIG_MAX_BYTES).pipe(
      Effect.mapError((error) => new HostServersUnreadable({ host, reason: error.message }))
    )
    if (Option.isNone(bytes)) {
      skipped.push({ name: item.name, reason: `${item.path} is gone` })
      continue
    }
    const text = new TextDecoder().decode(bytes.value)
    const root = yield* (item.path.endsWith(".toml") ? parseTomlText(text) : parseJsoncText(text)).pipe(
      Effect.mapError((problem) => new HostServersUnreadable({ host, reason: `${item.path}${problem.line === null ? "" : ` line ${problem.line}`}: ${problem.reason}` }))
    )
    const raw = candidatesIn(root, item.name).find((entry) => normalizeMcpEntry(entry, dialect).sha256 === item.sha256)
    if (raw === undefined) {
      skipped.push({ name: item.name, reason: `its entry in ${item.path} changed while it was read` })
      continue
    }
    const pluginRoot = item.scope === "plugin" ? { CLAUDE_PLUGIN_ROOT: pluginRootOf(item.path) } : {}
    const config = configOfEntry(item.name, raw, dialect, { ...env.env, ...pluginRoot }, env.cwd)
    if ("_tag" in config) servers.push(config)
    else skipped.push(config)
  }
  return { servers, skipped }
})

/** A plugin's root: the directory of its `.mcp.json`, or the parent of its `.claude-plugin/`. */
const pluginRootOf = (file: string): string => {
  const dir = NodePath.dirname(file)
  return NodePath.basename(dir) === ".claude-plugin" ? NodePath.dirname(dir) : dir
}
