/**
 * The downstream servers behind the gateway and the tools they offer: each server's tool list
 * comes from its snapshot (no server started) or, when it has none, from the server itself at
 * start-up; it is taken again when the server says its list changed, on `tools_ls` with
 * `refresh`, and whenever the server is started anyway. The tools are named
 * `mcp__<server>__<tool>`, one catalog group per server; a tool whose name is not 1–49
 * characters of `[A-Za-z0-9_-]` that way gets a safe name in its place (toolNames.ts), and a
 * call of that name reaches the tool under the server's own. A tool the server's host would not
 * offer (its `tools` filter: Codex's enabled/disabled tools, Gemini CLI's include/exclude tools,
 * Claude Code's deny rules) is in no listing the catalog is built from and no lookup finds it,
 * so no load and no call reaches it; the snapshot keeps the server's whole list.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Context, Deferred, Effect, Layer, Option, PubSub, Ref, Runtime, type Scope, Stream } from "effect"
import * as NodePath from "node:path"
import type { ToolSchema } from "../../catalog/core/model.js"
import { canonicalJson } from "../../catalog/core/definitions.js"
import { nestsDeeperText, nestsDeeperThan } from "../../catalog/core/nesting.js"
import { displayName, MAX_NAME_WIDTH } from "../../catalog/core/sanitize.js"
import {
  DEFAULT_TIMINGS,
  type Downstream,
  type DownstreamEra,
  type DownstreamFailed,
  type DownstreamTimings,
  makeDownstream
} from "./Downstream.js"
import { configHash, type ServerConfig, type ToolFilter, toolAllowed, uniqueSegments } from "./ServerConfig.js"
import { escapedName, isListable, listedToolNames, MAX_LISTED_NAME } from "./toolNames.js"
import { Snapshots } from "../../services/ToolSnapshots.js"

/** One downstream tool: the server it belongs to, and its definition as the server lists it. */
export interface GatewayTool {
  readonly name: string
  readonly server: ServerEntry
  readonly tool: Tool
}

/** A downstream server and the segment its tools are named with. */
export interface ServerEntry {
  readonly segment: string
  readonly configHash: string
  /** Which of its tools the host offers (none: all). */
  readonly filter: ToolFilter | undefined
  readonly downstream: Downstream
}

/** What is known about one server, for `tools_ls` and diagnostics. */
export interface ServerStatus {
  readonly name: string
  readonly segment: string
  /** How many of its snapshot's tools its filter lets through; `None` when it has no snapshot yet. */
  readonly tools: Option.Option<number>
  readonly running: boolean
  /** Why its last start, list or call failed, if it is waiting for a restart. */
  readonly lastError: Option.Option<string>
  /** The era of MCP its running connection speaks (2025 or 2026-07-28); none while it is not running. */
  readonly era: Option.Option<DownstreamEra>
}

interface ToolSet {
  /** Per segment: the server's tools as it lists them (unfiltered), absent until a snapshot is known. */
  readonly bySegment: ReadonlyMap<string, ReadonlyArray<Tool>>
  /** Every tool as the catalog gets it; a new array only when a server's list changed. */
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly byName: ReadonlyMap<string, GatewayTool>
}

/** How the gateway runs its servers. */
export interface GatewayServersOptions {
  readonly servers: ReadonlyArray<ServerConfig>
  /** `<data dir>/gateway`: snapshots and logs live under it. */
  readonly dir: string
  readonly timings?: Partial<DownstreamTimings> | undefined
  /**
   * Whether servers without a snapshot are listed (started) at start-up, as the gateway does
   * (default true); false for a reader of the snapshots that must start nothing (`catalog
   * --host`), or one that lists each server itself ({@link GatewayServers} `list`).
   */
  readonly listAtStart?: boolean | undefined
}

/** The catalog's view of one downstream tool: the gateway's name and the server's definition. */
const schemaOf = (name: string, tool: Tool): ToolSchema => ({
  name,
  description: tool.description ?? "",
  inputSchema: tool.inputSchema,
  ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  ...(tool.title === undefined ? {} : { title: tool.title }),
  ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema })
})

/**
 * The tools of a server's list that the catalog can take: a tool nested deeper than the
 * catalog's cap (every walk of it, the hash, the snapshot, the answer to a client, would run
 * out of stack) is left out with a warning naming it.
 */
