/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenAI-compatible clients speak it
 * (opencode through `@ai-sdk/openai-compatible`): tools are `{"type":"function","function":{…}}`
 * entries, tool results are `role: "tool"` messages answering an assistant message's `tool_calls`,
 * and the answer is streamed as `chat.completion.chunk` events ending in `data: [DONE]` (tool calls
 * as `tool_calls` deltas, usage in a last chunk when `stream_options.include_usage` asks) or,
 * without `stream`, one `chat.completion` object.
 */
import type { ServerResponse } from "node:http"
import type { ModelReply, ModelRequest, OfferedTool, ProtocolAdapter, SeenToolResult } from "./script.js"

type Json = Record<string, unknown>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const records = (value: unknown): ReadonlyArray<Json> => (Array.isArray(value) ? value.filter(isRecord) : [])
const text = (value: unknown): string => (typeof value === "string" ? value : "")

/** A message's text: a string, or its text parts joined by a newline. */
const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : records(content)
        .flatMap((part) => (typeof part["text"] === "string" ? [part["text"]] : []))
        .join("\n")

const offeredTool = (entry: Json): OfferedTool => {
  const fn = isRecord(entry["function"]) ? entry["function"] : entry
  return { name: text(fn["name"]), description: text(fn["description"]), raw: entry }
}

const toolResults = (messages: ReadonlyArray<Json>): ReadonlyArray<SeenToolResult> => {
  const names = new Map(
    messages.flatMap((message) =>
      records(message["tool_calls"]).map((call) => [text(call["id"]), isRecord(call["function"]) ? text(call["function"]["name"]) : ""] as const)
    )
  )
  return messages
    .filter((message) => message["role"] === "tool")
    .map((message) => {
      const callId = text(message["tool_call_id"])
      return { callId, name: names.get(callId), text: contentText(message["content"]), isError: false }
    })
}

const decode = (_path: string, body: unknown): ModelRequest => {
  if (!isRecord(body)) throw new Error("a Chat Completions request body is a JSON object")
  const messages = records(body["messages"])
  const lastUser = messages.filter((message) => message["role"] === "user").at(-1)
  return {
    protocol: "openai-chat",
    model: text(body["model"]),
    tools: records(body["tools"]).map(offeredTool),
    toolResults: toolResults(messages),
    prompt: lastUser === undefined ? "" : contentText(lastUser["content"]),
    raw: body
  }
}

/** A rough token count (4 characters a token): hosts only show or budget it. */
const roughTokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4))

let counter = 0
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}`

const toolCalls = (reply: ModelReply): ReadonlyArray<Json> =>
  reply._tag === "Calls"
    ? reply.calls.map((call) => ({ id: nextId("call"), type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }))
    : []

const usage = (request: ModelRequest, reply: ModelReply): Json => {
  const prompt = roughTokens(request.raw)
  const completion = roughTokens(reply)
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

const respond = (request: ModelRequest, reply: ModelReply, response: ServerResponse): void => {
  const id = nextId("chatcmpl")
  const created = Math.floor(Date.now() / 1000)
  const calls = toolCalls(reply)
  const finishReason = reply._tag === "Calls" ? "tool_calls" : "stop"
  const body = isRecord(request.raw) ? request.raw : {}
  if (body["stream"] !== true) {
    const message = reply._tag === "Text" ? { role: "assistant", content: reply.text } : { role: "assistant", content: null, tool_calls: calls }
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ id, object: "chat.completion", created, model: request.model, choices: [{ index: 0, message, finish_reason: finishReason }], usage: usage(request, reply) }))
    return
  }
  const chunk = (delta: Json, finish: string | null = null): Json => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finish }]
  })
  const deltas: ReadonlyArray<Json> =
    reply._tag === "Text"
      ? [chunk({ role: "assistant", content: "" }), chunk({ content: reply.text })]
      : [
          chunk({ role: "assistant", content: null }),
          ...calls.flatMap((call, index) => {
            const fn = call["function"] as { readonly name: string; readonly arguments: string }
            return [
              chunk({ tool_calls: [{ index, id: call["id"], type: "function", function: { name: fn.name, arguments: "" } }] }),
              chunk({ tool_calls: [{ index, function: { arguments: fn.arguments } }] })
            ]
          })
        ]
  const includeUsage = isRecord(body["stream_options"]) && body["stream_options"]["include_usage"] === true
  const chunks = [
    ...deltas,
    chunk({}, finishReason),
    ...(includeUsage ? [{ id, object: "chat.completion.chunk", created, model: request.model, choices: [], usage: usage(request, reply) }] : [])
  ]
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  response.end(`${chunks.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")}data: [DONE]\n\n`)
}

export const adapter: ProtocolAdapter = {
  protocol: "openai-chat",
  matches: (method, path) => method === "POST" && /\/chat\/completions$/.test(path),
  decode,
  respond
}
