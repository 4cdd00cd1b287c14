import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { parseSince, type SincePoint } from "../../../src/inventory/query/since.js"

const NOW = new Date("2026-12-07T12:00:00.000Z")
const parsed = (text: string): Either.Either<SincePoint, string> => parseSince(text, NOW)
const at = (iso: string): Either.Either<SincePoint, string> => Either.right({ _tag: "Moment", at: new Date(iso) })

describe("parseSince: the one parser of `query changes --since` (issue 29)", () => {
  it("a generation number, a generation id", () => {
    expect(parsed("1")).toEqual(Either.right({ _tag: "Generation", number: 1 }))
    expect(parsed("42")).toEqual(Either.right({ _tag: "Generation", number: 42 }))
    expect(parsed(" 7 ")).toEqual(Either.right({ _tag: "Generation", number: 7 }))
    expect(parsed("20261201T080000Z-1a2b3c4d")).toEqual(Either.right({ _tag: "GenerationId", id: "20261201T080000Z-1a2b3c4d" }))
  })

  it("durations back from now: m, h, d, w and their sums in that order", () => {
    expect(parsed("30m")).toEqual(at("2026-12-07T11:30:00.000Z"))
    expect(parsed("12h")).toEqual(at("2026-12-07T00:00:00.000Z"))
    expect(parsed("1d")).toEqual(at("2026-12-06T12:00:00.000Z"))
    expect(parsed("2w")).toEqual(at("2026-11-23T12:00:00.000Z"))
    expect(parsed("1d12h")).toEqual(at("2026-12-06T00:00:00.000Z"))
    expect(parsed("1w1d1h1m")).toEqual(at("2026-11-29T10:59:00.000Z"))
  })

  it("times with a zone are exact; dates and zone-less times are local (the test pins the local zone by comparing with the Date constructor)", () => {
    expect(parsed("2026-12-01T08:00:00Z")).toEqual(at("2026-12-01T08:00:00.000Z"))
    expect(parsed("2026-12-01T08:00:00.5Z")).toEqual(at("2026-12-01T08:00:00.500Z"))
    expect(parsed("2026-12-01T08:00+02:00")).toEqual(at("2026-12-01T06:00:00.000Z"))
    expect(parsed("2026-12-01T08:00-0530")).toEqual(at("2026-12-01T13:30:00.000Z"))
    expect(parsed("2026-12-01 08:00Z")).toEqual(at("2026-12-01T08:00:00.000Z"))
    expect(parsed("2026-12-01")).toEqual(Either.right({ _tag: "Moment", at: new Date(2026, 11, 1) }))
    expect(parsed("2026-12-01T08:30")).toEqual(Either.right({ _tag: "Moment", at: new Date(2026, 11, 1, 8, 30) }))
  })

  it("anything else is Left with why, never a guess", () => {
    expect(parsed("yesterday-ish")).toEqual(Either.left("not a generation number, a duration, a date, a time or a generation id"))
    for (const text of ["", " ", "0", "-1", "1.5", "1y", "d", "1h1d", "1 d", "2026-12", "2026-1201", "2026-12-01T8:00", "12/01/2026", "../../etc/passwd", "--api-key=X"]) {
      expect([text, Either.isLeft(parsed(text))]).toEqual([text, true])
    }
    expect(parsed("0m")).toEqual(Either.left("a duration must be at least 1m"))
    expect(parsed("0d0h")).toEqual(Either.left("a duration must be at least 1m"))
    for (const text of ["2026-02-30", "2026-13-01", "2026-12-01T24:00Z", "2026-12-01T08:60Z", "2026-12-01T08:00+24:00"]) {
      expect([text, parsed(text)]).toEqual([text, Either.left("no such date or time")])
    }
  })

  it.prop("a sum of units parses to now minus that many milliseconds", [fc.nat(52), fc.nat(30), fc.nat(23), fc.nat(59)], ([w, d, h, m]) => {
    const text = `${w > 0 ? `${w}w` : ""}${d > 0 ? `${d}d` : ""}${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}`
    const ms = (((w * 7 + d) * 24 + h) * 60 + m) * 60_000
    expect(parsed(text)).toEqual(ms === 0 ? Either.left(text === "" ? "not a generation number, a duration, a date, a time or a generation id" : "a duration must be at least 1m") : at(new Date(NOW.getTime() - ms).toISOString()))
  })

  it.prop("every UTC instant written as ISO 8601 parses back to itself", [fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })], ([date]) => {
    expect(parsed(date.toISOString())).toEqual(at(date.toISOString()))
  })

  it.prop("every calendar date parses to its local midnight", [fc.date({ min: new Date("1971-01-01T00:00:00Z"), max: new Date("9998-12-31T00:00:00Z"), noInvalidDate: true })], ([date]) => {
    const text = date.toISOString().slice(0, 10)
    const [y, mo, d] = text.split("-").map(Number) as [number, number, number]
    expect(parsed(text)).toEqual(Either.right({ _tag: "Moment", at: new Date(y, mo - 1, d) }))
  })

  it.prop("any other text is Left or one of the accepted forms, never a throw", [fc.string({ maxLength: 40 })], ([text]) => {
    const result = parsed(text)
    if (Either.isRight(result)) {
      expect(/^\s*(\d+|\d{8}T\d{6}Z-[0-9a-f]{8}|(\d+w)?(\d+d)?(\d+h)?(\d+m)?|\d{4}-\d{2}-\d{2}([T ].*)?)\s*$/.test(text)).toBe(true)
    } else {
      expect(typeof result.left).toBe("string")
    }
  })
})
