import { Deferred, Effect, Option, SynchronizedRef } from "effect"

/** The scan the calls that came during the running one wait for, and whether one of them forced it. */
interface Next<A, E> {
  readonly force: boolean
  readonly outcome: Deferred.Deferred<A, E>
}

interface State<A, E> {
  readonly running: boolean
  readonly next: Option.Option<Next<A, E>>
}

/**
 * `scan` run one at a time for the calls of an MCP server, the calls that come while one runs
 * sharing the one after it: each call gets the outcome of a scan that started after it came (as
 * its own would), forced when any of them asked for force. 300 pipelined `inventory_refresh`
 * calls then run two scans, not 300 (which peaked at 1.6 GB run all at once). The scans run in a
 * fiber of their own: a caller that is cancelled does not cancel the scan the others wait for.
 */
export const makeCoalescedScans = <A, E>(scan: (force: boolean) => Effect.Effect<A, E>): Effect.Effect<(force: boolean) => Effect.Effect<A, E>> =>
  Effect.gen(function* () {
    const state = yield* SynchronizedRef.make<State<A, E>>({ running: false, next: Option.none() })

    /** Runs `force`'s scan into `outcome`, then the next one if calls came meanwhile. */
    const runFrom = (force: boolean, outcome: Deferred.Deferred<A, E>): Effect.Effect<void> =>
      Effect.gen(function* () {
        yield* Effect.intoDeferred(scan(force), outcome)
        const next = yield* SynchronizedRef.modify(state, (now): readonly [Option.Option<Next<A, E>>, State<A, E>] =>
          [now.next, { running: Option.isSome(now.next), next: Option.none() }])
        if (Option.isSome(next)) yield* runFrom(next.value.force, next.value.outcome)
      })

    return (force: boolean) =>
      Effect.gen(function* () {
        const outcome = yield* SynchronizedRef.modifyEffect(state, (now) =>
          Effect.gen(function* () {
            if (!now.running) {
              const outcome = yield* Deferred.make<A, E>()
              yield* Effect.forkDaemon(runFrom(force, outcome))
              return [outcome, { running: true, next: Option.none() }] as const
            }
            const next = Option.getOrUndefined(now.next)
            const outcome = next?.outcome ?? (yield* Deferred.make<A, E>())
            return [outcome, { running: true, next: Option.some({ force: force || next?.force === true, outcome }) }] as const
          }))
        return yield* Deferred.await(outcome)
      })
  })
