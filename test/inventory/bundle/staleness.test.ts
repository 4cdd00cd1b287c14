import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { WatchedInput, WatchSet } from "../../../src/inventory/domain/inventory.js"
import { digest, staleReason } from "../../../src/inventory/bundle/staleness.js"

const recorded = new WatchSet({
  toolMapVersion: "1.0.0",
  pathVariable: digest("/usr/bin"),
  extraRoots: digest(""),
  inputs: [new WatchedInput({ path: "/usr/bin", state: "Directory:1:4096:7" }), new WatchedInput({ path: "/home/u/.gitconfig", state: "missing" })]
})
const current = (states: Record<string, string>, overrides: Partial<{ toolMapVersion: string; pathVariable: string; extraRoots: string }> = {}) => ({
  toolMapVersion: "1.0.0",
  pathVariable: digest("/usr/bin"),
  extraRoots: digest(""),
  stateOf: (path: string) => states[path] ?? "missing",
  ...overrides
})

describe("staleReason", () => {
  it("is none when every input is as recorded", () => {
    expect(staleReason(recorded, current({ "/usr/bin": "Directory:1:4096:7" }))).toEqual(Option.none())
  })
  it("names the first change", () => {
    expect(staleReason(recorded, current({ "/usr/bin": "Directory:2:4096:7" }))).toEqual(Option.some("/usr/bin changed"))
    expect(staleReason(recorded, current({ "/usr/bin": "Directory:1:4096:7", "/home/u/.gitconfig": "File:1:10:9" }))).toEqual(Option.some("/home/u/.gitconfig appeared"))
    expect(staleReason(recorded, current({}))).toEqual(Option.some("/usr/bin disappeared"))
    expect(staleReason(recorded, current({ "/usr/bin": "Directory:1:4096:7" }, { pathVariable: digest("/bin") }))).toEqual(Option.some("PATH changed"))
    expect(staleReason(recorded, current({}, { toolMapVersion: "1.1.0" }))).toEqual(Option.some("tool-map changed from 1.0.0 to 1.1.0"))
    expect(staleReason(recorded, current({ "/usr/bin": "Directory:1:4096:7" }, { extraRoots: digest("/x") }))).toEqual(Option.some("TOOL_MAP_ROOTS changed"))
  })
})
