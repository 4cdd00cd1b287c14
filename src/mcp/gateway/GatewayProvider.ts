/**
 * The gateway's `McpToolProvider`: a session's `tools/list` is its agent's allow-list (the
 * entry tools, the pinned tools, then the loaded tools in the order they were loaded, so a
 * load only appends); `tools/call` of an entry tool runs it in the catalog, and of a
 * downstream tool passes the catalog's `beforeCall` (a hidden tool is loaded on the spot, or
 * refused with the load instruction when high risk) and is proxied to its server.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Option, Ref, Runtime, type Scope, Stream } from "effect"
import { type EntryToolDefinition, TOOLS_LOAD, TOOLS_LS, TOOLS_UNLOAD } from "../../catalog/core/entryTools.js"
import { ROUTER_TOOL_DEFINITIONS, type RouterToolDefinition, TOOLS_ROUTE } from "../../catalog/core/router/routerTools.js"
import type { ToolEntry } from "../../catalog/core/model.js"
import { sanitizeDescription } from "../../catalog/core/sanitize.js"
import { ENTRY_TOOLS, isEmptyState } from "../../catalog/core/visibility.js"
import { type Agent, ToolCatalog } from "../../catalog/services/ToolCatalog.js"
import type { ApprovalCodes } from "../../catalog/stores/ApprovalCodes.js"
import { neutralize } from "../../inventory/render/text.js"
import type { McpCallContext, McpSession } from "../server/McpSession.js"
import type { McpToolCall, McpToolProvider } from "../server/McpToolProvider.js"
import { GatewayRestrictions } from "./GatewayHost.js"
import { type GatewayTool, GatewayServers, type ServerStatus } from "./GatewayServers.js"
import { LoadedDefinitions } from "./LoadedDefinitions.js"
import { registerGatewayRiskGate } from "./RiskGate.js"
import { gatewayToolName } from "./ServerConfig.js"

/** An entry tool's definition in the SDK's shape (its schema is plain JSON Schema already). */
const entryTool = (definition: EntryToolDefinition | RouterToolDefinition, extra: Readonly<Record<string, unknown>> = {}): Tool => {
  const { required, properties, ...schema } = definition.inputSchema
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: {
      ...schema,
      properties: { ...properties, ...extra } as Record<string, object>,
      // Every token of these definitions is in every session: an empty list says nothing.
      ...(required.length === 0 ? {} : { required: [...required] })
    }
  }
}

/** `tools_ls` as the gateway lists it: the catalog's, with `refresh`. */
export const GATEWAY_TOOLS_LS: Tool = entryTool(
  TOOLS_LS,
  { refresh: { type: "boolean", description: "Ask the servers for their tools again first." } }
)

/** The entry tools as `tools/list` shows them: the catalog's, then the router's. */
export const GATEWAY_ENTRY_TOOLS: ReadonlyArray<Tool> = [
  GATEWAY_TOOLS_LS,
  entryTool(TOOLS_LOAD),
  entryTool(TOOLS_UNLOAD),
  ...ROUTER_TOOL_DEFINITIONS.map((definition) => entryTool(definition))
]

const entryByName = new Map(GATEWAY_ENTRY_TOOLS.map((tool) => [tool.name, tool]))

/** The category the downstream servers' groups are placed in. */
export const GATEWAY_CATEGORY = "mcp"

/** The risk gate's name, as the catalog's notes show it. */
export const ELICITATION_GATE = "MCP elicitation"

/** The agent id a session runs as when neither `--agent` nor the client's name gives one. */
export const DEFAULT_AGENT_ID = "mcp-client"

/** The agent of a session: `--agent`, else the client's name from `initialize`. */
export const agentIdOf = (override: Option.Option<string>, session: McpSession): string =>
  Option.getOrElse(
    Option.orElse(
      override,
      () => Option.filter(Option.map(session.client, (client) => neutralize(client.name).trim()), (name) => name !== "")
    ),
    () => DEFAULT_AGENT_ID
  )

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError: true } : {})
})

