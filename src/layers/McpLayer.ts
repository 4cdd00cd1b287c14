import { Console, Context, Deferred, Effect, Layer } from "effect"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { InventoryProvidersLayer } from "../mcp/server/inventory/InventoryProviders.js"
import { McpProviders, type McpProviderSet } from "../mcp/server/McpProviders.js"
import { McpProtocolError, McpServer } from "../mcp/server/McpServer.js"
import type { McpTransportChoice } from "../mcp/server/options.js"
import { serveStdio } from "../mcp/server/serveStdio.js"

export { InventoryProvidersLayer }

/** Streamable HTTP on 127.0.0.1:`port`, its module loaded only now (see serveHttp.ts), its address written to stderr. */
const serveHttpOn = (port: number) =>
  Effect.flatMap(Effect.promise(() => import("../mcp/server/serveHttp.js")), ({ MCP_HTTP_PATH, serveHttp }) =>
    serveHttp(port, (bound) => Console.error(`tool-map mcp: Streamable HTTP on http://127.0.0.1:${bound}${MCP_HTTP_PATH}`)))

/**
 * Serves `providers` (the inventory's, or the gateway's; their services come from the graph the
 * CLI runs on, `CliLayer`) over the chosen transport until the client leaves (stdio) or the
 * process is stopped (HTTP, whose address is written to stderr: stdout is never written).
 *
 * The transport is connected while the providers are still being built, so that `initialize`
 * is answered at the speed of the CLI's start: a host gives a server only a few seconds, and
 * the gateway's graph (the catalog, the downstream servers) takes longer than that on a busy
 * machine. The client's other requests wait for the providers. A providers layer that fails
 * ends the command with its error, even when the client has left already.
 */
export const serveMcp = <E, R>(transport: McpTransportChoice, providers: Layer.Layer<McpProviders, E, R>) =>
  Effect.gen(function* () {
    const built = yield* Deferred.make<McpProviderSet, E>()
    yield* Layer.build(providers).pipe(Effect.map(Context.get(McpProviders)), Effect.intoDeferred(built), Effect.forkScoped)
    const providerSet = Deferred.await(built).pipe(
      Effect.mapError(() => new McpProtocolError({ code: ErrorCode.InternalError, reason: "tool-map mcp could not start its tools (see its stderr)" }))
    )
    const serving = Effect.provide(transport._tag === "Stdio" ? serveStdio : serveHttpOn(transport.port), McpServer.layerAwaiting(providerSet))
    yield* Effect.raceFirst(serving, Effect.zipRight(Deferred.await(built), Effect.never))
    yield* Deferred.await(built)
  }).pipe(Effect.scoped)
