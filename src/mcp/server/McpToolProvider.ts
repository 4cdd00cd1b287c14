import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { type Effect, type Option, Schema, type Scope, type Stream } from "effect"
import type { McpCallContext, McpSession } from "./McpSession.js"

/** A provider could not list or run its tools (its store is unreadable, a downstream server failed). */
export class McpProviderError extends Schema.TaggedError<McpProviderError>()("McpProviderError", {
  /** The provider's {@link McpToolProvider.name}. */
  provider: Schema.String,
  /** The MCP method being answered, e.g. `tools/call`. */
  method: Schema.String,
  /** The tool name or resource URI concerned, if any. */
  target: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  get message() {
    return `${this.method}${this.target === null ? "" : ` ${this.target}`} failed in ${this.provider}: ${this.reason}`
  }
}

/** One `tools/call` request: the tool's name and its arguments (already an object). */
export interface McpToolCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * A source of MCP tools plugged into `tool-map mcp` (the inventory tools, the gateway). The
 * server (src/mcp/server/McpServer.ts) composes the providers of `McpProviders` in their order:
 *
 * - `tools/list` is the concatenation of every provider's {@link listTools} for the session,
 *   in provider order (a provider that wants "a load only appends" keeps its own order stable).
 *   Names must be unique across providers; the server drops a later duplicate and logs it.
 * - `tools/call` asks the providers in order; the first that answers `Option.some` owns the
 *   call. `Option.none` means "not mine". When no provider claims the name, the client gets
 *   JSON-RPC error -32602 (unknown tool). A {@link McpProviderError} becomes a result with
 *   `isError: true` and the error's message as its text (neutralized), so the model can react.
 *   A result is passed to the client unchanged: the provider neutralizes its own untrusted
 *   text and makes `structuredContent` match the tool's `outputSchema`.
 * - The call runs in its own fiber: the client's `notifications/cancelled` interrupts it (so a
 *   proxy cancels downstream in a finalizer), and so does the session's end.
 * - {@link attach} runs once per session right after `initialize`, in a scope that closes
 *   when the session ends (the client disconnects, stdin closes, the HTTP session is deleted,
 *   the server stops); per-session state and fibers belong in that scope.
 * - {@link listChanged} is subscribed once per session after `attach`: each element sends that
 *   session one `notifications/tools/list_changed` (the server advertises `listChanged: true`).
 *   A provider whose list never changes returns `Stream.empty`.
 *
 * Every method must not write to stdout (it carries the protocol on stdio); logs go through
 * Effect's logger, which the CLI sends to stderr.
 */
export interface McpToolProvider {
  /** A short name for logs and errors (`inventory`, `gateway`). */
  readonly name: string
  /** Sets up the provider's state for a session; undone when the scope closes. */
  readonly attach: (session: McpSession) => Effect.Effect<void, never, Scope.Scope>
  /** The tools this provider shows the session now (`inputSchema`, `outputSchema` as raw JSON Schema). */
  readonly listTools: (session: McpSession) => Effect.Effect<ReadonlyArray<Tool>, McpProviderError>
  /** Runs `call` if the tool is this provider's: `Option.none()` when it is not. */
  readonly callTool: (
    call: McpToolCall,
    context: McpCallContext
  ) => Effect.Effect<Option.Option<CallToolResult>, McpProviderError>
  /** One element each time this session's list changed. */
  readonly listChanged: (session: McpSession) => Stream.Stream<void>
}