const withinNesting = (server: string, tools: ReadonlyArray<Tool>): Effect.Effect<ReadonlyArray<Tool>> => {
  if (!tools.some((tool) => nestsDeeperThan(tool))) return Effect.succeed(tools)
  return Effect.forEach(tools, (tool) =>
    nestsDeeperThan(tool)
      ? Effect.as(
        Effect.logWarning(`MCP server ${displayName(server)}: the tool ${displayName(tool.name, MAX_NAME_WIDTH)} ${nestsDeeperText()}; it is left out`),
        []
      )
      : Effect.succeed([tool])).pipe(Effect.map((kept) => kept.flat()))
}

const buildSet = (entries: ReadonlyArray<ServerEntry>, bySegment: ReadonlyMap<string, ReadonlyArray<Tool>>): ToolSet => {
  const schemas: Array<ToolSchema> = []
  const byName = new Map<string, GatewayTool>()
  for (const server of entries) {
    const tools = (bySegment.get(server.segment) ?? []).filter((tool) => toolAllowed(server.filter, tool.name))
    const names = listedToolNames(server.segment, tools.map((tool) => tool.name))
    for (const [index, tool] of tools.entries()) {
      const name = names[index]
      if (name === undefined) continue
      byName.set(name, { name, server, tool })
      schemas.push(schemaOf(name, tool))
    }
  }
  return { bySegment, schemas, byName }
}

/** Says on stderr which of a server's tools are listed under a name of the gateway's (see toolNames.ts). */
const reportRenamed = (server: ServerEntry, tools: ReadonlyArray<Tool>): Effect.Effect<void> => {
  const kept = tools.filter((tool) => toolAllowed(server.filter, tool.name))
  if (kept.every((tool) => isListable(server.segment, tool.name))) return Effect.void
  const names = listedToolNames(server.segment, kept.map((tool) => tool.name))
  return Effect.forEach(kept, (tool, index) => {
    const name = names[index]
    return name === undefined || isListable(server.segment, tool.name)
      ? Effect.void
      : Effect.logWarning(
        `MCP server ${displayName(server.downstream.name)}: the tool ${escapedName(tool.name)} is listed as ${name} (a listed name is at most ${MAX_LISTED_NAME} characters of A-Z a-z 0-9 _ -)`
      )
  }, { discard: true })
}

export class GatewayServers extends Context.Tag("tool-map/gateway/GatewayServers")<GatewayServers, {
  readonly servers: ReadonlyArray<ServerEntry>
  /** Every downstream tool as the catalog gets it (the same array while nothing changed). */
  readonly schemas: Effect.Effect<ReadonlyArray<ToolSchema>>
  readonly lookup: (name: string) => Effect.Effect<Option.Option<GatewayTool>>
  /** Takes the tool list of one server again (starting it) and keeps it as its snapshot when it changed. */
  readonly list: (server: ServerEntry) => Effect.Effect<void, DownstreamFailed>
  /** Takes the tool list of every server again (starting each); the failures, one per server. */
  readonly refreshAll: Effect.Effect<ReadonlyArray<DownstreamFailed>>
  /** Waits until every server without a snapshot at start-up was listed once (or failed to be). */
  readonly initialized: Effect.Effect<void>
  /** True once {@link initialized} has completed. */
  readonly isInitialized: Effect.Effect<boolean>
  /** One element each time a server's tool list changed. */
  readonly changes: Stream.Stream<void>
  readonly status: Effect.Effect<ReadonlyArray<ServerStatus>>
}>() {
  static readonly layer = (options: GatewayServersOptions) => Layer.scoped(this, make(options))
}

