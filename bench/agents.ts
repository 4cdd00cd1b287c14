/**
 * Agent churn: attaches and detaches agents one after another through
 * `HostLayerNode({ persist: false })`, each with tools of its own (200 by default, from
 * `generateTools`), and reports what the catalog keeps afterwards: the agents its sessions and
 * visibility store still hold, and the growth of the live heap (after a forced GC) against a
 * warmed-up start. A catalog that forgets a detached agent grows by about nothing; one that
 * keeps each agent's build grows by the size of every build.
 *
 *   npx tsx bench/agents.ts               # 1,000 agents of 200 tools
 *   npx tsx bench/agents.ts 600 200       # agents, tools per agent
 */
import { Effect, HashMap, Layer, Option, Ref, Stream } from "effect"
import { pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import type { ToolSchema } from "../src/catalog/core/model.js"
import { AgentSessions, type SessionCounts } from "../src/catalog/services/AgentSessions.js"
import { HostPort } from "../src/catalog/services/HostPort.js"
import { ToolCatalog } from "../src/catalog/services/ToolCatalog.js"
import { VisibilityStore } from "../src/catalog/stores/VisibilityStore.js"
import { HostLayerNode } from "../src/layers/HostLayer.js"
import { generateTools } from "./catalogGenerators.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** What a churn run measured. */
export interface AgentChurn {
  readonly agents: number
  readonly toolsPerAgent: number
  /** Live heap after the run minus after the warm-up, both after a forced GC, in MB. */
  readonly heapGrowthMb: number
  /** What the sessions still hold at the end. */
  readonly sessions: SessionCounts
  /** Agents the visibility store still holds in memory at the end. */
  readonly storedAgents: number
  readonly wallMs: number
}

const liveHeapMb = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

/** A host whose agents each bring tools of their own, held only while the agent runs. */
const churnHost = Effect.gen(function*() {
  const toolsOf = yield* Ref.make(HashMap.empty<string, ReadonlyArray<ToolSchema>>())
  const port = Layer.succeed(HostPort, {
    name: "churn",
    reserved: [],
    tools: (agent) =>
      Option.match(agent, {
        onNone: () => Effect.succeed([]),
        onSome: (a) => Effect.map(Ref.get(toolsOf), (all) => Option.getOrElse(HashMap.get(all, a.id), () => []))
      }),
    restrict: () => Effect.void,
    view: () => Effect.succeed(Option.none()),
    agents: Effect.succeed([]),
    lifecycle: Stream.empty
  })
  return {
    port,
    start: (id: string, tools: ReadonlyArray<ToolSchema>) => Ref.update(toolsOf, HashMap.set(id, tools)),
    stop: (id: string) => Ref.update(toolsOf, HashMap.remove(id))
  }
})

/**
 * Attaches and detaches `agents` agents (after `warmup` uncounted ones, 300 by default, which
 * fill the builder's cache and the core's bounded name caches and warm the JIT), each with
 * `toolsPerAgent` tools of its own.
 */
export const measureAgentChurn = (options: {
  readonly agents: number
  readonly toolsPerAgent: number
  readonly warmup?: number | undefined
}): Promise<AgentChurn> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const host = yield* churnHost
      return yield* Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        const cycle = (i: number) =>
          Effect.gen(function*() {
            const id = `agent-${i}`
            yield* host.start(id, generateTools(options.toolsPerAgent, i + 1))
            yield* catalog.attach({ id, provider: "bench" })
            yield* catalog.detach(id)
            yield* host.stop(id)
          })
        const warmup = options.warmup ?? 300
        for (let i = 0; i < warmup; i++) yield* cycle(i)
        const before = liveHeapMb()
        const started = performance.now()
        for (let i = warmup; i < warmup + options.agents; i++) yield* cycle(i)
        const wallMs = performance.now() - started
        const after = liveHeapMb()
        return {
          agents: options.agents,
          toolsPerAgent: options.toolsPerAgent,
          heapGrowthMb: after - before,
          sessions: yield* (yield* AgentSessions).counts,
          storedAgents: (yield* (yield* VisibilityStore).agents).length,
          wallMs
        } satisfies AgentChurn
      }).pipe(Effect.provide(HostLayerNode({ persist: false }).pipe(Layer.provide(host.port))))
    })
  )

/** The bench's markdown: one churn of 1,000 agents of 200 tools. */
export const runAgentsBench = async (agents = 1_000, toolsPerAgent = 200): Promise<string> => {
  const churn = await measureAgentChurn({ agents, toolsPerAgent })
  return [
    "| agents attached and detached | tools each | heap growth (after GC) | agents still held (sessions / store) | build memos held | wall time |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    `| ${churn.agents.toLocaleString("en-US")} | ${churn.toolsPerAgent} | ${churn.heapGrowthMb.toFixed(1)} MB | ${churn.sessions.agents} / ${churn.storedAgents} | ${churn.sessions.memos} | ${
      (churn.wallMs / 1000).toFixed(1)
    } s |`,
    "",
    "Measured after 300 uncounted agents (they fill the builder's and the core's bounded caches). Goal: a heap growth of a few MB at most, and nothing held for a detached agent."
  ].join("\n")
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [agents, tools] = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0)
  console.log(await runAgentsBench(agents, tools))
}
