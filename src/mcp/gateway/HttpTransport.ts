/**
 * A client `Transport` for a Streamable HTTP downstream server: each message is POSTed, the
 * answer read as JSON or as an SSE stream, and a GET stream (when the server offers one) brings
 * the server's own notifications, such as `notifications/tools/list_changed`. The SDK's
 * `StreamableHTTPClientTransport` pulls in its OAuth client, whose PKCE module holds a dynamic
 * `import()` the CLI's single-script bundle cannot run; the gateway needs none of OAuth.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { notJsonReason } from "../../inventory/domain/jsonText.js"
import { isRecord, metaOf, PROTOCOL_VERSION_META_KEY } from "../server/modern/wire.js"

/** The server answered a POST with an HTTP error status (a 2025-era server answers `server/discover` so). */
export class HttpStatusError extends Error {
  constructor(readonly status: number, statusText: string) {
    super(`HTTP ${status} ${statusText}`.trim())
  }
}

/**
 * The longest message read from a downstream server: a JSON answer or SSE event over HTTP, a line
 * over stdio. A tool list of many large schemas is one message; 16 MiB holds thousands of them.
 */
export const MAX_DOWNSTREAM_MESSAGE_BYTES = 16 * 1024 * 1024

/** A server's message passed the size cap: it was left unread, and the request it answers failed. */
export class MessageTooLargeError extends Error {
  constructor(readonly kind: "answer" | "event", readonly maxBytes: number) {
    super(`the server sent an ${kind} longer than ${maxBytes} bytes; it was left unread`)
  }
}

/** Of a request's params, the field its `Mcp-Name` header repeats (spec 2026-07-28, Streamable HTTP). */
const NAME_HEADER_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri"
}

/** A header value as the spec writes one: plain when it is printable ASCII without edge spaces, else `=?base64?…?=`. */
const headerValue = (value: string): string =>
  value !== "" && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="))
    ? value
    : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

/**
 * The headers of a 2026-07-28 message (one whose `_meta` names its protocol version): that
 * version, its method and, for a call or a read, the name or URI it is for. None for a 2025 one.
 */
const modernHeaders = (message: JSONRPCMessage): Record<string, string> => {
  if (!("method" in message) || !isRecord(message.params)) return {}
  const version = metaOf(message.params)?.[PROTOCOL_VERSION_META_KEY]
  if (typeof version !== "string") return {}
  const field = NAME_HEADER_SOURCE[message.method]
  const name = field === undefined ? undefined : message.params[field]
  return {
    "mcp-protocol-version": version,
    "mcp-method": message.method,
    ...(typeof name === "string" ? { "mcp-name": headerValue(name) } : {})
  }
}

