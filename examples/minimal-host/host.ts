/**
 * A minimal in-memory agent host: a tool registry, agents that start and stop, and a
 * per-agent allow-list it enforces when it dispatches a call. It implements tool-map's
 * `HostPort`, which is all a host needs to embed the catalog.
 */
import { Effect, Layer, Option, Queue, Ref, Stream } from "effect"
import { type Catalog, Host } from "../../src/index.js"

type Agent = Host.Agent
type ToolSchema = Catalog.ToolSchema

/** How the host starts. */
export interface MemoryHostOptions {
  readonly tools: ReadonlyArray<ToolSchema>
  /** Transport tools of the host itself: never restricted. */
  readonly reserved?: ReadonlyArray<string> | undefined
  /** Names another layer of the host hides (a connector rule): not callable even when allowed. */
  readonly hidden?: ReadonlyArray<string> | undefined
}

/** The host's side: what tests and the example drive. */
export interface MemoryHost {
  /** The port tool-map runs over. */
  readonly port: Layer.Layer<Host.HostPort>
  readonly addTool: (tool: ToolSchema) => Effect.Effect<void>
  readonly removeTool: (name: string) => Effect.Effect<void>
  readonly setTools: (tools: ReadonlyArray<ToolSchema>) => Effect.Effect<void>
  readonly startAgent: (agent: Agent) => Effect.Effect<void>
  readonly stopAgent: (agentId: string) => Effect.Effect<void>
  /** The allow-list last given for an agent (`None` = unrestricted), if any was. */
  readonly restrictionOf: (agentId: string) => Effect.Effect<Option.Option<Option.Option<ReadonlyArray<string>>>>
  /** How many times the host was asked to restrict an agent. */
  readonly restrictCalls: (agentId: string) => Effect.Effect<number>
  /** The names an agent's model is sent, in order. */
  readonly visibleTo: (agentId: string) => Effect.Effect<ReadonlyArray<string>>
}

/** Builds the host. Its agent lifecycle is a queue, so no start is lost before tool-map listens. */
export const makeMemoryHost = (options: MemoryHostOptions) =>
  Effect.gen(function*() {
    const tools = yield* Ref.make<ReadonlyArray<ToolSchema>>(options.tools)
    const agents = yield* Ref.make<ReadonlyMap<string, Agent>>(new Map())
    const restrictions = yield* Ref.make<ReadonlyMap<string, Option.Option<ReadonlyArray<string>>>>(new Map())
    const calls = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
    const lifecycle = yield* Queue.unbounded<Host.AgentLifecycle>()
    const reserved = options.reserved ?? []
    const hidden = new Set(options.hidden ?? [])

    const visibleTo = (agentId: string) =>
      Effect.gen(function*() {
        const all = (yield* Ref.get(tools)).map((tool) => tool.name)
        const registered = new Set(all)
        const restriction = (yield* Ref.get(restrictions)).get(agentId) ?? Option.none()
        const allowed = Option.match(restriction, {
          onNone: () => all,
          onSome: (allow) => allow.filter((name) => registered.has(name))
        })
        const allowedSet = new Set(allowed)
        // Reserved tools are added after every restriction; hidden ones removed by another layer.
        return [...allowed, ...reserved.filter((name) => !allowedSet.has(name) && registered.has(name))]
          .filter((name) => !hidden.has(name))
      })

    const port = Layer.succeed(Host.HostPort, {
      name: "minimal-host",
      reserved,
      tools: () => Ref.get(tools),
      restrict: (agent, allow) =>
        Effect.all([
          Ref.update(restrictions, (map) => new Map(map).set(agent.id, allow)),
          Ref.update(calls, (map) => new Map(map).set(agent.id, (map.get(agent.id) ?? 0) + 1))
        ], { discard: true }),
      view: (agent) => Effect.map(visibleTo(agent.id), (names) => Option.some(new Set(names))),
      agents: Effect.map(Ref.get(agents), (map) => [...map.values()]),
      lifecycle: Stream.fromQueue(lifecycle)
    })

    return {
      port,
      addTool: (tool) => Ref.update(tools, (list) => [...list.filter((t) => t.name !== tool.name), tool]),
      removeTool: (name) => Ref.update(tools, (list) => list.filter((t) => t.name !== name)),
      setTools: (list) => Ref.set(tools, list),
      startAgent: (agent) =>
        Ref.update(agents, (map) => new Map(map).set(agent.id, agent)).pipe(
          Effect.zipRight(Queue.offer(lifecycle, { _tag: "AgentStarted", agent }))
        ),
      stopAgent: (agentId) =>
        Ref.update(agents, (map) => {
          const next = new Map(map)
          next.delete(agentId)
          return next
        }).pipe(Effect.zipRight(Queue.offer(lifecycle, { _tag: "AgentStopped", agentId }))),
      restrictionOf: (agentId) => Effect.map(Ref.get(restrictions), (map) => Option.fromNullable(map.get(agentId))),
      restrictCalls: (agentId) => Effect.map(Ref.get(calls), (map) => map.get(agentId) ?? 0),
      visibleTo
    } satisfies MemoryHost
  })
