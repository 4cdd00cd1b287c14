import { Console, Effect, Layer } from "effect"
import { InventoryProvidersLayer } from "../mcp/server/inventory/InventoryProviders.js"
import type { McpProviders } from "../mcp/server/McpProviders.js"
import { McpServer } from "../mcp/server/McpServer.js"
import type { McpTransportChoice } from "../mcp/server/options.js"
import { MCP_HTTP_PATH, serveHttp, serveStdio } from "../mcp/server/transports.js"

export { InventoryProvidersLayer }

/**
 * The MCP server over `providers` (the inventory's, or the gateway's), on the graph the CLI
 * runs on: the inventory services, the platform and the environment come from `CliLayer`.
 */
export const McpServerLayer = <E, R>(providers: Layer.Layer<McpProviders, E, R>) => McpServer.layer.pipe(Layer.provide(providers))

/**
 * Serves `providers` over the chosen transport until the client leaves (stdio) or the
 * process is stopped (HTTP, whose address is written to stderr: stdout is never written).
 */
export const serveMcp = <E, R>(transport: McpTransportChoice, providers: Layer.Layer<McpProviders, E, R>) => {
  const serve = transport._tag === "Stdio"
    ? serveStdio
    : serveHttp(transport.port, (port) => Console.error(`tool-map mcp: Streamable HTTP on http://127.0.0.1:${port}${MCP_HTTP_PATH}`))
  return Effect.provide(serve, McpServerLayer(providers))
}
