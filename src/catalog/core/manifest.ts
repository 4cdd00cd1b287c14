/**
 * The manifest: the whole catalog index as one JSON file, for clients that receive their tool
 * list once per session and cannot browse with `tools_ls`. Rewritten whenever the host's build
 * changes (the `ManifestWriter` service), so it never drifts from what `tools_load` would answer.
 * Pure: the shape, the content of a catalog, and the build key read back from a file's head.
 */
import { Option, Schema } from "effect"
import type { Catalog, ToolEntry } from "./model.js"
import { ENTRY_TOOLS } from "./visibility.js"

const ManifestTool = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  summary: Schema.String,
  tokens: Schema.Number,
  highRisk: Schema.Boolean
})

const ManifestGroup = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  toolCount: Schema.Number,
  tokens: Schema.Number,
  tools: Schema.Array(ManifestTool)
})

const ManifestCategory = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  description: Schema.String,
  toolCount: Schema.Number,
  tokens: Schema.Number,
  groups: Schema.Array(ManifestGroup)
})

const ManifestAlias = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  description: Schema.String,
  tools: Schema.Array(Schema.String)
})

/** The manifest file, versioned. */
export const Manifest = Schema.Struct({
  schemaVersion: Schema.Literal(1),
  generatedAt: Schema.String,
  toolSetKey: Schema.String,
  /** The build it shows (tool set and placement options): the same key, the same content. */
  buildKey: Schema.optional(Schema.String),
  toolCount: Schema.Number,
  totalTokens: Schema.Number,
  /** How to use it: the entry tools load what the index lists. */
  usage: Schema.String,
  entryTools: Schema.Array(Schema.String),
  categories: Schema.Array(ManifestCategory),
  aliases: Schema.Array(ManifestAlias)
})

/** The manifest file's content. */
export type Manifest = typeof Manifest.Type

const toolOf = (tool: ToolEntry) => ({
  name: tool.name,
  path: tool.path,
  summary: tool.summary,
  tokens: tool.tokens,
  highRisk: tool.highRisk
})

/** The manifest of a catalog, stamped with `generatedAt` (ISO 8601) and the key of its build when known. */
export const manifestOf = (catalog: Catalog, generatedAt: string, buildKey?: string): Manifest => ({
  schemaVersion: 1,
  generatedAt,
  toolSetKey: catalog.toolSetKey,
  ...(buildKey === undefined ? {} : { buildKey }),
  toolCount: catalog.tools.length,
  totalTokens: catalog.totalTokens,
  usage:
    "Every tool below is hidden until loaded. Call tools_load with a group path (\"/category/group\") or a full tool name; high-risk tools load one by one.",
  entryTools: [...ENTRY_TOOLS],
  categories: [...catalog.categories.values()].map((category) => ({
    name: category.name,
    path: category.path,
    description: category.description,
    toolCount: category.toolCount,
    tokens: category.tokens,
    groups: category.children.map((group) => ({
      name: group.name,
      path: group.path,
      toolCount: group.toolCount,
      tokens: group.tokens,
      tools: group.children.map(toolOf)
    }))
  })),
  aliases: [...catalog.aliases.values()].map((alias) => ({
    name: alias.name,
    path: alias.path,
    description: alias.description,
    tools: alias.children.map((tool) => tool.name)
  }))
})

/** How many bytes from the start of a manifest hold its `buildKey` (it comes fourth, after short fields). */
export const MANIFEST_HEAD_BYTES = 1024

/** The `buildKey` in the head of a manifest file, if it has one there. */
export const buildKeyInHead = (head: string): Option.Option<string> =>
  Option.fromNullable(/"buildKey"\s*:\s*"([^"\\]*)"/.exec(head)?.[1])
