/**
 * The Gemini API as Gemini CLI 0.61.0 speaks it through @google/genai (API key auth, base URL from
 * GOOGLE_GEMINI_BASE_URL): `POST /v1beta/models/{model}:generateContent` (plain JSON, used for the
 * router's JSON answer and other side requests), `:streamGenerateContent?alt=sse` (the main turns:
 * SSE, one `data: {GenerateContentResponse}` event a chunk) and `:countTokens`.
 *
 * Tools come as `tools[].functionDeclarations[]` ({name, description, parametersJsonSchema} for MCP
 * tools, `parameters` for some built-ins); tool results as `contents[].parts[].functionResponse`
 * ({id, name, response: {output} | {error}}). A reply is one candidate whose parts are
 * `functionCall {name, args}` parts or one text part, with finishReason STOP and usageMetadata.
 */
import type { ServerResponse } from "node:http"
import type { ModelReply, ModelRequest, OfferedTool, ProtocolAdapter, SeenToolResult } from "./script.js"

const PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/

type Action = "generateContent" | "streamGenerateContent" | "countTokens"

interface Part {
  readonly text?: unknown
  readonly thought?: unknown
  readonly functionCall?: { readonly id?: unknown; readonly name?: unknown; readonly args?: unknown }
  readonly functionResponse?: { readonly id?: unknown; readonly name?: unknown; readonly response?: unknown }
}
interface Content {
  readonly role?: unknown
  readonly parts?: ReadonlyArray<Part>
}
interface FunctionDeclaration {
  readonly name?: unknown
  readonly description?: unknown
}
interface Body {
  readonly contents?: ReadonlyArray<Content>
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations?: ReadonlyArray<FunctionDeclaration> }>
  /** countTokens may wrap the whole request. */
  readonly generateContentRequest?: Body
}

/** The action of each decoded request, for `respond` (the server hands back the object `decode` made). */
const actions = new WeakMap<ModelRequest, Action>()

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

const asString = (value: unknown): string => (typeof value === "string" ? value : "")

/**
 * The text of a functionResponse's `response`: Gemini CLI sends `{output: text}` or `{error: text}`;
 * anything else (an MCP content list, an empty object) is shown as its JSON.
 */
const responseText = (response: unknown): { readonly text: string; readonly isError: boolean } => {
  if (!isRecord(response)) return { text: JSON.stringify(response ?? null), isError: false }
  if (typeof response["error"] === "string") return { text: response["error"], isError: true }
  if (typeof response["output"] === "string") return { text: response["output"], isError: false }
  const content = response["content"]
  if (Array.isArray(content)) {
    const texts = content.flatMap((item: unknown) => (isRecord(item) && typeof item["text"] === "string" ? [item["text"]] : []))
    if (texts.length > 0) return { text: texts.join("\n"), isError: response["isError"] === true }
  }
  return { text: JSON.stringify(response), isError: response["error"] !== undefined }
}

const decodeTools = (body: Body): ReadonlyArray<OfferedTool> =>
  (body.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => ({
      name: asString(declaration.name),
      description: asString(declaration.description),
      raw: declaration
    }))
  )

const decodeToolResults = (contents: ReadonlyArray<Content>): ReadonlyArray<SeenToolResult> =>
  contents.flatMap((content) =>
    (content.parts ?? []).flatMap((part, index) => {
      const response = part.functionResponse
      if (response === undefined) return []
      const name = asString(response.name)
      return [{ callId: asString(response.id) || `${name}#${index}`, name, ...responseText(response.response) }]
    })
  )

/** The last user turn's text (the prompt; Gemini CLI sends tool results as user turns too, without text). */
const lastUserText = (contents: ReadonlyArray<Content>): string => {
  for (const content of [...contents].reverse()) {
    if (content.role !== undefined && content.role !== "user") continue
    const texts = (content.parts ?? []).flatMap((part) => (typeof part.text === "string" && part.thought !== true ? [part.text] : []))
    if (texts.length > 0) return texts.join("\n")
  }
  return ""
}

const decode = (path: string, raw: unknown): ModelRequest => {
  const match = PATH.exec(path)
  if (match === null) throw new Error(`not a Gemini API path: ${path}`)
  if (!isRecord(raw)) throw new Error("the request body is not a JSON object")
  const action = match[2] as Action
  const outer = raw as Body
  const body = action === "countTokens" && outer.generateContentRequest !== undefined ? outer.generateContentRequest : outer
  const contents = body.contents ?? []
  const request: ModelRequest = {
    protocol: "gemini",
    model: decodeURIComponent(match[1]!),
    tools: decodeTools(body),
    toolResults: decodeToolResults(contents),
    prompt: lastUserText(contents),
    raw
  }
  actions.set(request, action)
  return request
}

/** A rough count for usageMetadata and countTokens: four characters a token, as Gemini CLI's own estimate. */
const estimateTokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value ?? null).length / 4))

const replyParts = (reply: ModelReply): ReadonlyArray<Part> =>
  reply._tag === "Text" ? [{ text: reply.text }] : reply.calls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } }))

const generateContentResponse = (request: ModelRequest, reply: ModelReply) => {
  const parts = replyParts(reply)
  const promptTokenCount = estimateTokens((request.raw as Body).contents)
  const candidatesTokenCount = estimateTokens(parts)
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount },
    modelVersion: request.model,
    responseId: `scripted-${Date.now().toString(36)}`
  }
}

const respond = (request: ModelRequest, reply: ModelReply, response: ServerResponse): void => {
  const action = actions.get(request) ?? "generateContent"
  if (action === "countTokens") {
    const outer = request.raw as Body
    const contents = (outer.generateContentRequest ?? outer).contents
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: estimateTokens(contents) }))
    return
  }
  const answer = generateContentResponse(request, reply)
  if (action === "generateContent") {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer))
    return
  }
  // @google/genai always asks for `alt=sse` and reads `data:` lines; one chunk holds the whole reply.
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  response.end(`data: ${JSON.stringify(answer)}\r\n\r\n`)
}

export const adapter: ProtocolAdapter = {
  protocol: "gemini",
  matches: (method, path) => method === "POST" && PATH.test(path),
  decode,
  respond
}
