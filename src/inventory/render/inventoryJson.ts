import { Schema } from "effect"
import { Inventory, Tool } from "../domain/inventory.js"
import { fastEncodeSync } from "../../platform/schemaFastPath.js"

const encodeInventory = fastEncodeSync(Inventory)
const encodeToolList = fastEncodeSync(Schema.Array(Tool))

/** The encoded form of an inventory's tools, the bulk of tools.json: see {@link renderInventoryJson}. */
export type EncodedTools = ReadonlyArray<typeof Tool.Encoded>

/** Encodes tools ahead of {@link renderInventoryJson} (a scan does it while the last version probes run). */
export const encodeTools = (tools: ReadonlyArray<Tool>): EncodedTools => encodeToolList(tools)

/**
 * `tools.json`: the Schema-encoded inventory, indented by one space. `tools`, when given, must
 * be `encodeTools(inventory.tools)`; the rest of the inventory is encoded here, in its order.
 */
export const renderInventoryJson = (inventory: Inventory, tools?: EncodedTools): string => {
  const encoded = tools === undefined
    ? encodeInventory(inventory)
    : { ...encodeInventory(new Inventory({ ...inventory, tools: [] }, { disableValidation: true })), tools }
  return `${JSON.stringify(encoded, null, 1)}\n`
}
