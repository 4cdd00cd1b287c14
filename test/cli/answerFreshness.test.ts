import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { answerJson, type Freshness, staleNotice } from "../../src/cli/answerFreshness.js"
import { generationTime, newGeneration } from "../../src/inventory/bundle/format.js"

const stale = (overrides: Partial<Freshness>): Freshness => ({
  query: "tools",
  stale: true,
  reason: "PATH changed",
  generation: "20261207T085012Z-0a1b2c3d",
  refresh: "tool-map scan --if-stale",
  freshApplies: true,
  index: Option.none(),
  ...overrides
})

describe("the stale notice of a query (issue 29)", () => {
  it("names the scan's time, what changed and both ways to refresh the default bundle", () => {
    expect(staleNotice(stale({}))).toBe(
      "tool-map: this answer is from the scan of 2026-12-07 08:50:12 UTC; since then PATH changed. To refresh it, run `tool-map scan --if-stale`, or add --fresh."
    )
  })

  it("offers only the scan for a --from bundle, which --fresh does not refresh", () => {
    expect(staleNotice(stale({ reason: "/opt/bin changed", refresh: "tool-map scan --if-stale '/tmp/my inv.md'", freshApplies: false }))).toBe(
      "tool-map: this answer is from the scan of 2026-12-07 08:50:12 UTC; since then /opt/bin changed. To refresh it, run `tool-map scan --if-stale '/tmp/my inv.md'`."
    )
  })

  it("says an earlier scan when the generation id holds no time", () => {
    expect(staleNotice(stale({ generation: "handmade" }))).toBe(
      "tool-map: this answer is from an earlier scan; since then PATH changed. To refresh it, run `tool-map scan --if-stale`, or add --fresh."
    )
  })

  it("stays one line of plain text when a changed path holds control characters", () => {
    const notice = staleNotice(stale({ reason: "/tmp/evil\u001b[2J\ndir\u202e changed" }))
    expect(notice).toBe(
      "tool-map: this answer is from the scan of 2026-12-07 08:50:12 UTC; since then /tmp/evil\uFFFD[2J\uFFFDdir\uFFFD changed. To refresh it, run `tool-map scan --if-stale`, or add --fresh."
    )
  })

  it("is null for an answer that is not stale", () => {
    expect(staleNotice(stale({ stale: false, reason: null }))).toBeNull()
  })
})

describe("the JSON of a query carries its freshness", () => {
  it("puts a list answer under the query's name, after stale and staleReason", () => {
    const json = answerJson(stale({}), [{ name: "git" }])
    expect(JSON.stringify(json)).toBe('{"stale":true,"staleReason":"PATH changed","tools":[{"name":"git"}]}')
    expect(JSON.stringify(answerJson(stale({ query: "mcp", stale: false, reason: null }), []))).toBe('{"stale":false,"staleReason":null,"mcp":[]}')
  })

  it("adds stale and staleReason before an object answer's own fields", () => {
    expect(JSON.stringify(answerJson(stale({ query: "which", stale: false, reason: null }), { name: "git", winner: null, copies: [] }))).toBe(
      '{"stale":false,"staleReason":null,"name":"git","winner":null,"copies":[]}'
    )
    expect(answerJson(stale({ query: "which", stale: false, reason: null }), { name: "git", winner: null, copies: [] })).toEqual({
      stale: false,
      staleReason: null,
      name: "git",
      winner: null,
      copies: []
    })
  })
})

describe("a generation id starts with its scan's time", () => {
  it("reads back the second newGeneration was given", () => {
    const now = new Date("2026-12-07T08:50:12.345Z")
    const generation = newGeneration(now)
    expect(generation).toMatch(/^20261207T085012Z-[0-9a-f]{8}$/)
    expect(generationTime(generation)?.toISOString()).toBe("2026-12-07T08:50:12.000Z")
  })

  it("is null for an id made otherwise, or for an impossible date", () => {
    expect(generationTime("abc")).toBeNull()
    expect(generationTime("20261399T256099Z-00000000")).toBeNull()
  })
})
