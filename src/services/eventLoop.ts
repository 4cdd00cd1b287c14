import { Effect } from "effect"

/** Lets the event loop run (signals, timers, I/O callbacks) once; interruptible while it waits. */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Runs `step` over `items` synchronously in slices of about `sliceMs`, letting the event loop
 * run between two slices. A loop of pure work never leaves the microtask queue otherwise, so
 * SIGTERM would be seen only once it ends; this way it stops the loop within a slice (and one
 * step).
 */
export const forEachSliced = <A>(items: ReadonlyArray<A>, step: (item: A) => void, sliceMs = 50): Effect.Effect<void> =>
  Effect.gen(function* () {
    let index = 0
    while (index < items.length) {
      const until = Date.now() + sliceMs
      while (index < items.length && Date.now() < until) step(items[index++]!)
      if (index < items.length) yield* yieldToEventLoop
    }
  })
