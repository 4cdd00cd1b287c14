// `catalog ... --host H` and `catalog snapshot --host H` (issue 29, point 5): the catalog over
// the MCP servers an agent host loads, their tools from the gateway's snapshots, and the command
// that takes those snapshots. Loaded only when one of them runs (see catalogCommands.ts).
import { Console, Effect, Option, Schema } from "effect"
import type { CategoryDefinition, ToolSchema } from "../catalog/core/model.js"
import { displayName } from "../catalog/core/sanitize.js"
import { formatTokens } from "../inventory/domain/tokens.js"
import type { AgentHostName } from "../inventory/domain/agentHosts.js"
import { cleanText, neutralize } from "../inventory/domain/untrusted.js"
import { ScanProgram } from "../inventory/ScanProgram.js"
import { hostTools, listHostServers, type ListedServer, type ListingProgress } from "../mcp/gateway/hostSnapshots.js"
import { ownCliPaths } from "../layers/GatewayLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { printJson } from "./output.js"

/** The command that takes the snapshots of a host's servers. */
export const snapshotCommandOf = (host: string) => `tool-map catalog snapshot --host ${host}`

/** `--host H` finds no tool to build the catalog from: H loads no MCP server here, or none has a snapshot yet. */
export class NoHostSnapshots extends Schema.TaggedError<NoHostSnapshots>()("NoHostSnapshots", {
  host: Schema.String,
  /** The servers the host loads (none has a snapshot). */
  servers: Schema.Array(Schema.String),
  /** The working directory the host's servers were looked up for. */
  cwd: Schema.String
}) {
  get message() {
    return cleanText(
      this.servers.length === 0
        ? `${this.host} loads no MCP server in ${this.cwd} that tool-map's gateway could front (what it loads: \`tool-map query mcp --host ${this.host}\`).`
        : `None of the ${this.servers.length} MCP server(s) ${this.host} loads has a tool snapshot yet (${this.servers.join(", ")}): run \`${snapshotCommandOf(this.host)}\` to list them once (it starts them), then run this again.`
    )
  }
}

/** Some servers of `catalog snapshot` could not be listed (the others were). */
export class ServersNotListed extends Schema.TaggedError<ServersNotListed>()("ServersNotListed", {
  host: Schema.String,
  servers: Schema.Array(Schema.String),
  of: Schema.Number
}) {
  get message() {
    return cleanText(`${this.servers.length} of the ${this.of} MCP server(s) of ${this.host} could not be listed: ${this.servers.join(", ")}.`)
  }
}

/** The source of a `--host` catalog: the tools, the gateway's category of them, and what the run must warn of. */
export interface HostCatalogSource {
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly category: CategoryDefinition
  readonly source: string
  /** Warnings of the run, in the shape of catalogHandlers' `CliWarning` (not imported: that module imports this one). */
  readonly warnings: ReadonlyArray<HostWarning>
}

/** A server of the host not in the catalog: `no-snapshot`, or `server-left-out` by the gateway. */
interface HostWarning {
  readonly kind: "no-snapshot" | "server-left-out"
  readonly subject: string
  readonly message: string
  readonly names: ReadonlyArray<string>
}

/** A server's name in a line of text: neutralized, cut when very long. */
const shown = (name: string) => displayName(name)

/**
 * The tools of the MCP servers `host` loads, from the gateway's snapshots (nothing started);
 * fails when there is none to build a catalog from.
 */
export const hostCatalogSource = (host: AgentHostName) =>
  Effect.gen(function*() {
    const tools = yield* hostTools(host, yield* ownCliPaths)
    const { cwd } = yield* MachineEnvironment
    const unlisted = tools.servers.filter((server) => Option.isNone(server.tools)).map((server) => server.name)
    if (unlisted.length === tools.servers.length) return yield* new NoHostSnapshots({ host, servers: unlisted.map(shown), cwd })
    const warnings: Array<HostWarning> = []
    if (unlisted.length > 0) {
      warnings.push({
        kind: "no-snapshot",
        subject: host,
        message: `${unlisted.length} MCP server(s) of ${host} have no tool snapshot, so their tools are not in this catalog: ${unlisted.map(shown).join(", ")}; run \`${snapshotCommandOf(host)}\` to list them (it starts them)`,
        names: unlisted.map(neutralize)
      })
    }
    for (const skipped of tools.skipped) {
      warnings.push({ kind: "server-left-out", subject: host, message: `${shown(skipped.name)} of ${host} is left out: ${skipped.reason}`, names: [neutralize(skipped.name)] })
    }
    return { schemas: tools.schemas, category: tools.category, source: tools.snapshotsDir, warnings } satisfies HostCatalogSource
  })

