import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { cleanInventory } from "../../src/inventory/domain/cleanInventory.js"
import { Inventory } from "../../src/inventory/domain/inventory.js"
import { encodeTools, renderInventoryJson } from "../../src/inventory/render/inventoryJson.js"
import { prepareToolRows, renderToolsMarkdown } from "../../src/inventory/render/inventoryMarkdown.js"

const inventories = Arbitrary.make(Inventory)
const encodeWithEffect = Schema.encodeSync(Inventory)

describe("the bundle files rendered in two steps (a scan renders the tools while the last probes run)", () => {
  it("tools.json is Effect's encoding of the cleaned inventory, indented by one space, whether the tools are encoded ahead or not", () => {
    fc.assert(
      fc.property(inventories, (inventory) => {
        const direct = `${JSON.stringify(encodeWithEffect(cleanInventory(inventory)), null, 1)}\n`
        expect(renderInventoryJson(inventory)).toBe(direct)
        expect(renderInventoryJson(inventory, encodeTools(inventory.tools))).toBe(direct)
      }),
      { numRuns: 40 }
    )
  })

  it("tools.md is the same with the tools' rows prepared ahead", () => {
    fc.assert(
      fc.property(inventories, (inventory) => {
        expect(renderToolsMarkdown(inventory, prepareToolRows(inventory.tools))).toBe(renderToolsMarkdown(inventory))
      }),
      { numRuns: 40 }
    )
  })
})
