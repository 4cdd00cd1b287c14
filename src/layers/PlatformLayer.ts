import { Error as PlatformError, FileSystem } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer, Option } from "effect"
import * as NodeFs from "node:fs"

/** The reason @effect/platform-node gives a failed call's errno code. */
const errnoReason = (code: string | undefined): PlatformError.SystemErrorReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

/** `FileSystem.File.Info` of Node's stats, field for field as @effect/platform-node builds it. */
const fileInfo = (stats: NodeFs.Stats): FileSystem.File.Info => ({
  type: stats.isFile()
    ? "File"
    : stats.isDirectory()
      ? "Directory"
      : stats.isSymbolicLink()
        ? "SymbolicLink"
        : stats.isBlockDevice()
          ? "BlockDevice"
          : stats.isCharacterDevice()
            ? "CharacterDevice"
            : stats.isFIFO()
              ? "FIFO"
              : stats.isSocket()
                ? "Socket"
                : "Unknown",
  mtime: Option.fromNullable(stats.mtime),
  atime: Option.fromNullable(stats.atime),
  birthtime: Option.fromNullable(stats.birthtime),
  dev: stats.dev,
  rdev: Option.fromNullable(stats.rdev),
  ino: Option.fromNullable(stats.ino),
  mode: stats.mode,
  nlink: Option.fromNullable(stats.nlink),
  uid: Option.fromNullable(stats.uid),
  gid: Option.fromNullable(stats.gid),
  size: FileSystem.Size(stats.size),
  blksize: Option.map(Option.fromNullable(stats.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stats.blocks)
})

/**
 * `stat` exactly as @effect/platform-node's, except that a failure's `SystemError` is built with
 * its fields in place rather than re-validated by its Schema (they are valid by construction):
 * that validation is most of the cost of `scan --if-stale`, which stats every watched path and
 * most of those, the tool roots and agent-host files a machine does not have, are missing.
 */
const stat = (path: string): Effect.Effect<FileSystem.File.Info, PlatformError.PlatformError> =>
  Effect.async<FileSystem.File.Info, PlatformError.PlatformError>((resume) => {
    try {
      NodeFs.stat(path, (error, stats) => {
        if (error === null) return resume(Effect.succeed(fileInfo(stats)))
        resume(
          Effect.fail(
            new PlatformError.SystemError(
              {
                reason: errnoReason(error.code),
                module: "FileSystem",
                method: "stat",
                description: error.message,
                syscall: error.syscall,
                pathOrDescriptor: path,
                cause: error
              },
              true
            )
          )
        )
      })
    } catch (error) {
      resume(Effect.fail(new PlatformError.BadArgument({ module: "FileSystem", method: "stat", cause: error })))
    }
  })

/** Node's FileSystem with the cheaper {@link stat}. */
const NodeFileSystemLayer = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (fs) => FileSystem.FileSystem.of({ ...fs, stat }))
).pipe(Layer.provide(NodeFileSystem.layer))

/**
 * The platform services tool-map uses (FileSystem, Path, and the Terminal @effect/cli needs),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up.
 */
export const PlatformLayer = Layer.mergeAll(NodeFileSystemLayer, NodePath.layer, NodeTerminal.layer)
