/**
 * The router's pure entry points: the documents of a catalog, and ranked hits with why they
 * matched. The `Router` service keeps an index per tool set and calls these.
 */
import type { Catalog, ToolSchema } from "../model.js"
import { type RouterDocument, toolDocument } from "./document.js"
import { runSteps, type Steps } from "./steps.js"

/** {@link routerDocuments} in steps: one step a tool. */
export function* routerDocumentSteps(catalog: Catalog, schemas: ReadonlyArray<ToolSchema>): Steps<Array<RouterDocument>> {
  const byName = new Map<string, ToolSchema>()
  for (const schema of schemas) if (!byName.has(schema.name)) byName.set(schema.name, schema)
  const documents = new Array<RouterDocument>(catalog.tools.length)
  for (let position = 0; position < catalog.tools.length; position++) {
    const entry = catalog.tools[position]!
    documents[position] = toolDocument(entry, byName.get(entry.name))
    yield
  }
  return documents
}

/** The documents of a catalog's tools, in tree order; `schemas` gives their parameters and annotations. */
export const routerDocuments = (catalog: Catalog, schemas: ReadonlyArray<ToolSchema>): Array<RouterDocument> =>
  runSteps(routerDocumentSteps(catalog, schemas))

/** The document of a skill or a subagent of an agent host: its name, its host (or plugin), its description, its tools. */
export const skillDocument = (
  item: { readonly id: string; readonly name: string; readonly host: string; readonly plugin: string | null; readonly description: string | null },
  kind: "skill" | "agent",
  tools: ReadonlyArray<string>
): RouterDocument => ({
  id: item.id,
  name: item.name,
  shortName: item.name,
  group: item.plugin ?? "",
  texts: {
    name: item.name,
    group: item.plugin ?? "",
    category: kind === "agent" ? "agent subagent" : "skill",
    description: item.description ?? "",
    parameters: tools.join("\n"),
    values: ""
  },
  intents: 0
})