/** One server's line of the summary. */
const serverLine = (server: ListedServer): string => {
  const figures = server.tools === null ? "no snapshot" : `${server.tools} tools, ${formatTokens(server.tokens ?? 0)}`
  if (server.outcome === "listed") return `  ${shown(server.name)}: ${figures}`
  const kept = server.tools === null ? "" : `; its snapshot of ${server.takenAt ?? ""} is kept (${figures})`
  const log = server.log === null ? "" : `; its stderr is logged in ${server.log}`
  return cleanText(`  ${shown(server.name)}: failed: ${server.reason ?? ""}${kept}${log}`)
}

/**
 * The ledger reads the snapshots when it scans: the bundle is brought up to date (as `scan
 * --if-stale`), so that `query context` counts the servers just listed. The CLI's root provides
 * the scanner; a command tree run without it (the catalog's in-process tests) leaves the bundle.
 */
const refreshInventory = (json: boolean) =>
  Effect.gen(function*() {
    const scanner = yield* Effect.serviceOption(ScanProgram)
    if (Option.isNone(scanner)) return { refreshed: false, generation: null, error: null }
    if (!json) yield* Console.error("tool-map: refreshing the inventory…")
    const scan = yield* scanner.value.run({ target: Option.none(), ifStale: true, probes: true, progress: false }).pipe(Effect.either)
    return scan._tag === "Right"
      ? { refreshed: scan.right._tag === "Written", generation: scan.right.generation, error: null }
      : { refreshed: false, generation: null, error: cleanText(scan.left.message) }
  })

/** `catalog snapshot --host H`. */
export const snapshot = (flags: { readonly host: AgentHostName; readonly json: boolean }) =>
  Effect.gen(function*() {
    const host = flags.host
    const progress = (event: ListingProgress): Effect.Effect<void> => {
      if (flags.json) return Effect.void
      if (event._tag === "Starting") {
        return event.servers === 0 ? Effect.void : Console.error(`tool-map: listing the tools of ${event.servers} MCP server(s) of ${host}, each started once…`)
      }
      const server = event.server
      return Console.error(`tool-map: ${shown(server.name)}: ${server.outcome === "listed" ? `${server.tools ?? 0} tools` : "failed"}`)
    }
    const listed = yield* listHostServers(host, yield* ownCliPaths, progress)
    if (listed.servers.length === 0) return yield* new NoHostSnapshots({ host, servers: [], cwd: (yield* MachineEnvironment).cwd })
    const inventory = yield* refreshInventory(flags.json)
    const failed = listed.servers.filter((server) => server.outcome === "failed")
    if (flags.json) {
      yield* printJson({
        host,
        snapshots: cleanText(listed.snapshotsDir),
        servers: listed.servers.map((server) => ({
          ...server,
          name: cleanText(server.name),
          reason: server.reason === null ? null : cleanText(server.reason),
          log: server.log === null ? null : cleanText(server.log)
        })),
        leftOut: listed.skipped.map((skipped) => ({ name: cleanText(skipped.name), reason: cleanText(skipped.reason) })),
        inventory
      })
    } else {
      const lines = [
        `MCP servers of ${host} (snapshots in ${listed.snapshotsDir}):`,
        ...listed.servers.map(serverLine),
        ...listed.skipped.map((skipped) => `  ${shown(skipped.name)}: left out: ${skipped.reason}`),
        `${listed.servers.length - failed.length} of ${listed.servers.length} listed.${
          inventory.error !== null
            ? ` The inventory could not be refreshed (${inventory.error}): run \`tool-map scan\` before \`tool-map query context\`.`
            : ` \`tool-map catalog ls --host ${host}\` browses their tools, \`tool-map query context --host ${host}\` counts them.`
        }`
      ]
      yield* Console.log(lines.map(cleanText).join("\n"))
    }
    if (failed.length > 0) return yield* new ServersNotListed({ host, servers: failed.map((server) => shown(server.name)), of: listed.servers.length })
  })
