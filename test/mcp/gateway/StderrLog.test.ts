/**
 * A downstream server's stderr log: what the server writes passes the boundary of untrusted
 * text line by line, secrets split across chunks included, and the gateway's own notes too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, chai, expect, it } from "vitest"
chai.config.truncateThreshold = 0
import { StderrLog } from "../../../src/mcp/gateway/StderrLog.js"
import { tempDir } from "./harness.js"

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-stderr-log-"))
})
afterEach(() => remove())

const pemBody = "b3BlbnNzaC1rZXktdjEAAAAA" + "BG5vbmUAAAAEbm9uZQ"

it("redacts a token and a PEM block cut across chunks, and neutralizes controls", () => {
  const file = path.join(dir, "logs", "s.log")
  const log = new StderrLog(file)
  const chunks = [
    "plain line\n\u001b[31mred\u001b[0m Authorization: Bearer abcDEF12",
    "3456789xyz\n-----BEGIN OPENSSH PRIVATE KEY-----\n",
    `${pemBody}\n`,
    `${pemBody}\n-----END OPENSSH PRIVATE KEY-----\nafter\r\nunfinished `,
    "line"
  ]
  for (const chunk of chunks) log.append(Buffer.from(chunk))
  log.note("exited \u0007 with token=sk-note-0123456789")
  expect(fs.readFileSync(file, "utf8").replace(/^\[tool-map [^\]]+\]/m, "[tool-map T]")).toBe([
    "plain line",
    "\uFFFD[31mred\uFFFD[0m Authorization: Bearer [redacted]",
    "[redacted]",
    "[redacted]",
    "[redacted]",
    "after",
    "unfinished line",
    "[tool-map T] exited \uFFFD with token=[redacted]",
    ""
  ].join("\n"))
})
