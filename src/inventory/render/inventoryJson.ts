import { Schema } from "effect"
import { cleanInventory, cleanTools } from "../domain/cleanInventory.js"
import { Inventory, Tool } from "../domain/inventory.js"
import { fastEncodeSync } from "../../platform/schemaFastPath.js"

const encodeInventory = fastEncodeSync(Inventory)
const encodeToolList = fastEncodeSync(Schema.Array(Tool))

/** The encoded form of an inventory's tools, the bulk of tools.json: see {@link renderInventoryJson}. */
export type EncodedTools = ReadonlyArray<typeof Tool.Encoded>

/** Encodes tools ahead of {@link renderInventoryJson} (a scan does it while the last version probes run). */
export const encodeTools = (tools: ReadonlyArray<Tool>): EncodedTools => encodeToolList(cleanTools(tools))

/**
 * `tools.json`: the Schema-encoded inventory, indented by one space, every untrusted string
 * cleaned. `tools`, when given, must be `encodeTools(inventory.tools)`; the rest of the inventory
 * is encoded here, in its order.
 */
export const renderInventoryJson = (raw: Inventory, tools?: EncodedTools): string => {
  const inventory = cleanInventory(raw)
  const encoded = tools === undefined
    ? encodeInventory(inventory)
    : { ...encodeInventory(new Inventory({ ...inventory, tools: [] }, { disableValidation: true })), tools }
  return `${JSON.stringify(encoded, null, 1)}\n`
}
