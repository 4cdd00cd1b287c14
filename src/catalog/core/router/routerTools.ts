/**
 * The router's entry tools — `tools_find`, `tools_route`, `skills_find`, `skills_route` — as
 * the model sees them: their definitions, the decoding of their arguments, the choice of what
 * a route loads within a token budget, and every text they answer with. Pure: the `Router`
 * service runs them.
 */
import { Schema } from "effect"
import type { ToolDefinitionOf } from "../model.js"
import { neutralize } from "../../../inventory/domain/untrusted.js"
import type { Field } from "./document.js"
import type { MatchedFields } from "./rank.js"
import { fitText, MAX_NAME_WIDTH } from "../sanitize.js"
import { formatTokens } from "../../../inventory/domain/tokens.js"
import { AGENT_WORDING, type Wording } from "../wording.js"

/** The names of the router's entry tools. */
export type RouterToolName = "tools_find" | "tools_route" | "skills_find" | "skills_route"

/** The definition of one router entry tool, in the shape hosts register tools with. */
export type RouterToolDefinition = ToolDefinitionOf<RouterToolName>

/** How many hits `tools_find` and `skills_find` give by default, and at most. */
export const DEFAULT_FIND_K = 10
export const MAX_FIND_K = 50

/** The token budget of `tools_route` when none is given, and how many tools it loads at most. */
export const DEFAULT_ROUTE_BUDGET = 4_000
export const MAX_ROUTE_TOOLS = 5

/**
 * A hit below this share of the best hit's score is not loaded by a route: it matched much less
 * of the task.
 */
export const ROUTE_MIN_SHARE = 0.5

// The tool descriptions say what a query is: every token here is in every session (issue 10).
const queryProperty = { type: "string" }
// k's bounds are the decoder's: an out-of-range k is refused with them (default 10, at most 50).
const kProperty = { type: "integer" }
// The argument's decoder names the hosts when it refuses another (claude-code, codex, cursor, gemini, opencode).
const hostProperty = { type: "string" }

/** `tools_find`: rank the catalog against a task. */
export const TOOLS_FIND: RouterToolDefinition = {
  name: "tools_find",
  description:
    "Rank the tools for a task in plain words; load hits with tools_load.",
  inputSchema: {
    type: "object",
    properties: {
      query: queryProperty,
      k: kProperty,
      path: { type: "string" }
    },
    required: ["query"],
    additionalProperties: false
  }
}

/** `tools_route`: find, then load the best matches within a budget. */
export const TOOLS_ROUTE: RouterToolDefinition = {
  name: "tools_route",
  description:
    `Find and load the best tools for a task (at most ${MAX_ROUTE_TOOLS}, within budget).`,
  inputSchema: {
    type: "object",
    properties: {
      query: queryProperty,
      budget: { type: "integer", description: `Schema tokens (default ${DEFAULT_ROUTE_BUDGET}).` }
    },
    required: ["query"],
    additionalProperties: false
  }
}

/** `skills_find`: rank the skills and subagents the agent hosts load. */
export const SKILLS_FIND: RouterToolDefinition = {
  name: "skills_find",
  description:
    "Rank the agent hosts' skills and subagents for a task.",
  inputSchema: {
    type: "object",
    properties: { query: queryProperty, k: kProperty, host: hostProperty },
    required: ["query"],
    additionalProperties: false
  }
}

/** `skills_route`: the best skill for a task, with its instructions. */
export const SKILLS_ROUTE: RouterToolDefinition = {
  name: "skills_route",
  description:
    "The instructions of the best skill or subagent for a task.",
  inputSchema: {
    type: "object",
    properties: { query: queryProperty, host: hostProperty },
    required: ["query"],
    additionalProperties: false
  }
}

/** The router's entry tools, in the order a host registers them (after tools_ls, tools_load, tools_unload). */
export const ROUTER_TOOL_DEFINITIONS: ReadonlyArray<RouterToolDefinition> = [TOOLS_FIND, TOOLS_ROUTE, SKILLS_FIND, SKILLS_ROUTE]

