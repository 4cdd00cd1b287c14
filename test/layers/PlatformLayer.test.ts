import * as Terminal from "@effect/platform/Terminal"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { PassThrough } from "node:stream"
import { LazyNodeTerminalLayer } from "../../src/layers/PlatformLayer.js"

const original = Object.getOwnPropertyDescriptor(process, "stdin")!

/** Replaces `process.stdin` with `stream` and counts the reads of the property. */
const fakeStdin = (stream: PassThrough) => {
  const reads = { count: 0 }
  Object.defineProperty(process, "stdin", {
    configurable: true,
    enumerable: true,
    get: () => {
      reads.count++
      return stream
    }
  })
  return reads
}

afterEach(() => {
  Object.defineProperty(process, "stdin", original)
})

describe("LazyNodeTerminalLayer", () => {
  it.effect("builds without reading process.stdin; its first use makes Node's Terminal", () =>
    Effect.gen(function* () {
      const reads = fakeStdin(new PassThrough())
      const terminal = Context.get(yield* Layer.build(LazyNodeTerminalLayer), Terminal.Terminal)
      expect(reads.count).toBe(0)
      expect(yield* terminal.isTTY).toBe(Boolean(process.stdout.isTTY))
      expect(yield* terminal.columns).toBe(process.stdout.columns ?? 0)
      expect(reads.count).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("reads a line from stdin once asked, through Node's Terminal", () =>
    Effect.gen(function* () {
      const stdin = new PassThrough()
      const reads = fakeStdin(stdin)
      const terminal = yield* Terminal.Terminal
      const line = yield* Effect.fork(terminal.readLine)
      yield* Effect.yieldNow()
      stdin.write("first line\nsecond")
      expect(yield* line).toBe("first line")
      expect(reads.count).toBeGreaterThan(0)
    }).pipe(Effect.provide(LazyNodeTerminalLayer)))
})
