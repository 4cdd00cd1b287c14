/**
 * The scripted model the hosts talk to in conformance sessions: the shape every wire protocol
 * (Anthropic Messages, OpenAI Responses and Chat Completions, Gemini generateContent) is read
 * into, and the script that answers it. A protocol adapter (model/<protocol>.ts) decodes a
 * request into a {@link ModelRequest}, asks the script for a {@link ModelReply}, and encodes the
 * reply in its own wire format (streaming where the host asks for it). The server logs every
 * raw request, so a check can read exactly what a host sent.
 */

/** A tool as the host offered it to the model in one request. */
export interface OfferedTool {
  /** The name the model must use to call it (for Codex's namespaces: `namespace` + name, see `namespace`). */
  readonly name: string
  /** Codex sends MCP tools inside `{"type":"namespace"}` entries: the namespace's name, else undefined. */
  readonly namespace?: string | undefined
  readonly description: string
  /** The JSON the host sent for this tool, as sent (for token counts). */
  readonly raw: unknown
}

/** A tool result the conversation holds (the host sends every earlier turn again). */
export interface SeenToolResult {
  /** The id of the call it answers. */
  readonly callId: string
  /** The called tool's name, where the protocol says it. */
  readonly name?: string | undefined
  /** The result's text (text parts joined by a newline). */
  readonly text: string
  readonly isError: boolean
}

/** One request of a host, in the shape every protocol is read into. */
export interface ModelRequest {
  readonly protocol: "anthropic" | "openai-responses" | "openai-chat" | "gemini"
  /** The model the host asked for. */
  readonly model: string
  readonly tools: ReadonlyArray<OfferedTool>
  /** Every tool result in the conversation, oldest first. */
  readonly toolResults: ReadonlyArray<SeenToolResult>
  /** The last user text of the conversation (the prompt). */
  readonly prompt: string
  /** The request body as the host sent it. */
  readonly raw: unknown
}

/** One tool call the model makes. */
export interface ScriptedCall {
  /** The tool's name as offered (Codex: the bare name, with `namespace` set). */
  readonly name: string
  readonly namespace?: string | undefined
  readonly arguments: Readonly<Record<string, unknown>>
}

/** What the model answers: tool calls, or a final text that ends the session. */
export type ModelReply =
  | { readonly _tag: "Calls"; readonly calls: ReadonlyArray<ScriptedCall> }
  | { readonly _tag: "Text"; readonly text: string }

/**
 * A script: the reply to a request. Hosts send side requests (a title, a router or a
 * summary request) besides the main conversation; a script answers those with text and
 * decides from the request (its tools, its tool results) where the conversation is.
 */
export type Script = (request: ModelRequest) => ModelReply

/** One logged request: when, the path, and the decoded view next to the raw body. */
export interface LoggedRequest {
  readonly at: number
  readonly path: string
  readonly request: ModelRequest
  readonly reply: ModelReply
}

/**
 * One wire protocol of the scripted model server. A module `model/protocol-<name>.ts` exports
 * `adapter: ProtocolAdapter`; the server loads every such module, so a protocol is added by adding
 * its file.
 */
export interface ProtocolAdapter {
  readonly protocol: ModelRequest["protocol"]
  /** True for the requests this protocol answers (`POST /v1/messages`, …). */
  readonly matches: (method: string, path: string) => boolean
  /** The request read into the common shape; throws on a body this protocol cannot read. */
  readonly decode: (path: string, body: unknown) => ModelRequest
  /** Writes the reply in the protocol's wire format, streaming (SSE) when the request asked for it. */
  readonly respond: (request: ModelRequest, reply: ModelReply, response: import("node:http").ServerResponse) => void
}

/** A module of scripts: `scripts[name]` answers the requests of one session. */
export interface ScriptModule {
  readonly scripts: Readonly<Record<string, Script>>
}
