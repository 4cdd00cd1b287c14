import { FileSystem, Path } from "@effect/platform"
import { createHash } from "node:crypto"
import { Context, Effect, Either, HashMap, Layer, Option, Ref, Schema } from "effect"
import { CatalogEvents } from "./CatalogEvents.js"
import { FileLock } from "../../services/FileLock.js"
import { fileVersion } from "../../services/fileRead.js"
import { catalogFileLock, modifyJsonFile, readJsonFile, writeJsonAtomic } from "./jsonFile.js"
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
  /**
   * A change no other writer (another process) can interleave with: `change` gets the record
   * as stored now (`None`: none) and returns a result and the record to store (`None`: leave
   * it); the answer is the result and the record stored afterwards. A change may run twice
   * (once to see whether it writes), so it must have no other effect. Without it, a change is
   * `load` (once per process) then `save`, serialized in this process only.
   */
  readonly modify?: <A>(
    agentId: string,
    change: (stored: Option.Option<AgentRecord>) => Effect.Effect<readonly [A, Option.Option<AgentRecord>]>
  ) => Effect.Effect<readonly [A, Option.Option<AgentRecord>], StateProviderError>
  /**
   * A token that changes whenever the stored record does, whoever wrote it (another process
   * included). With it, a read of an agent already in memory re-reads the record when the token
   * moved; without it, the memory copy is read once per process.
   */
  readonly revision?: (agentId: string) => Effect.Effect<string>
}

// Longer stems are cut and made unique by a hash: with the store's temporary, lock and
// corrupt-copy suffixes (about 40 bytes) every name stays well under the usual 255-byte cap.
const MAX_FILE_STEM = 160
const STEM_PREFIX = 120

/**
 * A file name for an agent id: `[A-Za-z0-9_-]` kept, every other UTF-8 byte as `%XX`. A stem
 * over 160 bytes (an agent id of an MCP client's choosing can be any length) keeps its first
 * 120 bytes (whole `%XX` only) and `~` and the first 32 hex digits of the id's SHA-256: `~` is
 * in no short stem, so no two ids share a file.
 */
export const agentFileName = (agentId: string): string => {
  let out = ""
  for (const byte of new TextEncoder().encode(agentId)) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  if (out.length > MAX_FILE_STEM) {
    let cut = out.slice(0, STEM_PREFIX)
    const escape = cut.lastIndexOf("%")
    if (escape > STEM_PREFIX - 3) cut = cut.slice(0, escape)
    out = `${cut}~${createHash("sha256").update(agentId).digest("hex").slice(0, 32)}`
  }
  return `${out === "" ? "%" : out}.json`
}

/**
 * The default provider: one JSON file per agent under `dir`, Schema-validated and written
 * atomically; a change is read-modify-written under the file's lock (`modifyJsonFile`), so
 * processes changing one agent at once lose nothing. A file that does not parse or validate
 * is renamed to `<file>.corrupt-<timestamp>`, reported as a warning, and the agent starts empty.
 */
export const fileStateProvider = (dir: string) =>
  Effect.gen(function*() {
    // The lock is chosen once: this store is one taker (one simulated process in tests).
    const context = Context.add(yield* Effect.context<FileSystem.FileSystem | Path.Path>(), FileLock, yield* catalogFileLock)
    const path = yield* Path.Path
    const events = yield* CatalogEvents
    const fileOf = (agentId: string) => path.join(dir, agentFileName(agentId))
    const fail = (agentId: string, operation: "load" | "save") => (error: { readonly message: string }) =>
      new StateProviderError({ provider: "file", agentId, operation, reason: error.message })
    const warnCorrupt = (agentId: string, corrupt: { readonly path: string; readonly keptAt: string; readonly reason: string }) =>
      events.warn({
        kind: "corrupt-file",
        subject: corrupt.path,
        message:
          `The state file ${corrupt.path} of agent ${agentId} is not valid (${corrupt.reason}); it was kept as ${corrupt.keptAt} and the agent starts with nothing loaded`
      })
    const recordOf = (file: typeof AgentStateFile.Type): AgentRecord => ({ state: file.state, order: file.order })
    const fs = yield* FileSystem.FileSystem
    const provider: StateProvider = {
      name: "file",
      // Every write is a rename of a new file, so the inode changes with each one.
      revision: (agentId) =>
        fs.stat(fileOf(agentId)).pipe(
          Effect.map(fileVersion),
          Effect.catchAll((error) =>
            Effect.succeed(error._tag === "SystemError" ? (error.reason === "NotFound" ? "missing" : `error:${error.reason}`) : "error")
          )
        ),
      load: (agentId) =>
        readJsonFile(AgentStateFile, fileOf(agentId)).pipe(
          Effect.mapError(fail(agentId, "load")),
          Effect.flatMap((result) => {
            switch (result._tag) {
              case "Missing":
                return Effect.succeed(Option.none<AgentRecord>())
              case "Found":
                return Effect.succeed(Option.some(recordOf(result.value)))
              case "Corrupt":
                return warnCorrupt(agentId, result.corrupt).pipe(Effect.as(Option.none<AgentRecord>()))
            }
          }),
          Effect.provide(context)
        ),
      save: (agentId, record) =>
        writeJsonAtomic(AgentStateFile, fileOf(agentId), { version: 1 as const, agentId, ...record }).pipe(
          Effect.mapError(fail(agentId, "save")),
          Effect.provide(context)
        ),
      modify: (agentId, change) =>
        modifyJsonFile(AgentStateFile, fileOf(agentId), (stored) =>
          Effect.map(change(Option.map(stored, recordOf)), ([result, next]) =>
            [result, Option.map(next, (record) => ({ version: 1 as const, agentId, ...record }))] as const)).pipe(
            Effect.mapError(fail(agentId, "save")),
            Effect.tap((modified) => Option.match(modified.corrupt, { onNone: () => Effect.void, onSome: (corrupt) => warnCorrupt(agentId, corrupt) })),
            Effect.map((modified) => [modified.result, Option.map(modified.value, recordOf)] as const),
            Effect.provide(context)
          )
    }
    return provider
  })

