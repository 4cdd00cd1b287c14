/**
 * A Streamable HTTP downstream server on 127.0.0.1: server-everything in its streamableHttp
 * mode, run as a process of the test, fronted by the gateway.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { tempDir, textOf, withGateway } from "./harness.js"

const SCRIPT = path.resolve(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js")

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })

let dir: string
let remove: () => void
let server: ChildProcess | undefined
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-http-"))
})
afterEach(() => {
  server?.kill("SIGKILL")
  remove()
})

it("proxies to a Streamable HTTP server as it does to a stdio one", async () => {
  const port = await freePort()
  server = spawn(process.execPath, [SCRIPT, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] })
  await new Promise<void>((resolve) => server!.stderr!.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && resolve()))
  const servers = [{ _tag: "Http" as const, name: "remote", url: `http://127.0.0.1:${port}/mcp`, headers: { "x-test": "1" } }]
  await withGateway({ servers, dataDir: dir }, async ({ client }) => {
    expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } })).split("\n")[1]).toBe("  remote/  13 tools  0 loaded  ~1.1k tok")
    expect(await client.callTool({ name: "mcp__remote__echo", arguments: { message: "over http" } })).toEqual({
      content: [{ type: "text", text: "Echo: over http" }]
    })
  })
})
