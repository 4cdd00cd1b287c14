/**
 * Scripted sessions of Codex against the gateway (issue 26, point 7): Codex runs `codex exec` in a
 * sandbox with only a loopback, its model provider pointed at the scripted model server
 * (OpenAI Responses), and the gateway fronting the three reference servers.
 */
import * as path from "node:path"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { stringify as stringifyToml } from "smol-toml"
import { GATEWAY_ENTRY_TOOLS } from "../../../src/mcp/gateway/gatewayTools.js"
import { MCP_SERVER_NAME } from "../../../src/mcp/hostConfig.js"
import { type Check, type CheckContext, withSandbox } from "../check.js"
import type { HostName } from "../hosts.js"
import type { LoggedRequest } from "../model/script.js"
import { readModelLog } from "../model/server.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { ECHO_WORD, offered, SESSION_PROMPT } from "../sessions/gatewayFlow.js"

/** How many sessions a check runs: TOOL_MAP_SESSION_RUNS, default 20. */
export const sessionRuns = (): number => {
  const runs = Number(process.env["TOOL_MAP_SESSION_RUNS"] ?? "20")
  return Number.isInteger(runs) && runs > 0 ? runs : 20
}

/** A stdio MCP server as the hosts and the gateway's `--servers` file spell it. */
export interface StdioServer {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

/** The three reference servers (dev dependencies), started with node; filesystem may read the project, memory writes under the sandbox. */
export const referenceServers = (context: CheckContext, sandbox: Sandbox): Readonly<Record<string, StdioServer>> => {
  const entry = (name: string) => path.join(context.root, "node_modules", "@modelcontextprotocol", `server-${name}`, "dist", "index.js")
  return {
    everything: { command: process.execPath, args: [entry("everything"), "stdio"] },
    filesystem: { command: process.execPath, args: [entry("filesystem"), sandbox.project] },
    memory: { command: process.execPath, args: [entry("memory")], env: { MEMORY_FILE_PATH: path.join(sandbox.root, "memory.jsonl") } }
  }
}

/** The gateway fronting the reference servers: `node dist/tool-map.cjs mcp --gateway --servers FILE`, with its data dir in the sandbox. */
export const gatewayServer = (context: CheckContext, sandbox: Sandbox): StdioServer => {
  const servers = sandbox.write("servers.json", `${JSON.stringify({ mcpServers: referenceServers(context, sandbox) }, null, 2)}\n`)
  return {
    command: context.serverInvocation.command,
    args: [...context.serverInvocation.args, "--gateway", "--servers", servers],
    env: { PLUGIN_DATA: path.join(sandbox.root, "data") }
  }
}

/** The entry tools the gateway's `tools/list` shows, by name, sorted. */
export const gatewayToolNames = (): ReadonlyArray<string> => GATEWAY_ENTRY_TOOLS.map((tool) => tool.name).sort()

/** o200k tokens of a JSON value as the host sent it. */
export const o200kTokens = (value: unknown): number => encode(JSON.stringify(value)).length

const CODEX_KEY_ENV = "TOOL_MAP_SCRIPTED_KEY"

/**
 * `$CODEX_HOME/config.toml` for a session: the scripted provider, no approvals asked (`never`),
 * and each MCP server `required` with no optional-server grace (`mcp_optional_startup_grace_ms =
 * 0`), so the first request waits until the servers listed their tools (Codex otherwise waits 1 s
 * and drops a server that is slower), and its tools approved (`default_tools_approval_mode =
 * "approve"`), without which `approval_policy = "never"` refuses every MCP call not annotated
 * read-only (TOOL_MAP_CODEX_DEFAULT_APPROVAL=unset leaves the setting out, to see which). The ChatGPT apps
 * server is off (`features.apps = false`).
 */
const codexConfig = (servers: Readonly<Record<string, StdioServer>>): string =>
  stringifyToml({
    model: "scripted-model",
    model_provider: "scripted",
    approval_policy: "never",
    sandbox_mode: "read-only",
    mcp_optional_startup_grace_ms: 0,
    features: { apps: false },
    model_providers: {
      scripted: { name: "scripted", base_url: `${MODEL_BASE_URL}/v1`, wire_api: "responses", env_key: CODEX_KEY_ENV }
    },
    mcp_servers: Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [
        name,
        {
          command: server.command,
          args: [...server.args],
          ...(server.env === undefined ? {} : { env: { ...server.env } }),
          required: true,
          startup_timeout_sec: 60,
          ...(process.env["TOOL_MAP_CODEX_DEFAULT_APPROVAL"] === "unset" ? {} : { default_tools_approval_mode: "approve" })
        }
      ])
    )
  })

