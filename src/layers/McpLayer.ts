import { Console, Context, Deferred, Duration, Effect, Layer } from "effect"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import type { InventoryReader } from "../inventory/query/InventoryReader.js"
import { InventoryProvidersLayer } from "../mcp/server/inventory/InventoryProviders.js"
import { McpProviders, type McpProviderSet } from "../mcp/server/McpProviders.js"
import { GATEWAY_INSTRUCTIONS, McpProtocolError, McpServer, SERVER_INSTRUCTIONS } from "../mcp/server/McpServer.js"
import {
  gatewayRequested,
  type McpGatewayOptions,
  type McpHttpSessionOptions,
  type McpServeOptions,
  type McpTransportChoice
} from "../mcp/server/options.js"
import { serveStdio } from "../mcp/server/serveStdio.js"

export { InventoryProvidersLayer }
export type { McpGatewayOptions, McpHttpSessionOptions, McpServeOptions, McpTransportChoice } from "../mcp/server/options.js"

/**
 * Streamable HTTP on 127.0.0.1:`port`, its module loaded only now (see serveHttp.ts), its address
 * written to stderr; the sessions' limits as given, else its defaults.
 */
const serveHttpOn = (port: number, sessions: McpHttpSessionOptions = {}) =>
  Effect.flatMap(Effect.promise(() => import("../mcp/server/serveHttp.js")), ({ DEFAULT_HTTP_SESSION_LIMITS, MCP_HTTP_PATH, serveHttp }) =>
    serveHttp(
      port,
      (bound) => Console.error(`tool-map mcp: Streamable HTTP on http://127.0.0.1:${bound}${MCP_HTTP_PATH}`),
      {
        idle: sessions.idleMinutes === undefined ? DEFAULT_HTTP_SESSION_LIMITS.idle : Duration.minutes(sessions.idleMinutes),
        max: sessions.max ?? DEFAULT_HTTP_SESSION_LIMITS.max
      }
    ))

/**
 * Serves `providers` (the inventory's, or the gateway's; their services come from the graph the
 * CLI runs on, `CliLayer`) over the chosen transport until the client leaves (stdio) or the
 * process is stopped (HTTP, whose address is written to stderr: stdout is never written).
 *
 * The transport is connected before the providers are built, so that `initialize` is answered at
 * the speed of the CLI's start: a host gives a server only a few seconds, and the gateway's graph
 * (the catalog, the downstream servers) takes longer than that on a busy machine. Over stdio the
 * providers are built once something needs them (the client's first message after `initialize`,
 * or its leaving): built at once, they would hold the one thread while the `initialize` request
 * waits to be read. Over HTTP they are built at once. The client's other requests wait for them.
 * A providers layer that fails ends the command with its error, even when the client has left
 * already.
 */
export const serveMcp = <E, R>(transport: McpTransportChoice, providers: Layer.Layer<McpProviders, E, R>, instructions: string = SERVER_INSTRUCTIONS) =>
  Effect.gen(function* () {
    const needed = yield* Deferred.make<void>()
    const need = Deferred.succeed(needed, undefined)
    const built = yield* Deferred.make<McpProviderSet, E>()
    yield* Deferred.await(needed).pipe(
      Effect.zipRight(Layer.build(providers)),
      Effect.map(Context.get(McpProviders)),
      Effect.intoDeferred(built),
      Effect.forkScoped
    )
    if (transport._tag === "Http") yield* need
    const providerSet = Effect.zipRight(need, Deferred.await(built)).pipe(
      Effect.mapError(() => new McpProtocolError({ code: ErrorCode.InternalError, reason: "tool-map mcp could not start its tools (see its stderr)" }))
    )
    const serving = Effect.provide(transport._tag === "Stdio" ? serveStdio : serveHttpOn(transport.port, transport.sessions), McpServer.layerAwaiting(providerSet, instructions))
    yield* Effect.raceFirst(serving, Effect.zipRight(Deferred.await(built), Effect.never))
    yield* need
    yield* Deferred.await(built)
  }).pipe(Effect.scoped)

/**
 * Serves the gateway of `options` over `transport`. Its code, the catalog's, is loaded while the
 * server already answers (see serveMcp): it is large. It needs the platform and the machine's
 * environment, and `inventory`, whose reader `skills_find` and `skills_route` search (the CLI's
 * graph has one; the gateway's entry loads one with the gateway's code).
 */
export const serveGateway = <E, R>(transport: McpTransportChoice, options: McpGatewayOptions, inventory: Layer.Layer<InventoryReader, E, R>) =>
  serveMcp(
    transport,
    Layer.unwrapEffect(
      Effect.map(Effect.promise(() => import("./GatewayLayer.js")), ({ GatewayFromOptions }) => GatewayFromOptions(options))
    ).pipe(Layer.provide(inventory)),
    GATEWAY_INSTRUCTIONS
  )

/**
 * Serves `tool-map mcp` as asked: the gateway when a gateway flag is given, else the inventory
 * server; both on the inventory of the graph it runs on (the CLI's). The command tree
 * (mcpCommand) serves through here; the MCP entries (mcpMain, gatewayMain) through serveMcp and
 * serveGateway.
 */
export const serveMcpAsAsked = (options: McpServeOptions) =>
  gatewayRequested(options.gateway)
    ? serveGateway(options.transport, options.gateway, Layer.context<InventoryReader>())
    : serveMcp(options.transport, InventoryProvidersLayer)
