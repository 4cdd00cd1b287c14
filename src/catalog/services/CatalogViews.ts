import { Context, Effect, Layer, Option } from "effect"
import { resolveTarget, searchCatalog } from "../core/catalog.js"
import { ENTRY_TOOL_DEFINITIONS, renderListing, renderMissingPath, renderSearch, SEARCH_LIMIT } from "../core/entryTools.js"
import type { Wording } from "../core/wording.js"
import type { Catalog, CatalogNode, ToolEntry } from "../core/model.js"
import { ROUTER_TOOL_DEFINITIONS } from "../core/router/routerTools.js"
import { estimateTokens } from "../../inventory/domain/tokens.js"
import { ENTRY_TOOLS } from "../core/visibility.js"
import { AgentRestrictions } from "./AgentRestrictions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogRegistry } from "./CatalogRegistry.js"
import type { Agent } from "./HostPort.js"
import { Router } from "./Router.js"

/** One search hit as data, for UIs: the catalog entry's public facts. */
export type FindHit = Pick<ToolEntry, "name" | "shortName" | "path" | "category" | "group" | "summary" | "tokens" | "highRisk">

/** What `tools_ls` is asked: a path (the root when empty) and an optional query. */
export interface ListRequest {
  readonly path?: string | undefined
  readonly query?: string | undefined
  /** The words of the answer's text: the agent's (default) or another front end's. */
  readonly wording?: Wording | undefined
}

const ENTRY_NAMES: ReadonlySet<string> = new Set(ENTRY_TOOLS)

/** How many hits `find` returns at most. */
const FIND_LIMIT = 200

/** Reads of the catalog that change nothing: the `tools_ls` text, search as data, the tokens an agent is sent. */
export class CatalogViews extends Context.Tag("tool-map/CatalogViews")<CatalogViews, {
  /** The text of `tools_ls`. */
  readonly list: (agent: Agent, request: ListRequest) => Effect.Effect<string>
  /** Ranked search under a path, as data. */
  readonly find: (query: string, path: string, agent: Option.Option<Agent>) => Effect.Effect<ReadonlyArray<FindHit>>
  /** Estimated schema tokens the agent is sent: its allow-list, or every tool when exempt. */
  readonly wireTokens: (agent: Agent) => Effect.Effect<number>
}>() {
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

const hitOf = (tool: ToolEntry): FindHit => ({
  name: tool.name,
  shortName: tool.shortName,
  path: tool.path,
  category: tool.category,
  group: tool.group,
  summary: tool.summary,
  tokens: tool.tokens,
  highRisk: tool.highRisk
})

const make = Effect.gen(function*() {
  const restrictions = yield* AgentRestrictions
  const builds = yield* CatalogBuilds
  const registry = yield* CatalogRegistry
  const router = yield* Router

  /**
   * Tools for a query under a node (the whole tree when undefined), best first: the router's
   * ranking, and when it finds nothing the all-words match (a word may be part of a name there,
   * as `iss` of `create_issue`).
   */
  const ranked = (catalog: Catalog, query: string, under: CatalogNode | undefined, agent: Option.Option<Agent>, limit: number) =>
    Effect.gen(function*() {
      const path = under?.path
      const hits = yield* router.findTools({ query, k: limit, path }, Option.getOrUndefined(agent))
      const tools = hits.flatMap((hit) => {
        const tool = catalog.byName.get(hit.name)
        return tool === undefined ? [] : [tool]
      })
      if (tools.length > 0) return { tools, total: tools.length }
      return searchCatalog(catalog, query, { under, limit })
    })

  const list = Effect.fn("CatalogViews.list")(function*(agent: Agent, request: ListRequest) {
    const context = yield* restrictions.contextOf(agent)
    const { resolvers } = yield* registry.current
    const exempt = (yield* restrictions.exemptionOf(agent)).exempt
    const allow = yield* restrictions.orderedAllow(agent, context)
    const allowSet = new Set(allow)
    const denied = new Set(yield* restrictions.deniedIn(agent, context, allow))
    const target = request.path === undefined || request.path.trim() === "" ? "/" : request.path
    const resolution = resolveTarget(context.catalog, target, resolvers)
    const query = request.query?.trim() ?? ""
    // The host's pinned tools (not in the catalog) are named once by the root listing and by a
    // search; entry tools are the listing's own. Other listings do not need them.
    const namesPinned = query !== "" || resolution.kind === "root"
    const pinned = namesPinned
      ? [...new Set(context.hostTools.map((schema) => schema.name))].filter((name) =>
        context.pinned.has(name) && !context.reserved.has(name) && !ENTRY_NAMES.has(name) && context.keep(name)
      )
      : []
    const view = { visible: (name: string) => exempt || allowSet.has(name), denied, pinned }
    if (resolution.kind === "unknown") return renderMissingPath(resolution.target, resolution.suggestions, request.wording)
    if (query !== "") {
      if (resolution.kind === "resolver") {
        // A resolver names tools, not a node: rank the whole tree and keep its tools.
        const names = new Set(resolution.tools.map((tool) => tool.name))
        const all = (yield* ranked(context.catalog, query, undefined, Option.some(agent), FIND_LIMIT)).tools.filter((tool) => names.has(tool.name))
        return renderSearch(query, all.slice(0, SEARCH_LIMIT), all.length, view)
      }
      const result = yield* ranked(context.catalog, query, resolution.node, Option.some(agent), SEARCH_LIMIT)
      return renderSearch(query, result.tools, result.total, view)
    }
    if (resolution.kind === "resolver") {
      return renderSearch(resolution.target, resolution.tools.slice(0, SEARCH_LIMIT), resolution.tools.length, view)
    }
    return renderListing(context.catalog, resolution.node, view, request.wording)
  })

  const find = Effect.fn("CatalogViews.find")(function*(query: string, path: string, agent: Option.Option<Agent>) {
    const { catalog } = yield* builds.get(agent)
    const resolution = resolveTarget(catalog, path, (yield* registry.current).resolvers)
    if (resolution.kind === "unknown") return []
    const under = resolution.kind === "resolver" ? undefined : resolution.node
    return (yield* ranked(catalog, query, under, agent, FIND_LIMIT)).tools.map(hitOf)
  })

  const wireTokens = Effect.fn("CatalogViews.wireTokens")(function*(agent: Agent) {
    const context = yield* restrictions.contextOf(agent)
    const exempt = (yield* restrictions.exemptionOf(agent)).exempt
    const allow = new Set(yield* restrictions.orderedAllow(agent, context))
    const entry = new Map([...ENTRY_TOOL_DEFINITIONS, ...ROUTER_TOOL_DEFINITIONS].map((definition) => [definition.name as string, definition]))
    let tokens = 0
    for (const schema of context.hostTools) {
      if (!exempt && !allow.has(schema.name)) continue
      tokens += context.catalog.byName.get(schema.name)?.tokens ?? estimateTokens(schema)
      entry.delete(schema.name)
    }
    // Entry tools the host does not list among its tools are still sent.
    for (const definition of entry.values()) tokens += estimateTokens(definition)
    return tokens
  })

  return CatalogViews.of({ list, find, wireTokens })
})
