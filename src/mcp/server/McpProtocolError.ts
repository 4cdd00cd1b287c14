import { Schema } from "effect"

/** A request the server refuses with a JSON-RPC error (unknown tool, unknown resource). */
export class McpProtocolError extends Schema.TaggedError<McpProtocolError>()("McpProtocolError", {
  /** The JSON-RPC error code (`ErrorCode` of the SDK, or -32002 for a resource not found). */
  code: Schema.Number,
  reason: Schema.String
}) {
  get message() {
    return this.reason
  }
}

/** JSON-RPC error code of `resources/read` of an unknown URI (the spec's "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002
