import { Deferred, Effect, Option, SynchronizedRef } from "effect"

/** One read in flight or done: the generation key it was started for, and its outcome. */
interface Read<A, E> {
  readonly key: string
  readonly outcome: Deferred.Deferred<A, E>
}

/**
 * `load` shared by the calls of an MCP server: calls that ask while a read runs wait for that
 * read, and its value is kept while `generation` gives the same key (the bundle's tools.json is
 * the same file: a new generation is renamed into place). Without it each pipelined call read and
 * parsed the bundle on its own (6,000 `which` calls peaked at 5.9 GB). When `generation` finds
 * nothing (no bundle yet: the read scans first) the call reads on its own; a read that failed is
 * forgotten, so the next call reads again. The read runs in a fiber of its own: a caller that is
 * cancelled does not cancel it for the others.
 */
export const makeSharedLoad = <A, E>(
  load: Effect.Effect<A, E>,
  generation: Effect.Effect<Option.Option<string>>
): Effect.Effect<Effect.Effect<A, E>> =>
  Effect.gen(function* () {
    const latest = yield* SynchronizedRef.make<Option.Option<Read<A, E>>>(Option.none())

    const start = (key: string) =>
      Effect.gen(function* () {
        const read: Read<A, E> = { key, outcome: yield* Deferred.make<A, E>() }
        yield* load.pipe(
          Effect.tapError(() => SynchronizedRef.update(latest, (kept) => (Option.isSome(kept) && kept.value === read ? Option.none() : kept))),
          Effect.intoDeferred(read.outcome),
          Effect.forkDaemon
        )
        return [read, Option.some(read)] as const
      })

    return Effect.gen(function* () {
      const key = yield* generation
      if (Option.isNone(key)) return yield* load
      const read = yield* SynchronizedRef.modifyEffect(latest, (kept) =>
        Option.isSome(kept) && kept.value.key === key.value ? Effect.succeed([kept.value, kept] as const) : start(key.value))
      return yield* Deferred.await(read.outcome)
    })
  })
