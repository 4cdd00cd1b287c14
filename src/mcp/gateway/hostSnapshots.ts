/**
 * One agent host's MCP servers through the gateway's own parts, for the catalog CLI (issue 29,
 * point 5): the servers are those `--gateway --host H` fronts (`hostServers`), their tools those
 * the gateway would offer (`GatewayServers`: names, the host's filters), read from the gateway's
 * snapshots (`services/ToolSnapshots.ts`) with no server started; and `listHostServers`, which
 * starts each server once to take its snapshot, with the gateway's listing bounds and timeouts.
 */
import { Duration, Effect, Layer, Option } from "effect"
import type { CategoryDefinition, ToolSchema } from "../../catalog/core/model.js"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"
import { defaultDataDir } from "../../inventory/domain/dataDir.js"
import { mcpSchemaCost } from "../../inventory/domain/ledger.js"
import type { SkippedServer } from "../../inventory/discover/agentHosts/index.js"
import { FrontmatterParser } from "../../inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { gatewayDirOf, type Snapshot, Snapshots, snapshotsDirOf } from "../../services/ToolSnapshots.js"
import { DEFAULT_TIMINGS, type DownstreamTimings } from "./Downstream.js"
import { gatewayCategory } from "./GatewayProvider.js"
import { GatewayServers, type ServerEntry } from "./GatewayServers.js"
import { hostServers } from "./hostServers.js"
import { type ServerConfig, toolAllowed } from "./ServerConfig.js"

/**
 * The gateway's timings, but a shorter grace between SIGTERM and SIGKILL of a server's process
 * group: a one-off listing holds no session a server would wind down, and the command must stop
 * within a second of its own SIGTERM.
 */
export const LISTING_TIMINGS: DownstreamTimings = { ...DEFAULT_TIMINGS, killGrace: Duration.millis(400) }

/** One server of the host, as far as its snapshot goes. */
export interface HostServer {
  /** Its name in the host's config (untrusted: neutralize before printing). */
  readonly name: string
  /** The group its tools are in (`mcp__<segment>__<tool>`). */
  readonly segment: string
  /** How many of its tools the host offers, per its snapshot; `None` when it has no snapshot. */
  readonly tools: Option.Option<number>
}

/** The catalog of a host's servers as the gateway would offer it, from the snapshots only. */
export interface HostTools {
  readonly host: AgentHostName
  readonly schemas: ReadonlyArray<ToolSchema>
  /** The gateway's category of these servers (one group per server). */
  readonly category: CategoryDefinition
  readonly servers: ReadonlyArray<HostServer>
  /** Servers the host loads that the gateway leaves out (tool-map itself, denied whole, an entry changed meanwhile). */
  readonly skipped: ReadonlyArray<SkippedServer>
  /** Where the snapshots are kept. */
  readonly snapshotsDir: string
}

/** The outcome of listing one server. */
export interface ListedServer {
  readonly name: string
  readonly segment: string
  /** Listed now, or failed (an earlier snapshot, if any, is kept). */
  readonly outcome: "listed" | "failed"
  /** Of its snapshot on disk after the listing: the tools the host offers, their o200k tokens (the ledger's figure), when it was taken; null without one. */
  readonly tools: number | null
  readonly tokens: number | null
  readonly takenAt: string | null
  /** Why it failed, through the one boundary of untrusted text; null when it was listed. */
  readonly reason: string | null
  /** Its stderr log (stdio servers). */
  readonly log: string | null
}

/** What `listHostServers` says as it goes. */
export type ListingProgress =
  | { readonly _tag: "Starting"; readonly servers: number }
  | { readonly _tag: "Done"; readonly server: ListedServer }

/** The gateway's servers over the data dir's snapshots, starting none by themselves. */
const serversLayer = (servers: ReadonlyArray<ServerConfig>, dataDir: string) =>
  GatewayServers.layer({ servers, dir: gatewayDirOf(dataDir), timings: LISTING_TIMINGS, listAtStart: false }).pipe(
    Layer.provideMerge(Snapshots.layer(snapshotsDirOf(dataDir)))
  )

