/**
 * OpenAI Responses (`POST /v1/responses`), as Codex speaks it: tools are `function` entries or
 * `{"type":"namespace"}` entries holding functions (Codex puts each MCP server's tools in one, and
 * calls them with the namespace plus the bare name), earlier turns come back as `input` items
 * (`function_call` / `function_call_output`), and the answer is streamed as SSE events
 * (`response.created` … `response.completed` with usage) or, without `stream`, one response object.
 */
import type { ServerResponse } from "node:http"
import type { ModelReply, ModelRequest, OfferedTool, ProtocolAdapter, SeenToolResult } from "./script.js"

type Json = Record<string, unknown>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const records = (value: unknown): ReadonlyArray<Json> => (Array.isArray(value) ? value.filter(isRecord) : [])
const text = (value: unknown): string => (typeof value === "string" ? value : "")

/** The functions of one `tools` entry: a function itself, or each function of a namespace. */
const offeredTools = (entry: Json): ReadonlyArray<OfferedTool> => {
  if (entry["type"] === "function") return [{ name: text(entry["name"]), description: text(entry["description"]), raw: entry }]
  if (entry["type"] === "namespace") {
    const namespace = text(entry["name"])
    return records(entry["tools"]).flatMap((child) =>
      child["type"] === "function" ? [{ name: text(child["name"]), namespace, description: text(child["description"]), raw: child }] : []
    )
  }
  // Built-in tools (web_search, custom/freeform ones like apply_patch): named where they have a name.
  const name = text(entry["name"]) || text(entry["type"])
  return [{ name, description: text(entry["description"]), raw: entry }]
}

/** A function_call_output's text: a string, or the text parts of a content list. */
const outputText = (output: unknown): string => {
  if (typeof output === "string") return output
  if (isRecord(output)) return outputText(output["content"])
  return records(output)
    .flatMap((part) => (typeof part["text"] === "string" ? [part["text"]] : []))
    .join("\n")
}

const toolResults = (input: ReadonlyArray<Json>): ReadonlyArray<SeenToolResult> => {
  const calls = new Map(
    input.filter((item) => item["type"] === "function_call" || item["type"] === "custom_tool_call").map((item) => [text(item["call_id"]), item] as const)
  )
  return input
    .filter((item) => item["type"] === "function_call_output" || item["type"] === "custom_tool_call_output")
    .map((item) => {
      const callId = text(item["call_id"])
      const call = calls.get(callId)
      const output = item["output"]
      return {
        callId,
        name: call === undefined ? undefined : text(call["name"]),
        text: outputText(output),
        isError: isRecord(output) && output["success"] === false
      }
    })
}

const messageText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : records(content)
        .flatMap((part) => (typeof part["text"] === "string" ? [part["text"]] : []))
        .join("\n")

const decode = (_path: string, body: unknown): ModelRequest => {
  if (!isRecord(body)) throw new Error("a Responses request body is a JSON object")
  const input = typeof body["input"] === "string" ? [{ type: "message", role: "user", content: body["input"] }] : records(body["input"])
  const lastUser = input.filter((item) => (item["type"] === "message" || item["type"] === undefined) && item["role"] === "user").at(-1)
  return {
    protocol: "openai-responses",
    model: text(body["model"]),
    tools: records(body["tools"]).flatMap(offeredTools),
    toolResults: toolResults(input),
    prompt: lastUser === undefined ? "" : messageText(lastUser["content"]),
    raw: body
  }
}

/** A rough token count (4 characters a token): hosts only show or budget it. */
const roughTokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4))

let counter = 0
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}`

/** The output items of a reply, complete (as `response.output_item.done` and the final response carry them). */
const outputItems = (reply: ModelReply): ReadonlyArray<Json> =>
  reply._tag === "Text"
    ? [{ type: "message", id: nextId("msg"), status: "completed", role: "assistant", content: [{ type: "output_text", text: reply.text, annotations: [] }] }]
    : reply.calls.map((call) => ({
        type: "function_call",
        id: nextId("fc"),
        call_id: nextId("call"),
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
        name: call.name,
        arguments: JSON.stringify(call.arguments),
        status: "completed"
      }))

const responseObject = (request: ModelRequest, id: string, status: string, output: ReadonlyArray<Json>, reply: ModelReply | undefined): Json => ({
  id,
  object: "response",
  created_at: Math.floor(Date.now() / 1000),
  status,
  model: request.model,
  output,
  ...(reply === undefined
    ? {}
    : {
        usage: {
          input_tokens: roughTokens(request.raw),
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: roughTokens(output),
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: roughTokens(request.raw) + roughTokens(output)
        }
      })
})

/** The SSE events of one item, from `output_item.added` to `output_item.done`. */
const itemEvents = (item: Json, outputIndex: number): ReadonlyArray<Json> => {
  const itemId = text(item["id"])
  if (item["type"] === "function_call") {
    const args = text(item["arguments"])
    return [
      { type: "response.output_item.added", output_index: outputIndex, item: { ...item, arguments: "", status: "in_progress" } },
      { type: "response.function_call_arguments.delta", item_id: itemId, output_index: outputIndex, delta: args },
      { type: "response.function_call_arguments.done", item_id: itemId, output_index: outputIndex, arguments: args },
      { type: "response.output_item.done", output_index: outputIndex, item }
    ]
  }
  const part = records(item["content"])[0] ?? { type: "output_text", text: "", annotations: [] }
  const location = { item_id: itemId, output_index: outputIndex, content_index: 0 }
  return [
    { type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } },
    { type: "response.content_part.added", ...location, part: { ...part, text: "" } },
    { type: "response.output_text.delta", ...location, delta: text(part["text"]) },
    { type: "response.output_text.done", ...location, text: text(part["text"]) },
    { type: "response.content_part.done", ...location, part },
    { type: "response.output_item.done", output_index: outputIndex, item }
  ]
}

const respond = (request: ModelRequest, reply: ModelReply, response: ServerResponse): void => {
  const id = nextId("resp")
  const output = outputItems(reply)
  const body = isRecord(request.raw) ? request.raw : {}
  if (body["stream"] !== true) {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(responseObject(request, id, "completed", output, reply)))
    return
  }
  const events: ReadonlyArray<Json> = [
    { type: "response.created", response: responseObject(request, id, "in_progress", [], undefined) },
    ...output.flatMap(itemEvents),
    { type: "response.completed", response: responseObject(request, id, "completed", output, reply) }
  ]
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  response.end(events.map((event, index) => `event: ${text(event["type"])}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`).join(""))
}

export const adapter: ProtocolAdapter = {
  protocol: "openai-responses",
  matches: (method, path) => method === "POST" && /\/responses$/.test(path),
  decode,
  respond
}