/** One `codex exec` session with `servers` configured, answered by `script` of gatewayFlow.ts. */
export const codexSession = (
  context: CheckContext,
  sandbox: Sandbox,
  servers: Readonly<Record<string, StdioServer>>,
  script: string,
  logName: string,
  /** Run with config.toml as an earlier session (and whatever edited it since) left it. */
  keepConfig = false
): SessionResult => {
  if (!keepConfig) sandbox.write("home/.codex/config.toml", codexConfig(servers))
  return runScriptedSession(context, sandbox, {
    host: "codex",
    args: ["exec", "--skip-git-repo-check", "--json", SESSION_PROMPT],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "gatewayFlow.ts"),
    script,
    env: { [CODEX_KEY_ENV]: "scripted", CODEX_HOME: path.join(sandbox.home, ".codex") },
    timeoutMs: 120_000,
    logName
  })
}

/** What one run showed: passed or why not, and how the loaded tool was reached. */
interface RunOutcome {
  readonly failure?: string
  /** The echo called directly (the host listed it) or through tools_call; undefined when the run never got there. */
  readonly called?: "direct" | "tools_call"
  /** Whether the loaded echo was in the tools of the request right after the tools_load result. */
  readonly offeredAfterLoad?: boolean
}

/**
 * Why a session ended, in a line: the scripted model's own error where it threw (a tool the
 * script needed was not offered), else the host's last lines of output.
 */
