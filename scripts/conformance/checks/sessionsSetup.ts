/**
 * `tool-map gateway setup HOST` in real hosts (issue 26, points 1 and 7): a host configured with
 * the three reference servers offers their tools in its first request; after `tool-map gateway
 * setup` in the same HOME, its first request offers only the gateway's entry tools — the host
 * loads nothing twice, and the gateway (started from the entry setup wrote) does not front itself.
 */
import * as path from "node:path"
import type { AgentHostName } from "../../../src/inventory/domain/agentHosts.js"
import { MCP_SERVER_NAME } from "../../../src/mcp/hostConfig.js"
import { type Check, type CheckContext, succeeded, withSandbox } from "../check.js"
import type { HostName } from "../hosts.js"
import type { LoggedRequest, OfferedTool } from "../model/script.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { COUNT_TOKENS_MODEL } from "../model/protocol-anthropic.js"
import { ECHO_WORD } from "../sessions/gatewayFlow.js"
import { codexSession, gatewayToolNames, referenceServers, type StdioServer } from "./sessionsCodex.js"
import { geminiSession } from "./sessionsGemini.js"
import { opencodeSession } from "./sessionsOpencode.js"

const REFERENCE = ["everything", "filesystem", "memory"] as const

interface SetupHost {
  readonly agentHost: AgentHostName
  /**
   * Writes the host's user config with `servers` (where the session does not) and runs a session:
   * with `keep`, on the config as it is (after setup), the whole gateway flow; else the first request only.
   */
  readonly session: (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, logName: string, keep: boolean) => SessionResult
  /** The server an MCP tool of a request belongs to, among `servers`, and its own name. */
  readonly serverOf: (tool: OfferedTool, servers: ReadonlyArray<string>) => { readonly server: string; readonly name: string } | undefined
  /** The environment the host's sessions have that decides what it loads, for `gateway setup` too. */
  readonly env?: Readonly<Record<string, string>>
}

const byPrefix = (prefixOf: (server: string) => string) => (tool: OfferedTool, servers: ReadonlyArray<string>) => {
  // The longest prefix first: "tool-map" must not be taken for a server named "tool".
  const server = [...servers].sort((a, b) => b.length - a.length).find((candidate) => tool.name.startsWith(prefixOf(candidate)))
  return server === undefined ? undefined : { server, name: tool.name.slice(prefixOf(server).length) }
}

/**
 * Claude Code reads user-scope servers from ~/.claude.json; `-p` runs them once they are allowed
 * (`--allowedTools mcp__tool-map` after setup). Tool search off: the tools are in the tools array.
 */
const claudeUserSession = (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, logName: string, keep: boolean) => {
  if (!keep) {
    const entries = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, { type: "stdio", ...server }]))
    sandbox.write("home/.claude.json", `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`)
  }
  return runScriptedSession(context, sandbox, {
    host: "claude",
    args: ["-p", "List your tools.", "--output-format", "json", "--allowedTools", [...REFERENCE, MCP_SERVER_NAME].map((name) => `mcp__${name}`).join(",")],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "claudeCodeFlow.ts"),
    script: keep ? "gateway" : "firstRequest",
    env: { ANTHROPIC_BASE_URL: MODEL_BASE_URL, ANTHROPIC_API_KEY: "sk-ant-scripted", ENABLE_TOOL_SEARCH: "false" },
    timeoutMs: 120_000,
    logName
  })
}

