import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { readUpTo } from "../../services/fileRead.js"

/** A file the gateway reads back is not a regular file, is too large, or cannot be read. */
export class FileUnreadable extends Schema.TaggedError<FileUnreadable>()("FileUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `${this.path} cannot be read: ${this.reason}`
  }
}

/**
 * The bytes of a regular file of at most `maxBytes`, `None` when it does not exist. The size is
 * checked on the stat and again on the read, so a file growing meanwhile is refused too.
 */
export const readBoundedFile = (path: string, maxBytes: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const unreadable = (reason: string) => new FileUnreadable({ path, reason })
    const info = yield* fs.stat(path).pipe(
      Effect.map(Option.some),
      Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeedNone),
      Effect.mapError((error) => unreadable(error.message))
    )
    if (Option.isNone(info)) return Option.none<Uint8Array>()
    if (info.value.type !== "File") return yield* unreadable(`it is not a regular file (${info.value.type})`)
    const tooLarge = unreadable(`it is larger than ${maxBytes} bytes`)
    if (info.value.size > BigInt(maxBytes)) return yield* tooLarge
    const bytes = yield* Effect.scoped(
      Effect.flatMap(fs.open(path, { flag: "r" }), (file) => readUpTo(file, maxBytes + 1))
    ).pipe(Effect.mapError((error) => unreadable(error.message)))
    if (bytes.length > maxBytes) return yield* tooLarge
    return Option.some<Uint8Array>(bytes)
  })
