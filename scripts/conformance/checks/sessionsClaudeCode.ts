/**
 * Scripted sessions of Claude Code against the gateway (issue 26, point 7): `claude -p` in a
 * sandbox with only a loopback, `ANTHROPIC_BASE_URL` pointed at the scripted model server
 * (Anthropic Messages, model/protocol-anthropic.ts), the gateway fronting the three reference
 * servers through `--mcp-config FILE --strict-mcp-config`. Each check runs with Claude Code's tool
 * search off (`ENABLE_TOOL_SEARCH=false`) and on (its default: the variable unset).
 */
import * as path from "node:path"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { ALL_ENTRY_TOOL_DEFINITIONS } from "../../../src/catalog/services/EntryTools.js"
import { neutralize } from "../../../src/inventory/domain/untrusted.js"
import { type Check, type CheckContext, withSandbox } from "../check.js"
import type { LoggedRequest, ModelRequest } from "../model/script.js"
import { COUNT_TOKENS_MODEL } from "../model/protocol-anthropic.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { callable, GATEWAY_PREFIX, GATEWAY_SERVER, gatewayResults, LOADED_ECHO, TOOL_SEARCH } from "../sessions/claudeCodeFlow.js"
import { ECHO_WORD, SESSION_PROMPT } from "../sessions/gatewayFlow.js"

/** How many sessions a check runs: TOOL_MAP_SESSION_RUNS, default 20. */
const sessionRuns = (): number => {
  const runs = Number(process.env["TOOL_MAP_SESSION_RUNS"] ?? "20")
  return Number.isInteger(runs) && runs > 0 ? runs : 20
}

