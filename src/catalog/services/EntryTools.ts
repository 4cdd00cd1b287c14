import { Context, Effect, Layer, Schema } from "effect"
import {
  ENTRY_TOOL_DEFINITIONS,
  EntryToolArgumentsError,
  type EntryToolDefinition,
  ToolsLoadArgs,
  ToolsLsArgs,
  ToolsUnloadArgs
} from "../core/entryTools.js"
import { CatalogLoads } from "./CatalogLoads.js"
import { CatalogViews } from "./CatalogViews.js"
import type { Agent } from "./HostPort.js"

/** An entry tool was called by a name that is not one. */
export class UnknownEntryTool extends Schema.TaggedError<UnknownEntryTool>()("UnknownEntryTool", {
  name: Schema.String
}) {
  get message() {
    return `${this.name} is not an entry tool of the catalog (tools_ls, tools_load, tools_unload)`
  }
}

/** The model's way into the catalog: `tools_ls`, `tools_load` and `tools_unload`, decoded and run. */
export class EntryTools extends Context.Tag("tool-map/EntryTools")<EntryTools, {
  /** The entry tools' definitions, for the host to register. */
  readonly definitions: ReadonlyArray<EntryToolDefinition>
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
      default:
        return yield* new UnknownEntryTool({ name })
    }
  })

  return EntryTools.of({ definitions: ENTRY_TOOL_DEFINITIONS, call })
})
