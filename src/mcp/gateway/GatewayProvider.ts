/**
 * The gateway's `McpToolProvider`: a session's `tools/list` is its agent's allow-list (the
 * entry tools, the pinned tools, then the loaded tools in the order they were loaded, so a
 * load only appends); `tools/call` of an entry tool runs it in the catalog, and of a
 * downstream tool passes the catalog's `beforeCall` (a hidden tool is loaded on the spot, or
 * refused with the load instruction when high risk) and is proxied to its server. A loaded tool
 * whose definition its server changed since (a rug pull) is held back: left out of `tools/list`,
 * its calls refused, until a `tools_load` naming it accepts the change.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Deferred, type Duration, Effect, FiberRef, Option, Ref, Runtime, Schema, type Scope, Stream, SubscriptionRef } from "effect"
import { renderLoadRefused, TOOLS_LOAD, TOOLS_LS } from "../../catalog/core/entryTools.js"
import { TOOLS_ROUTE } from "../../catalog/core/router/routerTools.js"
import type { DefinitionPart } from "../../catalog/core/definitions.js"
import type { CategoryDefinition, ToolEntry } from "../../catalog/core/model.js"
import { sanitizeDescription } from "../../catalog/core/sanitize.js"
import { ENTRY_TOOLS, isEmptyState } from "../../catalog/core/visibility.js"
import { type Agent, ToolCatalog } from "../../catalog/services/ToolCatalog.js"
import type { ApprovalCodes } from "../../catalog/stores/ApprovalCodes.js"
import { neutralize } from "../../inventory/render/text.js"
import { agentNameOf, type McpCallContext, type McpSession } from "../server/McpSession.js"
import type { McpToolCall, McpToolProvider } from "../server/McpToolProvider.js"
import { GatewayRestrictions } from "./GatewayHost.js"
import { type GatewayTool, GatewayServers, type ServerEntry, type ServerStatus } from "./GatewayServers.js"
import { LoadedDefinitions } from "./LoadedDefinitions.js"
import { registerGatewayRiskGate } from "./RiskGate.js"
import { ALWAYS_LOAD, GATEWAY_ENTRY_TOOLS, loadedToolLines, type Relisting, TOOLS_CALL_NAME, ToolsCallArgs } from "./gatewayTools.js"
import { gatewayToolName } from "./ServerConfig.js"

const entryByName = new Map(GATEWAY_ENTRY_TOOLS.map((tool) => [tool.name, tool]))

/** The category the downstream servers' groups are placed in. */
export const GATEWAY_CATEGORY = "mcp"

/** The gateway's category of its servers' tools, one group per server (its segment): the gateway's catalog and `catalog --host`'s. */
export const gatewayCategory = (servers: ReadonlyArray<ServerEntry>): CategoryDefinition => ({
  name: GATEWAY_CATEGORY,
  description: "Tools of the MCP servers behind the gateway, one group per server",
  groups: servers.map((server) => server.segment)
})

/** A tool the risk gate refused in a load, and why (a line of that load's answer). */
interface Refusal {
  readonly tool: string
  readonly reason: string
}

/** The refusals of the entry call being answered, in the fiber answering it (none outside one). */
const RequestRefusals: FiberRef.FiberRef<Option.Option<Ref.Ref<ReadonlyArray<Refusal>>>> = FiberRef.unsafeMake(Option.none<Ref.Ref<ReadonlyArray<Refusal>>>())

/** The risk gate's name, as the catalog's notes show it. */
export const ELICITATION_GATE = "MCP elicitation"

/** The agent id a session runs as when neither `--agent` nor the client's name gives one. */
export const DEFAULT_AGENT_ID = "mcp-client"

/**
 * The agent of a session: `--agent`, else the agent the client named (2026-07-28 `_meta`), else
 * the client's name (from `initialize`, or the request's `_meta`); the client's say bounded and
 * cleaned (`agentNameOf`: it keys state and is shown in notes, codes' texts and answers).
 */
export const agentIdOf = (override: Option.Option<string>, session: McpSession): string =>
  Option.getOrElse(
    Option.orElse(
      Option.orElse(override, () => Option.flatMap(Option.fromNullable(session.agent), agentNameOf)),
      () => Option.flatMap(session.client, (client) => agentNameOf(client.name))
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
      : { annotations: { ...annotations, ...(annotations.title === undefined ? {} : { title: clean(annotations.title) }) } }),
    // Loaded on the agent's own request: a host's tool search must not defer it again.
    _meta: { [ALWAYS_LOAD]: true }
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
  /**
   * How long a load's answer waits for the client to re-list its tools after `list_changed`, so
   * that the loaded tools are in the model's very next request (default {@link RELIST_HOLD}).
   */
  readonly relistHold?: Duration.DurationInput | undefined
}

