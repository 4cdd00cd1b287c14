/**
 * A client `Transport` for a Streamable HTTP downstream server: each message is POSTed, the
 * answer read as JSON or as an SSE stream, and a GET stream (when the server offers one) brings
 * the server's own notifications, such as `notifications/tools/list_changed`. The SDK's
 * `StreamableHTTPClientTransport` pulls in its OAuth client, whose PKCE module holds a dynamic
 * `import()` the CLI's single-script bundle cannot run; the gateway needs none of OAuth.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { notJsonReason } from "../../inventory/domain/jsonText.js"

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

  constructor(private readonly url: URL, private readonly headers: Readonly<Record<string, string>>) {}

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
    const response = await fetch(this.url, {
      method: "POST",
      headers: { ...this.headersFor("application/json, text/event-stream"), "content-type": "application/json" },
      body: JSON.stringify(message),
      signal: this.aborts.signal,
      redirect: "error"
    })
    const session = response.headers.get("mcp-session-id")
    if (session !== null) this.sessionId = session
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`HTTP ${response.status} ${response.statusText}`.trim())
    }
    const type = response.headers.get("content-type") ?? ""
    if (type.includes("text/event-stream")) {
      void this.readEvents(response)
    } else if (type.includes("application/json")) {
      const body: unknown = await response.json()
      for (const item of Array.isArray(body) ? body : [body]) this.dispatch(item)
    } else {
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

  private async readEvents(response: Response): Promise<void> {
    if (response.body === null) return
    const decoder = new TextDecoder()
    let buffer = ""
    let data: Array<string> = []
    const reader = response.body.getReader()
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (chunk.done === true) return
      buffer += decoder.decode(chunk.value, { stream: true })
      let end = buffer.indexOf("\n")
      while (end >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "")
        buffer = buffer.slice(end + 1)
        if (line === "") {
          if (data.length > 0) this.dispatchText(data.join("\n"))
          data = []
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""))
        }
        end = buffer.indexOf("\n")
      }
    }
  }

  private dispatchText(text: string): void {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      // The server's text is not quoted: it can hold anything, secrets included.
      this.onerror?.(new Error(`not a JSON-RPC message: ${notJsonReason(error, text)}`))
      return
    }
    this.dispatch(json)
  }

  private dispatch(json: unknown): void {
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (parsed.success) this.onmessage?.(parsed.data)
    else this.onerror?.(new Error("not a JSON-RPC message"))
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