/**
 * Per-agent loaded state: read from the state provider in force on first use and kept in
 * memory. A change is applied to the record as the provider holds it now (the file provider
 * re-reads the file under its lock), so concurrent writers from several processes are
 * serialized and nothing is lost, and the memory copy then holds what was stored. Changes run
 * one at a time in this process too.
 */
export class VisibilityStore extends Context.Tag("tool-map/VisibilityStore")<VisibilityStore, {
  /** The record of an agent (read from the provider the first time). */
  readonly get: (agentId: string) => Effect.Effect<AgentRecord>
  /** True when the agent's record was read or made in this process. */
  readonly has: (agentId: string) => Effect.Effect<boolean>
  /**
   * Changes an agent's record; `f` returns a result and the next record. `f` sees the record
   * as stored now (the memory copy when the provider has none for the agent), and may run
   * twice with a provider that locks (see `StateProvider.modify`), so it must have no other
   * effect. A changed record is saved, a changed state announced (`AgentStateChanged`); a
   * failed save is a warning, not a failure.
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
  // The records of the agents this process knows, dropped by `forget` (an agent's detach).
  const records = yield* Ref.make(HashMap.empty<string, AgentRecord>())
  const remember = (agentId: string, record: AgentRecord) => Ref.update(records, HashMap.set(agentId, record))
  // The provider's revision of each record as last read; a change of ours drops it, so the next
  // read takes the record as stored again.
  const revisions = yield* Ref.make(HashMap.empty<string, string>())
  const seenAt = (agentId: string, revision: string) => Ref.update(revisions, HashMap.set(agentId, revision))
  const unseen = (agentId: string) => Ref.update(revisions, HashMap.remove(agentId))
  const recordOf = (agentId: string) => Effect.map(Ref.get(records), HashMap.get(agentId))
  const providers = yield* Ref.make<ReadonlyArray<{ readonly provider: StateProvider }>>(
    initialProviders.map((provider) => ({ provider }))
  )
  const lock = yield* Effect.makeSemaphore(1)

  const inForce = Effect.map(Ref.get(providers), (all) => Option.fromNullable(all[all.length - 1]?.provider))

  const warnProvider = (error: StateProviderError) =>
    events.warn({ kind: "state-provider-failed", subject: error.provider, message: error.message })

  const load = Effect.fn("VisibilityStore.load")(function*(agentId: string) {
    const known = yield* recordOf(agentId)
    const provider = yield* inForce
    const revisionOf = Option.isSome(provider) ? provider.value.revision : undefined
    if (Option.isSome(known) && revisionOf === undefined) return known.value
    // Taken before the read: a write in between only makes the next read read again.
    const revision = revisionOf === undefined ? undefined : yield* revisionOf(agentId)
    if (Option.isSome(known) && revision !== undefined) {
      const seen = HashMap.get(yield* Ref.get(revisions), agentId)
      if (Option.isSome(seen) && seen.value === revision) return known.value
    }
    const found = Option.isNone(provider)
      ? Option.none<AgentRecord>()
      : yield* provider.value.load(agentId).pipe(
        Effect.catchAll((error) => Effect.as(warnProvider(error), Option.none<AgentRecord>()))
      )
    // Nothing stored: the memory copy, which holds what this process could not store.
    const record = Option.getOrElse(found, () => Option.getOrElse(known, () => emptyAgentRecord))
    yield* remember(agentId, record)
    if (revision !== undefined) yield* seenAt(agentId, revision)
    return record
  })

  /** What one application of `f` found and made. */
  interface Applied<A> {
    readonly result: A
    readonly before: AgentRecord
    readonly after: AgentRecord
  }

