/**
 * Scripted sessions of opencode against the gateway (issue 26, point 7): `opencode run` in a
 * sandbox with only a loopback, an OpenAI-compatible provider pointed at the scripted model server
 * (Chat Completions), and the gateway fronting the three reference servers.
 */
import * as path from "node:path"
import { MCP_SERVER_NAME } from "../../../src/mcp/hostConfig.js"
import { type Check, type CheckContext, withSandbox } from "../check.js"
import type { LoggedRequest } from "../model/script.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { SESSION_PROMPT } from "../sessions/gatewayFlow.js"
import { gatewayRunsCheck, gatewayServer, gatewayToolNames, o200kTokens, referenceServers, type StdioServer } from "./sessionsCodex.js"

const PROVIDER = "scripted"
const MODEL = "scripted-model"

/**
 * `~/.config/opencode/opencode.json` for a session: an `@ai-sdk/openai-compatible` provider at the
 * scripted server (opencode 1.18.33 carries that package in its binary, so nothing is fetched),
 * the MCP servers as `local` entries, and every permission allowed so `opencode run` asks nobody.
 */
const opencodeConfig = (servers: Readonly<Record<string, StdioServer>>): string =>
  `${JSON.stringify(
    {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: `${PROVIDER}/${MODEL}`,
      small_model: `${PROVIDER}/${MODEL}`,
      provider: {
        [PROVIDER]: {
          npm: "@ai-sdk/openai-compatible",
          name: "Scripted model server",
          options: { baseURL: `${MODEL_BASE_URL}/v1`, apiKey: "scripted" },
          models: { [MODEL]: { name: "Scripted model", tool_call: true } }
        }
      },
      permission: { "*": "allow" },
      mcp: Object.fromEntries(
        Object.entries(servers).map(([name, server]) => [
          name,
          { type: "local", command: [server.command, ...server.args], enabled: true, ...(server.env === undefined ? {} : { environment: { ...server.env } }) }
        ])
      )
    },
    null,
    2
  )}\n`

/** One `opencode run` session with `servers` configured, answered by `script` of gatewayFlow.ts. */
export const opencodeSession = (
  context: CheckContext,
  sandbox: Sandbox,
  servers: Readonly<Record<string, StdioServer>>,
  script: string,
  logName: string,
  /** Run with opencode.json as an earlier session (and whatever edited it since) left it. */
  keepConfig = false
): SessionResult => {
  if (!keepConfig) sandbox.write("home/.config/opencode/opencode.json", opencodeConfig(servers))
  return runScriptedSession(context, sandbox, {
    host: "opencode",
    args: ["run", "--model", `${PROVIDER}/${MODEL}`, SESSION_PROMPT],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "gatewayFlow.ts"),
    script,
    timeoutMs: 120_000,
    logName
  })
}

/** opencode names an MCP tool `<server>_<tool>`: the tools of a request whose name starts with one of `servers`. */
const opencodeMcpTools = (request: LoggedRequest, servers: ReadonlyArray<string>) =>
  request.request.tools.filter((tool) => servers.some((server) => tool.name.startsWith(`${server}_`)))

const tail = (session: SessionResult): string => `${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").slice(0, 300)

export const sessionsOpencodeChecks: ReadonlyArray<Check> = [
  gatewayRunsCheck(
    "opencode",
    "opencode run with the gateway (everything, filesystem, memory behind it): tools_ls, tools_find, tools_load echo, echo (directly or via tools_call); its result reaches the model in every run",
    opencodeSession
  ),
  {
    id: "opencode-session-first-request",
    host: "opencode",
    title: "opencode run with the gateway: the first main request's MCP tools are exactly the gateway's entry tools (o200k tokens of MCP definitions, direct vs gateway, on stderr)",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        const references = referenceServers(context, sandbox)
        const viaGateway = opencodeSession(context, sandbox, { [MCP_SERVER_NAME]: gatewayServer(context, sandbox) }, "firstRequest", "first-gateway.jsonl")
        const direct = opencodeSession(context, sandbox, references, "firstRequest", "first-direct.jsonl")
        // opencode's title request has no tools: the main request is the first that has any.
        const firstMain = (session: SessionResult, what: string) => {
          const request = session.requests.find((logged) => logged.request.tools.length > 0)
          if (request === undefined) throw new Error(`opencode sent no model request with tools (${what}; ${session.requests.length} requests; exit ${session.result.status}: ${tail(session)})`)
          return request
        }
        const gatewayTools = opencodeMcpTools(firstMain(viaGateway, "gateway"), [MCP_SERVER_NAME])
        const directTools = opencodeMcpTools(firstMain(direct, "direct"), Object.keys(references))
        const tokens = (tools: ReadonlyArray<{ readonly raw: unknown }>) => tools.reduce((sum, tool) => sum + o200kTokens(tool.raw), 0)
        process.stderr.write(
          `conformance: opencode first request, o200k tokens of MCP tool definitions: direct ${tokens(directTools)} (${directTools.length} tools), gateway ${tokens(gatewayTools)} (${gatewayTools.length} tools)\n`
        )
        return {
          toolMap: gatewayToolNames().map((name) => `${MCP_SERVER_NAME}_${name}`).join(", "),
          host: gatewayTools.map((tool) => tool.name).sort().join(", ")
        }
      })
  }
]
