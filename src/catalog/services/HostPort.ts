import { Context, type Effect, type Option, type Stream } from "effect"
import type { ToolSchema } from "../core/model.js"

/** An agent of the host: a main session or a subagent. */
export interface Agent {
  readonly id: string
  /** The session it belongs to, for per-session exemptions (the agent id when absent). */
  readonly sessionId?: string | undefined
  /** The model route its requests use, for per-route exemptions (e.g. `claude-code`). */
  readonly provider?: string | undefined
  /** The agent that started it, when it is a subagent: it inherits the parent's handoffs. */
  readonly parentId?: string | undefined
}

/** An agent started or stopped. */
export type AgentLifecycle =
  | { readonly _tag: "AgentStarted"; readonly agent: Agent }
  | { readonly _tag: "AgentStopped"; readonly agentId: string }

/**
 * What the host implements so tool-map can manage its agents' tools: the tool schemas, how
 * to restrict an agent, what the agent finally sees, and the agents' lifecycle.
 */
export class HostPort extends Context.Tag("tool-map/HostPort")<HostPort, {
  /** The host's name, for messages. */
  readonly name: string
  /** Names that are transports of the host, not capabilities: never listed, loaded or restricted. */
  readonly reserved: ReadonlyArray<string>
  /** Every tool the agent could be given, before any restriction; with `None`, every tool of the host. */
  readonly tools: (agent: Option.Option<Agent>) => Effect.Effect<ReadonlyArray<ToolSchema>>
  /** Restricts the agent to `allow` (in that order), or lifts the restriction with `None`. */
  readonly restrict: (agent: Agent, allow: Option.Option<ReadonlyArray<string>>) => Effect.Effect<void>
  /** The names the agent finally sees after every layer of the host; `None` when it cannot tell. */
  readonly view: (agent: Agent) => Effect.Effect<Option.Option<ReadonlySet<string>>>
  /** Agents alive now. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** Agent starts and stops, followed for as long as the catalog lives. */
  readonly lifecycle: Stream.Stream<AgentLifecycle>
}>() {}