/** The servers host `host` loads in the working directory, and the data dir of the snapshots. */
const serversOf = (host: AgentHostName, ownCli: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const environment = yield* MachineEnvironment
    const found = yield* hostServers(host, ownCli).pipe(Effect.provide(FrontmatterParser.layer))
    return { ...found, dataDir: defaultDataDir(environment.env, environment.homedir) }
  })

/**
 * The tools of the MCP servers host `host` loads, as the gateway would offer them, from their
 * snapshots: nothing is started; a server without a snapshot has no tools here and is named.
 */
export const hostTools = Effect.fn("hostTools")(function*(host: AgentHostName, ownCli: ReadonlyArray<string>) {
  const found = yield* serversOf(host, ownCli)
  return yield* Effect.gen(function*() {
    const servers = yield* GatewayServers
    const status = yield* servers.status
    return {
      host,
      schemas: yield* servers.schemas,
      category: gatewayCategory(servers.servers),
      servers: status.map((server): HostServer => ({ name: server.name, segment: server.segment, tools: server.tools })),
      skipped: found.skipped,
      snapshotsDir: snapshotsDirOf(found.dataDir)
    } satisfies HostTools
  }).pipe(Effect.provide(serversLayer(found.servers, found.dataDir)))
})

/** The figures of a server's snapshot on disk: the tools its host offers and their tokens, as the ledger counts them. */
const snapshotFigures = (entry: ServerEntry) =>
  Effect.flatMap(Snapshots, (snapshots) => snapshots.read(entry.configHash)).pipe(
    // One that cannot be read counts as none: the gateway and the ledger would not use it either.
    Effect.orElseSucceed(() => Option.none<Snapshot>()),
    Effect.map(Option.match({
      onNone: (): { readonly tools: number | null; readonly tokens: number | null; readonly takenAt: string | null } => ({ tools: null, tokens: null, takenAt: null }),
      onSome: (snapshot) => {
        const offered = snapshot.tools.filter((tool) => toolAllowed(entry.filter, tool.name))
        return { tools: offered.length, tokens: mcpSchemaCost(offered, null, []).measuredTokens ?? 0, takenAt: snapshot.takenAt }
      }
    }))
  )

/**
 * Starts each MCP server host `host` loads once (all at a time), lists its tools with the
 * gateway's bounds and timeouts and keeps them as its snapshot where the gateway keeps them;
 * each server is stopped once listed. A server that fails or hangs costs only its own result.
 */
export const listHostServers = Effect.fn("listHostServers")(function*(
  host: AgentHostName,
  ownCli: ReadonlyArray<string>,
  onProgress: (progress: ListingProgress) => Effect.Effect<void>
) {
  const found = yield* serversOf(host, ownCli)
  const listed = yield* Effect.gen(function*() {
    const servers = yield* GatewayServers
    yield* onProgress({ _tag: "Starting", servers: servers.servers.length })
    return yield* Effect.forEach(servers.servers, (entry) =>
      Effect.gen(function*() {
        // Stopped as soon as it is listed: a server that hangs keeps no other running.
        const outcome = yield* Effect.either(servers.list(entry)).pipe(Effect.ensuring(entry.downstream.stop))
        const figures = yield* snapshotFigures(entry)
        // Listed but not kept (its write failed, said in a warning): no later run would see it.
        const reason = outcome._tag === "Left"
          ? Option.some(outcome.left.reason)
          : figures.tools === null
          ? Option.some("was listed, but its snapshot could not be written (see the warning above)")
          : Option.none()
        const server: ListedServer = {
          name: entry.downstream.name,
          segment: entry.segment,
          outcome: Option.isNone(reason) ? "listed" : "failed",
          ...figures,
          reason: Option.getOrNull(reason),
          log: Option.getOrNull(entry.downstream.logPath)
        }
        yield* onProgress({ _tag: "Done", server })
        return server
      }), { concurrency: "unbounded" })
  }).pipe(Effect.provide(serversLayer(found.servers, found.dataDir)))
  return { host, servers: listed, skipped: found.skipped, snapshotsDir: snapshotsDirOf(found.dataDir) }
})
