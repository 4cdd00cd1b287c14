/**
 * The rug-pull check: for every downstream tool an agent has loaded, the fingerprint of each
 * part of its definition when it was loaded (or last accepted), so that a tool a server changed
 * after the user let the agent use it is held back — out of the session's `tools/list`, its
 * calls refused — until it is loaded again. Kept per agent in `<gateway dir>/loaded/`, so the
 * check survives a restart of the gateway.
 */
import { Path } from "@effect/platform"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Option, Ref } from "effect"
import { changedParts, type DefinitionPart, type PartHashes, partHashes } from "../../catalog/core/definitions.js"
import { RecordedBuilds } from "../../catalog/services/RecordedBuilds.js"
import { agentFileName } from "../../catalog/stores/VisibilityStore.js"

/** A loaded tool whose definition changed since it was loaded. */
export interface ChangedTool {
  readonly name: string
  /** The parts that changed (`changedParts`), in `DEFINITION_PARTS` order. */
  readonly parts: ReadonlyArray<DefinitionPart>
}

export class LoadedDefinitions extends Context.Tag("tool-map/gateway/LoadedDefinitions")<LoadedDefinitions, {
  /**
   * Brings an agent's record in line with its allow-list: names newly allowed get the
   * fingerprint of their definition now, names no longer allowed are forgotten.
   */
  readonly track: (
    agentId: string,
    allow: ReadonlyArray<string>,
    definitionOf: (name: string) => Option.Option<Tool>
  ) => Effect.Effect<void>
  /**
   * Takes the definitions of `names` now as the ones the agent accepted (a load of a tool held
   * back); names the agent has not loaded are left alone. Answers the names accepted.
   */
  readonly accept: (
    agentId: string,
    names: ReadonlyArray<string>,
    definitionOf: (name: string) => Option.Option<Tool>
  ) => Effect.Effect<ReadonlyArray<string>>
  /** The agent's loaded tools whose definition differs now from when they were loaded. */
  readonly changed: (
    agentId: string,
    definitionOf: (name: string) => Option.Option<Tool>
  ) => Effect.Effect<ReadonlyArray<ChangedTool>>
  /** Drops the agent's record from memory (its last session ended; its file stays and is read again on its next use). */
  readonly forget: (agentId: string) => Effect.Effect<void>
}>() {
  /** Kept in `dir`, one file per agent, as `RecordedBuilds` records what an agent loaded. */
  static readonly layer = (dir: string) =>
    Layer.effect(
      this,
      Effect.gen(function*() {
        const path = yield* Path.Path
        const builds = yield* RecordedBuilds
        const records = yield* Ref.make<ReadonlyMap<string, ReadonlyMap<string, PartHashes>>>(new Map())
        const fileOf = (agentId: string) => path.join(dir, agentFileName(agentId))
        // A server's list keeps its definition objects until it changes: each is hashed once.
        const hashed = new WeakMap<Tool, PartHashes>()
        const hashesOf = (tool: Tool): PartHashes => {
          const known = hashed.get(tool)
          if (known !== undefined) return known
          const hashes = partHashes(tool)
          hashed.set(tool, hashes)
          return hashes
        }
        const save = (agentId: string, record: ReadonlyMap<string, PartHashes>) =>
          Ref.update(records, (all) => new Map(all).set(agentId, record)).pipe(
            Effect.zipRight(builds.recordLoaded(fileOf(agentId), agentId, record)),
            Effect.tapError((error) => Effect.logWarning(error.message)),
            Effect.ignore
          )

        const recordOf = (agentId: string) =>
          Effect.gen(function*() {
            const known = (yield* Ref.get(records)).get(agentId)
            if (known !== undefined) return known
            const stored = yield* builds.loaded(fileOf(agentId), agentId)
            yield* Ref.update(records, (all) => new Map(all).set(agentId, stored))
            return stored
          })

        const track = Effect.fn("LoadedDefinitions.track")(function*(
          agentId: string,
          allow: ReadonlyArray<string>,
          definitionOf: (name: string) => Option.Option<Tool>
        ) {
          const record = yield* recordOf(agentId)
          const next = new Map<string, PartHashes>()
          for (const name of allow) {
            const known = record.get(name)
            if (known !== undefined) {
              next.set(name, known)
              continue
            }
            const definition = definitionOf(name)
            if (Option.isSome(definition)) next.set(name, hashesOf(definition.value))
          }
          if (next.size === record.size && [...next.keys()].every((name) => record.has(name))) return
          yield* save(agentId, next)
        })

        const accept = Effect.fn("LoadedDefinitions.accept")(function*(
          agentId: string,
          names: ReadonlyArray<string>,
          definitionOf: (name: string) => Option.Option<Tool>
        ) {
          const record = yield* recordOf(agentId)
          const next = new Map(record)
          const accepted: Array<string> = []
          for (const name of names) {
            const known = record.get(name)
            const definition = definitionOf(name)
            if (known === undefined || Option.isNone(definition)) continue
            const now = hashesOf(definition.value)
            if (changedParts(known, now).length === 0) continue
            next.set(name, now)
            accepted.push(name)
          }
          if (accepted.length > 0) yield* save(agentId, next)
          return accepted
        })

        const changed = Effect.fn("LoadedDefinitions.changed")(function*(
          agentId: string,
          definitionOf: (name: string) => Option.Option<Tool>
        ) {
          const out: Array<ChangedTool> = []
          for (const [name, loaded] of yield* recordOf(agentId)) {
            const definition = definitionOf(name)
            if (Option.isNone(definition)) continue
            const parts = changedParts(loaded, hashesOf(definition.value))
            if (parts.length > 0) out.push({ name, parts })
          }
          return out
        })

        const forget = (agentId: string) =>
          Ref.update(records, (all) => {
            const next = new Map(all)
            next.delete(agentId)
            return next
          })

        return LoadedDefinitions.of({ track, accept, changed, forget })
      })
    ).pipe(Layer.provide(RecordedBuilds.layer))
}
