import { Context, type Effect, Schema } from "effect"

/** The embedding provider failed; the router then ranks lexically alone. */
export class EmbedderError extends Schema.TaggedError<EmbedderError>()("EmbedderError", {
  provider: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The embedding provider ${this.provider} failed: ${this.reason}`
  }
}

/**
 * A port for vectors a host already has (an embedding model of its own, a vector service): the
 * router ranks the catalog with them too and fuses both rankings (reciprocal rank fusion).
 * Nothing requires one; without it the router is lexical, offline and deterministic. A
 * provider must return one vector per text, all of one length, the same text always giving
 * the same vector.
 */
export class Embedder extends Context.Tag("tool-map/Embedder")<Embedder, {
  /** A short name for diagnostics. */
  readonly name: string
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
  /**
   * The vectors of a task, its clauses and words (what the router searches with), for a provider
   * that embeds queries apart from documents (a model's query prefix or input type): one vector
   * per text, in the same space and of the same length as `embed`'s. `embed` is used without it.
   * Vectors of another count or length fail the ranking's use of the provider (one warning; the
   * router ranks by words alone).
   */
  readonly embedTasks?: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
}>() {}