const HOSTS: Readonly<Partial<Record<HostName, SetupHost>>> = {
  claude: { agentHost: "claude-code", session: claudeUserSession, serverOf: byPrefix((server) => `mcp__${server}__`) },
  codex: {
    agentHost: "codex",
    session: (context, sandbox, servers, logName, keep) => codexSession(context, sandbox, servers, keep ? "gateway" : "firstRequest", logName, keep),
    // Codex's namespace of a server: `mcp__` and the name with `-` as `_`.
    serverOf: (tool, servers) => {
      const server = servers.find((candidate) => tool.namespace === `mcp__${candidate.replace(/-/g, "_")}`)
      return server === undefined ? undefined : { server, name: tool.name }
    }
  },
  gemini: {
    agentHost: "gemini",
    // yolo: every MCP tool offered, as in an interactive session (a server without `trust` is left out of `-p` otherwise).
    session: (context, sandbox, servers, logName, keep) => geminiSession(context, sandbox, servers, { script: keep ? "gateway" : "firstRequest", logName, approval: "yolo", keepConfig: keep }),
    serverOf: byPrefix((server) => `mcp_${server}_`),
    // The sessions trust the project folder this way; in a folder it does not trust, Gemini CLI loads no server.
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" }
  },
  opencode: {
    agentHost: "opencode",
    session: (context, sandbox, servers, logName, keep) => opencodeSession(context, sandbox, servers, keep ? "gateway" : "firstRequest", logName, keep),
    serverOf: byPrefix((server) => `${server}_`)
  }
}

/** The requests of a session, count_tokens left out. */
const session = (result: SessionResult): ReadonlyArray<LoggedRequest> => result.requests.filter((logged) => logged.request.model !== COUNT_TOKENS_MODEL)

/** The first request that carries tools (side requests — a title, a router, count_tokens — have none). */
const firstMain = (session: SessionResult): LoggedRequest | undefined =>
  session.requests.find((logged) => logged.request.model !== COUNT_TOKENS_MODEL && logged.request.tools.length > 0)

/**
 * The MCP tools of a session's first request, per server, servers sorted: the reference servers
 * by name (how many tools each has differs by host), tool-map's with its tools' names.
 */
const mcpToolsBy = (host: SetupHost, session: SessionResult, what: string): string => {
  const request = firstMain(session)
  if (request === undefined) return `${what}: no request with tools (exit ${session.result.status})`
  const byServer = new Map<string, Array<string>>()
  for (const tool of request.request.tools) {
    const owned = host.serverOf(tool, [...REFERENCE, MCP_SERVER_NAME])
    if (owned !== undefined) byServer.set(owned.server, [...(byServer.get(owned.server) ?? []), owned.name])
  }
  const servers = [...byServer.keys()].sort().map((server) => (server === MCP_SERVER_NAME ? `${server} (${byServer.get(server)!.sort().join(", ")})` : server))
  return `${what}: ${servers.join(", ") || "no MCP tool"}`
}

const setupCheck = (hostName: HostName, host: SetupHost): Check => ({
  id: `${hostName}-session-after-setup`,
  host: hostName,
  title: `${hostName} configured with the reference servers, then \`tool-map gateway setup ${host.agentHost}\`: its first request offers only the gateway's entry tools, and a loaded tool is called through it`,
  run: (context) =>
    withSandbox(context, (sandbox) => {
      const servers = referenceServers(context, sandbox)
      const before = host.session(context, sandbox, servers, "before.jsonl", false)
      succeeded(`tool-map gateway setup ${host.agentHost}`, context.runToolMap(sandbox, ["gateway", "setup", host.agentHost], { env: { ...host.env } }))
      const after = host.session(context, sandbox, servers, "after.jsonl", true)
      // The gateway the setup's entry starts serves the whole flow: its last request quotes the echo's result.
      const echoed = session(after).some((logged) => logged.request.toolResults.some((result) => result.text.includes(ECHO_WORD)))
      return {
        toolMap: `before setup: ${REFERENCE.join(", ")}\nafter setup: ${MCP_SERVER_NAME} (${gatewayToolNames().join(", ")}); the loaded echo's result reached the model`,
        host: `${mcpToolsBy(host, before, "before setup")}\n${mcpToolsBy(host, after, "after setup")}; ${echoed ? "the loaded echo's result reached the model" : `the echo's result never reached the model (exit ${after.result.status})`}`
      }
    })
})

export const sessionsSetupChecks: ReadonlyArray<Check> = Object.entries(HOSTS).map(([name, host]) => setupCheck(name as HostName, host!))