  const changedRecord = (applied: Applied<unknown>) =>
    !sameState(applied.before.state, applied.after.state) || !sameOrder(applied.before.order, applied.after.order)

  /** Applies `f` to the memory copy and saves the result through `load`/`save`. */
  const modifyInMemory = <A, E, R>(
    agentId: string,
    provider: Option.Option<StateProvider>,
    f: (record: AgentRecord) => Effect.Effect<readonly [A, AgentRecord], E, R>
  ) =>
    Effect.gen(function*() {
      const before = yield* load(agentId)
      const [result, after] = yield* f(before)
      const applied: Applied<A> = { result, before, after }
      if (!changedRecord(applied)) return applied
      yield* remember(agentId, after)
      yield* unseen(agentId)
      if (Option.isSome(provider)) yield* provider.value.save(agentId, after).pipe(Effect.catchAll(warnProvider))
      return applied
    })

  /** Applies `f` through the provider's own read-modify-write; on its failure (a warning), to the memory copy. */
  const modifyThrough = <A, E, R>(
    agentId: string,
    atomic: NonNullable<StateProvider["modify"]>,
    f: (record: AgentRecord) => Effect.Effect<readonly [A, AgentRecord], E, R>
  ) =>
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      const inMemory = Option.getOrElse(yield* recordOf(agentId), () => emptyAgentRecord)
      let applied: Applied<A> | undefined
      let failed: { readonly error: E } | undefined
      const outcome = yield* atomic(agentId, (stored) =>
        Effect.gen(function*() {
          // No stored record: the memory copy, which holds what this process could not store.
          const before = Option.getOrElse(stored, () => inMemory)
          const ran = yield* Effect.either(Effect.provide(f(before), context))
          if (Either.isLeft(ran)) {
            failed = { error: ran.left }
            return [undefined, Option.none<AgentRecord>()] as const
          }
          const [result, after] = ran.right
          applied = { result, before, after }
          return [undefined, changedRecord(applied) ? Option.some(after) : Option.none<AgentRecord>()] as const
        })).pipe(Effect.either)
      if (failed !== undefined) return yield* Effect.fail(failed.error)
      if (Either.isLeft(outcome)) yield* warnProvider(outcome.left)
      if (applied === undefined) return yield* modifyInMemory(agentId, Option.none(), f)
      const done = applied
      yield* remember(agentId, Either.isRight(outcome) ? Option.getOrElse(outcome.right[1], () => done.after) : done.after)
      yield* unseen(agentId)
      return done
    })

  return VisibilityStore.of({
    get: (agentId) => lock.withPermits(1)(load(agentId)),
    has: (agentId) => Effect.map(Ref.get(records), HashMap.has(agentId)),
    modify: (agentId, f) =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          const provider = yield* inForce
          const atomic = Option.isSome(provider) ? provider.value.modify : undefined
          const applied = Option.isSome(provider) && atomic !== undefined
            ? yield* modifyThrough(agentId, atomic, f)
            : yield* modifyInMemory(agentId, provider, f)
          if (!sameState(applied.before.state, applied.after.state)) {
            yield* events.publish({ _tag: "AgentStateChanged", agentId, state: applied.after.state })
          }
          return applied.result
        })
      ).pipe(Effect.withSpan("VisibilityStore.modify", { attributes: { agentId } })),
    registerStateProvider: (provider) =>
      Effect.gen(function*() {
        const entry = { provider }
        yield* Ref.update(providers, (all) => [...all, entry])
        return Ref.update(providers, (all) => all.filter((candidate) => candidate !== entry))
      }),
    stateProviders: Effect.map(Ref.get(providers), (all) => all.map((entry) => entry.provider.name)),
    forget: (agentId) => lock.withPermits(1)(Effect.zipRight(Ref.update(records, HashMap.remove(agentId)), unseen(agentId))),
    agents: Effect.map(Ref.get(records), (all) => [...HashMap.keys(all)])
  })
})
