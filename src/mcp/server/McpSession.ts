import type {
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitResult,
  Implementation,
  ProgressToken
} from "@modelcontextprotocol/sdk/types.js"
import { type Effect, FiberRef, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { cleanText } from "../../inventory/domain/untrusted.js"

/** The longest agent id kept, in UTF-16 code units (see {@link agentNameOf}). */
export const AGENT_ID_MAX = 128

/** How much of a long agent id is cleaned (the rest is only hashed): a 1 MB id costs no 1 MB scan for secrets. */
const AGENT_ID_CLEANED = 4096

/**
 * An agent id or client name a client gave (`_meta` `dev.tool-map/agent`, `clientInfo.name` of
 * either era), as tool-map keys an agent's state by it and shows it: through the one rule
 * (`cleanText`: secrets redacted, controls and invisible characters as U+FFFD), blanks and line
 * breaks at either end dropped; none when nothing is left but blanks and U+FFFD (an empty or
 * control-only name names no one). When cleaning changed the name, or it is over
 * {@link AGENT_ID_MAX}, the cleaned name (cut to its first 119 code units, a surrogate pair kept
 * whole) gets `…` and 8 hex digits of the SHA-256 of the name as given, so two names that clean
 * alike (`ghp_…` tokens both `[redacted]`) or share a long start still name two agents, and
 * neither is shown raw (only a long name's first 4096 code units are cleaned: the rest is never
 * shown). Idempotent: a name it gave comes back unchanged.
 */
export const agentNameOf = (raw: string): Option.Option<string> => {
  const given = raw.trim()
  const clean = cleanText(given.length > AGENT_ID_CLEANED ? given.slice(0, AGENT_ID_CLEANED) : given).trim()
  if (!/[^\s\uFFFD]/.test(clean)) return Option.none()
  if (clean === given && clean.length <= AGENT_ID_MAX) return Option.some(clean)
  const digest = createHash("sha256").update(given).digest("hex").slice(0, 8)
  const cut = clean.length <= 119 ? clean.length : /[\ud800-\udbff]/.test(clean.charAt(118)) ? 118 : 119
  return Option.some(`${clean.slice(0, cut).trimEnd()}\u2026${digest}`)
}

/** A request tool-map's server sent to the client (elicitation) failed, was refused or timed out. */
export class McpClientRequestFailed extends Schema.TaggedError<McpClientRequestFailed>()("McpClientRequestFailed", {
  /** The JSON-RPC method sent, e.g. `elicitation/create`. */
  method: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The MCP client did not answer ${this.method}: ${this.reason}`
  }
}

/**
 * One client connection of the MCP server, from its `initialize` on: the stdio connection,
 * or one Streamable HTTP session. A provider keys per-client state (the gateway's agent
 * state) by {@link McpSession.id}; it is dropped when the session's scope closes (see
 * `McpToolProvider.attach`).
 */
export interface McpSession {
  /**
   * Unique within this server process: `stdio`, or the Streamable HTTP session id; for a
   * 2026-07-28 client (no session), `modern/` and the agent's key (see src/mcp/server/modern).
   */
  readonly id: string
  /** The agent id the client named itself (2026-07-28: `_meta` `dev.tool-map/agent`), untrusted. */
  readonly agent?: string | undefined
  /** `clientInfo` of the client's `initialize` (untrusted: neutralize before printing it). */
  readonly client: Option.Option<Implementation>
  /** The capabilities the client declared in `initialize`. */
  readonly capabilities: Option.Option<ClientCapabilities>
  /**
   * Asks the user through the client (`elicitation/create`, form mode). Fails with
   * {@link McpClientRequestFailed} when the client declared no `elicitation` capability, or
   * the request fails or times out. Interrupting the effect cancels the request.
   */
  readonly elicit: (params: ElicitRequestFormParams) => Effect.Effect<ElicitResult, McpClientRequestFailed>
}

/**
 * The session of the 2026-07-28 request being answered, in the fiber answering it (none for a
 * 2025 session): its capabilities and its `elicit` are that request's, which the risk gate asks
 * instead of the agent's other sessions (the request's `input_required` answer asks its user).
 */
export const CurrentRequestSession: FiberRef.FiberRef<Option.Option<McpSession>> = FiberRef.unsafeMake(Option.none<McpSession>())

/** What a `tools/call` comes with besides its name and arguments. */
export interface McpCallContext {
  readonly session: McpSession
  /** The caller's `_meta.progressToken`, if it asked for progress. */
  readonly progressToken: Option.Option<ProgressToken>
  /**
   * Sends `notifications/progress` for this call to the client (nothing when it gave no
   * progress token). A proxy forwards a downstream server's progress through it.
   */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
}