/** The router's entry tool names. */
export const ROUTER_TOOLS: ReadonlyArray<RouterToolName> = ROUTER_TOOL_DEFINITIONS.map((definition) => definition.name)

const K = Schema.Int.pipe(Schema.between(1, MAX_FIND_K))
const Host = Schema.Literal("claude-code", "codex", "cursor", "gemini", "opencode")

/** Arguments of `tools_find`. */
export const ToolsFindArgs = Schema.Struct({ query: Schema.String, k: Schema.optional(K), path: Schema.optional(Schema.String) })

/** Arguments of `tools_route`. */
export const ToolsRouteArgs = Schema.Struct({ query: Schema.String, budget: Schema.optional(Schema.Int.pipe(Schema.positive())) })

/** Arguments of `skills_find`. */
export const SkillsFindArgs = Schema.Struct({ query: Schema.String, k: Schema.optional(K), host: Schema.optional(Host) })

/** Arguments of `skills_route`. */
export const SkillsRouteArgs = Schema.Struct({ query: Schema.String, host: Schema.optional(Host) })

/** One tool the router found, as data. */
export interface ToolHit {
  readonly name: string
  readonly path: string
  readonly summary: string
  readonly tokens: number
  /** Rounded to two decimals; comparable within one answer only. */
  readonly score: number
  readonly highRisk: boolean
  readonly loaded: boolean
  /** The fields that held the task's words (empty for a hit by exact name or by feedback terms only). */
  readonly matched: MatchedFields
}

/** One skill or subagent the router found, as data. */
export interface SkillHit {
  readonly id: string
  readonly name: string
  readonly kind: "skill" | "agent"
  readonly host: string
  readonly description: string
  readonly path: string
  readonly score: number
  readonly matched: MatchedFields
}

/** Why a route left a hit out. */
export type LeftOut =
  | { readonly _tag: "Loaded"; readonly name: string }
  | { readonly _tag: "WeakMatch"; readonly name: string; readonly score: number; readonly best: number }
  | { readonly _tag: "OverBudget"; readonly name: string; readonly tokens: number; readonly left: number }
  | { readonly _tag: "TooMany"; readonly name: string; readonly limit: number }

/** What a route chose: the names to load in one load, and the others with the reason. */
export interface RoutePlan {
  readonly load: ReadonlyArray<ToolHit>
  readonly leftOut: ReadonlyArray<LeftOut>
}

/**
 * The hits a route loads: in rank order, each at least `ROUTE_MIN_SHARE` of the best score,
 * not loaded yet, whose schema fits what is left of the budget, at most `MAX_ROUTE_TOOLS`.
 */
export const planRoute = (hits: ReadonlyArray<ToolHit>, budget: number): RoutePlan => {
  const load: Array<ToolHit> = []
  const leftOut: Array<LeftOut> = []
  const best = hits[0]?.score ?? 0
  let left = budget
  for (const hit of hits) {
    if (hit.loaded) leftOut.push({ _tag: "Loaded", name: hit.name })
    else if (hit.score < best * ROUTE_MIN_SHARE) leftOut.push({ _tag: "WeakMatch", name: hit.name, score: hit.score, best })
    else if (load.length >= MAX_ROUTE_TOOLS) leftOut.push({ _tag: "TooMany", name: hit.name, limit: MAX_ROUTE_TOOLS })
    else if (hit.tokens > left) leftOut.push({ _tag: "OverBudget", name: hit.name, tokens: hit.tokens, left })
    else {
      load.push(hit)
      left -= hit.tokens
    }
  }
  return { load, leftOut }
}

const answer = (lines: ReadonlyArray<string>): string => lines.map(neutralize).join("\n")

const FIELD_LABELS: Readonly<Record<Field, string>> = {
  name: "name",
  group: "server",
  category: "category",
  description: "description",
  parameters: "parameters",
  values: "values"
}

/** Why a hit matched, in a few words: `name: issue, create; description: bug`. */
export const whyText = (matched: MatchedFields): string =>
  matched.length === 0 ? "related terms" : matched.map(({ field, words }) => `${FIELD_LABELS[field]}: ${words.join(", ")}`).join("; ")

