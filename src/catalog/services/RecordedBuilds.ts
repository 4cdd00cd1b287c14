/**
 * Recorded builds: what tools' definitions were at a moment later definitions are compared
 * with, by the one parts model of `core/definitions.ts`. Two kinds of record are kept:
 * - a catalog build, for `catalog diff` and the warning of a run whose definitions differ
 *   from the last recorded ones: each tool's definition hash, and a hard link to the schemas
 *   the build was made from, whose definitions say which parts of a changed tool changed;
 * - the definitions an agent loaded, for the gateway's rug-pull check: the fingerprint of each
 *   part of each loaded tool (`PartHashes`), one file per agent, so the check survives a restart.
 */
import { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Either, Layer, Option, Schema } from "effect"
import { readHead } from "../../services/fileRead.js"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"
import { factsOf } from "../core/catalog.js"
import {
  type DefinitionChange,
  definitionChange,
  type DefinitionDiff,
  definitionHashes,
  DefinitionHashesJson,
  definitionParts,
  diffDefinitions,
  type PartHashes
} from "../core/definitions.js"
import type { ToolEntry, ToolSchema } from "../core/model.js"
import { decodeSchemasText, KEY_HEAD_BYTES, keyInHead } from "../core/schemasFile.js"
import {
  type CatalogFileError,
  type JsonFileRead,
  readBounded,
  readJsonFile,
  SCHEMAS_FILE_MAX_BYTES,
  textOf,
  writeJsonAtomic
} from "../stores/jsonFile.js"

/**
 * The record of a catalog build: when, of which tool set, and each tool's definition hash. Its
 * `toolSetKey` (absent in records of earlier versions) comes first, so a run reads only the
 * head of the file to know that its tool set is the one recorded.
 */
export const RecordedBuild = Schema.Struct({
  version: Schema.Literal(1),
  toolSetKey: Schema.optional(Schema.String),
  recordedAt: Schema.String,
  hashes: DefinitionHashesJson
})

/** A recorded catalog build (see the schema of the same name). */
export type RecordedBuild = typeof RecordedBuild.Type

/** Where a catalog build is recorded. */
export interface BuildRecordFiles {
  /** The record itself (`RecordedBuild`). */
  readonly record: string
  /** The schemas file the build was made from: linked as `recordedSchemas` when recorded. */
  readonly schemas: string
  /** The schemas as of the recorded build, for the parts of a changed definition. */
  readonly recordedSchemas: string
}

/** A catalog build as a record needs it: its tool-set key and its tools. */
export interface CurrentBuild {
  readonly toolSetKey: string
  readonly tools: ReadonlyArray<ToolEntry>
}

/** What changed since a recorded build: the names, and for each changed tool which parts changed. */
export interface BuildChanges extends DefinitionDiff {
  readonly changes: ReadonlyArray<DefinitionChange>
}

const PartHashesJson = Schema.Struct({
  title: Schema.String,
  description: Schema.String,
  inputSchema: Schema.String,
  outputSchema: Schema.String,
  annotations: Schema.String
})

/** The record of the definitions an agent loaded: each tool's part fingerprints. */
const LoadedRecord = Schema.Struct({
  version: Schema.Literal(1),
  agentId: Schema.String,
  tools: OwnRecord(PartHashesJson)
})

const LOADED_RECORD_MAX_BYTES = 16 * 1024 * 1024

/** What changed between a recorded build (`None`: none recorded, every tool is added) and a build now, by name. */
export const changedSinceRecorded = (recorded: Option.Option<RecordedBuild>, build: CurrentBuild): DefinitionDiff =>
  diffDefinitions(
    new Map(Option.match(recorded, { onNone: () => [], onSome: (found) => Object.entries(found.hashes) })),
    definitionHashes(build.tools)
  )

/** The first schema of each of `names` in a list. */
const schemasNamed = (schemas: ReadonlyArray<ToolSchema>, names: ReadonlySet<string>): Map<string, ToolSchema> => {
  const out = new Map<string, ToolSchema>()
  for (const schema of schemas) if (names.has(schema.name) && !out.has(schema.name)) out.set(schema.name, schema)
  return out
}