const tail = (session: SessionResult): string => {
  const scriptError = readModelLog(session.logFile).find((line) => "unmatched" in line && line.unmatched.startsWith("server error: "))
  if (scriptError !== undefined && "unmatched" in scriptError) return `model server: ${scriptError.unmatched.split("\n")[0]!.replace(/^server error: (Error: )?/, "")}`
  return `${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").slice(0, 300)
}

/** Reads a gateway session from its requests: the request at each step is the one holding that many tool results. */
export const gatewayRunOutcome = (session: SessionResult): RunOutcome => {
  const main = session.requests.filter((logged) => offered(logged.request, "tools_ls") !== undefined)
  const atStep = (step: number): LoggedRequest | undefined => main.find((logged) => logged.request.toolResults.length === step)
  if (main.length === 0) return { failure: `no request offered tools_ls (${session.requests.length} requests; exit ${session.result.status}: ${tail(session)})` }
  const afterLoad = atStep(3)
  if (afterLoad === undefined) {
    const last = main.at(-1)!
    return { failure: `stopped after ${last.request.toolResults.length} tool results (exit ${session.result.status}; ${tail(session)})` }
  }
  const offeredAfterLoad = offered(afterLoad.request, "echo") !== undefined
  const firstCall = afterLoad.reply._tag === "Calls" ? afterLoad.reply.calls[0] : undefined
  const called = firstCall === undefined ? undefined : firstCall.name.endsWith("tools_call") ? "tools_call" : "direct"
  const afterEcho = atStep(4)
  if (afterEcho === undefined) return { failure: `no request after the echo call (exit ${session.result.status}: ${tail(session)})`, offeredAfterLoad, ...(called === undefined ? {} : { called }) }
  const result = afterEcho.request.toolResults[3]!
  const failure = result.text.includes(ECHO_WORD) ? undefined : `the echo result lacks ${ECHO_WORD}: ${result.text.slice(0, 160)}`
  return { ...(failure === undefined ? {} : { failure }), offeredAfterLoad, ...(called === undefined ? {} : { called }) }
}

/**
 * N runs as the two answers: every run passed, and how many did. Both end with the same line of
 * counts (how echo was reached, whether it was offered right after tools_load): an observation
 * for the closing note, not part of the verdict.
 */
export const describeRuns = (outcomes: ReadonlyArray<RunOutcome>): { readonly toolMap: string; readonly host: string } => {
  const n = outcomes.length
  const passed = outcomes.filter((outcome) => outcome.failure === undefined).length
  const count = (predicate: (outcome: RunOutcome) => boolean) => outcomes.filter(predicate).length
  const failures = outcomes.flatMap((outcome, index) => (outcome.failure === undefined ? [] : [`run ${index + 1}: ${outcome.failure}`]))
  const how = `echo called directly in ${count((outcome) => outcome.called === "direct")}, via tools_call in ${count((outcome) => outcome.called === "tools_call")}; offered right after tools_load in ${count((outcome) => outcome.offeredAfterLoad === true)}/${n}`
  return {
    toolMap: `${n}/${n} runs: echo result reached the model\n(${how})`,
    host: `${passed}/${n} runs: echo result reached the model${failures.length === 0 ? "" : `; failures: ${failures.slice(0, 5).join("; ")}${failures.length > 5 ? `; … ${failures.length - 5} more` : ""}`}\n(${how})`
  }
}

/** Codex's MCP tool definitions in a request: its `namespace` entries named `mcp__…`, as sent. */
const codexMcpEntries = (request: LoggedRequest): ReadonlyArray<Record<string, unknown>> => {
  const raw = request.request.raw as { readonly tools?: ReadonlyArray<Record<string, unknown>> }
  return (raw.tools ?? []).filter((tool) => tool["type"] === "namespace" && String(tool["name"]).startsWith("mcp__"))
}

/** The MCP tools of a Codex request as `namespace name` lines, sorted. */
const codexMcpTools = (request: LoggedRequest): ReadonlyArray<string> =>
  request.request.tools.filter((tool) => tool.namespace?.startsWith("mcp__") === true).map((tool) => tool.name).sort()

/**
 * The check `<host>-session-gateway`: the gateway flow in `sessionRuns()` fresh sandboxes of a
 * host whose requests `gatewayRunOutcome` reads (Codex, opencode), each run's outcome on stderr.
 */
export const gatewayRunsCheck = (
  host: HostName,
  title: string,
  session: (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, script: string, logName: string) => SessionResult
): Check => ({
  id: `${host}-session-gateway`,
  host,
  title,
  run: (context) => {
    const outcomes: Array<RunOutcome> = []
    for (let run = 0; run < sessionRuns(); run++) {
      outcomes.push(withSandbox(context, (sandbox) => gatewayRunOutcome(session(context, sandbox, { [MCP_SERVER_NAME]: gatewayServer(context, sandbox) }, "gateway", "gateway.jsonl"))))
      process.stderr.write(`conformance: ${host}-session-gateway run ${run + 1}: ${outcomes.at(-1)?.failure ?? `ok (${outcomes.at(-1)?.called})`}\n`)
    }
    return describeRuns(outcomes)
  }
})

export const sessionsCodexChecks: ReadonlyArray<Check> = [
  gatewayRunsCheck(
    "codex",
    "codex exec with the gateway (everything, filesystem, memory behind it): tools_ls, tools_find, tools_load echo, echo (directly or via tools_call); its result reaches the model in every run",
    codexSession
  ),
  {
    id: "codex-session-first-request",
    host: "codex",
    title: "codex exec with the gateway: the first request's MCP tools are exactly the gateway's entry tools (o200k tokens of MCP definitions, direct vs gateway, on stderr)",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        const viaGateway = codexSession(context, sandbox, { [MCP_SERVER_NAME]: gatewayServer(context, sandbox) }, "firstRequest", "first-gateway.jsonl")
        const direct = codexSession(context, sandbox, referenceServers(context, sandbox), "firstRequest", "first-direct.jsonl")
        const first = (session: SessionResult, what: string) => {
          const request = session.requests[0]
          if (request === undefined) throw new Error(`codex sent no model request (${what}; exit ${session.result.status}: ${tail(session)})`)
          return request
        }
        const gatewayFirst = first(viaGateway, "gateway")
        const directFirst = first(direct, "direct")
        const tokens = (request: LoggedRequest) => codexMcpEntries(request).reduce((sum, entry) => sum + o200kTokens(entry), 0)
        process.stderr.write(
          `conformance: codex first request, o200k tokens of MCP tool definitions: direct ${tokens(directFirst)} (${codexMcpTools(directFirst).length} tools), gateway ${tokens(gatewayFirst)} (${codexMcpTools(gatewayFirst).length} tools)\n`
        )
        return { toolMap: gatewayToolNames().join(", "), host: codexMcpTools(gatewayFirst).join(", ") }
      })
  }
]
