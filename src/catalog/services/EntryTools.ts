import { Context, Effect, Layer, Option, Schema } from "effect"
import {
  ENTRY_TOOL_DEFINITIONS,
  EntryToolArgumentsError,
  type EntryToolDefinition,
  ToolsLoadArgs,
  ToolsLsArgs,
  ToolsUnloadArgs
} from "../core/entryTools.js"
import {
  renderSkillRoute,
  renderSkillsFind,
  renderToolsFind,
  ROUTER_TOOL_DEFINITIONS,
  type RouterToolDefinition,
  SkillsFindArgs,
  SkillsRouteArgs,
  ToolsFindArgs,
  ToolsRouteArgs
} from "../core/router/routerTools.js"
import { CatalogLoads } from "./CatalogLoads.js"
import { CatalogViews } from "./CatalogViews.js"
import type { Agent } from "./HostPort.js"
import { Router } from "./Router.js"

/** Every entry tool's definition: the catalog's three, then the router's four. */
export const ALL_ENTRY_TOOL_DEFINITIONS: ReadonlyArray<EntryToolDefinition | RouterToolDefinition> = [
  ...ENTRY_TOOL_DEFINITIONS,
  ...ROUTER_TOOL_DEFINITIONS
]

/** An entry tool was called by a name that is not one. */
export class UnknownEntryTool extends Schema.TaggedError<UnknownEntryTool>()("UnknownEntryTool", {
  name: Schema.String
}) {
  get message() {
    return `${this.name} is not an entry tool of the catalog (${ALL_ENTRY_TOOL_DEFINITIONS.map((definition) => definition.name).join(", ")})`
  }
}

/**
 * The model's way into the catalog: `tools_ls`, `tools_load`, `tools_unload`, and the router's
 * `tools_find`, `tools_route`, `skills_find`, `skills_route`, decoded and run.
 */
export class EntryTools extends Context.Tag("tool-map/EntryTools")<EntryTools, {
  /** The entry tools' definitions, for the host to register. */
  readonly definitions: ReadonlyArray<EntryToolDefinition | RouterToolDefinition>
  /** Runs an entry tool for an agent with the model's raw arguments, answering with the text the model gets. */
  readonly call: (
    agent: Agent,
    name: string,
    args: unknown
  ) => Effect.Effect<string, EntryToolArgumentsError | UnknownEntryTool>
}>() {
  static readonly layer = Layer.effect(this, Effect.suspend(() => make))
}

const decodeArgs = <A, I>(tool: string, schema: Schema.Schema<A, I>, args: unknown) =>
  Schema.decodeUnknown(schema)(args ?? {}).pipe(
    Effect.mapError((error) => new EntryToolArgumentsError({ tool, reason: error.message }))
  )

const make = Effect.gen(function*() {
  const views = yield* CatalogViews
  const loads = yield* CatalogLoads
  const router = yield* Router

  const call = Effect.fn("EntryTools.call")(function*(agent: Agent, name: string, args: unknown) {
    switch (name) {
      case "tools_ls":
        return yield* views.list(agent, yield* decodeArgs(name, ToolsLsArgs, args))
      case "tools_load": {
        const decoded = yield* decodeArgs(name, ToolsLoadArgs, args)
        return (yield* loads.load(agent, decoded.targets, { forSubagents: decoded.forSubagents })).text
      }
      case "tools_unload": {
        const decoded = yield* decodeArgs(name, ToolsUnloadArgs, args)
        return (yield* loads.unload(agent, decoded.targets)).text
      }
      case "tools_find": {
        const decoded = yield* decodeArgs(name, ToolsFindArgs, args)
        return renderToolsFind(decoded.query, yield* router.findTools(decoded, agent))
      }
      case "tools_route": {
        const decoded = yield* decodeArgs(name, ToolsRouteArgs, args)
        return (yield* router.routeTools(agent, decoded)).text
      }
      case "skills_find": {
        const decoded = yield* decodeArgs(name, SkillsFindArgs, args)
        return yield* router.findSkills(decoded).pipe(
          Effect.map((hits) => renderSkillsFind(decoded.query, hits)),
          Effect.catchTag("SkillsUnavailable", (error) => Effect.succeed(error.message))
        )
      }
      case "skills_route": {
        const decoded = yield* decodeArgs(name, SkillsRouteArgs, args)
        return yield* router.routeSkills(decoded).pipe(
          Effect.map((route) => renderSkillRoute(decoded.query, Option.getOrUndefined(route.hit), Option.getOrElse(route.body, () => ""))),
          Effect.catchTag("SkillsUnavailable", (error) => Effect.succeed(error.message))
        )
      }
      default:
        return yield* new UnknownEntryTool({ name })
    }
  })

  return EntryTools.of({ definitions: ALL_ENTRY_TOOL_DEFINITIONS, call })
})
