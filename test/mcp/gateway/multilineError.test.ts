/**
 * A downstream server's multi-line error (issue 29, point 6): shown on one line with ` ⏎ `
 * between its lines where the gateway reports it (tools_ls), every other control character
 * still U+FFFD, secrets still redacted; never a bare newline, never U+FFFD for a line break.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { nodeServer, tempDir, textOf, withGateway } from "./harness.js"

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-multiline-"))
})
afterEach(() => remove())

/** A stdio server that refuses `initialize` with a message of several lines, a tab, an escape sequence and a token. */
const REFUSES = `
const readline = require("node:readline")
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method !== "initialize") return
  const text = "cannot start:\\r\\n  config.json: line 3\\n\\n\\u001b[31mtoken ghp_abcdefghijklmnopqrstuvwxyz0123456789 refused\\tbye\\n"
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: text } }) + "\\n")
})
`

describe("a downstream server's multi-line error", () => {
  it("is one line in tools_ls: ⏎ between its lines, other controls as U+FFFD, the token redacted", async () => {
    const script = path.join(dir, "refuses.cjs")
    fs.writeFileSync(script, REFUSES)
    await withGateway({ servers: [nodeServer("refuses", script)], dataDir: dir }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: {} }))).toBe(
        [
          "/  categories. * = loaded (callable now), ! = high risk (load it on its own), [denied] = loaded but hidden by the host. tools_ls with a query searches everything.",
          "  (no tools to load)",
          "server refuses: no tool list yet (answered initialize with error -32603: cannot start: ⏎ config.json: line 3 ⏎ \uFFFD[31mtoken [redacted] refused\uFFFDbye); try tools_ls with refresh"
        ].join("\n")
      )
    })
  })
})
