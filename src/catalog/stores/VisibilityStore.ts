import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { CatalogEvents } from "../services/CatalogEvents.js"
import { readJsonFile, writeJsonAtomic } from "./jsonFile.js"
import { AgentState, emptyAgentState, sameOrder, sameState } from "../core/visibility.js"

/**
 * What is kept of one agent: its loaded state and the order of its allow-list as last given
 * to the host, so the list keeps its order across a restart too.
 */
export const AgentRecord = Schema.Struct({
  state: AgentState,
  order: Schema.Array(Schema.String)
})

/** What is kept of one agent. */
export type AgentRecord = typeof AgentRecord.Type

/** An agent nobody has loaded anything for. */
export const emptyAgentRecord: AgentRecord = { state: emptyAgentState, order: [] }

/** The JSON file the default state provider writes per agent. */
export const AgentStateFile = Schema.Struct({
  version: Schema.Literal(1),
  agentId: Schema.String,
  state: AgentState,
  order: Schema.Array(Schema.String)
})

/** A state provider could not load or save an agent's state. */
export class StateProviderError extends Schema.TaggedError<StateProviderError>()("StateProviderError", {
  provider: Schema.String,
  agentId: Schema.String,
  operation: Schema.Literal("load", "save"),
  reason: Schema.String
}) {
  get message() {
    return `State provider ${this.provider} could not ${this.operation} the state of agent ${this.agentId}: ${this.reason}`
  }
}

/**
 * Makes loaded state outlive the process. `load` answers `None` for an agent it knows nothing
 * of; `save` receives the whole record after every change. The most recently registered
 * provider is the one in force.
 */
export interface StateProvider {
  readonly name: string
  readonly load: (agentId: string) => Effect.Effect<Option.Option<AgentRecord>, StateProviderError>
  readonly save: (agentId: string, record: AgentRecord) => Effect.Effect<void, StateProviderError>
}

/** A file name for an agent id: `[A-Za-z0-9_-]` kept, every other UTF-8 byte as `%XX`. */
export const agentFileName = (agentId: string): string => {
  let out = ""
  for (const byte of new TextEncoder().encode(agentId)) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return `${out === "" ? "%" : out}.json`
}

/**
 * The default provider: one JSON file per agent under `dir`, Schema-validated and written
 * atomically. A file that does not parse or validate is renamed to
 * `<file>.corrupt-<timestamp>`, reported as a warning, and the agent starts empty.
 */
export const fileStateProvider = (dir: string) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const path = yield* Path.Path
    const events = yield* CatalogEvents
    const fileOf = (agentId: string) => path.join(dir, agentFileName(agentId))
    const fail = (agentId: string, operation: "load" | "save") => (error: { readonly message: string }) =>
      new StateProviderError({ provider: "file", agentId, operation, reason: error.message })
    const provider: StateProvider = {
      name: "file",
      load: (agentId) =>
        readJsonFile(AgentStateFile, fileOf(agentId)).pipe(
          Effect.mapError(fail(agentId, "load")),
          Effect.flatMap((result) => {
            switch (result._tag) {
              case "Missing":
                return Effect.succeed(Option.none<AgentRecord>())
              case "Found":
                return Effect.succeed(Option.some<AgentRecord>({ state: result.value.state, order: result.value.order }))
              case "Corrupt":
                return events.warn({
                  kind: "corrupt-file",
                  subject: result.corrupt.path,
                  message:
                    `The state file of agent ${agentId} is not valid (${result.corrupt.reason}); it was kept as ${result.corrupt.keptAt} and the agent starts with nothing loaded`
                }).pipe(Effect.as(Option.none<AgentRecord>()))
            }
          }),
          Effect.provide(context)
        ),
      save: (agentId, record) =>
        writeJsonAtomic(AgentStateFile, fileOf(agentId), { version: 1 as const, agentId, ...record }).pipe(
          Effect.mapError(fail(agentId, "save")),
          Effect.provide(context)
        )
    }
    return provider
  })

/**
 * Per-agent loaded state: read from the state provider in force on first use, kept in memory,
 * and handed to the provider after every change. Changes run one at a time.
 */
