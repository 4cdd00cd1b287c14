import { FileSystem } from "@effect/platform"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Option, ParseResult, Schema, Stream } from "effect"
import { Bundle } from "../../../inventory/bundle/Bundle.js"
import type { AgentHostsInventory } from "../../../inventory/domain/agentHosts.js"
import type { Inventory } from "../../../inventory/domain/inventory.js"
import {
  type CommonFilters,
  filterAgents,
  filterCommands,
  filterMcpServers,
  filterPlugins,
  filterSkills
} from "../../../inventory/query/agentQueries.js"
import { InventoryReader } from "../../../inventory/query/InventoryReader.js"
import { describeOutcome, outcomeJson } from "../../../inventory/scanReport.js"
import { whichTool } from "../../../inventory/domain/which.js"
import { listTools, ToolNotFound } from "../../../inventory/query/toolQueries.js"
import { fitNames } from "../../../inventory/render/text.js"
import { ScanProgram } from "../../../inventory/ScanProgram.js"
import { McpProviderError, type McpToolCall, type McpToolProvider } from "../McpToolProvider.js"
import { untrustedJson, untrustedText } from "../untrusted.js"
import { InventoryChanges } from "./InventoryChanges.js"
import { makeCoalescedScans } from "./CoalescedScans.js"
import { makeSharedLoad } from "./SharedInventory.js"
import {
  QueryInput,
  type QueryKind,
  QueryOutput,
  RefreshInput,
  RefreshOutput,
  toolJsonSchema,
  WhichInput,
  WhichOutput
} from "./schemas.js"

const PROVIDER = "inventory"

/** The inventory tools' names. */
export const INVENTORY_TOOL_NAMES = ["which", "inventory_query", "inventory_refresh"] as const

/** A read of the cached bundle (one scan first when there is none): read-only and idempotent. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const

/** The inventory tools' definitions, in the order `tools/list` shows them. */
export const INVENTORY_TOOLS: ReadonlyArray<Tool> = [
  {
    name: "which",
    title: "Which copy of a command runs",
    description:
      "Every copy of a command name on this machine in PATH order, the one a shell runs (the winner) and its version when probed. From the cached inventory (scanned once if there is none).",
    inputSchema: toolJsonSchema(WhichInput),
    outputSchema: toolJsonSchema(WhichOutput),
    annotations: { title: "Which copy of a command runs", ...READ_ONLY }
  },
  {
    name: "inventory_query",
    title: "Query the tool inventory",
    description:
      "List the executables (kind tools) or the agent hosts' agents, skills, commands, MCP servers (mcp) and plugins, with the filters of `tool-map query KIND`. Only what the hosts load unless all is true. MCP servers show env var and header names, never values.",
    inputSchema: toolJsonSchema(QueryInput),
    outputSchema: toolJsonSchema(QueryOutput),
    annotations: { title: "Query the tool inventory", ...READ_ONLY }
  },
  {
    name: "inventory_refresh",
    title: "Rescan the machine if anything changed",
    description:
      "Rescan PATH, the tool roots and the agent hosts when a watched input changed since the last scan (`tool-map scan --if-stale`); force: true rescans anyway. Writes a new bundle generation; the inventory resources then notify their subscribers.",
    inputSchema: toolJsonSchema(RefreshInput),
    outputSchema: toolJsonSchema(RefreshOutput),
    // It replaces the cached bundle (not read-only) and nothing else; a second call finds nothing changed.
    annotations: { title: "Rescan the machine if anything changed", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }
  }
]

/** The filters each kind takes besides `kind`; any other given filter is an error. */
const FILTERS_OF: Readonly<Record<QueryKind, ReadonlyArray<keyof QueryInput>>> = {
  tools: ["category", "name"],
  agents: ["host", "scope", "all", "tool", "model", "readOnly", "background", "source"],
  skills: ["host", "scope", "all", "keyword"],
  commands: ["host", "scope", "all"],
  mcp: ["host", "scope", "all"],
  plugins: ["host", "scope", "all"]
}

const NOUNS: Readonly<Record<QueryKind, string>> = {
  tools: "tools",
  agents: "agents",
  skills: "skills",
  commands: "commands",
  mcp: "MCP servers",
  plugins: "plugins"
}

const failure = (tool: string, reason: string) =>
  new McpProviderError({ provider: PROVIDER, method: "tools/call", target: tool, reason })

/** A result whose structured content is checked against the tool's output schema type at compile time. */
const result = <A>(structured: A, lines: ReadonlyArray<string>): CallToolResult => {
  const content = untrustedJson(structured)
  return {
    content: [{ type: "text", text: untrustedText(lines) }],
    structuredContent: content !== null && typeof content === "object" && !Array.isArray(content) ? { ...content } : {}
  }
}

