/**
 * The router: tools (and skills, subagents) for a task in plain words. It keeps one index per
 * tool set, built on the first question about it and extended in place when the next tool set
 * only adds tools; a host's `Embedder`, when there is one, is fused in.
 */
import { FileSystem } from "@effect/platform"
import { Context, Effect, Either, Layer, Option, Ref, Schema, type Scope, SynchronizedRef } from "effect"
import { resolveTarget } from "../core/catalog.js"
import type { Catalog, ToolSchema } from "../core/model.js"
import {
  catalogWords,
  DEFAULT_FUSION,
  fuseRankings,
  taskQuestion,
  toolEmbeddingText,
  type VectorHints,
  vectorHintsOf,
  type VectorSet,
  vectorSet,
  vectorsProblem,
  type WordSet
} from "../core/router/fusion.js"
import { sameDocumentSource } from "../core/router/document.js"
import { StoredIndex } from "../core/router/indexFile.js"
import { addDocuments, buildIndex, buildIndexSteps, type RouterIndex } from "../core/router/invertedIndex.js"
import { explainMatch, explainSteps, rankDocuments, type RankedDocument, rankSteps } from "../core/router/rank.js"
import { asRankIndex, type Needs, type RankIndex } from "../core/router/rankIndex.js"
import { routerDocuments, routerDocumentSteps, skillDocument } from "../core/router/router.js"
import {
  DEFAULT_FIND_K,
  DEFAULT_ROUTE_BUDGET,
  planRoute,
  renderRoute,
  type RoutePlan,
  type SkillBody,
  type SkillHit,
  type ToolHit
} from "../core/router/routerTools.js"
import { sanitizeDescription } from "../core/sanitize.js"
import { toolsUnder } from "../core/tree.js"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"
import { redactSecrets } from "../../inventory/domain/secrets.js"
import { filterAgents, filterSkills } from "../../inventory/query/agentQueries.js"
import { InventoryReader } from "../../inventory/query/InventoryReader.js"
import { readHead } from "../../services/fileRead.js"
import { AgentRestrictions } from "./AgentRestrictions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogLoads, type LoadResult } from "./CatalogLoads.js"
import { CatalogRegistry } from "./CatalogRegistry.js"
import { Embedder, EmbedderError } from "./Embedder.js"
import { noRouterIndexStore, RouterIndexStore, type RouterIndexUnreadable } from "../stores/RouterIndexStore.js"
import type { Agent } from "./HostPort.js"
import { runStepsSliced } from "../../services/slicedSteps.js"

/** Skills cannot be ranked: no inventory in this graph, or its bundle cannot be read. */
export class SkillsUnavailable extends Schema.TaggedError<SkillsUnavailable>()("SkillsUnavailable", {
  reason: Schema.String
}) {
  get message() {
    return `Skills and subagents cannot be searched: ${this.reason}`
  }
}

/** What `findTools` is asked. */
export interface FindToolsRequest {
  readonly query: string
  /** How many hits (default `DEFAULT_FIND_K`). */
  readonly k?: number | undefined
  /** Only tools under this path (or group, or tool name). */
  readonly path?: string | undefined
}

/** What a route did. */
export interface RouteResult {
  readonly plan: RoutePlan
  /** The one load, when there was something to load. */
  readonly load: Option.Option<LoadResult>
  /** The text of `tools_route`. */
  readonly text: string
}

/** What `findSkills` is asked. */
export interface FindSkillsRequest {
  readonly query: string
  readonly k?: number | undefined
  readonly host?: AgentHostName | undefined
}

/** The best skill for a task and its instructions (or why they could not be read). */
export interface SkillRoute {
  readonly hit: Option.Option<SkillHit>
  readonly body: Option.Option<SkillBody | string>
}

/** How much of a SKILL.md (or agent file) `skills_route` returns. */
export const SKILL_BODY_CAP = 16_384

/** How many indexes of tool sets are kept (the host's, a few agents' with other tool sets). */
const INDEXES_KEPT = 4

