import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Effect } from "effect"
import { McpServer } from "./McpServer.js"

/** Serves the one client on stdin/stdout until it closes stdin (or the process is stopped). */
export const serveStdio = Effect.gen(function* () {
  const server = yield* McpServer
  const connection = yield* server.connect(new StdioServerTransport(), "stdio")
  const stdinEnded = Effect.async<void>((resume) => {
    const ended = () => resume(Effect.void)
    process.stdin.once("end", ended)
    process.stdin.once("close", ended)
    return Effect.sync(() => {
      process.stdin.off("end", ended)
      process.stdin.off("close", ended)
    })
  })
  yield* Effect.race(connection.closed, stdinEnded)
}).pipe(Effect.scoped)
