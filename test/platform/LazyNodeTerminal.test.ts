import * as Terminal from "@effect/platform/Terminal"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { PassThrough } from "node:stream"
import * as LazyNodeTerminal from "../../src/platform/LazyNodeTerminal.js"

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

/** Captures what is written to `process.stdout` (and acknowledges each write) instead of printing it. */
const captureStdout = () => {
  const written: Array<string> = []
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array, ...rest: Array<unknown>) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString())
    const callback = rest.find((arg): arg is (error?: Error | null) => void => typeof arg === "function")
    callback?.()
    return true
  })
  return written
}

afterEach(() => {
  Object.defineProperty(process, "stdin", original)
  vi.restoreAllMocks()
})

/** The same calls through one Terminal: what each answered and what reached stdout and stdin. */
const script = (layer: Layer.Layer<Terminal.Terminal>) =>
  Effect.gen(function* () {
    const stdin = new PassThrough()
    const reads = fakeStdin(stdin)
    const written = captureStdout()
    const terminal = Context.get(yield* Layer.build(layer), Terminal.Terminal)
    const readsAtBuild = reads.count
    const answers: Array<number | boolean | string> = [yield* terminal.columns, yield* terminal.rows, yield* terminal.isTTY]
    yield* terminal.display("a prompt> ")
    yield* terminal.display("second\n")
    const line = yield* Effect.fork(terminal.readLine)
    yield* Effect.yieldNow()
    stdin.write("typed line\nrest")
    answers.push(yield* line)
    return { readsAtBuild, answers, written: [...written] }
  }).pipe(Effect.scoped)

describe("LazyNodeTerminal", () => {
  it.effect("answers columns, rows, isTTY, display and readLine exactly as Node's Terminal does", () =>
    Effect.gen(function* () {
      const node = yield* script(NodeTerminal.layer)
      const lazy = yield* script(LazyNodeTerminal.layer)
      expect(lazy.answers).toEqual(node.answers)
      expect(lazy.written).toEqual(node.written)
      expect(node.answers).toEqual([process.stdout.columns ?? 0, process.stdout.rows ?? 0, Boolean(process.stdout.isTTY), "typed line"])
      expect(node.written).toEqual(["a prompt> ", "second\n"])
      // Node's own Terminal opens stdin when it is built; the lazy one does not.
      expect([node.readsAtBuild > 0, lazy.readsAtBuild]).toEqual([true, 0])
    }))

  it.effect("builds without reading process.stdin; its first use makes Node's Terminal", () =>
    Effect.gen(function* () {
      const reads = fakeStdin(new PassThrough())
      const terminal = Context.get(yield* Layer.build(LazyNodeTerminal.layer), Terminal.Terminal)
      expect(reads.count).toBe(0)
      expect(yield* terminal.isTTY).toBe(Boolean(process.stdout.isTTY))
      expect(yield* terminal.columns).toBe(process.stdout.columns ?? 0)
      expect(reads.count).toBe(1)
    }).pipe(Effect.scoped))
})
