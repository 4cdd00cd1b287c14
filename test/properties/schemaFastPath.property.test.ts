import { Arbitrary, FastCheck as fc, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Inventory, WatchSet } from "../../src/inventory/domain/inventory.js"
import { compileDecoder, compileEncoder, fastDecodeUnknownOption, fastEncodeSync, UNDECIDED } from "../../src/platform/schemaFastPath.js"

const inventories = Arbitrary.make(Inventory)

/** JSON keeps every number of the value (Schema.Number admits NaN and ±Infinity, JSON does not). */
const jsonKeepsNumbers = (value: unknown): boolean =>
  typeof value === "number"
    ? Number.isFinite(value)
    : typeof value === "object" && value !== null
    ? Object.values(value).every(jsonKeepsNumbers)
    : true
const encodeWithEffect = Schema.encodeSync(Inventory)
const decodeWithEffect = Schema.decodeUnknownSync(Inventory)

describe("the compiled codec of the bundle schema", () => {
  it("encodes every inventory to exactly the JSON Effect's encoder gives, key order included", () => {
    const encode = compileEncoder(Inventory.ast)
    fc.assert(
      fc.property(inventories, (inventory) => {
        const fast = encode(inventory)
        expect(fast).not.toBe(UNDECIDED)
        expect(JSON.stringify(fast)).toBe(JSON.stringify(encodeWithEffect(inventory)))
      }),
      { numRuns: 40 }
    )
  })

  it("decodes what it encodes back to an inventory equal to Effect's decoding", () => {
    const encode = fastEncodeSync(Inventory)
    const decode = compileDecoder(Inventory.ast)
    fc.assert(
      fc.property(inventories, (inventory) => {
        const plain = encode(inventory)
        fc.pre(jsonKeepsNumbers(plain))
        const encoded = JSON.parse(JSON.stringify(plain)) as unknown
        const fast = decode(encoded)
        expect(fast).not.toBe(UNDECIDED)
        expect(fast).toBeInstanceOf(Inventory)
        expect(fast).toEqual(decodeWithEffect(encoded))
      }),
      { numRuns: 40 }
    )
  })

  it("answers UNDECIDED for a value the schema rejects, and the fallback then throws Effect's error", () => {
    const encode = compileEncoder(Inventory.ast)
    const notAnInventory = { schemaVersion: 1, tools: "many" }
    expect(encode(notAnInventory)).toBe(UNDECIDED)
    expect(() => fastEncodeSync(Inventory)(notAnInventory as unknown as Inventory)).toThrow(/\["generation"\]\n\s*└─ is missing/)
  })
})

describe("fastDecodeUnknownOption", () => {
  const decodeFast = fastDecodeUnknownOption(WatchSet)
  const decodeWithEffectOption = Schema.decodeUnknownOption(WatchSet)
  const encodeWatchSet = Schema.encodeSync(WatchSet)

  it("is Schema.decodeUnknownOption: the same value (or none) for encoded watch sets, their damaged copies and any JSON", () => {
    const damaged = fc.tuple(Arbitrary.make(WatchSet), fc.constantFrom("inputs", "toolMapVersion", "pathVariable"), fc.jsonValue()).map(([watch, key, value]) => ({
      ...encodeWatchSet(watch),
      [key]: value
    }))
    const inputs = fc.oneof(Arbitrary.make(WatchSet).map(encodeWatchSet), damaged, fc.jsonValue())
    fc.assert(
      fc.property(inputs, (input) => {
        const fast = decodeFast(input)
        expect(fast).toEqual(decodeWithEffectOption(input))
        if (Option.isSome(fast)) expect(fast.value).toBeInstanceOf(WatchSet)
      }),
      { numRuns: 200 }
    )
  })
})
