/**
 * The gateway session of gatewayFlow.ts as Claude Code needs it (2.1.332). With its tool search
 * on, an MCP tool without `_meta["anthropic/alwaysLoad"]` is deferred: only its name is in a
 * system message, and the model must call `ToolSearch` with `select:NAME,…` before the tool is
 * in the tools array. So where the step's entry tool is not offered but ToolSearch is, the model
 * selects the entry tools first; the steps count only the gateway's results. The loaded echo is
 * called directly when it is in the tools array of that request, else through `tools_call` (a
 * deferred echo is not searched for: the flow stays the one every host runs).
 */
import type { ModelReply, ModelRequest, OfferedTool, Script } from "../model/script.js"
import { COUNT_TOKENS_MODEL } from "../model/protocol-anthropic.js"
import { ECHO_TARGET, ECHO_WORD, FINAL_PREFIX, scripts as common } from "./gatewayFlow.js"

/** The gateway's server name in the sessions' MCP config, and so its tools' prefix. */
export const GATEWAY_SERVER = "tool-map"
export const GATEWAY_PREFIX = `mcp__${GATEWAY_SERVER}__`

/** Claude Code's tool-search tool. */
export const TOOL_SEARCH = "ToolSearch"

/** The name Claude Code gives the loaded echo: the gateway's prefix on the catalog name. */
export const LOADED_ECHO = `${GATEWAY_PREFIX}${ECHO_TARGET}`

const ENTRY_STEPS = ["tools_ls", "tools_find", "tools_load", "tools_call"] as const

/**
 * A tool of the request's tools array, which the model can call. A deferred tool is in it only
 * once ToolSearch has returned a `tool_reference` to it (then with `defer_loading: true`, which
 * the API expands); before that only its name is in a system message.
 */
export const callable = (request: ModelRequest, name: string): OfferedTool | undefined => request.tools.find((tool) => tool.name === name)

/** The results of the gateway's tools, ToolSearch's left out. */
export const gatewayResults = (request: ModelRequest) => request.toolResults.filter((result) => result.name !== TOOL_SEARCH)

const call = (name: string, args: Readonly<Record<string, unknown>>): ModelReply => ({ _tag: "Calls", calls: [{ name, arguments: args }] })

const claudeGatewaySession = (options: { readonly viaToolsCall: boolean }): Script => (request) => {
  if (request.model === COUNT_TOKENS_MODEL) return { _tag: "Text", text: "ok" }
  const search = callable(request, TOOL_SEARCH)
  if (callable(request, `${GATEWAY_PREFIX}tools_ls`) === undefined && search === undefined) return { _tag: "Text", text: "ok" }
  const results = gatewayResults(request)
  const searches = request.toolResults.length - results.length
  // The entry tool this step needs, selected through ToolSearch once if it is deferred.
  const entry = (name: (typeof ENTRY_STEPS)[number], args: Readonly<Record<string, unknown>>): ModelReply =>
    callable(request, `${GATEWAY_PREFIX}${name}`) === undefined && search !== undefined && searches === 0
      ? call(TOOL_SEARCH, { query: `select:${ENTRY_STEPS.map((step) => `${GATEWAY_PREFIX}${step}`).join(",")}` })
      : call(`${GATEWAY_PREFIX}${name}`, args)
  switch (results.length) {
    case 0:
      return entry("tools_ls", {})
    case 1:
      return entry("tools_find", { query: "echo a message back" })
    case 2:
      return entry("tools_load", { targets: [ECHO_TARGET] })
    case 3:
      return !options.viaToolsCall && callable(request, LOADED_ECHO) !== undefined
        ? call(LOADED_ECHO, { message: ECHO_WORD })
        : entry("tools_call", { name: ECHO_TARGET, arguments: { message: ECHO_WORD } })
    default:
      return { _tag: "Text", text: `${FINAL_PREFIX}${results.at(-1)?.text ?? "(none)"}` }
  }
}

export const scripts: Readonly<Record<string, Script>> = {
  /** The loaded echo called directly when it is in the tools array, else through tools_call. */
  gateway: claudeGatewaySession({ viaToolsCall: false }),
  /** The loaded echo always called through tools_call. */
  gatewayViaToolsCall: claudeGatewaySession({ viaToolsCall: true }),
  /** Every request answered with a text: for sessions that only look at the first request. */
  firstRequest: () => ({ _tag: "Text", text: "ok" }),
  /** The human-gate session of gatewayFlow.ts (run with tool search off: the entry tools are in the tools array). */
  highRisk: common.highRisk!
}
