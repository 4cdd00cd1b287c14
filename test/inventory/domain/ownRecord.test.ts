import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { OwnRecord } from "../../../src/inventory/domain/ownRecord.js"

describe("OwnRecord", () => {
  const Hashes = Schema.parseJson(OwnRecord(Schema.Struct({ hash: Schema.String })))

  it("keeps a key named __proto__ as a member, decoding and encoding, where Schema.Record drops it", () => {
    const text = "{\"__proto__\":{\"hash\":\"a\",\"extra\":1},\"b\":{\"hash\":\"b\"}}"
    const decoded = Schema.decodeUnknownSync(Hashes)(text)
    expect(Object.entries(decoded)).toEqual([["__proto__", { hash: "a" }], ["b", { hash: "b" }]])
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
    expect(Schema.encodeSync(Hashes)(decoded)).toBe("{\"__proto__\":{\"hash\":\"a\"},\"b\":{\"hash\":\"b\"}}")
    const plain = Schema.decodeUnknownSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))(text)
    expect(Object.keys(plain)).toEqual(["b"])
  })

  it("names the member that does not decode, and refuses what is no record", () => {
    const message = (input: unknown) => Either.match(Schema.decodeUnknownEither(OwnRecord(Schema.String))(input), { onLeft: (error) => error.message, onRight: () => "ok" })
    expect(message({ a: "x", b: 1 })).toBe("[\"b\"]\n└─ Expected string, actual 1")
    expect(message([])).toBe("Expected OwnRecord, actual []")
    expect(message(null)).toBe("Expected OwnRecord, actual null")
    expect(message({})).toBe("ok")
  })
})
