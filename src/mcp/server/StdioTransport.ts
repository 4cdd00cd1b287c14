import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { cleanText } from "../../inventory/domain/untrusted.js"

/** The longest message (one line of stdin, newline excluded) the stdio server reads: the SDK's own limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/**
 * How many `tools/call` and `resources/read` requests are handed to the server before their
 * answers: later ones wait here as parsed messages. A request handed over costs tens of KiB until
 * it is answered (the SDK's state of it, a fiber's); 6,000 pipelined calls held 200 MiB that way.
 */
export const MAX_REQUESTS_HANDED_OVER = 64

/** The requests that wait their turn past {@link MAX_REQUESTS_HANDED_OVER}; any other message is handed over at once. */
const HELD_METHODS: ReadonlySet<string> = new Set(["tools/call", "resources/read"])

type RequestId = string | number

/** How much of the start and of the end of a line over the limit is kept, to find the request's id in. */
const KEPT_BYTES = 1024

const SCALAR = String.raw`"(?:[^"\\]|\\.)*"|-?\d+`
/** One leading member `"id": 7,` of the message's object, read from the start of its line. */
const LEADING_MEMBER = new RegExp(String.raw`\s*"(jsonrpc|id|method)"\s*:\s*(${SCALAR})\s*,`, "y")
/** The members `, "jsonrpc": "2.0", "id": 7` that end the message's object (the SDK's client writes `id` last). */
const TRAILING_MEMBERS = new RegExp(String.raw`((?:,\s*"(?:jsonrpc|id|method)"\s*:\s*(?:${SCALAR})\s*)+)\}\s*$`)
const MEMBER = new RegExp(String.raw`"(jsonrpc|id|method)"\s*:\s*(${SCALAR})`, "g")

/**
 * The `id` of the request a line over the limit holds, from its first and last bytes: found only
 * among the object's own leading or trailing scalar members, and only with a `method` beside it
 * (an id without one may be the client's answer to a request of ours, whose ids are another count).
 */
