import { FileSystem, Path } from "@effect/platform"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { writeFileAtomic } from "../../catalog/stores/jsonFile.js"
import { readBoundedFile } from "./boundedFile.js"

/** The largest snapshot read back: a server of 10,000 tools with large schemas fits well within it. */
export const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024

/** A server's `tools/list` as the gateway keeps it. */
export interface Snapshot {
  /** The server's name when it was taken (for a reader of the file). */
  readonly server: string
  readonly configHash: string
  readonly takenAt: string
  /** The tools exactly as the server listed them. */
  readonly tools: ReadonlyArray<Tool>
}

const SnapshotFile = Schema.Struct({
  version: Schema.Literal(1),
  server: Schema.String,
  configHash: Schema.String,
  takenAt: Schema.String,
  tools: Schema.Array(Schema.Struct({ name: Schema.String, inputSchema: Schema.Unknown }, Schema.Record({ key: Schema.String, value: Schema.Unknown })))
})

/** A snapshot that could not be read or written; the gateway then starts the server to list it. */
export class SnapshotUnusable extends Schema.TaggedError<SnapshotUnusable>()("SnapshotUnusable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The tool snapshot ${this.path} cannot be used: ${this.reason}`
  }
}

/**
 * The snapshots of the downstream servers' tool lists, one file per configuration hash under
 * `<gateway dir>/snapshots/`: read with a size cap and a file-type check, written atomically.
 */
export class Snapshots extends Context.Tag("tool-map/gateway/Snapshots")<Snapshots, {
  /** The snapshot of a configuration; `None` when none was taken. */
  readonly read: (configHash: string) => Effect.Effect<Option.Option<Snapshot>, SnapshotUnusable>
  readonly write: (snapshot: Snapshot) => Effect.Effect<void, SnapshotUnusable>
  readonly pathOf: (configHash: string) => string
}>() {
  static readonly layer = (dir: string) =>
    Layer.effect(
      this,
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const pathOf = (configHash: string) => path.join(dir, `${configHash}.json`)

        const read = Effect.fn("Snapshots.read")(function*(configHash: string) {
          const file = pathOf(configHash)
          const unusable = (reason: string) => new SnapshotUnusable({ path: file, reason })
          const bytes = yield* readBoundedFile(file, SNAPSHOT_MAX_BYTES).pipe(
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.mapError((error) => unusable(error.reason))
          )
          if (Option.isNone(bytes)) return Option.none<Snapshot>()
          const decoded = Schema.decodeEither(Schema.parseJson(SnapshotFile))(new TextDecoder().decode(bytes.value))
          if (Either.isLeft(decoded)) return yield* unusable(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
          const value = decoded.right
          if (value.configHash !== configHash) return yield* unusable("it belongs to another configuration")
          return Option.some<Snapshot>({
            server: value.server,
            configHash: value.configHash,
            takenAt: value.takenAt,
            tools: value.tools as ReadonlyArray<Tool>
          })
        })

        const write = Effect.fn("Snapshots.write")(function*(snapshot: Snapshot) {
          const file = pathOf(snapshot.configHash)
          yield* writeFileAtomic(file, `${JSON.stringify({ version: 1, ...snapshot })}\n`).pipe(
            Effect.mapError((error) => new SnapshotUnusable({ path: file, reason: error.reason })),
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.provideService(Path.Path, path)
          )
        })

        return Snapshots.of({ read, write, pathOf })
      })
    )
}