/** The body of `response` as text, or undefined when it is longer than `max` bytes (then cancelled). */
const cappedText = async (response: Response, max: number): Promise<string | undefined> => {
  if (response.body === null) return ""
  const reader = response.body.getReader()
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    bytes += chunk.value.byteLength
    if (bytes > max) {
      await reader.cancel()
      return undefined
    }
    chunks.push(chunk.value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const decoded = (part: string): string => {
  try {
    return decodeURIComponent(part)
  } catch {
    // A `%` not followed by two hex digits: the text as written.
    return part
  }
}

/**
 * Where a server's requests go: its URL without userinfo (fetch refuses a URL with credentials,
 * and every error text would quote them), and its headers with that userinfo as
 * `Authorization: Basic`, unless they name an Authorization header of their own, which wins.
 * `raw` must parse as a URL.
 */
export const httpTarget = (
  raw: string,
  headers: Readonly<Record<string, string>>
): { readonly url: URL; readonly headers: Readonly<Record<string, string>> } => {
  const url = new URL(raw)
  if (url.username === "" && url.password === "") return { url, headers }
  const credentials = `${decoded(url.username)}:${decoded(url.password)}`
  url.username = ""
  url.password = ""
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return { url, headers }
  return { url, headers: { ...headers, authorization: `Basic ${Buffer.from(credentials, "utf8").toString("base64")}` } }
}

export class HttpTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined
  sessionId?: string | undefined

  /** The 2025-era version the handshake agreed on (the SDK client sets it). */
  protocolVersion: string | undefined
  private readonly aborts = new AbortController()
  private closed = false
  private listening = false
  /** The POSTs of requests not yet answered, by request id: a cancelled request's POST is aborted. */
  private readonly inflight = new Map<string | number, AbortController>()

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly maxMessageBytes: number = MAX_DOWNSTREAM_MESSAGE_BYTES
  ) {}

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.protocolVersion = version
  }

  private headersFor(accept: string): Record<string, string> {
    return {
      ...this.headers,
      accept,
      ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
      ...(this.protocolVersion === undefined ? {} : { "mcp-protocol-version": this.protocolVersion })
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error("Not connected")
    const id = "method" in message && "id" in message ? message.id : undefined
    // A cancelled request's POST is closed too: in 2026-07-28 that is how a server hears of it
    // (its `notifications/cancelled`, without an envelope, is a 2025-era message).
    if ("method" in message && message.method === "notifications/cancelled" && isRecord(message.params)) {
      const cancelled = message.params["requestId"]
      if (typeof cancelled === "string" || typeof cancelled === "number") this.inflight.get(cancelled)?.abort()
    }
    const own = new AbortController()
    if (id !== undefined) this.inflight.set(id, own)
    const done = () => {
      if (id !== undefined && this.inflight.get(id) === own) this.inflight.delete(id)
    }
    const response = await fetch(this.url, {
      method: "POST",
      headers: { ...this.headersFor("application/json, text/event-stream"), "content-type": "application/json", ...modernHeaders(message) },
      body: JSON.stringify(message),
      signal: AbortSignal.any([this.aborts.signal, own.signal]),
      redirect: "error"
    }).catch((error: unknown) => {
      done()
      throw error
    })
    const session = response.headers.get("mcp-session-id")
    if (session !== null) this.sessionId = session
    if (!response.ok) {
      done()
      await response.body?.cancel()
      throw new HttpStatusError(response.status, response.statusText)
    }
    const type = response.headers.get("content-type") ?? ""
    if (type.includes("text/event-stream")) {
      // A stream that ends before it answered its request fails that request (the 2026-07-28
      // `subscriptions/listen` ends so), instead of leaving it to its timeout.
      void this.readEvents(response, id).then((read) => {
        done()
        if (id !== undefined && read !== "answered" && !this.closed && !own.signal.aborted) this.streamEnded(id, read)
      })
    } else if (type.includes("application/json")) {
      const text = await cappedText(response, this.maxMessageBytes).finally(done)
      if (text === undefined) {
        const error = new MessageTooLargeError("answer", this.maxMessageBytes)
        this.onerror?.(error)
        if (id !== undefined) this.streamEnded(id, error)
        return
      }
      this.dispatchText(text)
    } else {
      done()
      await response.body?.cancel()
    }
    if ("method" in message && message.method === "notifications/initialized") void this.listen()
  }

  /** The server's own stream (GET); a server without one answers 405, which is fine. */
  private async listen(): Promise<void> {
    if (this.listening) return
    this.listening = true
    const response = await fetch(this.url, { method: "GET", headers: this.headersFor("text/event-stream"), signal: this.aborts.signal }).catch(
      () => undefined
    )
    if (response === undefined || !response.ok || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await response?.body?.cancel()
      return
    }
    await this.readEvents(response)
  }

  /** Fails the request `id`, whose answer will not come: its stream ended first, or its answer passed the cap. */
  private streamEnded(id: string | number, why: "ended" | MessageTooLargeError = "ended"): void {
    const message = why === "ended" ? "the server's HTTP stream ended before it answered" : why.message
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ErrorCode.ConnectionClosed, message } })
  }

  /**
   * Reads the SSE events of `response` until it ends, answers the request `id` (then it is
   * cancelled: a server may keep it open, holding a connection per call), or an event passes the
   * size cap (cancelled too). Each chunk is scanned once: the text of a line not yet ended is kept
   * as chunks, joined when its end comes, so an event of n bytes is read in time linear in n.
   */
  private async readEvents(response: Response, id?: string | number): Promise<"answered" | "ended" | MessageTooLargeError> {
    if (response.body === null) return "ended"
    const decoder = new TextDecoder()
    let partial: Array<string> = []
    let partialLength = 0
    let data: Array<string> = []
    let size = 0
    const reader = response.body.getReader()
    const stop = () => reader.cancel().catch(() => undefined)
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (chunk.done === true) return "ended"
      const text = decoder.decode(chunk.value, { stream: true })
      let from = 0
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", from)) {
        partial.push(text.slice(from, end))
        const line = partial.join("").replace(/\r$/, "")
        partial = []
        partialLength = 0
        from = end + 1
        if (line === "") {
          const answered = data.length > 0 && this.dispatchText(data.join("\n"), id)
          data = []
          size = 0
          if (answered) {
            await stop()
            return "answered"
          }
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""))
          size += line.length
        }
      }
      if (from < text.length) {
        partial.push(text.slice(from))
        partialLength += text.length - from
      }
      if (size + partialLength > this.maxMessageBytes) {
        await stop()
        const error = new MessageTooLargeError("event", this.maxMessageBytes)
        this.onerror?.(error)
        return error
      }
    }
  }

  /** Dispatches the message(s) of `text`; true when one answers the request `id`. */
  private dispatchText(text: string, id?: string | number): boolean {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      // The server's text is not quoted: it can hold anything, secrets included.
      this.onerror?.(new Error(`not a JSON-RPC message: ${notJsonReason(error, text)}`))
      return false
    }
    let answers = false
    for (const item of Array.isArray(json) ? json : [json]) answers = this.dispatch(item, id) || answers
    return answers
  }

  private dispatch(json: unknown, id?: string | number): boolean {
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      this.onerror?.(new Error("not a JSON-RPC message"))
      return false
    }
    this.onmessage?.(parsed.data)
    return id !== undefined && !("method" in parsed.data) && "id" in parsed.data && parsed.data.id === id
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.aborts.abort()
    if (this.sessionId !== undefined) {
      // Ends the session on the server; a server that keeps none answers 405.
      await fetch(this.url, { method: "DELETE", headers: this.headersFor("application/json") }).then(
        (response) => response.body?.cancel(),
        () => undefined
      )
    }
    this.onclose?.()
  }
}
