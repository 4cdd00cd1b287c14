/**
 * The gateway's graph: the downstream servers and their snapshots, the gateway's `HostPort`,
 * the catalog over it (its state where the CLI keeps the catalog's, under the same lock), and
 * the provider the MCP server serves. Everything the gateway starts is stopped with the layer.
 */
import { FileSystem, type Path } from "@effect/platform"
import { type Duration, Effect, Layer, Option, Queue } from "effect"
import * as NodePath from "node:path"
import { ToolCatalog } from "../catalog/services/ToolCatalog.js"
import { ApprovalCodes, approvalsFileIn } from "../catalog/stores/ApprovalCodes.js"
import type { CatalogFileError } from "../catalog/stores/jsonFile.js"
import { defaultDataDir } from "../inventory/domain/dataDir.js"
import { CatalogLayer, defaultCatalogDir } from "./HostLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { gatewayDirOf, Snapshots, snapshotsDirOf } from "../services/ToolSnapshots.js"
import type { AgentHostName } from "../inventory/domain/agentHosts.js"
import { FrontmatterParser } from "../inventory/discover/FrontmatterParser.js"
import { neutralize } from "../inventory/render/text.js"
import { McpProviders } from "../mcp/server/McpProviders.js"
import type { McpGatewayOptions } from "../mcp/server/options.js"
import type { DownstreamTimings } from "../mcp/gateway/Downstream.js"
import { followServers, GatewayPort, GatewayRestrictions } from "../mcp/gateway/GatewayHost.js"
import { gatewayCategory, makeGatewayProvider } from "../mcp/gateway/GatewayProvider.js"
import { GatewayServers } from "../mcp/gateway/GatewayServers.js"
import { LoadedDefinitions } from "../mcp/gateway/LoadedDefinitions.js"
import { hostServers } from "../mcp/gateway/hostServers.js"
import { readServersFile, type ServerConfig } from "../mcp/gateway/ServerConfig.js"

/** How the gateway runs. */
export interface GatewayLayerOptions {
  readonly servers: ReadonlyArray<ServerConfig>
  /** `--agent`: the agent every session runs as (default: the client's name). */
  readonly agent: Option.Option<string>
  /** The data dir (default: the inventory's, `$PLUGIN_DATA` …); the gateway's files go to `gateway/` under it. */
  readonly dataDir?: string | undefined
  /** The catalog's dir (default: the CLI's, `<data dir>/catalog`). */
  readonly catalogDir?: string | undefined
  readonly timings?: Partial<DownstreamTimings> | undefined
  /** How long a load's answer waits for the client to re-list (see `RELIST_HOLD`). */
  readonly relistHold?: Duration.DurationInput | undefined
  /**
   * The load budget of this gateway's agents, in tokens (default `DEFAULT_LOAD_BUDGET`); the
   * catalog's settings file, when it sets `loadBudget`, wins.
   */
  readonly loadBudget?: number | undefined
}

/** Says on stderr which downstream tools a server added, removed or changed (a changed one may be a rug pull). */
const reportDefinitionChanges = (catalog: ToolCatalog["Type"]) =>
  Effect.gen(function*() {
    const events = yield* catalog.subscribe
    yield* Queue.take(events).pipe(
      Effect.flatMap((event) => {
        if (event._tag !== "DefinitionsChanged") return Effect.void
        const parts = [["changed", event.changed], ["added", event.added], ["removed", event.removed]] as const
        const text = parts.filter(([, names]) => names.length > 0).map(([label, names]) => `${label}: ${names.map(neutralize).join(", ")}`)
        return Effect.logWarning(`tool-map mcp --gateway: downstream tool definitions changed (${text.join("; ")})`)
      }),
      Effect.forever,
      Effect.forkScoped
    )
  })

/**
 * `McpProviders` of the gateway, over the platform's FileSystem and Path and the machine's
 * environment; its `GatewayServers` too, for a caller that waits for their first listing.
 */
