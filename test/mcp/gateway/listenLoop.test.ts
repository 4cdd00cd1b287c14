import { Duration, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, expect, it, vi } from "vitest"
import { DEFAULT_TIMINGS, type Downstream, LISTEN_REOPENS, makeDownstream } from "../../../src/mcp/gateway/Downstream.js"
import { fixture, TEST_TIMINGS, tempDir } from "./harness.js"

let dir = ""
let remove = () => {}
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-listen-"))
})
afterEach(() => {
  vi.restoreAllMocks()
  remove()
})

const GAVE_UP = "its tool-list changes are not seen until its next listing"

it("a server that ends every listen at once without acknowledging it is listened to at most 4 times (each re-open followed by one listing) and warned about once, until the next listing from outside", async () => {
  const requests = path.join(dir, "requests")
  const counts = () => {
    const lines = fs.existsSync(requests) ? fs.readFileSync(requests, "utf8").split("\n") : []
    return { listens: lines.filter((line) => line === "listen").length, lists: lines.filter((line) => line === "list").length }
  }
  const logged: Array<string> = []
  vi.spyOn(console, "log").mockImplementation((...parts: Array<unknown>) => void logged.push(parts.map(String).join(" ")))
  const warnings = () => logged.filter((line) => line.includes(GAVE_UP)).length
  const seen = await Effect.runPromise(
    Effect.gen(function*() {
      let downstream: Downstream | undefined
      // As the gateway does: a tool-list change is followed by a listing, which opens a listen given up on.
      downstream = yield* makeDownstream({
        config: fixture("endlisten", "endlisten.mjs", [requests]),
        timings: { ...DEFAULT_TIMINGS, ...TEST_TIMINGS, listenBackoff: Duration.millis(100) },
        logPath: path.join(dir, "endlisten.log"),
        onListChanged: () => {
          if (downstream !== undefined) Effect.runFork(Effect.ignore(downstream.listTools))
        }
      })
      const running = downstream
      return yield* Effect.gen(function*() {
        yield* running.listTools
        // Backoffs of 100, 200 and 400 ms, then the loop gives up; the rest is time for a stray re-open.
        yield* Effect.sleep(Duration.millis(2500))
        const first = { ...counts(), warnings: warnings() }
        yield* running.listTools
        yield* Effect.sleep(Duration.millis(2500))
        const second = { ...counts(), warnings: warnings() }
        return { first, second }
      }).pipe(Effect.ensuring(running.stop))
    })
  )
  expect(LISTEN_REOPENS).toBe(3)
  expect(seen).toEqual({ first: { listens: 4, lists: 4, warnings: 1 }, second: { listens: 8, lists: 8, warnings: 2 } })
})
