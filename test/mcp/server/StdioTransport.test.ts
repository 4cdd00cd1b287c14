import { describe, expect, it } from "vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { PassThrough } from "node:stream"
import { MAX_MESSAGE_BYTES, MAX_REQUESTS_HANDED_OVER, StdioLineTransport } from "../../../src/mcp/server/StdioTransport.js"

const call = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x", arguments: {} } })}\n`

/** Resolves once the stream has had its chance to emit what was written. */
const flushed = () => new Promise((resolve) => setImmediate(resolve))

describe("StdioLineTransport", () => {
  it("hands over at most 64 tool calls before their answers, the rest in order as answers go out; a held call that is cancelled is dropped", async () => {
    expect(MAX_REQUESTS_HANDED_OVER).toBe(64)
    const input = new PassThrough()
    const output = new PassThrough()
    const transport = new StdioLineTransport(input, output, () => {}, MAX_MESSAGE_BYTES, 2)
    const received: Array<string> = []
    transport.onmessage = (message: JSONRPCMessage) => {
      received.push("id" in message ? `${"method" in message ? message.method : "answer"} ${String(message.id)}` : `${"method" in message ? message.method : "?"}`)
    }
    await transport.start()
    input.write([1, 2, 3, 4, 5].map(call).join("") + `${JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" })}\n`)
    await flushed()
    // Other requests are handed over at once.
    expect(received).toEqual(["tools/call 1", "tools/call 2", "tools/list 9"])
    await transport.send({ jsonrpc: "2.0", id: 1, result: { content: [] } })
    expect(received.slice(3)).toEqual(["tools/call 3"])
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } })}\n`)
    await flushed()
    expect(received.slice(4)).toEqual(["notifications/cancelled"])
    // An answer to another request (tools/list) frees no turn; a cancelled call handed over does.
    await transport.send({ jsonrpc: "2.0", id: 9, result: { tools: [] } })
    expect(received.length).toBe(5)
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })}\n`)
    await flushed()
    expect(received.slice(5)).toEqual(["tools/call 5", "notifications/cancelled"])
    await transport.close()
  })
})
