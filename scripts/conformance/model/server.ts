/**
 * The scripted model server: HTTP on 127.0.0.1, every `model/protocol-*.ts` adapter loaded, each
 * request decoded, answered by the script and appended to a JSONL log (one {@link LoggedRequest}
 * a line, written as it happens so a host killed mid-session still leaves its requests behind).
 * A request no adapter matches gets 404 and is logged with its path, so a host that asks for
 * something unexpected (a models list, a token count) shows up in the log.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { LoggedRequest, ProtocolAdapter, Script } from "./script.js"

/** The port every session's model server listens on: each session has its own network namespace, so it is always free. */
export const MODEL_PORT = 38_517

const BODY_MAX_BYTES = 64 * 1024 * 1024

/** Every adapter of this folder, in file-name order. */
export const loadAdapters = async (): Promise<ReadonlyArray<ProtocolAdapter>> => {
  const dir = import.meta.dirname
  const files = fs.readdirSync(dir).filter((file) => /^protocol-[a-z0-9-]+\.ts$/.test(file)).sort()
  const modules = await Promise.all(files.map((file) => import(pathToFileURL(path.join(dir, file)).href) as Promise<{ adapter: ProtocolAdapter }>))
  return modules.map((module) => module.adapter)
}

const readBody = (request: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > BODY_MAX_BYTES) request.destroy(new Error("request body over 64 MiB"))
      else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** Starts the server; resolves once it listens. `close` stops it. */
export const startModelServer = async (options: {
  readonly script: Script
  readonly logFile: string
  readonly port?: number
}): Promise<{ readonly port: number; readonly close: () => Promise<void> }> => {
  const adapters = await loadAdapters()
  const log = (entry: LoggedRequest | { readonly at: number; readonly path: string; readonly unmatched: string }) =>
    fs.appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`)
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    readBody(request).then(
      (text) => {
        const adapter = adapters.find((candidate) => candidate.matches(request.method ?? "GET", url.pathname))
        if (adapter === undefined) {
          log({ at: Date.now(), path: `${request.method} ${url.pathname}${url.search}`, unmatched: text.slice(0, 4096) })
          response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no scripted answer for ${url.pathname}` } }))
          return
        }
        const body: unknown = text === "" ? {} : JSON.parse(text)
        const decoded = adapter.decode(url.pathname, body)
        const reply = options.script(decoded)
        log({ at: Date.now(), path: url.pathname, request: decoded, reply })
        adapter.respond(decoded, reply, response)
      }
    ).catch((error: unknown) => {
      const message = error instanceof Error ? error.stack ?? error.message : String(error)
      log({ at: Date.now(), path: url.pathname, unmatched: `server error: ${message}` })
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message } }))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? MODEL_PORT, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : (options.port ?? MODEL_PORT)
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** The log a session left: every line parsed. */
export const readModelLog = (logFile: string): ReadonlyArray<LoggedRequest | { readonly at: number; readonly path: string; readonly unmatched: string }> =>
  fs.existsSync(logFile)
    ? fs.readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as LoggedRequest)
    : []
