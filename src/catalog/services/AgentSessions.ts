import { Context, Data, Deferred, Effect, HashMap, Layer, Option, Ref } from "effect"
import type { Catalog, ToolMeta, ToolSchema } from "../core/model.js"
import type { Registries } from "./CatalogRegistry.js"
import type { Agent } from "./HostPort.js"

/** Whose catalog a build is: the whole host's, or one agent's (its tools may differ). */
export type BuildScope = Data.TaggedEnum<{
  readonly Host: {}
  readonly Agent: { readonly id: string }
}>

/** `BuildScope.Host()` and `BuildScope.Agent({ id })`, compared by value. */
export const BuildScope = Data.taggedEnum<BuildScope>()

/** What a build depends on, compared by identity (the lists are immutable values) or as text. */
export interface BuildInputs {
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly pinned: string
  readonly registries: Registries
  readonly metadata: Readonly<Record<string, ToolMeta>>
  readonly highRisk: string
}

/** The same inputs: the last catalog of the scope is still right. */
export const sameInputs = (a: BuildInputs, b: BuildInputs): boolean =>
  a.schemas === b.schemas && a.pinned === b.pinned && a.registries === b.registries && a.metadata === b.metadata &&
  a.highRisk === b.highRisk

/** A scope's last build: what it was made from, the tree, and what tells the next build apart. */
export interface BuildMemo {
  /** The inputs of the last request; `None` after an invalidation, so the builder is asked again. */
  readonly inputs: Option.Option<BuildInputs>
  readonly catalog: Catalog
  /** The builder's cache key of the build (tool set and build options). */
  readonly buildKey: string
  /** The definition hashes of the build, to report what the next build changed. */
  readonly hashes: ReadonlyMap<string, string>
}

/** How much the sessions hold, for tests and diagnostics. */
export interface SessionCounts {
  readonly agents: number
  readonly memos: number
  /** `ready` calls waiting for an agent not restricted yet. */
  readonly waiting: number
}

interface Session {
  readonly agent: Agent
  /** The restriction last handed to the host, as a fingerprint; `None` until the first one. */
  readonly applied: Option.Option<string>
  /** When it became known, so agents list in the order they came. */
  readonly since: number
}

interface State {
  readonly sessions: HashMap.HashMap<string, Session>
  readonly memos: HashMap.HashMap<BuildScope, BuildMemo>
  readonly waiting: HashMap.HashMap<string, Deferred.Deferred<void>>
  readonly counter: number
}

const emptyState: State = { sessions: HashMap.empty(), memos: HashMap.empty(), waiting: HashMap.empty(), counter: 0 }

/**
 * The agents the catalog knows and everything it keeps per agent: the agent itself, the
 * restriction last handed to the host, and the agent's build memo. `detach` drops all of it at
 * once, so memory follows the agents alive, not the agents ever seen.
 *
 * It also holds the one lock of the catalog: changes of what agents see (loads, unloads,
 * attaches, refreshes) run one at a time through `exclusive`, so two loads never interleave
 * their read and write of an agent's state. A hook, gate or filter runs under it and must not
 * load or register from inside its own call: that would wait for itself.
 */