export const GatewayLayer = (
  options: GatewayLayerOptions
): Layer.Layer<McpProviders | GatewayServers, CatalogFileError, FileSystem.FileSystem | Path.Path | MachineEnvironment> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const environment = yield* MachineEnvironment
      const dataDir = options.dataDir ?? defaultDataDir(environment.env, environment.homedir)
      const dir = gatewayDirOf(dataDir)
      const catalogDir = options.catalogDir ??
        (options.dataDir === undefined ? defaultCatalogDir(environment.env, environment.homedir) : NodePath.join(dataDir, "catalog"))
      const servers = GatewayServers.layer({ servers: options.servers, dir, timings: options.timings }).pipe(
        Layer.provide(Snapshots.layer(snapshotsDirOf(dataDir)))
      )
      const host = Layer.mergeAll(
        servers,
        GatewayRestrictions.layer,
        LoadedDefinitions.layer(NodePath.join(dir, "loaded")),
        // Where the CLI's `catalog approve` finds the codes: the catalog's dir.
        ApprovalCodes.layer(approvalsFileIn(catalogDir))
      )
      // The manifest is the gateway's own: the CLI's describes the CLI's schemas.
      const catalog = CatalogLayer({ dir: catalogDir, files: { manifest: NodePath.join(dir, "manifest.json") }, loadBudget: options.loadBudget }).pipe(
        Layer.provide(GatewayPort)
      )
      const providers = Layer.scoped(
        McpProviders,
        Effect.gen(function*() {
          const toolCatalog = yield* ToolCatalog
          yield* toolCatalog.defineCategory(gatewayCategory((yield* GatewayServers).servers))
          yield* followServers(toolCatalog.refresh)
          yield* reportDefinitionChanges(toolCatalog)
          const provider = yield* makeGatewayProvider({ agent: options.agent, relistHold: options.relistHold })
          return { tools: [provider], resources: [] }
        })
      )
      return providers.pipe(Layer.provide(catalog), Layer.provideMerge(host))
    })
  )

/** The host whose servers `--gateway` fronts when no `--host` is given. */
export const DEFAULT_GATEWAY_HOST: AgentHostName = "claude-code"

/** The paths of the running CLI (as started, and its real path), so that an entry running it is known as tool-map itself. */
export const ownCliPaths = Effect.gen(function*() {
  const started = process.argv[1]
  if (started === undefined) return []
  const fs = yield* FileSystem.FileSystem
  const real = yield* fs.realPath(started).pipe(Effect.orElseSucceed(() => started))
  return real === started ? [started] : [started, real]
})

/**
 * The gateway of `tool-map mcp --gateway`: over the servers of `--servers FILE`, else those
 * `--host` (default Claude Code) would load in the working directory. Entries that run tool-map
 * itself are never fronted; Claude Code's servers (`--host claude-code`, or a servers file of
 * host `claude-code`) keep Claude Code's deny rules. Servers left out (tool-map itself, denied
 * whole, a transport the gateway does not speak) are named in a warning on stderr.
 */
export const GatewayFromOptions = (options: McpGatewayOptions) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const environment = yield* MachineEnvironment
      const ownCli = yield* ownCliPaths
      const found = Option.isSome(options.servers)
        ? yield* readServersFile(options.servers.value, { env: environment.env, cwd: environment.cwd, ownCli })
        : yield* hostServers(Option.getOrElse(options.host, () => DEFAULT_GATEWAY_HOST), ownCli).pipe(Effect.provide(FrontmatterParser.layer))
      const origin = Option.isSome(options.servers) ? neutralize(options.servers.value) : Option.getOrElse(options.host, () => DEFAULT_GATEWAY_HOST)
      for (const skipped of found.skipped) {
        yield* Effect.logWarning(`tool-map mcp --gateway: ${neutralize(skipped.name)} of ${origin} left out: ${neutralize(skipped.reason)}`)
      }
      return GatewayLayer({ servers: found.servers, agent: options.agent })
    })
  )
