/**
 * Scripted sessions of Gemini CLI against the gateway (issue 26, point 7): `gemini -p` runs in a
 * sandbox with only a loopback, pointed at the scripted model server (the Gemini API,
 * model/protocol-gemini.ts) by GOOGLE_GEMINI_BASE_URL, with the gateway fronting the three
 * reference servers in ~/.gemini/settings.json.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { MCP_SERVER_NAME } from "../../../src/mcp/hostConfig.js"
import { type Check, type CheckContext, withSandbox } from "../check.js"
import type { LoggedRequest, OfferedTool } from "../model/script.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { ECHO_WORD, offered, SESSION_PROMPT } from "../sessions/gatewayFlow.js"
import { gatewayServer, gatewayToolNames, o200kTokens, referenceServers, sessionRuns } from "./sessionsCodex.js"

/** Gemini CLI's name for an MCP tool: `mcp_<server>_<tool>` (0.61.0, `generateValidName`). */
const MCP_PREFIX = "mcp_"

/** The gateway's entry tools as Gemini CLI names them, sorted. */
const geminiGatewayToolNames = (): ReadonlyArray<string> => gatewayToolNames().map((name) => `${MCP_PREFIX}${MCP_SERVER_NAME}_${name}`).sort()

/**
 * ~/.gemini/settings.json of a session: the MCP servers (each with `trust: true` if asked), the API key auth
 * chosen, and usage statistics off (the clearcut logger would only fail against the empty network).
 *
 * In `-p` mode Gemini CLI 0.61.0 leaves every tool that needs a confirmation out of the request
 * (MCP tools included: the model is never offered them). A server's `trust: true` (honoured in a
 * trusted folder: GEMINI_CLI_TRUST_WORKSPACE=true) skips the confirmation for that server's tools
 * only; `--approval-mode yolo` would do it for every tool, the shell included. Without
 * `selectedType`, GOOGLE_GEMINI_BASE_URL makes the auth type `gateway`, which `-p` refuses
 * ("Invalid auth method selected.").
 */
const geminiSettings = (servers: Readonly<Record<string, object>>, trust: boolean): string =>
  `${
    JSON.stringify(
      {
        mcpServers: Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, trust ? { ...server, trust: true } : server])),
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false }
      },
      null,
      2
    )
  }\n`

/** TOOL_MAP_SESSION_LOGS=DIR keeps each session's request log and host output there (the sandbox is removed). */
const keepLog = (session: SessionResult, logName: string): void => {
  const dir = process.env["TOOL_MAP_SESSION_LOGS"]
  if (dir === undefined || dir === "") return
  fs.mkdirSync(dir, { recursive: true })
  const base = path.join(dir, `gemini-${Date.now()}-${logName.replace(/\.jsonl$/, "")}`)
  if (fs.existsSync(session.logFile)) fs.copyFileSync(session.logFile, `${base}.jsonl`)
  fs.writeFileSync(`${base}.out`, `exit ${session.result.status}\n--- stdout\n${session.result.stdout}\n--- stderr\n${session.result.stderr}\n`)
}

/**
 * How a session lets the model have MCP tools: each server's `trust` (the gateway sessions), or
 * `--approval-mode yolo`, under which Gemini CLI also offers an MCP tool named like a built-in its
 * non-interactive policy denies (filesystem's `write_file`, left out with `trust` alone): the
 * first-request figures count every MCP tool, as an interactive session would offer them.
 */
type Approval = "trust" | "yolo"

/** One `gemini -p` session with `servers` configured, answered by `script` of geminiFlow.ts. */
export const geminiSession = (
  context: CheckContext,
  sandbox: Sandbox,
  servers: Readonly<Record<string, object>>,
  options: {
    readonly script: string
    readonly logName: string
    readonly approval: Approval
    /** Run with settings.json as an earlier session (and whatever edited it since) left it. */
    readonly keepConfig?: boolean
  }
): SessionResult => {
  const { approval, logName, script } = options
  if (options.keepConfig !== true) sandbox.write("home/.gemini/settings.json", geminiSettings(servers, approval === "trust"))
  const session = runScriptedSession(context, sandbox, {
    host: "gemini",
    args: ["-p", SESSION_PROMPT, "--output-format", "json", ...(approval === "yolo" ? ["--approval-mode", "yolo"] : [])],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "geminiFlow.ts"),
    script,
    env: { GOOGLE_GEMINI_BASE_URL: MODEL_BASE_URL, GEMINI_API_KEY: "scripted", GEMINI_CLI_TRUST_WORKSPACE: "true" },
    timeoutMs: 120_000,
    logName
  })
  keepLog(session, logName)
  return session
}

