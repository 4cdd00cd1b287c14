/**
 * The scripted model of the gateway sessions, the same for every host: browse (`tools_ls`),
 * search (`tools_find`), load (`tools_load`) the everything server's `echo`, call it — directly
 * when the host offers it in that request, else through `tools_call` — and end with a text that
 * quotes the tool result the model received, so a check sees the result reached the model.
 * Side requests of a host (a title, a router, a summary: any request without the entry tools)
 * are answered with a short text.
 */
import type { ModelReply, ModelRequest, OfferedTool, Script, ScriptedCall } from "../model/script.js"

/** The user's prompt of every gateway session: the script, not the prompt, decides what the model does. */
export const SESSION_PROMPT = "Use the tool-map gateway to find and call the echo tool."

/** The word the echo call sends, which must come back in its result. */
export const ECHO_WORD = "conformance-echo-7f3a"

/** The downstream tool the sessions load: the reference `everything` server's echo. */
export const ECHO_TARGET = "mcp__everything__echo"

/** The offered tool whose own name (after a host's server prefix) is `name`, if any. */
export const offered = (request: ModelRequest, name: string): OfferedTool | undefined =>
  request.tools.find((tool) => tool.name === name || tool.name.endsWith(`__${name}`) || tool.name.endsWith(`_${name}`))

const call = (tool: OfferedTool, args: Readonly<Record<string, unknown>>): ModelReply => ({
  _tag: "Calls",
  calls: [{ name: tool.name, namespace: tool.namespace, arguments: args } satisfies ScriptedCall]
})

/** How the session went, read back from the requests by checks. */
export const FINAL_PREFIX = "session done; echo result: "

const gatewaySession = (options: { readonly viaToolsCall: boolean }): Script => (request) => {
  const ls = offered(request, "tools_ls")
  if (ls === undefined) return { _tag: "Text", text: "ok" }
  const step = request.toolResults.length
  const need = (name: string): OfferedTool => {
    const tool = offered(request, name)
    if (tool === undefined) throw new Error(`the host did not offer ${name} at step ${step}`)
    return tool
  }
  switch (step) {
    case 0:
      return call(ls, {})
    case 1:
      return call(need("tools_find"), { query: "echo a message back" })
    case 2:
      return call(need("tools_load"), { targets: [ECHO_TARGET] })
    case 3: {
      const direct = options.viaToolsCall ? undefined : offered(request, "echo")
      return direct !== undefined
        ? call(direct, { message: ECHO_WORD })
        : call(need("tools_call"), { name: ECHO_TARGET, arguments: { message: ECHO_WORD } })
    }
    default:
      return { _tag: "Text", text: `${FINAL_PREFIX}${request.toolResults.at(-1)?.text ?? "(none)"}` }
  }
}

/** The high-risk tool of the human-gate sessions, and the entity its call deletes. */
export const HIGH_RISK_TARGET = "mcp__memory__delete_entities"
export const KEPT_ENTITY = "conformance-keep"

/** The final text of a high-risk session whose load was refused. */
export const REFUSED_PREFIX = "load refused: "

/**
 * The human-gate session: load the memory server's `delete_entities` (high risk); when the load
 * is refused, end with the refusal; when it passes (a person approved it), delete the kept
 * entity through tools_call and end with the result. The model never approves anything: it has
 * no argument that could.
 */
const highRiskSession: Script = (request) => {
  const load = offered(request, "tools_load")
  if (load === undefined) return { _tag: "Text", text: "ok" }
  const step = request.toolResults.length
  if (step === 0) return call(load, { targets: [HIGH_RISK_TARGET] })
  if (step === 1) {
    const answer = request.toolResults[0]!.text
    // Hosts wrap a tool result in their own text (Gemini CLI: <untrusted_context>; Codex: "Wall time: … Output:").
    if (!answer.includes("Loaded 1 tool(s)")) return { _tag: "Text", text: `${REFUSED_PREFIX}${answer}` }
    const through = offered(request, "tools_call")
    if (through === undefined) throw new Error("the host did not offer tools_call at step 1")
    return call(through, { name: HIGH_RISK_TARGET, arguments: { entityNames: [KEPT_ENTITY] } })
  }
  return { _tag: "Text", text: `${FINAL_PREFIX}${request.toolResults.at(-1)?.text ?? "(none)"}` }
}

export const scripts: Readonly<Record<string, Script>> = {
  /** Load a high-risk tool; call it only if the load passed. */
  highRisk: highRiskSession,
  /** The loaded tool called directly when offered, else through tools_call. */
  gateway: gatewaySession({ viaToolsCall: false }),
  /** The loaded tool always called through tools_call. */
  gatewayViaToolsCall: gatewaySession({ viaToolsCall: true }),
  /** Answers every request with a text: for sessions that only look at the first request. */
  firstRequest: () => ({ _tag: "Text", text: "ok" })
}