export class RecordedBuilds extends Context.Tag("tool-map/RecordedBuilds")<RecordedBuilds, {
  /** True when the record holds the build of this tool set (only the head of the record is read). */
  readonly isRecorded: (files: BuildRecordFiles, toolSetKey: string) => Effect.Effect<boolean>
  /** The recorded build; a record not valid is kept aside (`Corrupt`). */
  readonly read: (files: BuildRecordFiles) => Effect.Effect<JsonFileRead<RecordedBuild>, CatalogFileError>
  /**
   * Records a build, and keeps the schemas it was made from as `recordedSchemas` (a hard link:
   * a file system without them only loses the parts of later changes).
   */
  readonly record: (files: BuildRecordFiles, build: CurrentBuild) => Effect.Effect<void, CatalogFileError>
  /**
   * What changed since the recorded build, with the parts of each changed definition: the
   * earlier definitions are read from `recordedSchemas`, the later ones are `schemas`.
   */
  readonly changes: (
    files: BuildRecordFiles,
    recorded: Option.Option<RecordedBuild>,
    build: CurrentBuild,
    schemas: ReadonlyArray<ToolSchema>
  ) => Effect.Effect<BuildChanges>
  /** The part fingerprints of the tools an agent loaded, recorded in `file`; empty when none, or not valid. */
  readonly loaded: (file: string, agentId: string) => Effect.Effect<ReadonlyMap<string, PartHashes>>
  /** Records the part fingerprints of the tools an agent loaded. */
  readonly recordLoaded: (file: string, agentId: string, tools: ReadonlyMap<string, PartHashes>) => Effect.Effect<void, CatalogFileError>
}>() {
  /** The records on the platform's file system. */
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

const make = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const onPlatform = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
    effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))

  const isRecorded = (files: BuildRecordFiles, toolSetKey: string) =>
    readHead(files.record, KEY_HEAD_BYTES).pipe(
      Effect.map(Option.flatMap((head) => keyInHead(new TextDecoder().decode(head), "toolSetKey"))),
      // Missing, unreadable or not a regular file: only means that the record is written again.
      Effect.orElseSucceed(() => Option.none<string>()),
      Effect.map(Option.contains(toolSetKey)),
      onPlatform,
      Effect.withSpan("RecordedBuilds.isRecorded")
    )

  const read = (files: BuildRecordFiles) => onPlatform(readJsonFile(RecordedBuild, files.record)).pipe(Effect.withSpan("RecordedBuilds.read"))

  /** Links the schemas as `recordedSchemas`: a later snapshot replaces `schemas` by a rename, so the link keeps this one. */
  const linkSchemas = (files: BuildRecordFiles) =>
    Effect.gen(function*() {
      const temp = `${files.recordedSchemas}.partial-${yield* Clock.currentTimeNanos}`
      yield* fs.link(files.schemas, temp)
      yield* fs.rename(temp, files.recordedSchemas).pipe(Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore)))
    }).pipe(Effect.ignore)

  const record = Effect.fn("RecordedBuilds.record")(function*(files: BuildRecordFiles, build: CurrentBuild) {
    const recordedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* onPlatform(writeJsonAtomic(RecordedBuild, files.record, {
      version: 1 as const,
      toolSetKey: build.toolSetKey,
      recordedAt,
      hashes: Object.fromEntries(definitionHashes(build.tools))
    }))
    yield* linkSchemas(files)
  })

  /**
   * The recorded definitions of the tools named, each taken only when its hash is the one
   * recorded (so a link left over from another build never answers); none when the file is
   * not there or not valid: only the parts of a change are lost, the change itself is known.
   */
  const recordedDefinitions = (files: BuildRecordFiles, recorded: RecordedBuild, names: ReadonlySet<string>) =>
    readBounded(files.recordedSchemas, SCHEMAS_FILE_MAX_BYTES, textOf).pipe(
      Effect.map((found) => {
        const schemas = Option.match(Option.flatMap(found, Either.getRight), {
          onNone: () => [],
          onSome: (text) => Either.getOrElse(decodeSchemasText(text), () => [])
        })
        const out = new Map<string, ToolSchema>()
        for (const [name, schema] of schemasNamed(schemas, names)) {
          if (Object.hasOwn(recorded.hashes, name) && factsOf(schema).hash === recorded.hashes[name]) out.set(name, schema)
        }
        return out
      }),
      Effect.orElseSucceed(() => new Map<string, ToolSchema>()),
      onPlatform
    )

  const changes = Effect.fn("RecordedBuilds.changes")(function*(
    files: BuildRecordFiles,
    recorded: Option.Option<RecordedBuild>,
    build: CurrentBuild,
    schemas: ReadonlyArray<ToolSchema>
  ) {
    const diff = changedSinceRecorded(recorded, build)
    const changed = new Set(diff.changed)
    const before = Option.isNone(recorded) || changed.size === 0
      ? new Map<string, ToolSchema>()
      : yield* recordedDefinitions(files, recorded.value, changed)
    const after = schemasNamed(schemas, changed)
    // Every changed name is a tool of the build, so its schema is at hand.
    const changes = diff.changed.flatMap((name) => {
      const now = after.get(name)
      if (now === undefined) return []
      const then = before.get(name)
      return [definitionChange(name, then === undefined ? undefined : definitionParts(then), definitionParts(now))]
    })
    return { ...diff, changes } satisfies BuildChanges
  })

  const loaded = (file: string, agentId: string) =>
    readBounded(file, LOADED_RECORD_MAX_BYTES, textOf).pipe(
      Effect.map((found): ReadonlyMap<string, PartHashes> => {
        if (Option.isNone(found) || Either.isLeft(found.value)) return new Map()
        const decoded = Schema.decodeEither(Schema.parseJson(LoadedRecord))(found.value.right)
        if (Either.isLeft(decoded) || decoded.right.agentId !== agentId) return new Map()
        return new Map(Object.entries(decoded.right.tools))
      }),
      // A record that cannot be read counts as empty: the next change writes it again.
      Effect.orElseSucceed((): ReadonlyMap<string, PartHashes> => new Map()),
      onPlatform,
      Effect.withSpan("RecordedBuilds.loaded")
    )

  const recordLoaded = (file: string, agentId: string, tools: ReadonlyMap<string, PartHashes>) =>
    onPlatform(writeJsonAtomic(LoadedRecord, file, { version: 1 as const, agentId, tools: Object.fromEntries(tools) })).pipe(
      Effect.withSpan("RecordedBuilds.recordLoaded")
    )

  return RecordedBuilds.of({ isRecorded, read, record, changes, loaded, recordLoaded })
})
