import { Effect, Layer } from "effect"
import { McpProviders, type McpProviderSet } from "../McpProviders.js"
import { InventoryChanges } from "./InventoryChanges.js"
import { InventoryResources } from "./InventoryResources.js"
import { InventoryTools } from "./InventoryTools.js"

/** The inventory's tool and resource providers (for a front end that serves them with others). */
export const inventoryProviderSet: Effect.Effect<McpProviderSet, never, InventoryTools | InventoryResources> = Effect.gen(function* () {
  return { tools: [yield* InventoryTools], resources: [yield* InventoryResources] }
})

/**
 * The inventory's providers, their tools and resources sharing one {@link InventoryChanges}:
 * what `tool-map mcp` serves without the gateway. Needs the inventory services (reader,
 * scanner, bundle) and the FileSystem.
 */
export const InventoryToolsAndResources = Layer.merge(InventoryTools.layer, InventoryResources.layer).pipe(
  Layer.provide(InventoryChanges.layer)
)

/** {@link McpProviders} of the inventory alone (served as InventoryProviders.ts's `InventoryProvidersLayer`). */
export const InventoryProvidersLive = Layer.effect(McpProviders, inventoryProviderSet).pipe(Layer.provide(InventoryToolsAndResources))