/**
 * A downstream tool as a session's `tools/list` shows it: sanitized texts (the description the
 * catalog's, or for a pinned tool, which the catalog leaves out, sanitized here), the server's
 * schemas as they are.
 */
export const listedTool = (entry: ToolEntry | undefined, tool: GatewayTool): Tool => {
  const { annotations, outputSchema, title } = tool.tool
  const clean = (value: string) => sanitizeDescription(value).text
  return {
    name: tool.name,
    ...(title === undefined ? {} : { title: clean(title) }),
    description: entry?.description ?? clean(tool.tool.description ?? ""),
    inputSchema: tool.tool.inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined
      ? {}
      : { annotations: { ...annotations, ...(annotations.title === undefined ? {} : { title: clean(annotations.title) }) } })
  }
}

/** The lines `tools_ls` adds about servers whose tools are not known. */
const statusLines = (status: ReadonlyArray<ServerStatus>): ReadonlyArray<string> =>
  status.flatMap((server) =>
    Option.isSome(server.tools)
      ? []
      : [
        `server ${neutralize(server.name)}: no tool list yet${
          Option.match(server.lastError, { onNone: () => "", onSome: (error) => ` (${neutralize(error)})` })
        }; try tools_ls with refresh`
      ]
  )

/** What the gateway's provider needs to know. */
export interface GatewayProviderOptions {
  /** `--agent`: the agent every session runs as. */
  readonly agent: Option.Option<string>
}

interface SessionEntry {
  readonly agent: Agent
  readonly session: McpSession
  /** Completes once the servers' first listing, which this session did not wait for, is in the catalog. */
  readonly caughtUp: Option.Option<Deferred.Deferred<void>>
}

