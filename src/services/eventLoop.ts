import { Effect } from "effect"

// The event loop is the process's: so is what we know of it. `lastTurn` is when the loop last
// ran our callback (performance.now()); `waiters` are the fibers that asked for the next turn,
// resumed together by one `setImmediate`. One callback for all matters: Node runs every
// immediate queued before a check phase in that phase, and signals only after it, so fibers
// that each queued their own (and each took a fresh slice in it) would hold SIGTERM for the
// sum of their slices.
let lastTurn = performance.now()
let waiters: Set<() => void> | undefined

const turn = () => {
  lastTurn = performance.now()
  const resumed = waiters
  waiters = undefined
  if (resumed !== undefined) for (const resume of resumed) resume()
}

/** Lets the event loop run (signals, timers, I/O callbacks) once; interruptible while it waits. */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const waiter = () => resume(Effect.void)
  if (waiters === undefined) {
    waiters = new Set()
    setImmediate(turn)
  }
  const batch = waiters
  batch.add(waiter)
  return Effect.sync(() => {
    batch.delete(waiter)
  })
})

/** How long work may go on without the event loop running before a checkpoint yields. */
const TURN_DUE_MS = 50

/** True when the event loop has not run for {@link TURN_DUE_MS}: a loop of plain calls should yield ({@link yieldToEventLoop}). */
export const turnIsDue = (): boolean => performance.now() - lastTurn >= TURN_DUE_MS

/**
 * A checkpoint: lets the event loop run when it has not for {@link TURN_DUE_MS}, else nothing.
 * Cheap enough to pass before every synchronous file system call, so that a run made of
 * synchronous calls still sees SIGTERM between two of them.
 */
export const yieldIfDue: Effect.Effect<void> = Effect.suspend(() => (turnIsDue() ? yieldToEventLoop : Effect.void))

/** How many steps run between two readings of the clock. */
const CLOCK_EVERY = 64

/**
 * Runs `step` over `items` synchronously in slices of about `sliceMs`, letting the event loop
 * run between two slices. A loop of pure work never leaves the microtask queue otherwise, so
 * SIGTERM would be seen only once it ends; this way it stops the loop within a slice (and one
 * step). Every turn runs a few steps at least, so loops sharing a turn all move on.
 */
export const forEachSliced = <A>(items: ReadonlyArray<A>, step: (item: A) => void, sliceMs = TURN_DUE_MS): Effect.Effect<void> =>
  Effect.gen(function* () {
    let index = 0
    while (index < items.length) {
      // The clock is read every few items: reading it costs as much as a cheap step.
      do {
        const end = Math.min(items.length, index + CLOCK_EVERY)
        while (index < end) step(items[index++]!)
      } while (index < items.length && performance.now() - lastTurn < sliceMs)
      if (index < items.length) yield* yieldToEventLoop
    }
  })
