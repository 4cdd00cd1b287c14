/**
 * The gateway as a catalog host: its tools are the downstream servers' tools, its agents the
 * MCP client sessions, and a restriction is what a session's `tools/list` returns. The catalog
 * calls `restrict` after every load, unload and refresh that changes an agent's allow-list;
 * each one sends the agent's sessions `notifications/tools/list_changed`.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Option, PubSub, Ref, type Scope, Stream } from "effect"
import { type Agent, HostPort } from "../../catalog/services/HostPort.js"
import { GatewayServers } from "./GatewayServers.js"
import { LoadedDefinitions } from "./LoadedDefinitions.js"

/** The restrictions the catalog handed over, per agent, and the signals they send. */
export class GatewayRestrictions extends Context.Tag("tool-map/gateway/GatewayRestrictions")<GatewayRestrictions, {
  /** The agent's allow-list (`None`: unrestricted); `None` outside when the catalog never restricted it. */
  readonly allowOf: (agentId: string) => Effect.Effect<Option.Option<Option.Option<ReadonlyArray<string>>>>
  readonly set: (agentId: string, allow: Option.Option<ReadonlyArray<string>>) => Effect.Effect<void>
  /** Sends the agent's sessions `notifications/tools/list_changed` (a held-back tool was accepted). */
  readonly signal: (agentId: string) => Effect.Effect<void>
  /** Sends every session `notifications/tools/list_changed` (the tools' definitions changed). */
  readonly signalAll: Effect.Effect<void>
  /** One element each time the agent's list changed. */
  readonly changes: (agentId: string) => Stream.Stream<void>
}>() {
  static readonly layer = Layer.scoped(
    this,
    Effect.gen(function*() {
      const allows = yield* Ref.make<ReadonlyMap<string, Option.Option<ReadonlyArray<string>>>>(new Map())
      // `None` signals every agent.
      const hub = yield* Effect.acquireRelease(PubSub.unbounded<Option.Option<string>>(), PubSub.shutdown)
      return GatewayRestrictions.of({
        allowOf: (agentId) => Effect.map(Ref.get(allows), (all) => Option.fromNullable(all.get(agentId))),
        set: (agentId, allow) =>
          Ref.update(allows, (all) => new Map(all).set(agentId, allow)).pipe(
            Effect.zipRight(PubSub.publish(hub, Option.some(agentId))),
            Effect.asVoid
          ),
        signal: (agentId) => Effect.asVoid(PubSub.publish(hub, Option.some(agentId))),
        signalAll: Effect.asVoid(PubSub.publish(hub, Option.none())),
        changes: (agentId) =>
          Stream.fromPubSub(hub).pipe(
            Stream.filter((target) => Option.isNone(target) || target.value === agentId),
            Stream.as(undefined)
          )
      })
    })
  )
}

/** The gateway's `HostPort`: agents are attached by the MCP sessions themselves, not by a lifecycle stream. */
export const GatewayPort: Layer.Layer<HostPort, never, GatewayServers | GatewayRestrictions | LoadedDefinitions> = Layer.effect(
  HostPort,
  Effect.gen(function*() {
    const servers = yield* GatewayServers
    const restrictions = yield* GatewayRestrictions
    const loaded = yield* LoadedDefinitions
    const restrict = (agent: Agent, allow: Option.Option<ReadonlyArray<string>>) =>
      Effect.gen(function*() {
        if (Option.isSome(allow)) {
          const names = new Map<string, Option.Option<Tool>>()
          for (const name of allow.value) names.set(name, Option.map(yield* servers.lookup(name), (tool) => tool.tool))
          yield* loaded.track(agent.id, allow.value, (name) => names.get(name) ?? Option.none())
        }
        yield* restrictions.set(agent.id, allow)
      }).pipe(Effect.withSpan("GatewayPort.restrict"))
    return HostPort.of({
      name: "tool-map gateway",
      reserved: [],
      tools: () => servers.schemas,
      restrict,
      view: () => Effect.succeed(Option.none()),
      agents: Effect.succeed([]),
      lifecycle: Stream.empty
    })
  })
)

/** Forwards every change of the servers' tool lists to the catalog and to every session. */
export const followServers = (refreshCatalog: Effect.Effect<void>): Effect.Effect<void, never, GatewayServers | GatewayRestrictions | Scope.Scope> =>
  Effect.gen(function*() {
    const servers = yield* GatewayServers
    const restrictions = yield* GatewayRestrictions
    yield* servers.changes.pipe(
      Stream.runForEach(() => Effect.zipRight(refreshCatalog, restrictions.signalAll)),
      Effect.forkScoped
    )
  })
