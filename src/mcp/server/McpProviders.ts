import { Context, Layer } from "effect"
import type { McpResourceProvider } from "./McpResourceProvider.js"
import type { McpToolProvider } from "./McpToolProvider.js"

/** The providers one `tool-map mcp` process serves, in the order their tools and resources are listed and asked. */
export interface McpProviderSet {
  readonly tools: ReadonlyArray<McpToolProvider>
  readonly resources: ReadonlyArray<McpResourceProvider>
}

/**
 * What the MCP server serves. The inventory's providers come from
 * `src/mcp/server/inventory/InventoryProviders.ts`; the gateway's layer provides its own set
 * (see `mcpCommand.ts`, where one line picks the layer by the flags).
 */
export class McpProviders extends Context.Tag("tool-map/McpProviders")<McpProviders, McpProviderSet>() {
}

/** A fixed set of providers as a layer. */
export const providersLayer = (set: McpProviderSet): Layer.Layer<McpProviders> => Layer.succeed(McpProviders, set)

/** The providers of `a` then those of `b`: for a front end that serves two sets in one server. */
export const concatProviders = (a: McpProviderSet, b: McpProviderSet): McpProviderSet => ({
  tools: [...a.tools, ...b.tools],
  resources: [...a.resources, ...b.resources]
})
