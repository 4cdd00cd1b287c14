/**
 * The snapshots of MCP servers' tool lists: one file per configuration hash
 * (`configHash` of `inventory/discover/agentHosts/mcpLaunch.ts`) under
 * `<data dir>/gateway/snapshots/`, written by the gateway when it lists a server and read back by
 * the gateway (to start no server) and by the inventory's ledger (to count a server's tool
 * schemas, issue 14). Read with a size cap and a file-type check, decoded by one schema, written
 * atomically.
 */
import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import * as NodePath from "node:path"
import { readRegularFile } from "./fileRead.js"
import { writeFileAtomically } from "./fileWrite.js"

/** The largest snapshot read back: a server of 10,000 tools with large schemas fits well within it. */
export const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024

/** The `join` of a path module (node's posix or win32, or the platform's `Path`). */
interface Joiner {
  readonly join: (...segments: Array<string>) => string
}

/** The gateway's files under the data dir. */
export const gatewayDirOf = (dataDir: string, path: Joiner = NodePath): string => path.join(dataDir, "gateway")

/** Where the snapshots are kept under the data dir. */
export const snapshotsDirOf = (dataDir: string, path: Joiner = NodePath): string => path.join(gatewayDirOf(dataDir, path), "snapshots")

/** A tool as a server listed it: its name and input schema checked, every other field as it came. */
export interface SnapshotTool {
  readonly name: string
  readonly inputSchema: unknown
  readonly description?: unknown
  readonly [field: string]: unknown
}

/** A server's `tools/list` as the gateway keeps it. */
export interface Snapshot {
  /** The server's name when it was taken (for a reader of the file). */
  readonly server: string
  readonly configHash: string
  readonly takenAt: string
  /** The tools exactly as the server listed them. */
  readonly tools: ReadonlyArray<SnapshotTool>
}

const SnapshotFile = Schema.Struct({
  version: Schema.Literal(1),
  server: Schema.String,
  configHash: Schema.String,
  takenAt: Schema.String,
  tools: Schema.Array(Schema.Struct({ name: Schema.String, inputSchema: Schema.Unknown }, Schema.Record({ key: Schema.String, value: Schema.Unknown })))
})

const decodeSnapshotFile = Schema.decodeEither(Schema.parseJson(SnapshotFile))

/** A snapshot that could not be read or written; the gateway then starts the server to list it. */
export class SnapshotUnusable extends Schema.TaggedError<SnapshotUnusable>()("SnapshotUnusable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The tool snapshot ${this.path} cannot be used: ${this.reason}`
  }
}

/** The snapshot in `file` of configuration `configHash`; `None` when there is none. */
export const readSnapshotFile = (
  file: string,
  configHash: string
): Effect.Effect<Option.Option<Snapshot>, SnapshotUnusable, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const unusable = (reason: string) => new SnapshotUnusable({ path: file, reason })
    const bytes = yield* readRegularFile(file, SNAPSHOT_MAX_BYTES).pipe(
      Effect.mapError((error) => unusable(error._tag === "FileRefused" ? error.reason : error.message))
    )
    if (Option.isNone(bytes)) return Option.none<Snapshot>()
    const decoded = decodeSnapshotFile(new TextDecoder().decode(bytes.value))
    if (Either.isLeft(decoded)) return yield* unusable(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
    const value = decoded.right
    if (value.configHash !== configHash) return yield* unusable("it belongs to another configuration")
    return Option.some<Snapshot>({ server: value.server, configHash: value.configHash, takenAt: value.takenAt, tools: value.tools })
  }).pipe(Effect.withSpan("readSnapshotFile"))

/** The snapshot file of a configuration in a snapshots dir. */
export const snapshotFileOf = (dir: string, configHash: string, path: Joiner = NodePath): string =>
  path.join(dir, `${configHash}.json`)

/**
 * The snapshots of one snapshots dir (the gateway's, `snapshotsDirOf(data dir)`): read and
 * written by configuration hash.
 */
export class Snapshots extends Context.Tag("tool-map/Snapshots")<Snapshots, {
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
        const pathOf = (configHash: string) => snapshotFileOf(dir, configHash, path)

        const read = Effect.fn("Snapshots.read")(function*(configHash: string) {
          return yield* readSnapshotFile(pathOf(configHash), configHash).pipe(Effect.provideService(FileSystem.FileSystem, fs))
        })

        const write = Effect.fn("Snapshots.write")(function*(snapshot: Snapshot) {
          const file = pathOf(snapshot.configHash)
          yield* writeFileAtomically(file, `${JSON.stringify({ version: 1, ...snapshot })}\n`).pipe(
            Effect.mapError((error) => new SnapshotUnusable({ path: file, reason: error.message })),
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.provideService(Path.Path, path)
          )
        })

        return Snapshots.of({ read, write, pathOf })
      })
    )
}
