/**
 * The 2026-07-28 era of MCP on the wire, as tool-map's server reads and writes it (the SDK v2's
 * `@modelcontextprotocol/core` names the same keys): no `initialize` and no session; every request
 * carries its `_meta` envelope (protocol version, client, capabilities); `server/discover` describes
 * the server; `subscriptions/listen` opens a stream of the notifications a client opted in to; a
 * request that needs the user answers `input_required` and is retried with the answers.
 * A 2025-era message (`initialize` and everything after it) is not this module's.
 */
import {
  ClientCapabilitiesSchema,
  type ClientCapabilities,
  ElicitResultSchema,
  type ElicitResult,
  type Implementation,
  ImplementationSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ProgressToken
} from "@modelcontextprotocol/sdk/types.js"
import { Either, Option } from "effect"
import { cleanText } from "../../../inventory/domain/untrusted.js"
import { agentNameOf } from "../McpSession.js"

/** The revision served without `initialize`. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28"

/** `_meta` keys of the envelope (spec 2026-07-28). */
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
export const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
const SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"

/**
 * tool-map's own `_meta` key: the agent whose state (the gateway's loaded tools) a request uses.
 * With no session, this is how two clients of one endpoint keep apart, or one client keeps its
 * state across processes (see docs/mcp-eras.md, "The server").
 */
const AGENT_META_KEY = "dev.tool-map/agent"

/** JSON-RPC error of a request naming a protocol version this server does not speak (the SDK's `-32022`). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022

/** Methods that exist only in the 2026-07-28 era. */
const MODERN_METHODS: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen"])

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The `_meta` object of a message's params, when there is one. */
export const metaOf = (params: unknown): Readonly<Record<string, unknown>> | undefined =>
  isRecord(params) && isRecord(params["_meta"]) ? params["_meta"] : undefined

/** The progress token a request's `_meta` gives (a string or a number), when it gives one. */
export const progressTokenOf = (params: unknown): Option.Option<ProgressToken> => {
  const token = metaOf(params)?.["progressToken"]
  return typeof token === "string" || typeof token === "number" ? Option.some(token) : Option.none()
}

/**
 * Whether `message` is a 2026-07-28 request: its `_meta` names a protocol version (a 2025-era
 * client never sends one there), or its method exists only in that era. Anything else (the
 * `initialize` handshake, even one whose `_meta` names a version, a 2025 session's requests,
 * answers and notifications) is the 2025 era's.
 */
export const isModernRequest = (message: JSONRPCMessage): message is JSONRPCRequest =>
  "method" in message && "id" in message && message.method !== "initialize" &&
  (MODERN_METHODS.has(message.method) || metaOf(message.params)?.[PROTOCOL_VERSION_META_KEY] !== undefined)

/** What a request tells about its client. */
export interface Envelope {
  readonly client: Option.Option<Implementation>
  readonly capabilities: Option.Option<ClientCapabilities>
  /** {@link AGENT_META_KEY}, when given: a string that names someone, bounded and cleaned (`agentNameOf`). */
  readonly agent: Option.Option<string>
}

