/**
 * `--gateway --host H`: the downstream servers are the MCP servers host H would load in the
 * working directory, as the inventory's reader of that host finds them (its scopes, its
 * precedence, its on/off switches). The inventory never keeps env or header values, nor
 * unredacted args; to start a server, its entry is read once more from the file the item names,
 * and taken only when its public fields hash to the item's (`normalizeMcpEntry`), so the entry
 * started is the very one the inventory judged enabled. An entry that runs tool-map itself is
 * left out (the gateway would front itself), and Claude Code's deny rules filter its servers.
 */
import { Effect, Option, Schema } from "effect"
import { type AgentHostName, isEffective, type McpServerItem } from "../../inventory/domain/agentHosts.js"
import { agentHostReadContext, configOfEntry, mcpEntriesNamed, HOST_READERS, launchEnvironment, MCP_DIALECT, normalizeMcpEntry, parseJsoncText, parseTomlText, resolvePrecedence, runsToolMap, type ServerConfig, type SkippedServer, TOOL_MAP_ITSELF } from "../../inventory/discover/agentHosts/index.js"
import { cleanText } from "../../inventory/domain/untrusted.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { readBoundedFile } from "./boundedFile.js"
import { claudeServerName, readClaudeDenyRules, withClaudeDeny } from "./claudeDenyRules.js"

/** The servers of a host could not be read. */
export class HostServersUnreadable extends Schema.TaggedError<HostServersUnreadable>()("HostServersUnreadable", {
  host: Schema.String,
  reason: Schema.String
}) {
  get message() {
    // The reason quotes a config file's path and its parser's words: untrusted text.
    return cleanText(`The MCP servers of ${this.host} cannot be read: ${this.reason}.`)
  }
}

const CONFIG_MAX_BYTES = 16 * 1024 * 1024

/**
 * The servers host `host` would load in the working directory, and those left out; `ownCli` are
 * the paths of the running tool-map CLI (see `runsToolMap`).
 */
export const hostServers = Effect.fn("hostServers")(function*(host: AgentHostName, ownCli: ReadonlyArray<string> = []) {
  const env = yield* MachineEnvironment
  const result = yield* HOST_READERS[host](yield* agentHostReadContext)
  const items = resolvePrecedence(result.drafts).filter((item): item is McpServerItem => item.kind === "mcpServer" && isEffective(item))
  const dialect = MCP_DIALECT[host]
  const servers: Array<ServerConfig> = []
  const skipped: Array<SkippedServer> = []
  const denyRules = host === "claude-code" ? (yield* readClaudeDenyRules()).rules : []
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
    const raw = mcpEntriesNamed(item.path, root, item.name).find((entry) => normalizeMcpEntry(entry, dialect).sha256 === item.sha256)
    if (raw === undefined) {
      skipped.push({ name: item.name, reason: `its entry in ${item.path} changed while it was read` })
      continue
    }
    const launch = configOfEntry(item.name, raw, dialect, item.transport, launchEnvironment(env.env, item.scope, item.path), env.cwd)
    const config = !("_tag" in launch)
      ? launch
      : runsToolMap(launch, ownCli)
      ? { name: item.name, reason: TOOL_MAP_ITSELF }
      : withClaudeDeny(launch, claudeServerName(item.name, item.plugin), denyRules)
    if ("_tag" in config) servers.push(config)
    else skipped.push(config)
  }
  return { servers, skipped }
})
