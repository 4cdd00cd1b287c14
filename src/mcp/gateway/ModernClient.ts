/**
 * The 2026-07-28 era of MCP from the gateway's downstream side, over the SDK v1's `Protocol`
 * (docs/mcp-eras.md says why not the SDK v2 client): the `server/discover` probe that tells a
 * server's era, and a client without `initialize` whose every request carries the `_meta`
 * envelope, whose tool-list changes come on a `subscriptions/listen` stream, and whose
 * `input_required` results are refused (the gateway answers no request for input).
 */
import { type AnySchema, safeParse, type SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js"
import { Protocol, type RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type Implementation,
  type JSONRPCMessage,
  type Notification,
  type Request,
  type Result,
  ResultSchema,
  type ServerCapabilities,
  ServerCapabilitiesSchema
} from "@modelcontextprotocol/sdk/types.js"
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isRecord,
  metaOf,
  MODERN_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY
} from "../server/modern/wire.js"
import { HttpStatusError, HttpTransport } from "./HttpTransport.js"

/** The `_meta` envelope every 2026-07-28 request of the gateway carries. */
export type Envelope = Readonly<Record<string, unknown>>

/** The gateway's envelope as a client: it offers no client capability (no sampling, roots or elicitation of its own). */
export const gatewayEnvelope = (client: Implementation): Envelope => ({
  [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
  [CLIENT_INFO_META_KEY]: client,
  [CLIENT_CAPABILITIES_META_KEY]: {}
})

/** What the probe found. */
export type ProbeOutcome =
  /** The server offers 2026-07-28: its capabilities as `server/discover` gave them. */
  | { readonly _tag: "Modern"; readonly capabilities: ServerCapabilities }
  /** It answered otherwise (an error, another version), or not within the probe's time: a 2025-era server. */
  | { readonly _tag: "Legacy" }
  /** The (stdio) connection closed before it answered: a server that exits on a request before `initialize`. */
  | { readonly _tag: "Closed" }

/** The probe's request id: no Protocol numbers its requests from it (they count from 0). */
const PROBE_ID = "tool-map-probe"

/**
 * Sends `server/discover` on `transport`, which no Protocol has yet, and waits `ms` at most for
 * its answer. The transport is left started (a second `start()` must do nothing: ChildTransport's
 * and HttpTransport's do) and without handlers, for the client of the era found. Over HTTP, an
 * error status is a 2025-era server's answer (it wants `initialize` first); a server that cannot
 * be reached fails the probe.
 */
export const probeEra = (transport: Transport, envelope: Envelope, ms: number): Promise<ProbeOutcome> =>
  new Promise((resolve, reject) => {
    let settled = false
    // Once, by whichever comes first: the transport is left without the probe's handlers.
    const finish = (end: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      transport.onmessage = undefined
      transport.onclose = undefined
      transport.onerror = undefined
      end()
    }
    const settle = (outcome: ProbeOutcome) => finish(() => resolve(outcome))
    const fail = (error: unknown) => finish(() => reject(error))
    const timer = setTimeout(() => settle({ _tag: "Legacy" }), ms)
    // A child that could not be spawned closes too: that is the start's failure, not an exit.
    let started = false
    transport.onclose = () => {
      if (started) settle({ _tag: "Closed" })
    }
    transport.onmessage = (message: JSONRPCMessage) => {
      if (!("id" in message) || message.id !== PROBE_ID || "method" in message) return
      if (!("result" in message)) return settle({ _tag: "Legacy" })
      const result: unknown = message.result
      const versions = isRecord(result) && Array.isArray(result["supportedVersions"]) ? result["supportedVersions"] : []
      if (!versions.includes(MODERN_PROTOCOL_VERSION)) return settle({ _tag: "Legacy" })
      const capabilities = ServerCapabilitiesSchema.safeParse(isRecord(result) ? result["capabilities"] : undefined)
      settle({ _tag: "Modern", capabilities: capabilities.success ? capabilities.data : {} })
    }
    transport.start().then(
      () => {
        started = true
        return transport.send({ jsonrpc: "2.0", id: PROBE_ID, method: "server/discover", params: { _meta: envelope } })
      },
      fail
    ).catch((error: unknown) => {
      if (error instanceof HttpStatusError) return settle({ _tag: "Legacy" })
      if (!(transport instanceof HttpTransport)) return settle({ _tag: "Closed" })
      fail(error)
    })
  })

/**
 * A 2026-07-28 server answered a request with a result the gateway does not take: its
 * `resultType` is `input_required` (it asks the client for input first) or one it does not know.
 */
export class ResultRefused extends Error {
  constructor(readonly method: string, readonly kind: string) {
    super(`${method} answered a result of kind ${kind}`)
  }
}

/** The longest wait a timer takes (about 24.8 days): a `subscriptions/listen` stream stays open. */
const FOREVER_MS = 2 ** 31 - 1

/**
 * A client of the 2026-07-28 era: no handshake (the probe told the server's capabilities), the
 * envelope on every request, `input_required` refused. It sends and answers no other requests of
 * its own (a server of this era sends the client none).
 */
export class ModernClient extends Protocol<Request, Notification, Result> {
  /** Called at the acknowledgement of the stream being opened (one is opened at a time). */
  private acknowledged: (() => void) | undefined

  constructor(private readonly envelope: Envelope) {
    super()
    this.fallbackNotificationHandler = async (notification) => {
      if (notification.method !== "notifications/subscriptions/acknowledged") return
      const acknowledged = this.acknowledged
      this.acknowledged = undefined
      acknowledged?.()
    }
  }

  protected assertCapabilityForMethod(): void {}
  protected assertNotificationCapability(): void {}
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}

  override async request<T extends AnySchema>(request: Request, resultSchema: T, options?: RequestOptions): Promise<SchemaOutput<T>> {
    const params = isRecord(request.params) ? request.params : {}
    const meta = metaOf(params) ?? {}
    const enveloped = { ...request, params: { ...params, _meta: { ...this.envelope, ...meta } } }
    // The result's own schema would take an `input_required` result for an empty one.
    const { resultType, ...result } = await super.request(enveloped, ResultSchema, options)
    if (resultType !== undefined && resultType !== "complete") throw new ResultRefused(request.method, String(resultType))
    // `complete` (or none) is the 2025 era's only kind of result: passed on without the key. As
    // the Protocol does with the schema it is given, the result is checked with it.
    const checked = safeParse(resultSchema, result)
    if (!checked.success) throw checked.error
    return checked.data
  }

  /**
   * Opens the stream of tool-list changes: the server acknowledges it and then sends each change
   * as `notifications/tools/list_changed` (the handler set for it); `onAcknowledged` is called at
   * the acknowledgement. Settles when the stream ends: the server's answer (a result or an error),
   * or the connection's close.
   */
  listenToolChanges(onAcknowledged?: () => void): Promise<unknown> {
    this.acknowledged = onAcknowledged
    return super.request(
      { method: "subscriptions/listen", params: { _meta: { ...this.envelope }, notifications: { toolsListChanged: true } } },
      ResultSchema,
      { timeout: FOREVER_MS }
    )
  }
}
