import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js"
import { Data, type Effect, type Option, type Stream } from "effect"
import type { McpSession } from "./McpSession.js"
import type { McpProviderError } from "./McpToolProvider.js"

/** What changed among a provider's resources: one resource's content, or the list itself. */
export type McpResourceChange = Data.TaggedEnum<{
  /** The content at `uri` changed: subscribers of `uri` get `notifications/resources/updated`. */
  Updated: { readonly uri: string }
  /** Resources were added or removed: every session gets `notifications/resources/list_changed`. */
  ListChanged: {}
}>

/** Constructors of {@link McpResourceChange}. */
export const McpResourceChange = Data.taggedEnum<McpResourceChange>()

/**
 * A source of MCP resources (the inventory bundle's summary, `tools.md`, `tools.json`).
 * `resources/list` concatenates the providers' lists in order; `resources/read` asks them in
 * order and the first `Option.some` answers (none of them: JSON-RPC error -32002, resource not
 * found). `resources/subscribe` is kept by the server per session; each {@link changes}
 * element is turned into the notifications of {@link McpResourceChange}. A read returns text
 * already neutralized by the provider (and never a secret value).
 */
export interface McpResourceProvider {
  /** A short name for logs and errors. */
  readonly name: string
  readonly listResources: (session: McpSession) => Effect.Effect<ReadonlyArray<Resource>, McpProviderError>
  readonly readResource: (uri: string, session: McpSession) => Effect.Effect<Option.Option<ReadResourceResult>, McpProviderError>
  /** Changes for all sessions, as they happen. */
  readonly changes: Stream.Stream<McpResourceChange>
}
