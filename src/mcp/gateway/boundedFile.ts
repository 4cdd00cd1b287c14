import { Effect, Schema } from "effect"
import { readRegularFile } from "../../services/fileRead.js"

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
 * The bytes of a regular file of at most `maxBytes`, `None` when it does not exist: the data
 * files' bounded read (`readRegularFile`), its refusals and failures as one error.
 */
export const readBoundedFile = (path: string, maxBytes: number) =>
  readRegularFile(path, maxBytes).pipe(
    Effect.mapError((error) => new FileUnreadable({ path, reason: error._tag === "FileRefused" ? error.reason : error.message }))
  )