/**
 * The default wait for a re-list. Claude Code and Gemini CLI re-list within milliseconds of the
 * notification on a quiet machine; a client that never re-lists (Codex) costs this once per
 * session, then is told to use `tools_call`.
 */
export const RELIST_HOLD: Duration.DurationInput = "2 seconds"

/**
 * How long a load's answer waits after the re-list was answered: a host applies the new list
 * after its answer arrives (Gemini CLI 0.61.0 registers the tools, then updates its chat's tools).
 * With 20 ms the loaded tool was missing from the very next request in 3 of 20 Gemini CLI
 * sessions (and Claude Code's debug log showed the list arriving 11 ms before a load's answer in a
 * session that missed it); with 250 ms it was there in 20 of 20 sessions of each (7 December).
 */
const RELIST_SETTLE: Duration.DurationInput = "250 millis"

interface SessionEntry {
  readonly agent: Agent
  readonly session: McpSession
  /** Completes once the servers' first listing, which this session did not wait for, is in the catalog. */
  readonly caughtUp: Option.Option<Deferred.Deferred<void>>
  /** How many `tools/list` requests the session has made. */
  readonly lists: SubscriptionRef.SubscriptionRef<number>
  /** Whether the client re-lists after `list_changed`, as far as this session has shown. */
  readonly relisting: Ref.Ref<Relisting>
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
    // Which tools the risk gate refused and why, into the refusals of the request whose load asked
    // (never another's: a concurrent load of the same agent neither clears nor sees them).
    const refuse = (tool: string, reason: string) =>
      Effect.flatMap(FiberRef.get(RequestRefusals), (collected) =>
        Option.match(collected, { onNone: () => Effect.void, onSome: (ref) => Ref.update(ref, (all) => [...all, { tool, reason }]) })).pipe(Effect.as(false))

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
        const lists = yield* SubscriptionRef.make(0)
        const relisting = yield* Ref.make<Relisting>("Unknown")
        yield* Ref.update(sessions, (all) => new Map(all).set(session.id, { agent, session, caughtUp, lists, relisting }))
        yield* Effect.addFinalizer(() =>
          Effect.gen(function*() {
            const rest = yield* Ref.updateAndGet(sessions, (all) => {
              const next = new Map(all)
              next.delete(session.id)
              return next
            })
            if ([...rest.values()].some((entry) => entry.agent.id === agent.id)) return
            // The agent's last session: nothing of it is kept (a flood of agent ids keeps no more than the sessions open).
            yield* loaded.forget(agent.id)
            yield* catalog.detach(agent.id)
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

    /** The tools of `allow` whose definition changed since the agent loaded them, with the parts that changed. */
    const heldBack = (agent: Agent, allow: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const definitions = new Map<string, Option.Option<Tool>>()
        for (const name of allow) {
          if (!entryByName.has(name)) definitions.set(name, Option.map(yield* servers.lookup(name), (tool) => tool.tool))
        }
        const changed = yield* loaded.changed(agent.id, (name) => definitions.get(name) ?? Option.none())
        return new Map(changed.map((tool) => [tool.name, tool.parts] as const))
      })

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
        // A loaded tool changed since it was loaded is held back until it is loaded again.
        const held = Option.isSome(allow) ? yield* heldBack(agent, allow.value) : new Map<string, ReadonlyArray<DefinitionPart>>()
        // The entry tools first, in their own order; tools_call comes with tools_load.
        const offered = new Set(names)
        const out: Array<Tool> = GATEWAY_ENTRY_TOOLS.filter((tool) => offered.has(tool.name === TOOLS_CALL_NAME ? TOOLS_LOAD.name : tool.name))
        for (const name of names) {
          if (entryByName.has(name) || held.has(name)) continue
          // A name the catalog does not have is a pinned one: pinned tools are kept out of it.
          const tool = yield* servers.lookup(name)
          if (Option.isSome(tool)) out.push(listedTool(built.byName.get(name), tool.value))
        }
        // Counted once the list is made, so a load waiting for it answers after this list is sent.
        const entry = (yield* Ref.get(sessions)).get(session.id)
        if (entry !== undefined) {
          yield* SubscriptionRef.update(entry.lists, (count) => count + 1)
          // A client given up on re-lists after all: its next load waits for one again.
          yield* Ref.update(entry.relisting, (state) => (state === "Never" ? "Unknown" : state))
        }
        return out
      }).pipe(Effect.withSpan("GatewayProvider.listTools"))

    const definitionOf = (name: string) => Effect.map(servers.lookup(name), Option.map((tool) => tool.tool))