export class AgentSessions extends Context.Tag("tool-map/AgentSessions")<AgentSessions, {
  /** The known agents, in the order they became known. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** The known agent of this id. */
  readonly get: (agentId: string) => Effect.Effect<Option.Option<Agent>>
  /** Knows the agent from now on (or takes its newer description); true when it was not known. */
  readonly remember: (agent: Agent) => Effect.Effect<boolean>
  /** The fingerprint of the restriction last handed to the host for the agent. */
  readonly applied: (agentId: string) => Effect.Effect<Option.Option<string>>
  /** Records that the host now holds this restriction for the agent, waking its `ready` callers. */
  readonly restricted: (agentId: string, fingerprint: string) => Effect.Effect<void>
  /** Returns once the agent is known and restricted (at once if it is already). */
  readonly ready: (agentId: string) => Effect.Effect<void>
  /** The last build of a scope. */
  readonly memo: (scope: BuildScope) => Effect.Effect<Option.Option<BuildMemo>>
  readonly setMemo: (scope: BuildScope, memo: BuildMemo) => Effect.Effect<void>
  /** Forgets the inputs of every memo, so the next request of each scope asks the builder. */
  readonly forgetInputs: Effect.Effect<void>
  /** Drops everything about the agent: its session, its restriction and its build memo. */
  readonly detach: (agentId: string) => Effect.Effect<void>
  /** Runs `self` alone among the catalog's changes (see the class comment). */
  readonly exclusive: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly counts: Effect.Effect<SessionCounts>
}>() {
  /** No agent known yet. */
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function*() {
      const state = yield* Ref.make(emptyState)
      const lock = yield* Effect.makeSemaphore(1)

      const sessionOf = (agentId: string) => Effect.map(Ref.get(state), (current) => HashMap.get(current.sessions, agentId))

      const remember = Effect.fn("AgentSessions.remember")(function*(agent: Agent) {
        return yield* Ref.modify(state, (current): readonly [boolean, State] => {
          const known = HashMap.get(current.sessions, agent.id)
          const session: Session = Option.match(known, {
            onNone: () => ({ agent, applied: Option.none(), since: current.counter }),
            onSome: (session) => ({ ...session, agent })
          })
          return [
            Option.isNone(known),
            {
              ...current,
              sessions: HashMap.set(current.sessions, agent.id, session),
              counter: Option.isNone(known) ? current.counter + 1 : current.counter
            }
          ]
        })
      })

      const restricted = Effect.fn("AgentSessions.restricted")(function*(agentId: string, fingerprint: string) {
        const waiter = yield* Ref.modify(state, (current): readonly [Option.Option<Deferred.Deferred<void>>, State] => {
          const sessions = HashMap.modify(current.sessions, agentId, (session) => ({ ...session, applied: Option.some(fingerprint) }))
          return [HashMap.get(current.waiting, agentId), { ...current, sessions, waiting: HashMap.remove(current.waiting, agentId) }]
        })
        if (Option.isSome(waiter)) yield* Deferred.succeed(waiter.value, undefined)
      })

      const ready = Effect.fn("AgentSessions.ready")(function*(agentId: string) {
        const fresh = yield* Deferred.make<void>()
        // One step decides between "ready now" and "wait", so a restriction between the two is not missed.
        const wait = yield* Ref.modify(state, (current): readonly [Option.Option<Deferred.Deferred<void>>, State] => {
          const session = HashMap.get(current.sessions, agentId)
          if (Option.isSome(session) && Option.isSome(session.value.applied)) return [Option.none(), current]
          const waiting = HashMap.get(current.waiting, agentId)
          if (Option.isSome(waiting)) return [waiting, current]
          return [Option.some(fresh), { ...current, waiting: HashMap.set(current.waiting, agentId, fresh) }]
        })
        if (Option.isSome(wait)) yield* Deferred.await(wait.value)
      })

      const detach = Effect.fn("AgentSessions.detach")(function*(agentId: string) {
        yield* Ref.update(state, (current) => ({
          ...current,
          sessions: HashMap.remove(current.sessions, agentId),
          memos: HashMap.remove(current.memos, BuildScope.Agent({ id: agentId }))
        }))
      })

      return AgentSessions.of({
        agents: Effect.map(Ref.get(state), (current) =>
          [...HashMap.values(current.sessions)].sort((a, b) => a.since - b.since).map((session) => session.agent)),
        get: (agentId) => Effect.map(sessionOf(agentId), Option.map((session) => session.agent)),
        remember,
        applied: (agentId) => Effect.map(sessionOf(agentId), Option.flatMap((session) => session.applied)),
        restricted,
        ready,
        memo: (scope) => Effect.map(Ref.get(state), (current) => HashMap.get(current.memos, scope)),
        setMemo: (scope, memo) => Ref.update(state, (current) => ({ ...current, memos: HashMap.set(current.memos, scope, memo) })),
        forgetInputs: Ref.update(state, (current) => ({
          ...current,
          memos: HashMap.map(current.memos, (memo) => ({ ...memo, inputs: Option.none() }))
        })),
        detach,
        exclusive: lock.withPermits(1),
        counts: Effect.map(Ref.get(state), (current) => ({
          agents: HashMap.size(current.sessions),
          memos: HashMap.size(current.memos),
          waiting: HashMap.size(current.waiting)
        }))
      })
    })
  )
}
