/**
 * The rug-pull check: for every downstream tool an agent has loaded, the fingerprint of each
 * part of its definition when it was loaded, so `tools_ls` can warn when a server changed a
 * tool after the user let the agent use it. Kept per agent in `<gateway dir>/loaded/`, so the
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
  /** The agent's loaded tools whose definition differs now from when they were loaded. */
  readonly changed: (
    agentId: string,
    definitionOf: (name: string) => Option.Option<Tool>
  ) => Effect.Effect<ReadonlyArray<ChangedTool>>
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
            if (Option.isSome(definition)) next.set(name, partHashes(definition.value))
          }
          if (next.size === record.size && [...next.keys()].every((name) => record.has(name))) return
          yield* Ref.update(records, (all) => new Map(all).set(agentId, next))
          yield* builds.recordLoaded(fileOf(agentId), agentId, next).pipe(
            Effect.tapError((error) => Effect.logWarning(error.message)),
            Effect.ignore
          )
        })

        const changed = Effect.fn("LoadedDefinitions.changed")(function*(
          agentId: string,
          definitionOf: (name: string) => Option.Option<Tool>
        ) {
          const out: Array<ChangedTool> = []
          for (const [name, loaded] of yield* recordOf(agentId)) {
            const definition = definitionOf(name)
            if (Option.isNone(definition)) continue
            const parts = changedParts(loaded, partHashes(definition.value))
            if (parts.length > 0) out.push({ name, parts })
          }
          return out
        })

        return LoadedDefinitions.of({ track, changed })
      })
    ).pipe(Layer.provide(RecordedBuilds.layer))
}
