import { afterEach, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDir, staleBuildReason } from "./cli.js"

describe("staleBuildReason", () => {
  const temps: Array<() => void> = []
  afterEach(() => temps.splice(0).forEach((remove) => remove()))

  const setUp = () => {
    const { dir, remove } = makeTempDir("tool-map-stale-")
    temps.push(remove)
    const bin = path.join(dir, "tool-map.cjs")
    const source = path.join(dir, "main.ts")
    fs.writeFileSync(source, "export {}\n")
    fs.writeFileSync(bin, "built\n")
    fs.utimesSync(source, new Date(1_000_000), new Date(1_000_000))
    fs.utimesSync(bin, new Date(2_000_000), new Date(2_000_000))
    return { bin, source }
  }

  it("accepts a build newer than every input", () => {
    const { bin, source } = setUp()
    expect(staleBuildReason(bin, [source])).toBe(null)
  })

  it("names the input changed after the build", () => {
    const { bin, source } = setUp()
    fs.utimesSync(source, new Date(3_000_000), new Date(3_000_000))
    expect(staleBuildReason(bin, [source])).toMatch(new RegExp(`is older than .*main\\.ts$`))
  })

  it("reports a missing build", () => {
    const { bin, source } = setUp()
    fs.rmSync(bin)
    expect(staleBuildReason(bin, [source])).toBe(`${bin} is missing`)
  })
})
