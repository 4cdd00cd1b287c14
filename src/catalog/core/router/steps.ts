/**
 * Long pure computations of the router (the documents of a catalog, the index, its file) as
 * generators that yield between small steps: run to their end at once ({@link runSteps}), or
 * by a service that lets the event loop run between steps so that SIGTERM is seen within one.
 */

/** A computation that yields (nothing) between steps and returns `A`. */
export type Steps<A> = Generator<void, A, void>

/** Runs `steps` to their end at once. */
export const runSteps = <A>(steps: Steps<A>): A => {
  let step = steps.next()
  while (step.done !== true) step = steps.next()
  return step.value
}