const decodeArguments = <A, I>(schema: Schema.Schema<A, I>, call: McpToolCall) =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error" })(call.arguments).pipe(
    Effect.mapError((error) => failure(call.name, `invalid arguments: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
  )

/**
 * The agent-host items of `query`'s kind under its filters, or the tools: listed as `query
 * tools` lists them, letting the event loop run, so a cancelled call (or SIGTERM) stops a long
 * filter of a large inventory.
 */
const queryItems = (inventory: Inventory, query: QueryInput): Effect.Effect<ReadonlyArray<{ readonly name: string }>> => {
  const hosts: AgentHostsInventory = inventory.agentHosts
  const common: CommonFilters = { host: query.host, scope: query.scope, all: query.all }
  switch (query.kind) {
    case "tools":
      return listTools(inventory, { category: Option.fromNullable(query.category), name: Option.fromNullable(query.name) })
    case "agents":
      return Effect.succeed(filterAgents(hosts, {
        ...common,
        tool: query.tool,
        model: query.model,
        readOnly: query.readOnly,
        background: query.background,
        source: query.source
      }))
    case "skills":
      return Effect.succeed(filterSkills(hosts, { ...common, keyword: query.keyword }))
    case "commands":
      return Effect.succeed(filterCommands(hosts, common))
    case "mcp":
      return Effect.succeed(filterMcpServers(hosts, common))
    case "plugins":
      return Effect.succeed(filterPlugins(hosts, common))
  }
}

const make = Effect.gen(function* () {
  const reader = yield* InventoryReader
  const scanner = yield* ScanProgram
  const changes = yield* InventoryChanges
  const bundle = yield* Bundle
  const fs = yield* FileSystem.FileSystem

  // Which file tools.json is now: a commit renames a new one into place.
  const generation = bundle.locate(Option.none()).pipe(
    Effect.flatMap((paths) => fs.stat(paths.json)),
    Effect.map((info) =>
      Option.some([info.dev, Option.getOrElse(info.ino, () => -1), info.size, ...[info.mtime, info.birthtime].map(Option.match({ onNone: () => -1, onSome: (date) => date.getTime() }))].join(":"))),
    Effect.orElseSucceed(() => Option.none<string>())
  )
  const shared = yield* makeSharedLoad(reader.load(Option.none()), generation)
  const load = (tool: string) => shared.pipe(Effect.mapError((error) => failure(tool, error.message)))
  // One scan at a time; the refreshes asked meanwhile share the next one (its generation published once).
  const scan = yield* makeCoalescedScans((force: boolean) =>
    scanner.run({ target: Option.none(), ifStale: !force, probes: true, progress: false }).pipe(
      Effect.tap((outcome) => (outcome._tag === "Written" ? changes.published(outcome.generation) : Effect.void))
    ))

  const which = Effect.fn("InventoryTools.which")(function* (call: McpToolCall) {
    const input = yield* decodeArguments(WhichInput, call)
    const answer = whichTool(yield* load(call.name), input.name)
    const winner = answer.copies.find((copy) => copy.wins)
    const structured: typeof WhichOutput.Type = { ...answer, version: winner?.version ?? null }
    const lines =
      answer.copies.length === 0
        ? [new ToolNotFound({ name: input.name }).message]
        : [
            answer.winner === null
              ? `${input.name}: no copy is on PATH; ${answer.copies.length} elsewhere.`
              : `${input.name} runs ${answer.winner}${winner?.version == null ? "" : ` (version ${winner.version})`}.`,
            ...answer.copies.filter((copy) => !copy.wins).map((copy) =>
              `also ${copy.path}${copy.pathIndex === null ? ` (not on PATH, ${copy.root})` : " (shadowed)"}`)
          ]
    return result(structured, lines)
  })

  const query = Effect.fn("InventoryTools.query")(function* (call: McpToolCall) {
    const input = yield* decodeArguments(QueryInput, call)
    const allowed = new Set<string>(["kind", ...FILTERS_OF[input.kind]])
    const misplaced = Object.keys(input).filter((key) => !allowed.has(key))
    if (misplaced.length > 0) {
      return yield* failure(call.name, `${misplaced.join(", ")} do not apply to kind ${input.kind} (it takes ${FILTERS_OF[input.kind].join(", ")})`)
    }
    const inventory = yield* load(call.name)
    const items = yield* queryItems(inventory, input)
    const structured: typeof QueryOutput.Type = { kind: input.kind, generation: inventory.generation, count: items.length, items }
    const names = fitNames(items.map((item) => item.name), 400)
    return result(structured, [items.length === 0 ? `No ${NOUNS[input.kind]} match.` : `${items.length} ${NOUNS[input.kind]}: ${names}`])
  })

  const refresh = Effect.fn("InventoryTools.refresh")(function* (call: McpToolCall) {
    const input = yield* decodeArguments(RefreshInput, call)
    const outcome = yield* scan(input.force === true).pipe(Effect.mapError((error) => failure(call.name, error.message)))
    const structured: typeof RefreshOutput.Type = outcomeJson(outcome)
    return result(structured, describeOutcome(outcome))
  })

  const handlers: Readonly<Record<string, (call: McpToolCall) => Effect.Effect<CallToolResult, McpProviderError>>> = {
    which,
    inventory_query: query,
    inventory_refresh: refresh
  }

  return InventoryTools.of({
    name: PROVIDER,
    attach: () => Effect.void,
    listTools: () => Effect.succeed(INVENTORY_TOOLS),
    callTool: (call) => {
      const handler = handlers[call.name]
      return handler === undefined ? Effect.succeed(Option.none()) : Effect.asSome(handler(call))
    },
    listChanged: () => Stream.empty
  })
})

/**
 * The inventory over MCP: `which`, `inventory_query` and `inventory_refresh`, answered by the
 * same queries as `tool-map query` and the same scan as `tool-map scan --if-stale`.
 */
export class InventoryTools extends Context.Tag("tool-map/mcp/InventoryTools")<InventoryTools, McpToolProvider>() {
  static readonly layer = Layer.effect(this, make)
}
