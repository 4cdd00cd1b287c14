import { Effect, Runtime } from "effect"
import { McpServer } from "./McpServer.js"
import { StdioLineTransport } from "./StdioTransport.js"

/**
 * Serves the one client on `input`/`output` (stdin/stdout) until it closes its side (or the fiber
 * is interrupted: SIGTERM). What the transport skips or refuses is logged (to stderr).
 */
export const serveStdioOn = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream) =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const runtime = yield* Effect.runtime<never>()
    const report = (line: string) => Runtime.runFork(runtime)(Effect.logWarning(line))
    const connection = yield* server.connect(new StdioLineTransport(input, output, report), "stdio")
    const inputEnded = Effect.async<void>((resume) => {
      const ended = () => resume(Effect.void)
      input.once("end", ended)
      input.once("close", ended)
      return Effect.sync(() => {
        input.off("end", ended)
        input.off("close", ended)
      })
    })
    yield* Effect.race(connection.closed, inputEnded)
  }).pipe(Effect.scoped)

/** Serves the one client on stdin/stdout until it closes stdin (or the process is stopped). */
export const serveStdio = Effect.suspend(() => serveStdioOn(process.stdin, process.stdout))
