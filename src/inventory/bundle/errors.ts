import { Schema } from "effect"

/** The bundle could not be read: missing, unreadable, or not a tool-map bundle. */
export class BundleReadError extends Schema.TaggedError<BundleReadError>()("BundleReadError", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `Cannot read the tool-map bundle at ${this.path}: ${this.reason}`
  }
}
