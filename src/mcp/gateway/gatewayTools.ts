/**
 * The gateway's entry tools as its `tools/list` shows them (the catalog's and the router's,
 * `tools_ls` with `refresh`, and the gateway's own `tools_call`), and the texts the gateway adds
 * to a load's answer: each loaded tool's schema and how to call it. Pure.
 *
 * Every entry tool carries `_meta["anthropic/alwaysLoad"]: true`: Claude Code defers MCP tools
 * behind its tool search unless a tool says so (2.1.332 reads the key per tool), and a deferred
 * `tools_ls` would cost the model a search before it can browse anything.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Schema } from "effect"
import { type EntryToolDefinition, TOOLS_LOAD, TOOLS_LS, TOOLS_UNLOAD } from "../../catalog/core/entryTools.js"
import { ROUTER_TOOL_DEFINITIONS, type RouterToolDefinition } from "../../catalog/core/router/routerTools.js"
import { cleanText } from "../../inventory/domain/untrusted.js"
import { untrustedJson } from "../server/untrusted.js"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"

/** The `_meta` keys Claude Code reads on an MCP tool. */
export const ALWAYS_LOAD = "anthropic/alwaysLoad"
const SEARCH_HINT = "anthropic/searchHint"

/** The search hint of the entry tools: the words a tool search should find them by. */
export const ENTRY_SEARCH_HINT = "find, load and call the tools of MCP servers behind the tool-map gateway"

type GatewayDefinition = EntryToolDefinition | RouterToolDefinition | typeof TOOLS_CALL_DEFINITION

/** What an entry tool does to the world, as MCP annotations: hosts read them to decide what to ask the user. */
type EntryAnnotations = NonNullable<Tool["annotations"]>

/** Reads the catalog, changes nothing. */
const READS: EntryAnnotations = { readOnlyHint: true, openWorldHint: false }

/** Changes only the session's tool list: nothing outside tool-map, and the same call twice is one. */
const SESSION_LIST: EntryAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }

/**
 * An entry tool's definition in the SDK's shape. `additionalProperties: false` is left out: the
 * gateway decodes every argument itself, and each of those tokens is in every session. The
 * annotations are read by hosts, not sent to the model.
 */
const entryTool = (
  definition: GatewayDefinition,
  options: {
    readonly annotations?: EntryAnnotations | undefined
    readonly extra?: Readonly<Record<string, unknown>> | undefined
    readonly omitted?: ReadonlyArray<string> | undefined
  } = {}
): Tool => {
  const { required, properties, additionalProperties: _strict, ...schema } = definition.inputSchema
  const kept = Object.fromEntries(Object.entries(properties).filter(([name]) => !(options.omitted ?? []).includes(name)))
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: {
      ...schema,
      properties: { ...kept, ...options.extra } as Record<string, object>,
      // An empty list says nothing.
      ...(required.length === 0 ? {} : { required: [...required] })
    },
    ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    _meta: { [ALWAYS_LOAD]: true, [SEARCH_HINT]: ENTRY_SEARCH_HINT }
  }
}

/** `tools_call`: the gateway's way to call a catalog tool the host has not listed (Codex never re-lists). */
const TOOLS_CALL_DEFINITION = {
  name: "tools_call",
  description: "Call a loaded tool that is not in your tool list.",
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string" },
      arguments: { type: "object" }
    },
    required: ["name"],
    additionalProperties: false
  }
} as const

/** The name of `tools_call`. */
export const TOOLS_CALL_NAME = TOOLS_CALL_DEFINITION.name

/** Arguments of `tools_call`; `arguments` defaults to none. */
export const ToolsCallArgs = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalWith(OwnRecord(Schema.Unknown), { default: () => ({}) })
})

/** The router's tools: finding reads, routing loads. */
const ROUTER_ANNOTATIONS: Readonly<Record<RouterToolDefinition["name"], EntryAnnotations>> = {
  tools_find: READS,
  tools_route: SESSION_LIST,
  skills_find: READS,
  skills_route: READS
}

/**
 * The entry tools as `tools/list` shows them, in this order: browse, load, unload, call, then the
 * router's. `tools_call` has no annotations: what it does is what the tool it calls does.
 */
export const GATEWAY_ENTRY_TOOLS: ReadonlyArray<Tool> = [
  entryTool(TOOLS_LS, { annotations: READS, extra: { refresh: { type: "boolean", description: "Re-list the servers first." } } }),
  // A host's subagents share its MCP session, so the gateway cannot tell them apart: no forSubagents.
  entryTool(TOOLS_LOAD, { annotations: SESSION_LIST, omitted: ["forSubagents"] }),
  entryTool(TOOLS_UNLOAD, { annotations: SESSION_LIST }),
  entryTool(TOOLS_CALL_DEFINITION),
  ...ROUTER_TOOL_DEFINITIONS.map((definition) => entryTool(definition, { annotations: ROUTER_ANNOTATIONS[definition.name] }))
]

/** How long a schema may be in a load's answer before it is only counted. */
export const ANSWER_SCHEMA_MAX_CHARS = 2_000

/** A tool's input schema as one line of JSON: cleaned, `$schema` dropped, cut when long. */
export const compactSchema = (inputSchema: unknown): string => {
  const cleaned = untrustedJson(inputSchema)
  const withoutDialect = typeof cleaned === "object" && cleaned !== null && !Array.isArray(cleaned)
    ? Object.fromEntries(Object.entries(cleaned).filter(([key]) => key !== "$schema"))
    : cleaned
  const json = JSON.stringify(withoutDialect) ?? "{}"
  return json.length <= ANSWER_SCHEMA_MAX_CHARS ? json : `(${json.length} characters; see tools_ls on its path)`
}

/** Whether the client re-lists its tools after `notifications/tools/list_changed`, as this session showed. */
export type Relisting = "Unknown" | "Relists" | "Never"

/**
 * The lines a load's answer ends with: each tool made callable, its schema, and how to call it —
 * by its own name once the client has re-listed, else through `tools_call`.
 */
export const loadedToolLines = (
  loaded: ReadonlyArray<{ readonly name: string; readonly inputSchema: unknown }>,
  relisting: Relisting
): ReadonlyArray<string> => {
  if (loaded.length === 0) return []
  const how = relisting === "Relists"
    ? "Your tool list now has them: call each by its name (tools_call {name, arguments} works too)."
    : relisting === "Never"
    ? "Your client does not update its tool list: call them with tools_call {name, arguments}."
    : "Call them by name once your tool list has them, until then with tools_call {name, arguments}."
  return [how, ...loaded.map((tool) => cleanText(`${tool.name} ${compactSchema(tool.inputSchema)}`))]
}
