import * as fs from "node:fs"
import { expect, it } from "vitest"
import { TOOL_MAP_VERSION } from "../src/version.js"

it("keeps TOOL_MAP_VERSION equal to package.json's version", () => {
  const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
  expect(TOOL_MAP_VERSION).toBe(pkg.version)
})