/** What one run showed: passed or why not, and how the loaded tool was reached. */
interface RunOutcome {
  readonly failure?: string
  /** The echo called directly (the host listed it) or through tools_call; undefined when the run never got there. */
  readonly called?: "direct" | "tools_call"
  /** Whether the loaded echo was in the tools of the request right after the tools_load result. */
  readonly offeredAfterLoad?: boolean
  /** The name the host gave the loaded echo when it listed it (in any request). */
  readonly echoName?: string
  /** From the reply calling tools_load to the next request (the gateway holds its answer until the host re-lists). */
  readonly loadStepMs?: number
  readonly seconds: number
}

/** The last lines of a session's output, one line, for a failure reason. */
const tail = (session: SessionResult): string =>
  `${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").slice(0, 300)

/** Reads a gateway session from its requests: the main request at each step is the one holding that many tool results. */
const gatewayRunOutcome = (session: SessionResult, seconds: number): RunOutcome => {
  const main = session.requests.filter((logged) => offered(logged.request, "tools_ls") !== undefined)
  const atStep = (step: number): LoggedRequest | undefined => main.find((logged) => logged.request.toolResults.length === step)
  const echoName = main.map((logged) => offered(logged.request, "echo")?.name).find((name) => name !== undefined)
  const seen = { seconds, ...(echoName === undefined ? {} : { echoName }) }
  if (main.length === 0) return { ...seen, failure: `no request offered tools_ls (${session.requests.length} requests; exit ${session.result.status}: ${tail(session)})` }
  const afterLoad = atStep(3)
  if (afterLoad === undefined) {
    const last = main.at(-1)!
    return { ...seen, failure: `stopped after ${last.request.toolResults.length} tool results (last: ${last.request.toolResults.at(-1)?.text.slice(0, 160) ?? "none"}; exit ${session.result.status})` }
  }
  const offeredAfterLoad = offered(afterLoad.request, "echo") !== undefined
  const firstCall = afterLoad.reply._tag === "Calls" ? afterLoad.reply.calls[0] : undefined
  const load = atStep(2)
  const how = { ...seen, offeredAfterLoad, ...(load === undefined ? {} : { loadStepMs: afterLoad.at - load.at }), ...(firstCall === undefined ? {} : { called: firstCall.name.endsWith("tools_call") ? "tools_call" as const : "direct" as const }) }
  if (afterLoad.reply._tag === "Text") return { ...how, failure: `after the tools_load result (${afterLoad.request.tools.length} tools offered): ${afterLoad.reply.text}` }
  const afterEcho = atStep(4)
  if (afterEcho === undefined) return { ...how, failure: `no request after the echo call (exit ${session.result.status}: ${tail(session)})` }
  const result = afterEcho.request.toolResults[3]!
  if (result.isError || !result.text.includes(ECHO_WORD)) return { ...how, failure: `the echo result ${result.isError ? "is an error" : `lacks ${ECHO_WORD}`}: ${result.text.slice(0, 160)}` }
  return how
}

/**
 * N runs as the two answers: every run passed, and how many did. Both end with the same line of
 * counts (how echo was reached, whether it was offered right after tools_load, under which name):
 * an observation for the closing note, not part of the verdict.
 */
const describeRuns = (outcomes: ReadonlyArray<RunOutcome>): { readonly toolMap: string; readonly host: string } => {
  const n = outcomes.length
  const passed = outcomes.filter((outcome) => outcome.failure === undefined).length
  const count = (predicate: (outcome: RunOutcome) => boolean) => outcomes.filter(predicate).length
  const failures = outcomes.flatMap((outcome, index) => (outcome.failure === undefined ? [] : [`run ${index + 1}: ${outcome.failure}`]))
  const names = [...new Set(outcomes.flatMap((outcome) => (outcome.echoName === undefined ? [] : [outcome.echoName])))].sort()
  const loadSteps = outcomes.flatMap((outcome) => (outcome.loadStepMs === undefined ? [] : [outcome.loadStepMs])).sort((a, b) => a - b)
  const loadStep = loadSteps.length === 0 ? "" : `; tools_load step ${loadSteps[Math.floor((loadSteps.length - 1) / 2)]} ms median (${loadSteps[0]}-${loadSteps.at(-1)})`
  const how = `echo called directly in ${count((outcome) => outcome.called === "direct")}, via tools_call in ${count((outcome) => outcome.called === "tools_call")}; offered right after tools_load in ${
    count((outcome) => outcome.offeredAfterLoad === true)
  }/${n}; listed as ${names.length === 0 ? "(never)" : names.join(", ")}${loadStep}`
  return {
    toolMap: `${n}/${n} runs: echo result reached the model\n(${how})`,
    host: `${passed}/${n} runs: echo result reached the model${failures.length === 0 ? "" : `; failures: ${failures.slice(0, 5).join("; ")}${failures.length > 5 ? `; … ${failures.length - 5} more` : ""}`}\n(${how})`
  }
}

/** The MCP tools of a request, as Gemini CLI sent them. */
const mcpTools = (request: LoggedRequest): ReadonlyArray<OfferedTool> => request.request.tools.filter((tool) => tool.name.startsWith(MCP_PREFIX))

/** o200k tokens of the MCP tool definitions of a request, each declaration's JSON as sent. */
const mcpTokens = (request: LoggedRequest): number => mcpTools(request).reduce((sum, tool) => sum + o200kTokens(tool.raw), 0)

/** The first main request: the first with function declarations (the router's and other side requests have none). */
const firstMainRequest = (session: SessionResult, what: string): LoggedRequest => {
  const request = session.requests.find((logged) => logged.request.tools.length > 0)
  if (request === undefined) throw new Error(`gemini sent no request with tools (${what}; ${session.requests.length} requests; exit ${session.result.status}: ${tail(session)})`)
  return request
}

const runGatewaySessions = (context: CheckContext, id: string, script: string) => {
  const outcomes: Array<RunOutcome> = []
  for (let run = 0; run < sessionRuns(); run++) {
    const started = Date.now()
    const outcome = withSandbox(context, (sandbox) => {
      const session = geminiSession(context, sandbox, { [MCP_SERVER_NAME]: gatewayServer(context, sandbox) }, { script, logName: "gateway.jsonl", approval: "trust" })
      return gatewayRunOutcome(session, (Date.now() - started) / 1000)
    })
    outcomes.push(outcome)
    process.stderr.write(`conformance: ${id} run ${run + 1} (${outcome.seconds.toFixed(1)} s): ${outcome.failure ?? `ok (${outcome.called}, offered after load: ${outcome.offeredAfterLoad}, load step ${outcome.loadStepMs} ms)`}\n`)
  }
  return describeRuns(outcomes)
}

export const sessionsGeminiChecks: ReadonlyArray<Check> = [
  {
    id: "gemini-session-gateway",
    host: "gemini",
    title: "gemini -p with the gateway (everything, filesystem, memory behind it): tools_ls, tools_find, tools_load echo, echo (directly where listed, else tools_call); its result reaches the model in every run",
    run: (context) => runGatewaySessions(context, "gemini-session-gateway", "gateway")
  },
  {
    id: "gemini-session-tools-call",
    host: "gemini",
    title: "gemini -p with the gateway: tools_ls, tools_find, tools_load echo, then echo always through tools_call; its result reaches the model in every run",
    run: (context) => runGatewaySessions(context, "gemini-session-tools-call", "gatewayViaToolsCall")
  },
  {
    id: "gemini-session-first-request",
    host: "gemini",
    title: "gemini -p with the gateway: the first main request's MCP tools are exactly the gateway's entry tools (o200k tokens of MCP definitions, direct vs gateway, on stderr)",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        const viaGateway = firstMainRequest(geminiSession(context, sandbox, { [MCP_SERVER_NAME]: gatewayServer(context, sandbox) }, { script: "firstRequest", logName: "first-gateway.jsonl", approval: "yolo" }), "gateway")
        const direct = firstMainRequest(geminiSession(context, sandbox, referenceServers(context, sandbox), { script: "firstRequest", logName: "first-direct.jsonl", approval: "yolo" }), "direct")
        const directTokens = mcpTokens(direct)
        const gatewayTokens = mcpTokens(viaGateway)
        process.stderr.write(
          `conformance: gemini first request, o200k tokens of MCP tool definitions: direct ${directTokens} (${mcpTools(direct).length} tools), gateway ${gatewayTokens} (${mcpTools(viaGateway).length} tools), ${
            Math.round((1 - gatewayTokens / directTokens) * 100)
          }% less\n`
        )
        return { toolMap: geminiGatewayToolNames().join(", "), host: mcpTools(viaGateway).map((tool) => tool.name).sort().join(", ") }
      })
  }
]