/** Builds the provider over the catalog and the gateway's services; the risk gate lives as long as the scope. */
export const makeGatewayProvider = (
  options: GatewayProviderOptions
): Effect.Effect<McpToolProvider, never, ToolCatalog | GatewayServers | GatewayRestrictions | LoadedDefinitions | ApprovalCodes | Scope.Scope> =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    const servers = yield* GatewayServers
    const restrictions = yield* GatewayRestrictions
    const loaded = yield* LoadedDefinitions
    const runtime = yield* Effect.runtime<never>()
    const sessions = yield* Ref.make<ReadonlyMap<string, SessionEntry>>(new Map())
    // Why the elicitation gate refused a load, per agent, for the text of that `tools_load`.
    const refusals = yield* Ref.make<ReadonlyMap<string, ReadonlyArray<string>>>(new Map())

    const refuse = (agentId: string, reason: string) =>
      Ref.update(refusals, (all) => new Map(all).set(agentId, [...(all.get(agentId) ?? []), reason])).pipe(Effect.as(false))

    yield* registerGatewayRiskGate({
      name: ELICITATION_GATE,
      sessionsOf: (agentId) =>
        Effect.map(Ref.get(sessions), (all) => [...all.values()].filter((entry) => entry.agent.id === agentId).map((entry) => entry.session)),
      refuse
    })

    const agentOf = (session: McpSession) =>
      Effect.map(Ref.get(sessions), (all): Agent => all.get(session.id)?.agent ?? { id: agentIdOf(options.agent, session), sessionId: session.id })

    const prefixes = servers.servers.map((server) => gatewayToolName(server.segment, ""))

    /**
     * Whether the agent's first `tools/list` needs every server's tools: it has something
     * loaded, a downstream tool pinned, or it is exempt (its list is every tool).
     */
    const needsEveryList = (agent: Agent) =>
      Effect.gen(function*() {
        if (!isEmptyState(yield* catalog.stateOf(agent))) return true
        if ((yield* catalog.exemptionOf(agent)).exempt) return true
        return (yield* catalog.config).pinned.some((name) => prefixes.some((prefix) => name.startsWith(prefix)))
      })

    /**
     * Attaches the session's agent. While servers are still being listed for the first time, an
     * agent whose list is the entry tools alone is attached at once (a host shows a server whose
     * first answers are late as pending) and told with `list_changed` once the listing is in;
     * any other waits for it, so its loaded and pinned tools are in its first `tools/list`.
     */
    const attach = (session: McpSession) =>
      Effect.gen(function*() {
        const agent: Agent = { id: agentIdOf(options.agent, session), sessionId: session.id }
        const listed = yield* servers.isInitialized
        const waits = !listed && (yield* needsEveryList(agent))
        const caughtUp = listed || waits ? Option.none() : Option.some(yield* Deferred.make<void>())
        yield* Ref.update(sessions, (all) => new Map(all).set(session.id, { agent, session, caughtUp }))
        yield* Effect.addFinalizer(() =>
          Effect.gen(function*() {
            const rest = yield* Ref.updateAndGet(sessions, (all) => {
              const next = new Map(all)
              next.delete(session.id)
              return next
            })
            if (![...rest.values()].some((entry) => entry.agent.id === agent.id)) yield* catalog.detach(agent.id)
          })
        )
        if (waits) yield* servers.initialized
        yield* catalog.attach(agent)
        if (Option.isSome(caughtUp)) {
          yield* servers.initialized.pipe(
            Effect.zipRight(catalog.refresh),
            Effect.zipRight(Deferred.succeed(caughtUp.value, undefined)),
            Effect.forkScoped
          )
        }
      }).pipe(Effect.withSpan("GatewayProvider.attach"))

    const listTools = (session: McpSession) =>
      Effect.gen(function*() {
        const agent = yield* agentOf(session)
        const built = yield* catalog.get(agent)
        const allow = yield* catalog.allowFor(agent)
        // An exempt agent (no allow list) gets every tool: the pinned ones, which the catalog
        // keeps out of its build, as well as the built ones.
        const names = Option.isSome(allow)
          ? allow.value
          : [...new Set([...ENTRY_TOOLS, ...(yield* catalog.config).pinned, ...built.tools.map((tool) => tool.name)])]
        const out: Array<Tool> = []
        for (const name of names) {
          const entry = entryByName.get(name)
          if (entry !== undefined) {
            out.push(entry)
            continue
          }
          // A name the catalog does not have is a pinned one: pinned tools are kept out of it.
          const tool = yield* servers.lookup(name)
          if (Option.isSome(tool)) out.push(listedTool(built.byName.get(name), tool.value))
        }
        return out
      }).pipe(Effect.withSpan("GatewayProvider.listTools"))

    const definitionOf = (name: string) => Effect.map(servers.lookup(name), Option.map((tool) => tool.tool))

    /** The warning lines of `tools_ls`: loaded tools changed since they were loaded. */
    const rugPullLines = (agent: Agent) =>
      Effect.gen(function*() {
        const allow = Option.getOrElse(yield* catalog.allowFor(agent), () => [])
        const definitions = new Map<string, Option.Option<Tool>>()
        for (const name of allow) definitions.set(name, yield* definitionOf(name))
        const changed = yield* loaded.changed(agent.id, (name) => definitions.get(name) ?? Option.none())
        return changed.map((tool) =>
          `warning: ${tool.name} changed since it was loaded (${tool.parts.join(", ")}); check it, then tools_unload and tools_load it again to accept the change`
        )
      })

    const entryCall = (agent: Agent, name: string, args: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        // The entry tools answer about every server's tools: a session attached before the
        // servers were listed waits for them here.
        yield* servers.initialized
        const extra: Array<string> = []
        let forwarded: Readonly<Record<string, unknown>> = args
        if (name === TOOLS_LS.name) {
          const { refresh, ...rest } = args
          forwarded = rest
          if (refresh === true) {
            for (const failure of yield* servers.refreshAll) extra.push(`refresh failed: ${failure.message}`)
            yield* catalog.refresh
          }
        }
        const loads = name === TOOLS_LOAD.name || name === TOOLS_ROUTE.name
        if (loads) yield* Ref.update(refusals, (all) => new Map(all).set(agent.id, []))
        const answer = yield* catalog.callEntryTool(agent, name, forwarded).pipe(Effect.either)
        if (answer._tag === "Left") return text(answer.left.message, true)
        if (name === TOOLS_LS.name) {
          extra.push(...(yield* rugPullLines(agent)))
          // Servers without a tool list are news for the overview, not for every group listing.
          const at = typeof forwarded["path"] === "string" ? forwarded["path"].trim().replace(/\/+$/, "") : ""
          if (at === "" || at === `/${GATEWAY_CATEGORY}`) extra.push(...statusLines(yield* servers.status))
        }
        if (loads) extra.push(...((yield* Ref.get(refusals)).get(agent.id) ?? []))
        // The catalog's answer is neutralized already; the lines added here name tools and servers too.
        return text([answer.right, ...extra.map(neutralize)].join("\n"))
      })

    /** True when the restriction the catalog last handed over lets the agent call `name` (the usual case, answered without the catalog). */
    const allowedNow = (agent: Agent, name: string) =>
      Effect.map(restrictions.allowOf(agent.id), (restriction) =>
        Option.match(restriction, { onNone: () => false, onSome: Option.match({ onNone: () => true, onSome: (allow) => allow.includes(name) }) }))

    const proxy = (agent: Agent, call: McpToolCall, tool: GatewayTool, context: McpCallContext) =>
      Effect.gen(function*() {
        if (!(yield* allowedNow(agent, call.name))) {
          const decision = yield* catalog.beforeCall(agent, call.name)
          if (decision._tag === "Deny") return text(decision.reason, true)
          const allow = yield* catalog.allowFor(agent)
          if (Option.isSome(allow) && !allow.value.includes(call.name)) {
            return text(`"${neutralize(call.name)}" is not available in this session. Use tools_ls to see what is.`, true)
          }
        }
        // The server's progress notifications are sent on in order, and all of them before the
        // result: the client drops a request's progress once its result has arrived.
        let forwarded: Promise<void> = Promise.resolve()
        const onProgress = Option.isSome(context.progressToken)
          ? (progress: { readonly progress: number; readonly total?: number | undefined; readonly message?: string | undefined }) => {
            forwarded = forwarded.then(() => Runtime.runPromise(runtime)(context.progress(progress.progress, progress.total, progress.message)))
          }
          : undefined
        const result = yield* tool.server.downstream.call(tool.tool.name, call.arguments, { onProgress }).pipe(
          Effect.catchTag("DownstreamFailed", (error) => Effect.succeed(text(error.message, true)))
        )
        yield* Effect.promise(() => forwarded)
        return result
      })

    const callTool = (call: McpToolCall, context: McpCallContext) =>
      Effect.gen(function*() {
        const agent = yield* agentOf(context.session)
        if (entryByName.has(call.name)) return Option.some(yield* entryCall(agent, call.name, call.arguments))
        // A name of a server not listed yet is known once the servers' first listing is in.
        const tool = yield* Effect.flatMap(servers.lookup(call.name), (found) =>
          Option.isSome(found) ? Effect.succeed(found) : Effect.zipRight(servers.initialized, servers.lookup(call.name)))
        if (Option.isNone(tool)) return Option.none<CallToolResult>()
        return Option.some(yield* proxy(agent, call, tool.value, context))
      }).pipe(Effect.withSpan("GatewayProvider.callTool", { attributes: { tool: call.name } }))

    return {
      name: "gateway",
      attach,
      listTools,
      callTool,
      listChanged: (session) =>
        Stream.unwrap(Effect.gen(function*() {
          const agent = yield* agentOf(session)
          const changes = restrictions.changes(agent.id)
          const caughtUp = Option.flatMap(Option.fromNullable((yield* Ref.get(sessions)).get(session.id)), (entry) => entry.caughtUp)
          return Option.match(caughtUp, {
            onNone: () => changes,
            onSome: (done) => Stream.merge(changes, Stream.fromEffect(Deferred.await(done)))
          })
        }))
    } satisfies McpToolProvider
  })
