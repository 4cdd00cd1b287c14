import { Console, Effect, Layer } from "effect"
import { InventoryProvidersLayer } from "../mcp/server/inventory/InventoryProviders.js"
import type { McpProviders } from "../mcp/server/McpProviders.js"
import { McpServer } from "../mcp/server/McpServer.js"
import type { McpTransportChoice } from "../mcp/server/options.js"
import { serveStdio } from "../mcp/server/serveStdio.js"

export { InventoryProvidersLayer }

/**
 * The MCP server over `providers` (the inventory's, or the gateway's), on the graph the CLI
 * runs on: the inventory services, the platform and the environment come from `CliLayer`.
 */
export const McpServerLayer = <E, R>(providers: Layer.Layer<McpProviders, E, R>) => McpServer.layer.pipe(Layer.provide(providers))

/** Streamable HTTP on 127.0.0.1:`port`, its module loaded only now (see serveHttp.ts), its address written to stderr. */
const serveHttpOn = (port: number) =>
  Effect.flatMap(Effect.promise(() => import("../mcp/server/serveHttp.js")), ({ MCP_HTTP_PATH, serveHttp }) =>
    serveHttp(port, (bound) => Console.error(`tool-map mcp: Streamable HTTP on http://127.0.0.1:${bound}${MCP_HTTP_PATH}`)))

/**
 * Serves `providers` over the chosen transport until the client leaves (stdio) or the
 * process is stopped (HTTP, whose address is written to stderr: stdout is never written).
 */
export const serveMcp = <E, R>(transport: McpTransportChoice, providers: Layer.Layer<McpProviders, E, R>) =>
  Effect.provide(transport._tag === "Stdio" ? serveStdio : serveHttpOn(transport.port), McpServerLayer(providers))
