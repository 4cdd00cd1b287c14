/**
 * The Anthropic Messages API as Claude Code speaks it (2.1.332): `POST /v1/messages`, streaming
 * (SSE: message_start, content_block_start/delta/stop for text and tool_use with
 * input_json_delta, message_delta with the stop reason and usage, message_stop) or not.
 * Tools are recorded as sent, with Claude Code's tool-search parts (`defer_loading` entries, the
 * ToolSearch tool); tool results carry a string or text blocks, and a ToolSearch result's
 * `tool_reference` blocks are read as `[tool_reference NAME]` lines.
 *
 * `POST /v1/messages/count_tokens` is answered here too (Claude Code asks it to size MCP tools
 * for its auto tool search): decoded as a request of model `count_tokens` whose reply the server
 * logs like any other, and answered with an estimate instead of a message.
 */
import { randomUUID } from "node:crypto"
import type { ServerResponse } from "node:http"
import type { ModelReply, ModelRequest, OfferedTool, ProtocolAdapter, SeenToolResult } from "./script.js"

/** The model name a count_tokens request is decoded with, so scripts and checks can tell it apart. */
export const COUNT_TOKENS_MODEL = "count_tokens"

type Json = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const asString = (value: unknown): string => (typeof value === "string" ? value : "")

/** A content block list: a string is one text block. */
const blocks = (content: unknown): ReadonlyArray<Json> =>
  typeof content === "string" ? [{ type: "text", text: content }] : asArray(content).filter(isRecord)

/** The text of a tool result's content: a string, or its text (and tool_reference) blocks joined by a newline. */
const resultText = (content: unknown): string =>
  blocks(content)
    .flatMap((block) =>
      block.type === "text" ? [asString(block.text)] : block.type === "tool_reference" ? [`[tool_reference ${asString(block.tool_name)}]`] : []
    )
    .join("\n")

const decodeTool = (tool: Json): OfferedTool => ({
  name: asString(tool.name),
  description: asString(tool.description),
  raw: tool
})

const decodeToolResults = (messages: ReadonlyArray<Json>): ReadonlyArray<SeenToolResult> => {
  const callNames = new Map<string, string>()
  const results: Array<SeenToolResult> = []
  for (const message of messages) {
    for (const block of blocks(message.content)) {
      if (block.type === "tool_use") callNames.set(asString(block.id), asString(block.name))
      if (block.type === "tool_result") {
        const callId = asString(block.tool_use_id)
        results.push({ callId, name: callNames.get(callId), text: resultText(block.content), isError: block.is_error === true })
      }
    }
  }
  return results
}

/** The last text the user typed: Claude Code puts `<system-reminder>` blocks before it in the same message. */
const lastPrompt = (messages: ReadonlyArray<Json>): string => {
  for (const message of [...messages].reverse()) {
    if (message.role !== "user") continue
    const texts = blocks(message.content)
      .filter((block) => block.type === "text")
      .map((block) => asString(block.text))
      .filter((text) => !text.trimStart().startsWith("<system-reminder>"))
    if (texts.length > 0) return texts.at(-1)!
  }
  return ""
}

const decode = (path: string, body: unknown): ModelRequest => {
  if (!isRecord(body)) throw new Error(`${path}: the body is not a JSON object`)
  const messages = asArray(body.messages).filter(isRecord)
  return {
    protocol: "anthropic",
    model: path.endsWith("/count_tokens") ? COUNT_TOKENS_MODEL : asString(body.model),
    tools: asArray(body.tools).filter(isRecord).map(decodeTool),
    toolResults: decodeToolResults(messages),
    prompt: lastPrompt(messages),
    raw: body
  }
}

/** A rough token figure (4 characters a token): Claude Code only uses it to size and to budget. */
const estimateTokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4))

type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> }

const contentOf = (reply: ModelReply): ReadonlyArray<ContentBlock> =>
  reply._tag === "Text"
    ? [{ type: "text", text: reply.text }]
    : reply.calls.map((call) => ({ type: "tool_use", id: `toolu_${randomUUID().replace(/-/g, "")}`, name: call.name, input: call.arguments }))

const sse = (response: ServerResponse, event: string, data: Json) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

const respond = (request: ModelRequest, reply: ModelReply, response: ServerResponse): void => {
  const body = isRecord(request.raw) ? request.raw : {}
  if (request.model === COUNT_TOKENS_MODEL) {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: estimateTokens(body) }))
    return
  }
  const content = contentOf(reply)
  const stopReason = reply._tag === "Calls" ? "tool_use" : "end_turn"
  const usage = { input_tokens: estimateTokens(body.messages), output_tokens: estimateTokens(content), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  const id = `msg_${randomUUID().replace(/-/g, "")}`
  const model = request.model === "" ? "claude-sonnet-4-5" : request.model
  if (body.stream !== true) {
    response
      .writeHead(200, { "content-type": "application/json", "request-id": `req_${id}` })
      .end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stopReason, stop_sequence: null, usage }))
    return
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "request-id": `req_${id}` })
  sse(response, "message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } }
  })
  content.forEach((block, index) => {
    if (block.type === "text") {
      sse(response, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } })
      sse(response, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } })
    } else {
      sse(response, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } })
      sse(response, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } })
    }
    sse(response, "content_block_stop", { type: "content_block_stop", index })
  })
  sse(response, "message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } })
  sse(response, "message_stop", { type: "message_stop" })
  response.end()
}

export const adapter: ProtocolAdapter = {
  protocol: "anthropic",
  matches: (method, path) => method === "POST" && (path === "/v1/messages" || path === "/v1/messages/count_tokens"),
  decode,
  respond
}