/** A request refused for its envelope: the JSON-RPC error to answer. */
export interface EnvelopeRefusal {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** The longest requested version echoed in a refusal, in UTF-16 code units (the rest is cut). */
const VERSION_ECHO_MAX = 64

/**
 * The refusal of a message naming `version` (anything but {@link MODERN_PROTOCOL_VERSION}): only a
 * string is echoed, its first {@link VERSION_ECHO_MAX} code units (cleaned in the message);
 * anything else (absent, a number, a deeply nested value) as `null`, never serialized.
 */
export const unsupportedVersion = (version: unknown): EnvelopeRefusal => {
  const requested = typeof version === "string" ? version.slice(0, VERSION_ECHO_MAX) : null
  return {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version: ${requested === null ? "null" : cleanText(requested)}`,
    data: { supported: [MODERN_PROTOCOL_VERSION], requested }
  }
}

/**
 * The protocol version a notification posted without a session claims: its `_meta` envelope's,
 * else the `MCP-Protocol-Version` header's when that names {@link MODERN_PROTOCOL_VERSION}; none
 * for a 2025-era notification (and for anything that is not a notification).
 */
export const notificationVersionOf = (message: JSONRPCMessage, versionHeader: string | undefined): Option.Option<unknown> => {
  if (!("method" in message) || "id" in message) return Option.none()
  const claimed = metaOf(message.params)?.[PROTOCOL_VERSION_META_KEY]
  if (claimed !== undefined) return Option.some(claimed)
  return versionHeader?.trim() === MODERN_PROTOCOL_VERSION ? Option.some(MODERN_PROTOCOL_VERSION) : Option.none()
}

/**
 * The envelope of `request`, or why it is refused: a protocol version other than
 * {@link MODERN_PROTOCOL_VERSION} (absent only on `server/discover`). A client or capabilities
 * object that does not decode counts as absent (they are the client's own say, never trusted).
 */
export const envelopeOf = (request: JSONRPCRequest): Either.Either<Envelope, EnvelopeRefusal> => {
  const meta = metaOf(request.params) ?? {}
  const version = meta[PROTOCOL_VERSION_META_KEY]
  if (version !== MODERN_PROTOCOL_VERSION && !(version === undefined && request.method === "server/discover")) {
    return Either.left(unsupportedVersion(version))
  }
  const client = ImplementationSchema.safeParse(meta[CLIENT_INFO_META_KEY])
  const capabilities = ClientCapabilitiesSchema.safeParse(meta[CLIENT_CAPABILITIES_META_KEY])
  const agent = meta[AGENT_META_KEY]
  return Either.right({
    client: client.success ? Option.some(client.data) : Option.none(),
    capabilities: capabilities.success ? Option.some(capabilities.data) : Option.none(),
    agent: typeof agent === "string" ? agentNameOf(agent) : Option.none()
  })
}

/** The answers a retried request carries: its `inputResponses`, each an elicitation's result (others are dropped). */
export const inputResponsesOf = (params: unknown): ReadonlyMap<string, ElicitResult> => {
  const answers = new Map<string, ElicitResult>()
  const responses = isRecord(params) ? params["inputResponses"] : undefined
  if (!isRecord(responses)) return answers
  for (const [key, value] of Object.entries(responses)) {
    const result = ElicitResultSchema.safeParse(value)
    if (result.success) answers.set(key, result.data)
  }
  return answers
}

/** `requestState` of a retried request (echoed byte for byte by the client), if any. */
export const requestStateOf = (params: unknown): Option.Option<string> =>
  isRecord(params) && typeof params["requestState"] === "string" ? Option.some(params["requestState"]) : Option.none()

/** The notification types a `subscriptions/listen` opts in to, as far as tool-map sends them. */
export interface ListenFilter {
  readonly toolsListChanged: boolean
  readonly resourcesListChanged: boolean
  readonly resourceSubscriptions: ReadonlyArray<string>
}

/** The filter of a `subscriptions/listen` request (prompts are not served: never acknowledged). */
export const listenFilterOf = (params: unknown): ListenFilter => {
  const filter = isRecord(params) && isRecord(params["notifications"]) ? params["notifications"] : {}
  const uris = filter["resourceSubscriptions"]
  return {
    toolsListChanged: filter["toolsListChanged"] === true,
    resourcesListChanged: filter["resourcesListChanged"] === true,
    resourceSubscriptions: Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === "string") : []
  }
}

/** The filter as acknowledged: only what the client asked for and tool-map sends. */
export const acknowledgedFilter = (filter: ListenFilter): Record<string, unknown> => ({
  ...(filter.toolsListChanged ? { toolsListChanged: true } : {}),
  ...(filter.resourcesListChanged ? { resourcesListChanged: true } : {}),
  ...(filter.resourceSubscriptions.length > 0 ? { resourceSubscriptions: filter.resourceSubscriptions } : {})
})

/** Results a client may cache: the spec requires their cache fields (tool-map's lists change, so none is cached). */
const CACHEABLE: ReadonlySet<string> = new Set(["server/discover", "tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list"])

/** A final result of `method` as 2026-07-28 writes it: `resultType`, cache fields where required, the server's `_meta`. */
export const completeResult = (method: string, result: Readonly<Record<string, unknown>>, server: Implementation): Record<string, unknown> => ({
  ...result,
  resultType: "complete",
  ...(CACHEABLE.has(method) ? { ttlMs: 0, cacheScope: "private" } : {}),
  _meta: { ...(isRecord(result["_meta"]) ? result["_meta"] : {}), [SERVER_INFO_META_KEY]: server }
})

/** A notification of the `subscriptions/listen` request `subscription`. */
export const listenNotification = (subscription: string | number, method: string, params: Readonly<Record<string, unknown>> = {}): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method,
  params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscription } }
})