const make = (options: GatewayServersOptions): Effect.Effect<GatewayServers["Type"], never, Snapshots | Scope.Scope> =>
  Effect.gen(function*() {
    const snapshots = yield* Snapshots
    const timings: DownstreamTimings = { ...DEFAULT_TIMINGS, ...options.timings }
    const runtime = yield* Effect.runtime<never>()
    const changed = yield* Effect.acquireRelease(PubSub.unbounded<void>(), PubSub.shutdown)
    const segments = uniqueSegments(options.servers)
    // Filled right below: a server's list-changed handler refreshes it by its entry.
    const entries: Array<ServerEntry> = []
    const ready = yield* Deferred.make<void>()
    // A server may say its list changed right after start-up: that list is compared with the
    // one start-up takes, once it is taken.
    const refreshOne = (server: ServerEntry) => Effect.zipRight(Deferred.await(ready), refresh(server, true))
    for (const [index, config] of options.servers.entries()) {
      const segment = segments[index]!
      const downstream = yield* makeDownstream({
        config,
        timings,
        logPath: NodePath.join(options.dir, "logs", `${segment}.log`),
        onListChanged: () => {
          Runtime.runFork(runtime)(Effect.ignore(refreshOne(entries[index]!)))
        }
      })
      entries.push({ segment, configHash: configHash(config), filter: config.tools, downstream })
    }
    yield* Effect.addFinalizer(() => Effect.forEach(entries, (entry) => entry.downstream.stop, { concurrency: "unbounded", discard: true }))

    const initial = new Map<string, ReadonlyArray<Tool>>()
    const missing: Array<ServerEntry> = []
    for (const entry of entries) {
      const snapshot = yield* snapshots.read(entry.configHash).pipe(
        Effect.tapError((error) => Effect.logWarning(error.message)),
        Effect.orElseSucceed(() => Option.none())
      )
      if (Option.isSome(snapshot)) {
        const tools = yield* withinNesting(entry.downstream.name, snapshot.value.tools as ReadonlyArray<Tool>)
        yield* reportRenamed(entry, tools)
        initial.set(entry.segment, tools)
      } else missing.push(entry)
    }
    const set = yield* Ref.make(buildSet(entries, initial))

    /**
     * Lists one server and keeps its list: in memory, and as its snapshot when it differs. The
     * first listing of servers at start-up is not announced here: a session that attached before
     * it is told once it is complete (see GatewayProvider's attach), and no other session needs to be.
     */
    const refresh = (server: ServerEntry, announce = true): Effect.Effect<void, DownstreamFailed> =>
      Effect.gen(function*() {
        const tools = yield* Effect.flatMap(server.downstream.listTools, (listed) => withinNesting(server.downstream.name, listed))
        const before = (yield* Ref.get(set)).bySegment.get(server.segment)
        // By canonical JSON: a snapshot read back has its keys in the decoder's order, not the server's.
        if (before !== undefined && canonicalJson(before) === canonicalJson(tools)) return
        const takenAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* snapshots.write({ server: server.downstream.name, configHash: server.configHash, takenAt, tools }).pipe(
          Effect.tapError((error) => Effect.logWarning(error.message)),
          Effect.ignore
        )
        yield* Ref.update(set, (current) => buildSet(entries, new Map(current.bySegment).set(server.segment, tools)))
        yield* reportRenamed(server, tools)
        if (announce) yield* PubSub.publish(changed, undefined)
      }).pipe(Effect.withSpan("GatewayServers.refresh", { attributes: { server: server.downstream.name } }))

    const refreshAll = Effect.forEach(entries, (entry) => Effect.flip(refresh(entry, true)).pipe(Effect.option), {
      concurrency: "unbounded"
    }).pipe(Effect.map((results) => results.flatMap((result) => Option.toArray(result))))

    yield* Effect.forEach(options.listAtStart === false ? [] : missing, (entry) => Effect.ignore(refresh(entry, false)), { concurrency: "unbounded", discard: true }).pipe(
      Effect.zipRight(Deferred.succeed(ready, undefined)),
      Effect.forkScoped
    )

    const status = Effect.gen(function*() {
      const current = yield* Ref.get(set)
      return yield* Effect.forEach(entries, (entry) =>
        Effect.gen(function*() {
          return {
            name: entry.downstream.name,
            segment: entry.segment,
            tools: Option.map(
              Option.fromNullable(current.bySegment.get(entry.segment)),
              (tools) => tools.filter((tool) => toolAllowed(entry.filter, tool.name)).length
            ),
            running: yield* entry.downstream.running,
            lastError: yield* entry.downstream.lastError,
            era: yield* entry.downstream.era
          } satisfies ServerStatus
        }))
    })

    return GatewayServers.of({
      servers: entries,
      schemas: Effect.map(Ref.get(set), (current) => current.schemas),
      lookup: (name) => Effect.map(Ref.get(set), (current) => Option.fromNullable(current.byName.get(name))),
      list: (server) => refresh(server, true),
      refreshAll: refreshAll.pipe(Effect.withSpan("GatewayServers.refreshAll")),
      initialized: Deferred.await(ready),
      isInitialized: Deferred.isDone(ready),
      changes: Stream.fromPubSub(changed),
      status
    })
  })