const score = (value: number) => value.toFixed(2)

/** The answer of `tools_find`. */
export const renderToolsFind = (query: string, hits: ReadonlyArray<ToolHit>, wording: Wording = AGENT_WORDING): string => {
  if (hits.length === 0) return answer([`No tools match "${query}". Try other words, or browse with ${wording.browse}.`])
  const route = wording.route === undefined ? "" : `, or find and load at once with ${wording.route}`
  return answer([
    `${hits.length} ${hits.length === 1 ? "tool" : "tools"} for "${query}", best first (load with ${wording.load}${route}):`,
    ...hits.flatMap((hit) => [
      `  ${hit.loaded ? "*" : " "}${hit.highRisk ? "!" : " "} ${score(hit.score)}  ${fitText(hit.path, MAX_NAME_WIDTH)}  ${formatTokens(hit.tokens)}  ${hit.summary}`.trimEnd(),
      `        why: ${whyText(hit.matched)}`
    ])
  ])
}

/** A reason a route left a tool out, as a line. */
export const leftOutText = (reason: LeftOut): string => {
  switch (reason._tag) {
    case "Loaded":
      return `${reason.name}: loaded already`
    case "WeakMatch":
      return `${reason.name}: a weaker match (score ${score(reason.score)}, under half of the best ${score(reason.best)})`
    case "OverBudget":
      return `${reason.name}: over the budget (${formatTokens(reason.tokens)}, ${formatTokens(reason.left)} left)`
    case "TooMany":
      return `${reason.name}: a route loads at most ${reason.limit} tools`
  }
}

/** What a route did, for `renderRoute`. */
export interface RouteOutcome {
  readonly query: string
  readonly budget: number
  readonly plan: RoutePlan
  /** The text of the one load (empty when nothing was to load). */
  readonly loadText: string
}

/** The answer of `tools_route`. */
export const renderRoute = (outcome: RouteOutcome): string => {
  const { plan } = outcome
  const head = plan.load.length === 0
    ? [`Nothing to load for "${outcome.query}" within ${formatTokens(outcome.budget)}.`]
    : [`Routed "${outcome.query}" (budget ${formatTokens(outcome.budget)}): chose ${plan.load.map((hit) => hit.name).join(", ")}.`, outcome.loadText]
  // The load's text is an answer already: its lines are kept as they are.
  return [
    answer(head.slice(0, 1)),
    ...head.slice(1),
    ...(plan.leftOut.length > 0 ? [answer(["Left out:", ...plan.leftOut.map((reason) => `  ${leftOutText(reason)}`)])] : [])
  ].join("\n")
}

/** The answer of `skills_find`. */
export const renderSkillsFind = (query: string, hits: ReadonlyArray<SkillHit>): string => {
  if (hits.length === 0) return answer([`No skills or subagents match "${query}".`])
  return answer([
    `${hits.length} for "${query}", best first (skills_route returns the best one's instructions):`,
    ...hits.flatMap((hit) => [
      `  ${score(hit.score)}  ${hit.kind} ${fitText(hit.name, MAX_NAME_WIDTH)} (${hit.host})  ${fitText(hit.description, 200)}`,
      `        ${hit.path}`,
      `        why: ${whyText(hit.matched)}`
    ])
  ])
}

/** The chosen skill's instructions, for `renderSkillRoute`. */
export interface SkillBody {
  readonly text: string
  /** True when the file was longer than the cap. */
  readonly truncated: boolean
  readonly bytes: number
}

/** The answer of `skills_route`: the best hit and its instructions, or why there are none. */
export const renderSkillRoute = (query: string, hit: SkillHit | undefined, body: SkillBody | string): string => {
  if (hit === undefined) return answer([`No skill or subagent matches "${query}".`])
  const header = `Best ${hit.kind} for "${query}": ${hit.name} (${hit.host}), ${hit.path}`
  if (typeof body === "string") return answer([header, `Its file could not be read: ${body}`])
  return [
    answer([header, body.truncated ? `Instructions (the first ${body.text.length} characters of ${body.bytes} bytes):` : "Instructions:"]),
    body.text
  ].join("\n")
}
