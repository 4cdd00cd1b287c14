/**
 * The former name of {@link InventoryReader}, kept only while `src/index.ts` still exports it.
 * @deprecated Use `InventoryReader`.
 */
export { InventoryReader as InventoryStore } from "./InventoryReader.js"
