import { Schema } from "effect"
import { BundleLocked, BundleWriteError } from "./BundleWriter.js"

/** The redirect path given to `scan` (or a query's `--from`) does not name a markdown file. */
export class RedirectPathInvalid extends Schema.TaggedError<RedirectPathInvalid>()("RedirectPathInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The output path ${this.path} is not usable: ${this.reason}. Give a path ending in .md, e.g. out/inventory.md.`
  }
}

/**
 * What made a read fail when it was not the bundle's own content: the path could not be
 * located, the repair of an interrupted commit failed, or the first scan could not commit.
 */
export const BundleReadCause = Schema.Union(RedirectPathInvalid, BundleWriteError, BundleLocked)
export type BundleReadCause = typeof BundleReadCause.Type

/**
 * The bundle could not be read: unreadable, not a tool-map bundle, or (with a `cause`) not
 * located, not repaired, or not written by the first scan. The exit code follows the cause.
 */
export class BundleReadError extends Schema.TaggedError<BundleReadError>()("BundleReadError", {
  path: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(BundleReadCause)
}) {
  get message() {
    return `Cannot read the tool-map bundle at ${this.path}: ${this.reason}`
  }
}