interface StdioServer {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

/** The three reference servers (dev dependencies), started with node; filesystem may read the project, memory writes under the sandbox. */
const referenceServers = (context: CheckContext, sandbox: Sandbox): Readonly<Record<string, StdioServer>> => {
  const entry = (name: string) => path.join(context.root, "node_modules", "@modelcontextprotocol", `server-${name}`, "dist", "index.js")
  return {
    everything: { command: process.execPath, args: [entry("everything"), "stdio"] },
    filesystem: { command: process.execPath, args: [entry("filesystem"), sandbox.project] },
    memory: { command: process.execPath, args: [entry("memory")], env: { MEMORY_FILE_PATH: path.join(sandbox.root, "memory.jsonl") } }
  }
}

/** The gateway fronting the reference servers, named {@link GATEWAY_SERVER} (so its tools are `mcp__tool-map__…`). */
const gatewayServers = (context: CheckContext, sandbox: Sandbox): Readonly<Record<string, StdioServer>> => {
  const servers = sandbox.write("servers.json", `${JSON.stringify({ mcpServers: referenceServers(context, sandbox) }, null, 2)}\n`)
  return {
    [GATEWAY_SERVER]: {
      command: context.serverInvocation.command,
      args: [...context.serverInvocation.args, "--gateway", "--servers", servers],
      env: { PLUGIN_DATA: path.join(sandbox.root, "data") }
    }
  }
}

/** Claude Code's tool search: off (`ENABLE_TOOL_SEARCH=false`) or on (2.1.332's default, the variable unset). */
type ToolSearchMode = "off" | "on"

/**
 * One `claude -p` session with `servers` as its only MCP servers. Root may not use
 * `--permission-mode bypassPermissions` (2.1.332 refuses it), so the servers' tools and ToolSearch
 * are allowed by name: without that `-p` denies every MCP call.
 */
export const claudeSession = (
  context: CheckContext,
  sandbox: Sandbox,
  servers: Readonly<Record<string, StdioServer>>,
  options: { readonly toolSearch: ToolSearchMode; readonly script: string; readonly logName: string }
): SessionResult => {
  const mcpConfig = sandbox.write(`${options.logName}.mcp.json`, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`)
  const allowed = [...Object.keys(servers).map((name) => `mcp__${name}`), TOOL_SEARCH].join(",")
  return runScriptedSession(context, sandbox, {
    host: "claude",
    args: ["-p", SESSION_PROMPT, "--output-format", "json", "--mcp-config", mcpConfig, "--strict-mcp-config", "--allowedTools", allowed],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "claudeCodeFlow.ts"),
    script: options.script,
    env: {
      ANTHROPIC_BASE_URL: MODEL_BASE_URL,
      ANTHROPIC_API_KEY: "sk-ant-scripted",
      ...(options.toolSearch === "off" ? { ENABLE_TOOL_SEARCH: "false" } : {})
    },
    timeoutMs: 120_000,
    logName: options.logName
  })
}

/** The conversation's requests: count_tokens requests left out. */
const messageRequests = (session: SessionResult): ReadonlyArray<LoggedRequest> =>
  session.requests.filter((logged) => logged.request.model !== COUNT_TOKENS_MODEL)

/** The last lines of a session's output, one line, cleaned, for a failure reason. */
const tail = (session: SessionResult): string =>
  neutralize(`${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").slice(0, 300))

const short = (text: string): string => neutralize(text.replace(/\s+/g, " ").slice(0, 160))

/** What one run showed: passed or why not, and how the loaded echo was reached. */
interface RunOutcome {
  readonly failure?: string
  /** The echo called directly (the host listed it) or through tools_call; undefined when the run never got there. */
  readonly called?: "direct" | "tools_call"
  /** Whether the loaded echo was in the tools array of the request right after the tools_load result. */
  readonly offeredAfterLoad?: boolean
  /** Whether it was named as a deferred tool there instead (tool search on: callable only after a ToolSearch). */
  readonly deferredAfterLoad?: boolean
  /** Whether the model had to call ToolSearch before an entry tool was callable. */
  readonly searched: boolean
  /** Milliseconds from the request answered with tools_load to the next one (the call of tools_load and Claude Code's turn). */
  readonly loadStepMs?: number
}

/**
 * Reads a gateway session from its requests: the request of each step is the one holding that
 * many gateway results (ToolSearch's are not counted), and the echo's result must be the newest
 * result of the request after the echo call.
 */
const gatewayRunOutcome = (session: SessionResult): RunOutcome => {
  const requests = messageRequests(session)
  const searched = requests.some((logged) => logged.request.toolResults.some((result) => result.name === TOOL_SEARCH))
  const main = requests.filter((logged) => logged.request.tools.some((tool) => tool.name.startsWith(GATEWAY_PREFIX) || tool.name === TOOL_SEARCH))
  const atStep = (step: number): LoggedRequest | undefined => main.find((logged) => gatewayResults(logged.request).length === step)
  if (main.length === 0) return { failure: `no request offered the gateway or ToolSearch (${requests.length} requests; exit ${session.result.status}: ${tail(session)})`, searched }
  const loadRequest = atStep(2)
  const afterLoad = atStep(3)
  if (afterLoad === undefined) {
    const last = main.at(-1)!
    return {
      failure: `stopped after ${gatewayResults(last.request).length} gateway results (last: ${short(last.request.toolResults.at(-1)?.text ?? "none")}; exit ${session.result.status})`,
      searched
    }
  }
  const offeredAfterLoad = callable(afterLoad.request, LOADED_ECHO) !== undefined
  const deferredAfterLoad = deferredMcpNames(afterLoad.request).includes(LOADED_ECHO)
  const loadStepMs = loadRequest === undefined ? undefined : afterLoad.at - loadRequest.at
  const firstCall = afterLoad.reply._tag === "Calls" ? afterLoad.reply.calls[0] : undefined
  const called: RunOutcome["called"] = firstCall === undefined ? undefined : firstCall.name === LOADED_ECHO ? "direct" : "tools_call"
  const seen = { offeredAfterLoad, deferredAfterLoad, searched, ...(called === undefined ? {} : { called }), ...(loadStepMs === undefined ? {} : { loadStepMs }) }
  const afterEcho = main.find((logged) => logged.at > afterLoad.at && gatewayResults(logged.request).length > 3)
  if (afterEcho === undefined) return { failure: `no request after the echo call (exit ${session.result.status}: ${tail(session)})`, ...seen }
  const result = gatewayResults(afterEcho.request)[3]!
  const failure = result.isError || !result.text.includes(ECHO_WORD)
    ? `the ${called ?? "echo"} result ${result.isError ? "is an error" : `lacks ${ECHO_WORD}`}: ${short(result.text)}`
    : undefined
  return { ...(failure === undefined ? {} : { failure }), ...seen }
}

const median = (values: ReadonlyArray<number>): number | undefined => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? undefined : sorted[Math.floor(sorted.length / 2)]
}

/**
 * N runs as the two answers: every run passed, and how many did. Both end with the same line of
 * counts (how the echo was reached, whether it was offered right after tools_load, ToolSearch):
 * an observation for the closing note, not part of the verdict.
 */
const describeRuns = (outcomes: ReadonlyArray<RunOutcome>): { readonly toolMap: string; readonly host: string } => {
  const n = outcomes.length
  const passed = outcomes.filter((outcome) => outcome.failure === undefined).length
  const count = (predicate: (outcome: RunOutcome) => boolean) => outcomes.filter(predicate).length
  const failures = outcomes.flatMap((outcome, index) => (outcome.failure === undefined ? [] : [`run ${index + 1}: ${outcome.failure}`]))
  const loadMs = median(outcomes.flatMap((outcome) => (outcome.loadStepMs === undefined ? [] : [outcome.loadStepMs])))
  const how = [
    `echo called directly in ${count((outcome) => outcome.called === "direct")}, via tools_call in ${count((outcome) => outcome.called === "tools_call")}`,
    `offered right after tools_load in ${count((outcome) => outcome.offeredAfterLoad === true)}/${n}, named there as deferred in ${count((outcome) => outcome.deferredAfterLoad === true)}/${n}`,
    `ToolSearch called in ${count((outcome) => outcome.searched)}/${n}`,
    `tools_load step ${loadMs === undefined ? "-" : `${loadMs} ms`} (median)`
  ].join("; ")
  return {
    toolMap: `${n}/${n} runs: echo result reached the model\n(${how})`,
    host: `${passed}/${n} runs: echo result reached the model${failures.length === 0 ? "" : `; failures: ${failures.slice(0, 5).join("; ")}${failures.length > 5 ? `; … ${failures.length - 5} more` : ""}`}\n(${how})`
  }
}

/** The entry tools the gateway offers, as Claude Code names them, sorted: the catalog's and the router's, and `tools_call`. */
const gatewayToolNames = (): ReadonlyArray<string> =>
  [...new Set([...ALL_ENTRY_TOOL_DEFINITIONS.map((definition) => definition.name as string), "tools_call"])].map((name) => `${GATEWAY_PREFIX}${name}`).sort()

/** The MCP tools of a request's tools array, as sent. */
const mcpEntries = (request: ModelRequest) => request.tools.filter((tool) => tool.name.startsWith("mcp__"))

/**
 * The MCP tools a request names as deferred: with tool search on, Claude Code lists each deferred
 * tool's name on a line of its own in a system message ("The following deferred tools are now
 * available via ToolSearch"), without its schema.
 */
export const deferredMcpNames = (request: ModelRequest): ReadonlyArray<string> => {
  const messages = (request.raw as { readonly messages?: ReadonlyArray<{ readonly content?: unknown }> }).messages ?? []
  const texts = messages.flatMap((message) =>
    typeof message.content === "string"
      ? [message.content]
      : Array.isArray(message.content)
      ? message.content.flatMap((block: { readonly type?: unknown; readonly text?: unknown }) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
      : []
  )
  const names = texts.filter((text) => text.includes("deferred tools")).flatMap((text) => text.split("\n").filter((line) => /^mcp__\S+$/.test(line)))
  return [...new Set(names)].sort()
}

/** o200k tokens of the first request's MCP tools: the definitions in the tools array as sent, and the deferred names (one a line). */
const mcpTokens = (request: ModelRequest) => ({
  definitions: mcpEntries(request).reduce((sum, tool) => sum + encode(JSON.stringify(tool.raw)).length, 0),
  deferred: deferredMcpNames(request).length === 0 ? 0 : encode(deferredMcpNames(request).join("\n")).length
})

/** Where the first request has MCP tools: in the tools array and deferred (names only). */
const describeFirst = (toolsArray: ReadonlyArray<string>, deferred: ReadonlyArray<string>) =>
  `tools array: ${toolsArray.length === 0 ? "(none)" : toolsArray.join(", ")}; deferred: ${deferred.length === 0 ? "(none)" : deferred.join(", ")}`

const firstRequest = (session: SessionResult, what: string): ModelRequest => {
  const logged = messageRequests(session)[0]
  if (logged === undefined) throw new Error(`claude sent no model request (${what}; exit ${session.result.status}: ${tail(session)})`)
  return logged.request
}

const sessionCheck = (toolSearch: ToolSearchMode): Check => ({
  id: toolSearch === "off" ? "claude-session-gateway" : "claude-session-gateway-tool-search",
  host: "claude",
  title: `claude -p with the gateway (everything, filesystem, memory behind it), tool search ${toolSearch}: tools_ls, tools_find, tools_load echo, echo (directly or via tools_call); its result reaches the model in every run`,
  run: (context) => {
    const outcomes: Array<RunOutcome> = []
    for (let run = 0; run < sessionRuns(); run++) {
      outcomes.push(
        withSandbox(context, (sandbox) =>
          gatewayRunOutcome(claudeSession(context, sandbox, gatewayServers(context, sandbox), { toolSearch, script: "gateway", logName: "gateway.jsonl" }))
        )
      )
      const outcome = outcomes.at(-1)!
      process.stderr.write(`conformance: claude session (tool search ${toolSearch}) run ${run + 1}: ${outcome.failure ?? `ok (${outcome.called}, offered after load: ${outcome.offeredAfterLoad})`}\n`)
    }
    return describeRuns(outcomes)
  }
})

const firstRequestCheck = (toolSearch: ToolSearchMode): Check => ({
  id: toolSearch === "off" ? "claude-session-first-request" : "claude-session-first-request-tool-search",
  host: "claude",
  title: `claude -p with the gateway, tool search ${toolSearch}: the first request's MCP tools are exactly the gateway's entry tools, in the tools array (o200k tokens of MCP definitions, direct vs gateway, on stderr)`,
  run: (context) =>
    withSandbox(context, (sandbox) => {
      const viaGateway = firstRequest(
        claudeSession(context, sandbox, gatewayServers(context, sandbox), { toolSearch, script: "firstRequest", logName: "first-gateway.jsonl" }),
        "gateway"
      )
      const direct = firstRequest(
        claudeSession(context, sandbox, referenceServers(context, sandbox), { toolSearch, script: "firstRequest", logName: "first-direct.jsonl" }),
        "direct"
      )
      const figure = (request: ModelRequest) => {
        const tokens = mcpTokens(request)
        return `${tokens.definitions + tokens.deferred} (${mcpEntries(request).length} definitions: ${tokens.definitions}, ${deferredMcpNames(request).length} deferred names: ${tokens.deferred})`
      }
      process.stderr.write(
        `conformance: claude first request (tool search ${toolSearch}), o200k tokens of MCP tools: direct ${figure(direct)}, gateway ${figure(viaGateway)}\n`
      )
      return {
        toolMap: describeFirst(gatewayToolNames(), []),
        host: describeFirst(mcpEntries(viaGateway).map((tool) => tool.name).sort(), deferredMcpNames(viaGateway))
      }
    })
})

export const sessionsClaudeCodeChecks: ReadonlyArray<Check> = [
  sessionCheck("off"),
  sessionCheck("on"),
  firstRequestCheck("off"),
  firstRequestCheck("on")
]