    /** The warning lines of `tools_ls`: loaded tools changed since they were loaded, held back. */
    const rugPullLines = (agent: Agent) =>
      Effect.gen(function*() {
        const held = yield* heldBack(agent, Option.getOrElse(yield* catalog.allowFor(agent), () => []))
        return [...held].map(([name, parts]) =>
          `warning: ${name} changed since it was loaded (${parts.join(", ")}) and is held back: it is not in your tool list and its calls are refused; check it (tools_ls on its path), then tools_load it again to accept the change`
        )
      })

    /**
     * The held-back tools a `tools_load` of `targets` names, accepted: their definitions now are
     * the ones loaded, and the agent's sessions are told their list changed.
     */
    const acceptNamed = (agent: Agent, targets: unknown, held: ReadonlyMap<string, ReadonlyArray<DefinitionPart>>) =>
      Effect.gen(function*() {
        if (held.size === 0 || !Array.isArray(targets)) return []
        const named = new Set<string>()
        for (const target of targets) {
          if (typeof target !== "string") continue
          // A pinned tool is not in the catalog's build: its name alone names it.
          if (held.has(target)) named.add(target)
          const resolution = yield* catalog.resolve(target, agent)
          if (resolution.kind === "unknown") continue
          // A group's load leaves its high-risk tools out, unasked: only a load naming one singly asks the risk gate.
          const whole = resolution.kind === "group" || resolution.kind === "category" || resolution.kind === "root"
          for (const tool of resolution.tools) if (held.has(tool.name) && !(whole && tool.highRisk)) named.add(tool.name)
        }
        const allowed = yield* allowedNames(agent)
        const definitions = new Map<string, Option.Option<Tool>>()
        for (const name of named) if (allowed.has(name)) definitions.set(name, yield* definitionOf(name))
        const accepted = yield* loaded.accept(agent.id, [...definitions.keys()], (name) => definitions.get(name) ?? Option.none())
        if (accepted.length > 0) yield* restrictions.signal(agent.id)
        return accepted.map((name) => ({ name, parts: held.get(name) ?? [] }))
      })

    /**
     * Waits, up to the hold, for the session's next `tools/list` after `count`; remembers whether
     * it came. A client known not to re-list is not waited for.
     */
    const awaitRelist = (entry: SessionEntry, count: number) =>
      Effect.gen(function*() {
        const known = yield* Ref.get(entry.relisting)
        if (known === "Never") return "Never" as const
        const started = yield* Clock.currentTimeMillis
        const relisted = yield* entry.lists.changes.pipe(
          Stream.filter((lists) => lists > count),
          Stream.runHead,
          Effect.timeoutOption(options.relistHold ?? RELIST_HOLD)
        )
        const state: Relisting = Option.isSome(Option.flatten(relisted)) ? "Relists" : "Never"
        yield* Ref.set(entry.relisting, state)
        if (state !== known) {
          // Once per session (and per change): the figure the hold's bound is checked against.
          const waited = (yield* Clock.currentTimeMillis) - started
          yield* Effect.logInfo(
            state === "Relists"
              ? `tool-map mcp --gateway: session ${neutralize(entry.session.id)} re-listed its tools ${waited} ms after a load`
              : `tool-map mcp --gateway: session ${neutralize(entry.session.id)} did not re-list within ${waited} ms of a load; its loads now point to tools_call`
          )
        }
        // The list's answer is written once its handler returns: let it go out before the load's.
        if (state === "Relists") yield* Effect.sleep(RELIST_SETTLE)
        return state
      })

    /** The tools a load made callable: those in the allow-list after it and not before. */
    const allowedNames = (agent: Agent) => Effect.map(catalog.allowFor(agent), (allow) => new Set(Option.getOrElse(allow, () => [])))

