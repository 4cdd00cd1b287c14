import { Context, type Effect, type Option } from "effect"
import type { BundleReadError } from "../domain/errors.js"
import type { Inventory } from "../domain/inventory.js"

/** Reads the cached bundle for the query front ends. */
export class InventoryStore extends Context.Tag("tool-map/InventoryStore")<InventoryStore, {
  /**
   * The inventory of the bundle at `from` (a redirected `path/inv.md`) or at the default data
   * directory; when no bundle exists yet, one scan runs first. Never rescans otherwise.
   */
  readonly load: (from: Option.Option<string>) => Effect.Effect<Inventory, BundleReadError>
}>() {}