export class VisibilityStore extends Context.Tag("tool-map/VisibilityStore")<VisibilityStore, {
  /** The record of an agent (read from the provider the first time). */
  readonly get: (agentId: string) => Effect.Effect<AgentRecord>
  /** True when the agent's record was read or made in this process. */
  readonly has: (agentId: string) => Effect.Effect<boolean>
  /**
   * Changes an agent's record; `f` returns a result and the next record. A changed state is
   * saved and announced (`AgentStateChanged`); a failed save is a warning, not a failure.
   */
  readonly modify: <A, E, R>(
    agentId: string,
    f: (record: AgentRecord) => Effect.Effect<readonly [A, AgentRecord], E, R>
  ) => Effect.Effect<A, E, R>
  /** Registers a provider (it is in force until disposed); returns the disposer. */
  readonly registerStateProvider: (provider: StateProvider) => Effect.Effect<Effect.Effect<void>>
  /** The names of the registered providers, the one in force last. */
  readonly stateProviders: Effect.Effect<ReadonlyArray<string>>
  /** Drops an agent from memory (its saved state stays with the provider). */
  readonly forget: (agentId: string) => Effect.Effect<void>
  /** The agents held in memory. */
  readonly agents: Effect.Effect<ReadonlyArray<string>>
}>() {
  /** State kept in memory and, with `stateDir`, in one file per agent under it. */
  static readonly layer = (options: { readonly stateDir: Option.Option<string> }) =>
    Layer.effect(
      this,
      Effect.gen(function*() {
        const initial = yield* Option.match(options.stateDir, {
          onNone: () => Effect.succeed<ReadonlyArray<StateProvider>>([]),
          onSome: (dir) => Effect.map(fileStateProvider(dir), (provider) => [provider])
        })
        return yield* make(initial)
      })
    )

  /** State kept in memory only (tests, hosts that register their own provider). */
  static readonly layerMemory = Layer.effect(this, Effect.suspend(() => make([])))
}

const make = Effect.fn("VisibilityStore.make")(function*(initialProviders: ReadonlyArray<StateProvider>) {
  const events = yield* CatalogEvents
  const records = new Map<string, AgentRecord>()
  const providers = yield* Ref.make<ReadonlyArray<{ readonly provider: StateProvider }>>(
    initialProviders.map((provider) => ({ provider }))
  )
  const lock = yield* Effect.makeSemaphore(1)

  const inForce = Effect.map(Ref.get(providers), (all) => Option.fromNullable(all[all.length - 1]?.provider))

  const warnProvider = (error: StateProviderError) =>
    events.warn({ kind: "state-provider-failed", subject: error.provider, message: error.message })

  const load = Effect.fn("VisibilityStore.load")(function*(agentId: string) {
    const known = records.get(agentId)
    if (known !== undefined) return known
    const provider = yield* inForce
    const found = Option.isNone(provider)
      ? Option.none<AgentRecord>()
      : yield* provider.value.load(agentId).pipe(
        Effect.catchAll((error) => Effect.as(warnProvider(error), Option.none<AgentRecord>()))
      )
    const record = Option.getOrElse(found, () => emptyAgentRecord)
    records.set(agentId, record)
    return record
  })

  const save = Effect.fn("VisibilityStore.save")(function*(agentId: string, record: AgentRecord) {
    const provider = yield* inForce
    if (Option.isNone(provider)) return
    yield* provider.value.save(agentId, record).pipe(Effect.catchAll(warnProvider))
  })

  return VisibilityStore.of({
    get: (agentId) => lock.withPermits(1)(load(agentId)),
    has: (agentId) => Effect.sync(() => records.has(agentId)),
    modify: (agentId, f) =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          const before = yield* load(agentId)
          const [result, after] = yield* f(before)
          const stateChanged = !sameState(before.state, after.state)
          if (!stateChanged && sameOrder(before.order, after.order)) return result
          records.set(agentId, after)
          yield* save(agentId, after)
          if (stateChanged) {
            yield* events.publish({ _tag: "AgentStateChanged", agentId, state: after.state })
          }
          return result
        })
      ).pipe(Effect.withSpan("VisibilityStore.modify", { attributes: { agentId } })),
    registerStateProvider: (provider) =>
      Effect.gen(function*() {
        const entry = { provider }
        yield* Ref.update(providers, (all) => [...all, entry])
        return Ref.update(providers, (all) => all.filter((candidate) => candidate !== entry))
      }),
    stateProviders: Effect.map(Ref.get(providers), (all) => all.map((entry) => entry.provider.name)),
    forget: (agentId) => lock.withPermits(1)(Effect.sync(() => void records.delete(agentId))),
    agents: Effect.sync(() => [...records.keys()])
  })
})
