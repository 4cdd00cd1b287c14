import type { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"

/** At most `cap` bytes from the start of an open file, reading again after a short read. */
export const readUpTo = (file: FileSystem.File, cap: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total < cap) {
      const chunk = yield* file.readAlloc(cap - total)
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    return Buffer.concat(chunks)
  })