export const requestIdOf = (head: string, tail: string): string | number | null => {
  const members = new Map<string, string | number>()
  const opening = /^\s*\{/.exec(head)
  if (opening !== null) {
    LEADING_MEMBER.lastIndex = opening[0].length
    for (let match = LEADING_MEMBER.exec(head); match !== null; match = LEADING_MEMBER.exec(head)) {
      members.set(match[1]!, JSON.parse(match[2]!) as string | number)
    }
  }
  const trailing = TRAILING_MEMBERS.exec(tail)
  if (trailing !== null) {
    for (const match of trailing[1]!.matchAll(MEMBER)) members.set(match[1]!, JSON.parse(match[2]!) as string | number)
  }
  const id = members.get("id")
  return typeof members.get("method") === "string" && id !== undefined ? id : null
}

/** A line over the limit, as it streams past: its size and the bytes kept of its two ends. */
interface Oversized {
  bytes: number
  readonly head: Buffer
  tail: Buffer
}

/**
 * The stdio server's transport: one JSON-RPC message a line on `input`, answers on `output`.
 * Unlike the SDK's StdioServerTransport, which closes the connection (the server then exits 0,
 * silently) when its buffer passes 10 MiB, a line over {@link MAX_MESSAGE_BYTES} is skipped as it
 * streams past (never buffered) and answered with an error when its request id can be found in
 * its ends; a line that is not JSON-RPC is skipped. Both are reported (`report`, one line each).
 * Past {@link MAX_REQUESTS_HANDED_OVER} unanswered tool calls and resource reads, later ones are
 * held here until answers go out (every other message, answers to the server's own requests and
 * cancellations included, is handed over at once: nothing the running calls wait for is held).
 * A send to an output nobody reads resolves at once: the server never waits on it.
 */
export class StdioLineTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private parts: Array<Buffer> = []
  private size = 0
  private oversized: Oversized | null = null
  private closed = false
  /** The ids of the held methods' requests handed over and not answered yet. */
  private readonly handedOver = new Set<RequestId>()
  private held: Array<JSONRPCMessage & { readonly id: RequestId }> = []

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly report: (line: string) => void,
    private readonly maxMessageBytes: number = MAX_MESSAGE_BYTES,
    private readonly maxHandedOver: number = MAX_REQUESTS_HANDED_OVER
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    let start = 0
    for (;;) {
      const newline = bytes.indexOf(10, start)
      this.take(bytes.subarray(start, newline === -1 ? bytes.length : newline))
      if (newline === -1) return
      this.endLine()
      if (this.closed) return
      start = newline + 1
    }
  }

  private readonly onEnd = () => {
    void this.close()
  }

  private readonly onError = (error: Error) => {
    this.onerror?.(error)
  }

  private take(piece: Buffer) {
    if (piece.length === 0) return
    if (this.oversized !== null) {
      this.oversized.bytes += piece.length
      this.oversized.tail = lastBytes(Buffer.concat([this.oversized.tail, lastBytes(piece, KEPT_BYTES)]), KEPT_BYTES)
      return
    }
    if (this.size + piece.length > this.maxMessageBytes) {
      const whole = Buffer.concat([...this.parts, piece])
      this.oversized = { bytes: whole.length, head: Buffer.from(whole.subarray(0, KEPT_BYTES)), tail: Buffer.from(lastBytes(whole, KEPT_BYTES)) }
      this.parts = []
      this.size = 0
      return
    }
    this.parts.push(piece)
    this.size += piece.length
  }

  private endLine() {
    const oversized = this.oversized
    if (oversized !== null) {
      this.oversized = null
      return this.refuseOversized(oversized)
    }
    const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "")
    this.parts = []
    this.size = 0
    if (line.trim() === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      return this.report(`tool-map mcp: skipped a line of stdin that is not JSON (${Buffer.byteLength(line)} bytes)`)
    }
    const message = JSONRPCMessageSchema.safeParse(parsed)
    if (!message.success) return this.report("tool-map mcp: skipped a line of stdin that is not a JSON-RPC message")
    this.receive(message.data)
  }

  /** Hands `message` to the server, or holds a request of a held method while too many are out. */
  private receive(message: JSONRPCMessage) {
    if ("method" in message && "id" in message && HELD_METHODS.has(message.method)) {
      if (this.handedOver.size >= this.maxHandedOver) {
        this.held.push(message)
        return
      }
      this.handedOver.add(message.id)
    } else if ("method" in message && !("id" in message) && message.method === "notifications/cancelled") {
      // A held request that is cancelled is dropped; one handed over gets no answer (the SDK sends none).
      const cancelled: unknown = message.params?.["requestId"]
      if (typeof cancelled === "string" || typeof cancelled === "number") {
        this.held = this.held.filter((request) => request.id !== cancelled)
        this.answered(cancelled)
      }
    }
    this.onmessage?.(message)
  }

  /** The request `id` needs no more answer: the next held one is handed over. */
  private answered(id: RequestId) {
    if (!this.handedOver.delete(id)) return
    while (!this.closed && this.handedOver.size < this.maxHandedOver && this.held.length > 0) {
      const next = this.held.shift()!
      this.handedOver.add(next.id)
      this.onmessage?.(next)
    }
  }

  private refuseOversized(line: Oversized) {
    const id = requestIdOf(line.head.toString("utf8"), line.tail.toString("utf8"))
    const limit = `${this.maxMessageBytes / (1024 * 1024)} MiB`
    if (id === null) {
      return this.report(`tool-map mcp: skipped a message of ${line.bytes} bytes on stdin, over the ${limit} limit (no request id found in it to answer)`)
    }
    this.report(`tool-map mcp: refused request ${cleanText(JSON.stringify(id))}: its message of ${line.bytes} bytes is over the ${limit} limit`)
    void this.send({
      jsonrpc: "2.0",
      id,
      error: { code: ErrorCode.InvalidRequest, message: `The request is ${line.bytes} bytes long; tool-map mcp reads messages of at most ${limit}` }
    })
  }

  start(): Promise<void> {
    this.input.on("data", this.onData)
    this.input.on("end", this.onEnd)
    this.input.on("error", this.onError)
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.output.write(`${JSON.stringify(message)}\n`)
    if (("result" in message || "error" in message) && "id" in message && message.id !== undefined) this.answered(message.id)
    return Promise.resolve()
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    this.input.off("data", this.onData)
    this.input.off("end", this.onEnd)
    this.input.off("error", this.onError)
    this.input.pause()
    this.parts = []
    this.oversized = null
    this.held = []
    this.handedOver.clear()
    this.onclose?.()
    return Promise.resolve()
  }
}

const lastBytes = (bytes: Buffer, count: number): Buffer => (bytes.length <= count ? bytes : bytes.subarray(bytes.length - count))