    const entryCall = (agent: Agent, session: McpSession, name: string, args: Readonly<Record<string, unknown>>) =>
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
        const refusals = yield* Ref.make<ReadonlyArray<Refusal>>([])
        const entry = (yield* Ref.get(sessions)).get(session.id)
        const before = loads ? yield* allowedNames(agent) : new Set<string>()
        const held = name === TOOLS_LOAD.name ? yield* heldBack(agent, [...before]) : new Map<string, ReadonlyArray<DefinitionPart>>()
        const listsBefore = entry === undefined ? 0 : yield* SubscriptionRef.get(entry.lists)
        const answer = yield* catalog.callEntryTool(agent, name, forwarded).pipe(Effect.either, Effect.locally(RequestRefusals, Option.some(refusals)))
        if (answer._tag === "Left") return text(answer.left.message, true)
        // A load naming a held-back tool is the explicit acceptance of its change, unless the risk
        // gate refused it in this load (a change that made it high risk needs a person again).
        // A load refused whole (a hook, the load budget) accepts nothing either.
        const gateRefused = new Set((yield* Ref.get(refusals)).map((refusal) => refusal.tool))
        const refusedWhole = answer.right.startsWith(renderLoadRefused(""))
        const accepted = refusedWhole
          ? []
          : yield* acceptNamed(agent, forwarded["targets"], new Map([...held].filter(([tool]) => !gateRefused.has(tool))))
        if (name === TOOLS_LS.name) {
          extra.push(...(yield* rugPullLines(agent)))
          // Servers without a tool list are news for the overview, not for every group listing.
          const at = typeof forwarded["path"] === "string" ? forwarded["path"].trim().replace(/\/+$/, "") : ""
          if (at === "" || at === `/${GATEWAY_CATEGORY}`) extra.push(...statusLines(yield* servers.status))
        }
        if (loads) {
          extra.push(...(yield* Ref.get(refusals)).map((refusal) => refusal.reason))
          for (const tool of accepted) extra.push(`Accepted the changed definition of ${tool.name} (${tool.parts.join(", ")}).`)
          // How to call what the load made callable: by name once the client re-listed, else through tools_call.
          const added = [
            ...[...(yield* allowedNames(agent))].filter((added) => !before.has(added) && !entryByName.has(added)),
            ...accepted.map((tool) => tool.name)
          ]
          if (added.length > 0) {
            const relisting = entry === undefined ? "Unknown" : yield* awaitRelist(entry, listsBefore)
            const definitions: Array<{ name: string; inputSchema: unknown }> = []
            for (const loadedName of added) {
              const tool = yield* servers.lookup(loadedName)
              if (Option.isSome(tool)) definitions.push({ name: loadedName, inputSchema: tool.value.tool.inputSchema })
            }
            extra.push(...loadedToolLines(definitions, relisting))
          }
        }
        // The catalog's answer is neutralized already; the lines added here name tools and servers too.
        return text([answer.right, ...extra.map(neutralize)].join("\n"))
      })

    /** True when the restriction the catalog last handed over lets the agent call `name` (the usual case, answered without the catalog). */
    const allowedNow = (agent: Agent, name: string) =>
      Effect.map(restrictions.allowOf(agent.id), (restriction) =>
        Option.match(restriction, { onNone: () => false, onSome: Option.match({ onNone: () => true, onSome: (allow) => allow.includes(name) }) }))

    const proxy = (agent: Agent, call: McpToolCall, tool: GatewayTool, context: McpCallContext) =>
      Effect.gen(function*() {
        const held = (yield* heldBack(agent, [call.name])).get(call.name)
        if (held !== undefined) {
          return text(
            `${neutralize(call.name)} changed since it was loaded (${held.join(", ")}) and is held back until it is loaded again: check it (tools_ls on its path), then tools_load it to accept the change.`,
            true
          )
        }
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

    /**
     * The gateway's name of a tool `tools_call` names: as given, else the part from an `mcp__`
     * on, for a model that passed the name with its host's prefix (`mcp__tool-map__mcp__a__b`).
     */
    const lookupCalled = (name: string) =>
      Effect.gen(function*() {
        yield* servers.initialized
        const candidates = [name, ...[...name.matchAll(/mcp__/g)].map((match) => name.slice(match.index)).filter((tail) => tail !== name)]
        for (const candidate of candidates) {
          const tool = yield* servers.lookup(candidate)
          if (Option.isSome(tool)) return Option.some({ name: candidate, tool: tool.value })
        }
        return Option.none<{ readonly name: string; readonly tool: GatewayTool }>()
      })

    /** `tools_call`: a catalog tool called as a direct call would be (visibility, rescue rule, risk gate), by name. */
    const callThrough = (agent: Agent, args: Readonly<Record<string, unknown>>, context: McpCallContext) =>
      Effect.gen(function*() {
        const decoded = Schema.decodeUnknownEither(ToolsCallArgs)(args)
        if (decoded._tag === "Left") {
          return text(`Invalid arguments for ${TOOLS_CALL_NAME}: give name (a tool's name) and arguments (an object).`, true)
        }
        const { name, arguments: toolArgs } = decoded.right
        if (entryByName.has(name)) return text(`${neutralize(name)} is an entry tool: call it directly, not through ${TOOLS_CALL_NAME}.`, true)
        const found = yield* lookupCalled(name)
        if (Option.isNone(found)) {
          return text(`"${neutralize(name)}" is not a tool of this gateway. Find one with tools_find or tools_ls.`, true)
        }
        return yield* proxy(agent, { name: found.value.name, arguments: toolArgs }, found.value.tool, context)
      })

    const callTool = (call: McpToolCall, context: McpCallContext) =>
      Effect.gen(function*() {
        const agent = yield* agentOf(context.session)
        if (call.name === TOOLS_CALL_NAME) return Option.some(yield* callThrough(agent, call.arguments, context))
        if (entryByName.has(call.name)) return Option.some(yield* entryCall(agent, context.session, call.name, call.arguments))
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
