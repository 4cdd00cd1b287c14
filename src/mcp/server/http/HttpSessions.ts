/**
 * The sessions of `tool-map mcp --http`: each one opened only by an `initialize` request, a
 * scoped resource (its transport and its server connection) closed by DELETE, by the client's
 * transport closing, after an idle time, or to make room for a new one, and with the server.
 */
import { Clock, Duration, Effect, Either, ExecutionStrategy, Exit, HashMap, Option, Scope, SynchronizedRef } from "effect"

/** How many sessions `--http` keeps, and for how long without a request. */
export interface HttpSessionLimits {
  /** A session with no request in progress for this long is closed. */
  readonly idle: Duration.DurationInput
  /** At most this many sessions are open at once. */
  readonly max: number
}

/** 30 minutes idle, 64 sessions. */
export const DEFAULT_HTTP_SESSION_LIMITS: HttpSessionLimits = { idle: Duration.minutes(30), max: 64 }

/** What the table keeps of a session it opened: `value` (the transport), released with `scope`. */
interface Entry<A> {
  readonly value: A
  readonly scope: Scope.CloseableScope
  /** Requests of the session in progress (their responses not yet closed). */
  readonly inProgress: number
  /** When its last request started or ended (the clock's milliseconds). */
  readonly lastActive: number
}

/** Every session is busy (a request in progress) and the table is full: a new one is refused. */
export interface SessionsBusy {
  readonly _tag: "SessionsBusy"
  readonly max: number
}

/** The open sessions, each of value `A`, each made from what its opener gave (`I`). */
export interface HttpSessions<A, I = void> {
  /**
   * Opens a session as `id` (its one request counted in progress until {@link release}): a
   * full table first closes the session idle the longest, or refuses when every one is busy.
   */
  readonly open: (id: string, input: I) => Effect.Effect<Either.Either<A, SessionsBusy>>
  /** The session `id`, its request counted in progress until {@link release}; none when it is not open. */
  readonly use: (id: string) => Effect.Effect<Option.Option<A>>
  /** Ends a request of session `id` started by {@link open} or {@link use}. */
  readonly release: (id: string) => Effect.Effect<void>
  /** Closes session `id` (nothing when it is not open). */
  readonly close: (id: string) => Effect.Effect<void>
  /** How many sessions are open. */
  readonly size: Effect.Effect<number>
}

/**
 * A table of sessions, each made by `make` in a scope of its own (forked from the table's) and
 * closed with it, under the table's lock (so `make` should be quick: fork what waits). `make`
 * gets a way to close its own session (when its client goes away) and the opener's input. Idle
 * sessions are swept every half idle time, at most every minute.
 */
export const makeHttpSessions = <A, I = void>(
  limits: HttpSessionLimits,
  make: (id: string, closeSelf: Effect.Effect<void>, input: I) => Effect.Effect<A, never, Scope.Scope>
): Effect.Effect<HttpSessions<A, I>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const outer = yield* Effect.scope
    const table = yield* SynchronizedRef.make(HashMap.empty<string, Entry<A>>())
    const idleMillis = Duration.toMillis(limits.idle)

    const closeEntry = (entry: Entry<A>) => Scope.close(entry.scope, Exit.void)

    const close = (id: string) =>
      SynchronizedRef.modify(table, (entries) => [HashMap.get(entries, id), HashMap.remove(entries, id)] as const).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: closeEntry }))
      )

    const touch = (id: string, delta: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        SynchronizedRef.modify(table, (entries) => {
          const entry = HashMap.get(entries, id)
          if (Option.isNone(entry)) return [Option.none<A>(), entries] as const
          const updated = { ...entry.value, inProgress: entry.value.inProgress + delta, lastActive: now }
          return [Option.some(entry.value.value), HashMap.set(entries, id, updated)] as const
        }))

    /** The session idle the longest, when none of its requests is in progress. */
    const idlest = (entries: HashMap.HashMap<string, Entry<A>>) => {
      let found: Option.Option<readonly [string, Entry<A>]> = Option.none()
      for (const [id, entry] of entries) {
        if (entry.inProgress > 0) continue
        if (Option.isNone(found) || entry.lastActive < found.value[1].lastActive) found = Option.some([id, entry] as const)
      }
      return found
    }

    /** The session opened, and the one closed to make room for it; or a refusal. */
    type Admission = Either.Either<readonly [A, Option.Option<Entry<A>>], SessionsBusy>

    const admit = (id: string, input: I, now: number) =>
      SynchronizedRef.modifyEffect(table, (entries) =>
        Effect.gen(function* () {
          let kept = entries
          let evicted: Option.Option<Entry<A>> = Option.none()
          if (HashMap.size(entries) >= limits.max) {
            const victim = idlest(entries)
            if (Option.isNone(victim)) {
              const busy: Admission = Either.left({ _tag: "SessionsBusy", max: limits.max })
              return [busy, entries] as const
            }
            kept = HashMap.remove(entries, victim.value[0])
            evicted = Option.some(victim.value[1])
          }
          const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
          const value = yield* make(id, close(id), input).pipe(Scope.extend(scope))
          const opened: Admission = Either.right([value, evicted])
          return [opened, HashMap.set(kept, id, { value, scope, inProgress: 1, lastActive: now })] as const
        }))

    const open = (id: string, input: I): Effect.Effect<Either.Either<A, SessionsBusy>> =>
      Effect.gen(function* () {
        const admission = yield* admit(id, input, yield* Clock.currentTimeMillis)
        if (Either.isLeft(admission)) return Either.left(admission.left)
        const [value, evicted] = admission.right
        // Closed outside the table's lock: its client's leaving runs close(id), which takes the lock.
        if (Option.isSome(evicted)) yield* closeEntry(evicted.value)
        return Either.right(value)
      })

    const sweep = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const expired = yield* SynchronizedRef.modify(table, (entries) => {
        const stale = HashMap.filter(entries, (entry) => entry.inProgress === 0 && now - entry.lastActive >= idleMillis)
        return [HashMap.toValues(stale), HashMap.removeMany(entries, HashMap.keys(stale))] as const
      })
      yield* Effect.forEach(expired, closeEntry, { discard: true })
    })
    const every = Duration.millis(Math.max(1, Math.min(idleMillis / 2, 60_000)))
    yield* sweep.pipe(Effect.delay(every), Effect.forever, Effect.forkScoped)

    return {
      open,
      use: (id) => touch(id, 1),
      release: (id) => Effect.asVoid(touch(id, -1)),
      close,
      size: Effect.map(SynchronizedRef.get(table), HashMap.size)
    } satisfies HttpSessions<A, I>
  })
