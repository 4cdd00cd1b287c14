import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, expect, it } from "vitest"
import { HttpTransport, MAX_DOWNSTREAM_MESSAGE_BYTES, MessageTooLargeError } from "../../../src/mcp/gateway/HttpTransport.js"

let server: http.Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** Serves `answer` for each POST; resolves to its URL. */
const serve = async (answer: (id: number, response: http.ServerResponse) => void) => {
  server = http.createServer((request, response) => {
    const body: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => body.push(chunk))
    request.on("end", () => answer((JSON.parse(Buffer.concat(body).toString("utf8")) as { id: number }).id, response))
  })
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
}

/** Writes an SSE event of one `data:` line answering `id` with a text of `bytes` bytes, in chunks of 64 KiB. */
const writeLargeEvent = (id: number, bytes: number, response: http.ServerResponse) => {
  response.writeHead(200, { "content-type": "text/event-stream" })
  const event = Buffer.from(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { text: "x".repeat(bytes) } })}\n\n`)
  let at = 0
  const more = () => {
    while (at < event.length) {
      const chunk = event.subarray(at, at + 65536)
      at += chunk.length
      if (!response.write(chunk)) return void response.once("drain", more)
    }
    response.end()
  }
  response.on("error", () => undefined)
  more()
}

const eventually = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10))
  return check()
}

const call = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: {} } })

it("reads an SSE event of 40 MB in time linear in its size (each chunk scanned once)", async () => {
  const url = await serve((id, response) => writeLargeEvent(id, 40_000_000, response))
  const transport = new HttpTransport(url, {}, 64 * 1024 * 1024)
  const got = new Promise<JSONRPCMessage>((resolve) => {
    transport.onmessage = resolve
  })
  const started = Date.now()
  await transport.send(call(1))
  const answer = await got
  const ms = Date.now() - started
  await transport.close()
  expect("result" in answer && (answer.result as { text: string }).text.length).toBe(40_000_000)
  // Rescanning the whole buffer at each 64 KiB chunk took 39 s at this size (2026-12-07); the linear read takes ~1.4 s.
  expect(ms).toBeLessThan(5000)
})

it("refuses an SSE event over the cap (16 MiB) with a MessageTooLargeError, and fails its request naming the cap", async () => {
  const url = await serve((id, response) => writeLargeEvent(id, 20_000_000, response))
  const transport = new HttpTransport(url, {})
  const errors: Array<Error> = []
  transport.onerror = (error) => errors.push(error)
  const got = new Promise<JSONRPCMessage>((resolve) => {
    transport.onmessage = resolve
  })
  await transport.send(call(7))
  const answer = await got
  await transport.close()
  expect(MAX_DOWNSTREAM_MESSAGE_BYTES).toBe(16 * 1024 * 1024)
  expect(errors.map((error) => [error instanceof MessageTooLargeError, error.message])).toEqual([
    [true, "the server sent an event longer than 16777216 bytes; it was left unread"]
  ])
  expect(answer).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32000, message: "the server sent an event longer than 16777216 bytes; it was left unread" } })
})

it("closes a POST's SSE stream once it answered its request: a server that keeps each one open holds no connection after 10 calls", async () => {
  let open = 0
  let sockets = 0
  const url = await serve((id, response) => {
    open += 1
    response.on("close", () => {
      open -= 1
    })
    response.writeHead(200, { "content-type": "text/event-stream" })
    response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } })}\n\n`)
    // The stream is never ended.
  })
  server!.on("connection", (socket) => {
    sockets += 1
    socket.on("close", () => {
      sockets -= 1
    })
  })
  const transport = new HttpTransport(url, {})
  const answers: Array<JSONRPCMessage> = []
  transport.onmessage = (message) => answers.push(message)
  for (let id = 1; id <= 10; id += 1) await transport.send(call(id))
  const answered = await eventually(() => answers.length === 10, 3000)
  // Every stream the server held is closed at once; a socket left idle in fetch's keep-alive pool closes after its idle timeout (4 s).
  const streamsClosed = await eventually(() => open === 0, 1000)
  const socketsClosed = await eventually(() => sockets === 0, 6000)
  const seen = { answered, streamsClosed, socketsClosed, ids: answers.map((answer) => "id" in answer && answer.id) }
  await transport.close()
  expect(seen).toEqual({ answered: true, streamsClosed: true, socketsClosed: true, ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })
})
