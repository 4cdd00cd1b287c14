/**
 * The host plugin: embeds tool-map's `HostLayer` over the minimal host's port, registers what
 * a plugin would (a category, an annotation, a risk gate), and dispatches the model's calls
 * the way a host does: entry tools go to the catalog, any other call passes `beforeCall`
 * first, so a hidden tool is loaded on the spot or refused with the reason.
 */
import { Effect, Layer, Option } from "effect"
import { Catalog, Host } from "../../src/index.js"
import type { MemoryHost } from "./host.js"

const { ToolCatalog } = Host

/**
 * The catalog embedded over a host: the one layer a plugin adds. The entry tools are
 * registered with the host first, like any tool of a plugin.
 */
export const pluginLayer = (host: MemoryHost, options: Host.HostLayerOptions) =>
  Layer.unwrapEffect(
    Effect.forEach(
      [...Catalog.ENTRY_TOOL_DEFINITIONS, ...Catalog.ROUTER_TOOL_DEFINITIONS],
      (definition) => host.addTool({ name: definition.name, description: definition.description, inputSchema: definition.inputSchema }),
      { discard: true }
    ).pipe(Effect.as(Host.HostLayer(options).pipe(Layer.provide(host.port))))
  )

/** What the plugin registers when it starts; each registration is undone when its scope closes. */
export const registerPlacements = Effect.gen(function*() {
  const catalog = yield* ToolCatalog
  yield* catalog.defineCategory({ name: "code", description: "Source hosting and code review", groups: ["github"] })
  yield* catalog.defineCategory({ name: "files", description: "Local files and directories" })
  yield* catalog.annotate({ match: /^fs_/, meta: { category: "files", group: "local" }, source: "minimal-host" })
  yield* catalog.registerRiskGate({ name: "ask-the-user" })
})

/** Starts an agent on the host; returns once the catalog has restricted it (no polling). */
export const startAgent = (host: MemoryHost, agent: Host.Agent) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    yield* host.startAgent(agent)
    yield* catalog.ready(agent.id)
  })

/** Runs one call of the model as the host would, returning the text the model gets back. */
export const dispatch = (host: MemoryHost, agent: Host.Agent, name: string, args: unknown) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    if (Catalog.ENTRY_TOOLS.includes(name)) return yield* catalog.callEntryTool(agent, name, args)
    const decision = yield* catalog.beforeCall(agent, name)
    if (decision._tag === "Deny") return decision.reason
    const visible = yield* host.visibleTo(agent.id)
    if (!visible.includes(name)) return `Unknown tool: ${name}`
    return `ran ${name} ${JSON.stringify(args)}`
  })

/** The tools of the example. */
export const EXAMPLE_TOOLS: ReadonlyArray<Catalog.ToolSchema> = [
  { name: "bash", description: "Run a shell command.", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  { name: "read", description: "Read a file.", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
  {
    name: "mcp__github__create_issue",
    description: "Create an issue in a GitHub repository.",
    inputSchema: { type: "object", properties: { repo: { type: "string" }, title: { type: "string" } } }
  },
  {
    name: "mcp__github__search_code",
    description: "Search code across GitHub repositories.",
    inputSchema: { type: "object", properties: { query: { type: "string" } } }
  },
  {
    name: "mcp__github__delete_repository",
    description: "Delete a GitHub repository for good.",
    inputSchema: { type: "object", properties: { repo: { type: "string" } } }
  },
  {
    name: "fs_tree",
    description: "Show a directory tree.",
    inputSchema: { type: "object", properties: { path: { type: "string" } } }
  }
]

/** The allow-list as one line, for the transcript. */
export const allowLine = (agent: Host.Agent) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    const allow = yield* catalog.allowFor(agent)
    return Option.match(allow, { onNone: () => "unrestricted", onSome: (names) => names.join(", ") })
  })
