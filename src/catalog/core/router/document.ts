/**
 * What the router indexes of a tool (or a skill): its texts by field, its group and its
 * intents. The fields of a tool are its name (and title), its group (the MCP server), its
 * category, its description, its parameters (names and descriptions, nested ones too) and the
 * values its parameters take (enums and constants).
 */
import { MISC_GROUP, type ToolEntry, type ToolSchema, UNCATEGORIZED } from "../model.js"
import { toolIntents } from "./intents.js"

/** The fields of a document, in the order of their weights. */
export const FIELDS = ["name", "group", "category", "description", "parameters", "values"] as const

/** One field of a document. */
export type Field = (typeof FIELDS)[number]

/** One thing the router ranks: a tool of the catalog, a skill or a subagent. */
export interface RouterDocument {
  /** Unique in an index: the full tool name, or the item's id. */
  readonly id: string
  /** The name a caller types: the full tool name, the skill's name. */
  readonly name: string
  /** The name without its server prefix. */
  readonly shortName: string
  /** The server, plugin or host the item comes from; "" when none (no server-level evidence). */
  readonly group: string
  readonly texts: Readonly<Record<Field, string>>
  /** `INTENT_BITS` of what the item does. */
  readonly intents: number
}

// A schema can nest deeply and list thousands of values: the router reads a bounded part.
const MAX_SCHEMA_DEPTH = 4
const MAX_SCHEMA_TEXT = 4_000

/** Parameter names and descriptions, and the string values parameters take, of a JSON Schema. */
export const schemaTexts = (schema: unknown): { readonly parameters: string; readonly values: string } => {
  const parameters: Array<string> = []
  const values: Array<string> = []
  let length = 0
  const push = (into: Array<string>, text: string) => {
    if (length >= MAX_SCHEMA_TEXT) return
    const cut = text.slice(0, MAX_SCHEMA_TEXT - length)
    into.push(cut)
    length += cut.length + 1
  }
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_SCHEMA_DEPTH || node === null || typeof node !== "object" || Array.isArray(node)) return
    const record = node as Readonly<Record<string, unknown>>
    const properties = record["properties"]
    if (properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
      for (const [name, property] of Object.entries(properties as Readonly<Record<string, unknown>>)) {
        push(parameters, name)
        if (property !== null && typeof property === "object") {
          const description = (property as Readonly<Record<string, unknown>>)["description"]
          if (typeof description === "string") push(parameters, description)
        }
        visit(property, depth + 1)
      }
    }
    for (const key of ["enum", "examples"]) {
      const list = record[key]
      if (Array.isArray(list)) for (const value of list) if (typeof value === "string") push(values, value)
    }
    if (typeof record["const"] === "string") push(values, record["const"])
    visit(record["items"], depth + 1)
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const list = record[key]
      if (Array.isArray(list)) for (const branch of list) visit(branch, depth + 1)
    }
  }
  visit(schema, 0)
  return { parameters: parameters.join("\n"), values: values.join("\n") }
}

/**
 * What the document of a catalog tool is built from (`toolDocument`): equal sources, equal
 * documents. The definition hash covers the definition the document reads (the raw
 * description, the input schema, the MCP annotations: title and hints); the build decides the
 * short name, group and category, and cuts the description at its cap (its length says where,
 * the raw text being hashed). The one rule of when an index is stale: a kept index is reused,
 * and an index file taken, only for tools of the same sources.
 */
export const SOURCE_TEXTS = ["name", "definitionHash", "shortName", "group", "category"] as const

/** Whether two catalog entries give the same document (see `SOURCE_TEXTS`). */
export const sameDocumentSource = (a: ToolEntry, b: ToolEntry): boolean =>
  SOURCE_TEXTS.every((text) => a[text] === b[text]) && a.description.length === b.description.length

/** The group of a catalog tool's document: a tool of the catch-all group has no server to lend it evidence. */
export const toolDocumentGroup = (entry: ToolEntry): string => (entry.group === MISC_GROUP ? "" : entry.group)

/** The document of a catalog tool; `schema` is its definition as the host gave it (for the parameters and annotations). */
export const toolDocument = (entry: ToolEntry, schema: ToolSchema | undefined): RouterDocument => {
  const { parameters, values } = schema === undefined ? { parameters: "", values: "" } : schemaTexts(schema.inputSchema)
  const title = schema?.annotations?.title
  const group = toolDocumentGroup(entry)
  return {
    id: entry.name,
    name: entry.name,
    shortName: entry.shortName,
    group,
    texts: {
      name: title === undefined ? entry.shortName : `${entry.shortName}\n${title}`,
      group,
      category: entry.category === UNCATEGORIZED ? "" : entry.category,
      description: entry.description,
      parameters,
      values
    },
    intents: toolIntents(entry.shortName, schema?.annotations)
  }
}
