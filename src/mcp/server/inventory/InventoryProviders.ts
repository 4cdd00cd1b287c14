import { Effect, Layer } from "effect"

/**
 * `McpProviders` of the inventory alone, their modules (the inventory's reader, scanner and
 * bundle) loaded when the layer is built: `tool-map mcp` builds it after the `initialize` answer
 * (see McpLayer.serveMcp), which then does not wait for a third of the entry's code to be
 * evaluated. The layer itself: InventoryProvidersLive.ts.
 */
export const InventoryProvidersLayer = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("./InventoryProvidersLive.js")), (live) => live.InventoryProvidersLive)
)