/** The index of one tool set. */
interface ToolIndex {
  /** The catalog of its documents (each built from its entry of that name). */
  readonly catalog: Catalog
  /** Built in memory, or read piece by piece from the store's file (its documents are then the catalog's tools, in order). */
  readonly index: RouterIndex | StoredIndex
  /**
   * The embedder's vectors of the documents and of the words of their texts, once asked for; or
   * why its answer could not be used (a wrong count or length: not asked again for this tool set).
   */
  vectors: Option.Option<Either.Either<{ readonly documents: VectorSet; readonly words: WordSet }, string>>
}

const NO_HINTS: VectorHints = { ranking: [], related: [] }

/** The index of the skills and subagents of one inventory and host. */
interface SkillIndex {
  readonly key: string
  readonly index: RouterIndex
  readonly items: ReadonlyArray<{ readonly kind: "skill" | "agent"; readonly host: string; readonly path: string; readonly description: string }>
}

/** Whether every document of a kept index is built from the same sources (`sameDocumentSource`) in `catalog`, which may add tools. */
const keepsDocuments = (kept: ToolIndex, catalog: Catalog): boolean => {
  const index = asRankIndex(kept.index)
  if (catalog.tools.length < index.documentCount) return false
  for (let position = 0; position < index.documentCount; position++) {
    const id = index.idOf(position)
    const entry = catalog.byName.get(id)
    const indexed = kept.catalog.byName.get(id)
    if (entry === undefined || indexed === undefined || !sameDocumentSource(entry, indexed)) return false
  }
  return true
}

/**
 * The index of `catalog` made from a kept one built in memory whose documents `catalog` keeps
 * (`keepsDocuments`) and which adds tools: extended in place.
 */
const reuse = (index: RouterIndex, catalog: Catalog, schemas: ReadonlyArray<ToolSchema>): ToolIndex => {
  const added = catalog.tools.filter((entry) => !index.byId.has(entry.name))
  addDocuments(index, routerDocuments({ ...catalog, tools: added }, schemas))
  return { catalog, index, vectors: Option.none() }
}

/** The kept index of `catalog`, whose documents are its tools in order. */
const toolIndexOf = (catalog: Catalog, index: RouterIndex | StoredIndex): ToolIndex => ({
  catalog,
  index,
  vectors: Option.none()
})

const round = (score: number) => Math.round(score * 100) / 100

/**
 * Ranks tools and skills for a task: `findTools` (`tools_find`), `routeTools` (`tools_route`,
 * which loads through `CatalogLoads`: hooks, risk gates, append-only), `findSkills` and
 * `routeSkills` (over the inventory's skills and subagents that the hosts load).
 */
