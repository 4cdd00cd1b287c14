/**
 * The rug-pull check: for every downstream tool an agent has loaded, the fingerprint of each
 * part of its definition when it was loaded, so `tools_ls` can warn when a server changed a
 * tool after the user let the agent use it. Kept per agent in `<gateway dir>/loaded/`, so the
 * check survives a restart of the gateway.
 */
import { FileSystem, Path } from "@effect/platform"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Either, Layer, Option, Ref, Schema } from "effect"
import { canonicalJson, sha256 } from "../../catalog/core/definitions.js"
import { writeJsonAtomic } from "../../catalog/stores/jsonFile.js"
import { agentFileName } from "../../catalog/stores/VisibilityStore.js"
import { readBoundedFile } from "./boundedFile.js"

/** The parts of a definition told apart in a warning, in the order they are named. */
export const DEFINITION_PARTS = ["title", "description", "inputSchema", "outputSchema", "annotations"] as const
type Part = (typeof DEFINITION_PARTS)[number]

/** The fingerprint of each part of a tool's definition. */
export type PartHashes = Readonly<Record<Part, string>>

/** Fingerprints each part of a downstream tool's definition (a missing part counts as `null`). */
export const partHashes = (tool: Tool): PartHashes => {
  const hash = (value: unknown) => sha256(canonicalJson(value ?? null))
  return {
    title: hash(tool.title),
    description: hash(tool.description),
    inputSchema: hash(tool.inputSchema),
    outputSchema: hash(tool.outputSchema),
    annotations: hash(tool.annotations)
  }
}

/** The parts that differ between two fingerprints, in {@link DEFINITION_PARTS} order. */
export const changedParts = (loaded: PartHashes, now: PartHashes): ReadonlyArray<Part> =>
  DEFINITION_PARTS.filter((part) => loaded[part] !== now[part])

const PartHashesSchema = Schema.Struct({
  title: Schema.String,
  description: Schema.String,
  inputSchema: Schema.String,
  outputSchema: Schema.String,
  annotations: Schema.String
})

const LoadedFile = Schema.Struct({
  version: Schema.Literal(1),
  agentId: Schema.String,
  tools: Schema.Record({ key: Schema.String, value: PartHashesSchema })
})

const FILE_MAX_BYTES = 16 * 1024 * 1024

/** A loaded tool whose definition changed since it was loaded. */
export interface ChangedTool {
  readonly name: string
  readonly parts: ReadonlyArray<Part>
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
  /** Kept in `dir`, one file per agent. */
  static readonly layer = (dir: string) =>
    Layer.effect(
      this,
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const records = yield* Ref.make<ReadonlyMap<string, ReadonlyMap<string, PartHashes>>>(new Map())
        const fileOf = (agentId: string) => path.join(dir, agentFileName(agentId))

        /** The stored record; a missing, oversized or invalid file counts as empty (the next change rewrites it). */
        const readStored = (agentId: string) =>
          Effect.gen(function*() {
            const bytes = yield* Effect.option(
              readBoundedFile(fileOf(agentId), FILE_MAX_BYTES).pipe(Effect.provideService(FileSystem.FileSystem, fs))
            )
            if (Option.isNone(bytes) || Option.isNone(bytes.value)) return new Map<string, PartHashes>()
            const decoded = Schema.decodeEither(Schema.parseJson(LoadedFile))(new TextDecoder().decode(bytes.value.value))
            if (Either.isLeft(decoded) || decoded.right.agentId !== agentId) return new Map<string, PartHashes>()
            return new Map(Object.entries(decoded.right.tools))
          })

        const recordOf = (agentId: string) =>
          Effect.gen(function*() {
            const known = (yield* Ref.get(records)).get(agentId)
            if (known !== undefined) return known
            const stored = yield* readStored(agentId)
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
          yield* writeJsonAtomic(LoadedFile, fileOf(agentId), { version: 1 as const, agentId, tools: Object.fromEntries(next) }).pipe(
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.provideService(Path.Path, path),
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
    )
}