export class Router extends Context.Tag("tool-map/Router")<Router, {
  /** The best tools for a task in the catalog one agent sees (the host's with no agent), best first. */
  readonly findTools: (request: FindToolsRequest, agent?: Agent) => Effect.Effect<ReadonlyArray<ToolHit>>
  /** Finds, then loads the best hits within a token budget in one load. */
  readonly routeTools: (agent: Agent, request: { readonly query: string; readonly budget?: number | undefined }) => Effect.Effect<RouteResult>
  /** The best skills and subagents for a task among those the hosts load, best first. */
  readonly findSkills: (request: FindSkillsRequest) => Effect.Effect<ReadonlyArray<SkillHit>, SkillsUnavailable>
  /** The best skill or subagent for a task, with its file's text (capped). */
  readonly routeSkills: (request: Omit<FindSkillsRequest, "k">) => Effect.Effect<SkillRoute, SkillsUnavailable>
}>() {
  /**
   * The router over the catalog's services; an `Embedder`, an `InventoryReader` and a
   * `RouterIndexStore` in the context where the layer is built are used (for fusion, for
   * skills, to keep the index of the tools across processes).
   */
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

const make = Effect.gen(function*() {
  const builds = yield* CatalogBuilds
  const restrictions = yield* AgentRestrictions
  const registry = yield* CatalogRegistry
  const loads = yield* CatalogLoads
  const fs = yield* FileSystem.FileSystem
  const embedder = yield* Effect.serviceOption(Embedder)
  // Without a store (memory-only hosts, tests) every process builds its index.
  const store = Option.getOrElse(yield* Effect.serviceOption(RouterIndexStore), () => noRouterIndexStore)
  const inventory = yield* Effect.serviceOption(InventoryReader)
  const toolIndexes = yield* SynchronizedRef.make<ReadonlyArray<ToolIndex>>([])
  const skillIndexes = yield* SynchronizedRef.make<Option.Option<SkillIndex>>(Option.none())
  // An embedder that fails says so once a process: it fails the same way on every ranking.
  const embedderWarned = yield* Ref.make(false)

  /** The index of a catalog built anew, saved to the store's file. */
  const built = (catalog: Catalog, schemas: ReadonlyArray<ToolSchema>) =>
    Effect.gen(function*() {
      // In slices: at 50,000 tools, over a second of work that SIGTERM must be able to stop.
      const documents = yield* runStepsSliced(routerDocumentSteps(catalog, schemas))
      const index = yield* runStepsSliced(buildIndexSteps(documents))
      yield* store.save(catalog, index)
      return toolIndexOf(catalog, index)
    })

  /**
   * The index of a catalog: a kept one (extended when the catalog only gained tools; one read
   * from the file is read whole first), else the one in the store's file when it was built from
   * this very catalog (read piece by piece as rankings ask), else a new one; an index not read
   * from the file is saved to it.
   */
  const indexOf = (catalog: Catalog, schemas: ReadonlyArray<ToolSchema>) =>
    SynchronizedRef.modifyEffect(toolIndexes, (kept) =>
      Effect.gen(function*() {
        for (let i = 0; i < kept.length; i++) {
          const candidate = kept[i]!
          if (candidate.catalog === catalog) return [candidate, [candidate, ...kept.filter((_, j) => j !== i)]] as const
          if (!keepsDocuments(candidate, catalog)) continue
          // Every tool of the kept index is in the catalog (`keepsDocuments`): the others are added.
          if (catalog.tools.length === asRankIndex(candidate.index).documentCount) {
            // Nothing added: the same tool set is the same index, as it is (one in the file stays there).
            if (catalog.toolSetKey !== candidate.catalog.toolSetKey) continue
            const same: ToolIndex = { catalog, index: candidate.index, vectors: candidate.vectors }
            return [same, [same, ...kept.filter((_, j) => j !== i)]] as const
          }
          const whole = candidate.index instanceof StoredIndex
            ? yield* wholeIndex(candidate.index)
            : Option.some(candidate.index)
          if (Option.isNone(whole)) continue
          const reused = reuse(whole.value, catalog, schemas)
          // Extended with new tools: a new tool set, kept when its documents are in the
          // catalog's order (a file is read back only in that order).
          if (whole.value.documents.every((indexed, position) => indexed.document.id === catalog.tools[position]?.name)) {
            yield* store.save(catalog, whole.value)
          }
          return [reused, [reused, ...kept.filter((_, j) => j !== i)]] as const
        }
        const stored = yield* store.load(catalog)
        if (Option.isSome(stored)) {
          const entry = toolIndexOf(catalog, stored.value)
          return [entry, [entry, ...kept].slice(0, INDEXES_KEPT)] as const
        }
        const entry = yield* built(catalog, schemas)
        return [entry, [entry, ...kept].slice(0, INDEXES_KEPT)] as const
      }))

  /** An index read from the file, read whole into memory (to be extended); `None` when the file cannot give it any more. */
  const wholeIndex = (index: StoredIndex) =>
    store.fetch(index, index.missing()).pipe(
      Effect.map(() => Option.some(index.toRouterIndex())),
      Effect.orElseSucceed(() => Option.none<RouterIndex>())
    )

  /**
   * The index of a catalog built anew, in place of a kept one read from a file that could not
   * give what a ranking asked for (gone, replaced, damaged); saved to the file.
   */
  const rebuild = (catalog: Catalog, schemas: ReadonlyArray<ToolSchema>) =>
    SynchronizedRef.modifyEffect(toolIndexes, (kept) =>
      Effect.gen(function*() {
        const entry = yield* built(catalog, schemas)
        return [entry, [entry, ...kept.filter((other) => other.catalog !== catalog)].slice(0, INDEXES_KEPT)] as const
      }))

  /** What one ranking reads from the file its index is read from: the file opened on its first need, once. */
  type Reads = Effect.Effect<(needs: Needs) => Effect.Effect<void, RouterIndexUnreadable>, RouterIndexUnreadable, Scope.Scope>

  /** Runs ranking steps over an index, reading what they ask for through `reads`. */
  const runSteps = <A>(index: RankIndex, reads: Reads, steps: Generator<Needs, A, void>): Effect.Effect<A, RouterIndexUnreadable, Scope.Scope> =>
    Effect.gen(function*() {
      let step = steps.next()
      while (step.done !== true) {
        if (!(index instanceof StoredIndex)) {
          steps.return(undefined as never)
          return yield* Effect.dieMessage("an index built in memory was asked for postings it does not hold")
        }
        const needs = step.value
        const fetched = yield* Effect.either(Effect.flatMap(reads, (read) => read(needs)))
        if (Either.isLeft(fetched)) {
          // Ends the steps (their buffers go back to the index's pool).
          steps.return(undefined as never)
          return yield* fetched.left
        }
        step = steps.next()
      }
      return step.value
    })

  /**
   * The embedder's hints for a query (none without an embedder, or when it fails: reported once):
   * its ranking of the tools (`clauseVectorRanking`: a task that joins needs by its clauses in
   * turns; none when no vector of the task is usable), and for each task word no tool's text
   * holds, the catalog's words nearest to it (`nearestWords`).
   */
  const vectorHints = (entry: ToolIndex, query: string, limit: number, keep: ((position: number) => boolean) | undefined) =>
    Option.match(embedder, {
      onNone: () => Effect.succeed(NO_HINTS),
      onSome: (provider) =>
        Effect.gen(function*() {
          const index = asRankIndex(entry.index)
          // Nothing to rank (a tool set of pinned tools only): the provider is not asked.
          if (index.documentCount === 0) return NO_HINTS
          // A provider's vectors are checked before use: a wrong count or length would silently rank by words alone.
          const unfit = (reason: string) => new EmbedderError({ provider: provider.name, reason })
          const embedToolSet = Effect.gen(function*() {
            const texts = Array.from({ length: index.documentCount }, (_, position) => toolEmbeddingText(entry.catalog.byName.get(index.idOf(position))!))
            const asked = [...texts, ...catalogWords(texts)]
            const answer = yield* provider.embed(asked)
            const problem = vectorsProblem(asked.length, answer)
            return problem === undefined
              ? Either.right({ documents: vectorSet(answer.slice(0, texts.length)), words: { words: asked.slice(texts.length), set: vectorSet(answer.slice(texts.length)) } })
              : Either.left(problem)
          })
          const state = yield* Option.match(entry.vectors, {
            onSome: Effect.succeed,
            onNone: () => Effect.tap(embedToolSet, (embedded) => Effect.sync(() => entry.vectors = Option.some(embedded)))
          })
          const vectors = yield* Either.mapLeft(state, unfit)
          const question = taskQuestion(entry.index, query)
          // Called on the provider, not detached from it: a provider may be an object whose methods use `this`.
          const answer = yield* provider.embedTasks !== undefined ? provider.embedTasks(question.texts) : provider.embed(question.texts)
          const problem = vectorsProblem(question.texts.length, answer, vectors.documents.dimensions)
          if (problem !== undefined) return yield* unfit(problem)
          return vectorHintsOf(question, answer, vectors, limit, keep)
        }).pipe(
          Effect.tapError((error) =>
            Effect.flatMap(Ref.getAndSet(embedderWarned, true), (warned) => warned ? Effect.void : Effect.logWarning(`${error.message}; the router ranks by words alone`))
          ),
          Effect.orElseSucceed(() => NO_HINTS)
        )
    })

  const findTools = Effect.fn("Router.findTools")(function*(request: FindToolsRequest, agent?: Agent) {
    const k = Math.max(1, request.k ?? DEFAULT_FIND_K)
    const { catalog, schemas, visible } = agent === undefined
      ? yield* Effect.map(builds.get(Option.none()), (build) => ({ ...build, visible: (_name: string) => false }))
      : yield* Effect.gen(function*() {
        const context = yield* restrictions.contextOf(agent)
        const exempt = (yield* restrictions.exemptionOf(agent)).exempt
        const allow = new Set(yield* restrictions.orderedAllow(agent, context))
        return { catalog: context.catalog, schemas: context.hostTools, visible: (name: string) => exempt || allow.has(name) }
      })
    let under: ReadonlySet<string> | undefined
    if (request.path !== undefined && request.path.trim() !== "" && request.path.trim() !== "/") {
      const resolution = resolveTarget(catalog, request.path, (yield* registry.current).resolvers)
      if (resolution.kind === "unknown") return []
      under = new Set((resolution.kind === "resolver" ? resolution.tools : toolsUnder(resolution.node)).map((tool) => tool.name))
    }
    const hitsOf = (entry: ToolIndex) => rankedHits(entry, catalog, request.query, k, under, visible)
    // A file that cannot give what the ranking asks for (gone, replaced, damaged): the index is
    // built again, and ranks from memory.
    return yield* hitsOf(yield* indexOf(catalog, schemas)).pipe(
      Effect.catchTag("RouterIndexUnreadable", () => Effect.flatMap(rebuild(catalog, schemas), (entry) => Effect.orDie(hitsOf(entry))))
    )
  })

  /** The best `k` tools of an index for a query (under a set of names), with why each matched. */
  const rankedHits = (
    entry: ToolIndex,
    catalog: Catalog,
    query: string,
    k: number,
    under: ReadonlySet<string> | undefined,
    visible: (name: string) => boolean
  ) =>
    Effect.scoped(Effect.gen(function*() {
      const index = asRankIndex(entry.index)
      const reads: Reads = index instanceof StoredIndex ? yield* Effect.cached(store.reader(index)) : Effect.dieMessage("an index built in memory has nothing to read")
      const keep = under === undefined ? undefined : (position: number) => under.has(index.idOf(position))
      const hints = yield* vectorHints(entry, query, DEFAULT_FUSION.vectorCandidates, keep)
      const lexical = yield* runSteps(index, reads, rankSteps(index, { query, limit: Math.max(k, 50), keep, related: hints.related }))
      const ranked: ReadonlyArray<Pick<RankedDocument, "position" | "score">> = hints.ranking.length === 0
        ? lexical
        : fuseRankings(lexical, hints.ranking, DEFAULT_FUSION)
      const best = ranked.slice(0, k)
      const matched = yield* runSteps(index, reads, explainSteps(index, best.map((hit) => hit.position), query))
      return best.map((hit, i): ToolHit => {
        const tool = catalog.byName.get(index.idOf(hit.position))!
        return {
          name: tool.name,
          path: tool.path,
          summary: tool.summary,
          tokens: tool.tokens,
          score: round(hit.score),
          highRisk: tool.highRisk,
          loaded: visible(tool.name),
          matched: matched[i]!
        }
      })
    }))

  const routeTools = Effect.fn("Router.routeTools")(function*(
    agent: Agent,
    request: { readonly query: string; readonly budget?: number | undefined }
  ) {
    const budget = request.budget ?? DEFAULT_ROUTE_BUDGET
    const hits = yield* findTools({ query: request.query, k: DEFAULT_FIND_K }, agent)
    const plan = planRoute(hits, budget)
    const load = plan.load.length === 0
      ? Option.none<LoadResult>()
      : Option.some(yield* loads.load(agent, plan.load.map((hit) => hit.name)))
    const text = renderRoute({
      query: request.query,
      budget,
      plan,
      loadText: Option.match(load, { onNone: () => "", onSome: (result) => result.text })
    })
    return { plan, load, text } satisfies RouteResult
  })

  const skillIndexOf = (host: AgentHostName | undefined) =>
    Effect.gen(function*() {
      if (Option.isNone(inventory)) {
        return yield* new SkillsUnavailable({ reason: "this host gives the catalog no inventory of the agent hosts" })
      }
      const loaded = yield* inventory.value.load(Option.none()).pipe(
        Effect.mapError((error) => new SkillsUnavailable({ reason: error.message }))
      )
      const key = `${loaded.generation}\u0000${host ?? ""}`
      return yield* SynchronizedRef.modify(skillIndexes, (kept): readonly [SkillIndex, Option.Option<SkillIndex>] => {
        if (Option.isSome(kept) && kept.value.key === key) return [kept.value, kept]
        const hosts = loaded.agentHosts
        const items = [
          ...filterSkills(hosts, { host }).map((item) => ({ item, kind: "skill" as const, tools: item.allowedTools ?? [] })),
          ...filterAgents(hosts, { host }).map((item) => ({ item, kind: "agent" as const, tools: item.tools ?? [] }))
        ]
        const index = buildIndex(items.map(({ item, kind, tools }) => skillDocument(item, kind, tools)))
        const fresh: SkillIndex = {
          key,
          index,
          items: items.map(({ item, kind }) => ({ kind, host: item.host, path: item.path, description: item.description ?? "" }))
        }
        return [fresh, Option.some(fresh)]
      })
    })

  const findSkills = Effect.fn("Router.findSkills")(function*(request: FindSkillsRequest) {
    const { index, items } = yield* skillIndexOf(request.host)
    const k = Math.max(1, request.k ?? DEFAULT_FIND_K)
    return rankDocuments(index, { query: request.query, limit: k }).map((hit): SkillHit => {
      const { document } = index.documents[hit.position]!
      const item = items[hit.position]!
      return {
        id: document.id,
        name: document.name,
        kind: item.kind,
        host: item.host,
        description: sanitizeDescription(item.description).text,
        path: item.path,
        score: round(hit.score),
        matched: explainMatch(index, hit.position, request.query)
      }
    })
  })

  const routeSkills = Effect.fn("Router.routeSkills")(function*(request: Omit<FindSkillsRequest, "k">) {
    const [hit] = yield* findSkills({ ...request, k: 1 })
    if (hit === undefined) return { hit: Option.none(), body: Option.none() } satisfies SkillRoute
    const body = yield* readHead(hit.path, SKILL_BODY_CAP + 1).pipe(
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.flatMap((head) =>
        Option.match(head, {
          onNone: () => Effect.succeed<SkillBody | string>("it does not exist any more"),
          onSome: (bytes) =>
            Effect.map(fs.stat(hit.path), (info): SkillBody => {
              const text = new TextDecoder().decode(bytes.subarray(0, SKILL_BODY_CAP))
              // The file's text goes to the model: cleaned as a tool description is, its secrets redacted (issue 27).
              return { text: redactSecrets(sanitizeDescription(text, SKILL_BODY_CAP).text), truncated: bytes.length > SKILL_BODY_CAP, bytes: Number(info.size) }
            })
        })
      ),
      Effect.catchAll((error) => Effect.succeed<SkillBody | string>(error.message))
    )
    return { hit: Option.some(hit), body: Option.some(body) } satisfies SkillRoute
  })

  return Router.of({ findTools, routeTools, findSkills, routeSkills })
})
