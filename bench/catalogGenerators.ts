/**
 * Generators of synthetic tool sets, shared by the catalog benchmarks (a seeded, fast,
 * realistic generator) and the property tests (fast-check arbitraries that aim for the
 * corner cases: shared short names, MCP and plain names, annotation layers, classifiers,
 * alias categories).
 */
import { FastCheck as fc } from "effect"
import type { BuildOptions } from "../src/catalog/core/catalog.js"
import type {
  Annotation,
  AnnotationLayers,
  CategoryDefinition,
  Classifier,
  ToolMeta,
  ToolSchema
} from "../src/catalog/core/model.js"

// ---- seeded generator for benchmarks ----

/** A small deterministic PRNG (mulberry32), so every bench run sees the same tools. */
export const prng = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const VERBS = ["get", "list", "search", "create", "update", "delete", "read", "write", "run", "find", "fetch", "send"]
const NOUNS = [
  "issue",
  "file",
  "page",
  "record",
  "message",
  "branch",
  "user",
  "table",
  "event",
  "image",
  "build",
  "report",
  "ticket",
  "invoice",
  "document",
  "comment"
]
const WORDS = (
  "the a of to and for with from in on by this that returns list item items value values " +
  "repository query results optional required string number identifier name path content " +
  "status filter limit page cursor token project workspace account channel database schema " +
  "create update delete read write search fetch send retrieve matching given specified current"
).split(" ")

const pick = <A>(random: () => number, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

const sentence = (random: () => number, min: number, max: number): string => {
  const n = min + Math.floor(random() * (max - min + 1))
  const words: Array<string> = []
  for (let i = 0; i < n; i++) words.push(pick(random, WORDS))
  const text = words.join(" ")
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
}

/**
 * `n` tool schemas shaped like real MCP tools: about 25 per server, named
 * `mcp__server__verb_noun`, one in ten a plain host tool, descriptions of one to four
 * sentences, one to six typed parameters with descriptions (about 250 tokens a tool).
 */
export const generateTools = (n: number, seed = 1): Array<ToolSchema> => {
  const random = prng(seed)
  const servers = Math.max(1, Math.round(n / 25))
  const tools: Array<ToolSchema> = []
  for (let i = 0; i < n; i++) {
    const base = `${pick(random, VERBS)}_${pick(random, NOUNS)}_${i.toString(36)}`
    const name = random() < 0.1 ? `host_${base}` : `mcp__server${Math.floor(random() * servers)}__${base}`
    const properties: Record<string, unknown> = {}
    const required: Array<string> = []
    const params = 1 + Math.floor(random() * 6)
    for (let p = 0; p < params; p++) {
      const key = `${pick(random, NOUNS)}${p === 0 ? "" : `_${pick(random, ["id", "name", "limit", "query"])}`}`
      properties[key] = { type: pick(random, ["string", "number", "boolean"]), description: sentence(random, 4, 14) }
      if (random() < 0.5) required.push(key)
    }
    const sentences = 1 + Math.floor(random() * 4)
    const description = Array.from({ length: sentences }, () => sentence(random, 6, 18)).join(" ")
    tools.push({ name, description, inputSchema: { type: "object", properties, required } })
  }
  return tools
}

/** Build options like a host's: one classifier placing servers in a few categories. */
export const benchOptions = (): BuildOptions => ({
  classifiers: [{
    id: "bench",
    priority: 0,
    classify: (tool) => {
      const match = /^mcp__server(\d+)__/.exec(tool.name)
      if (match === null) return undefined
      return { category: ["code", "data", "web", "comms", "files", "ops"][Number(match[1]) % 6] }
    }
  }],
  categories: [
    { name: "code", description: "Source hosting, reviews and CI" },
    { name: "data", description: "Databases and warehouses" },
    { name: "web", description: "Browsing, search and fetching" },
    { name: "comms", description: "Chat, mail and tickets" },
    { name: "files", description: "Files and documents" },
    { name: "ops", description: "Deployments and infrastructure" }
  ]
})

// ---- fast-check arbitraries for properties ----

const segment = fc.constantFrom("alpha", "beta", "gamma", "Delta", "x", "a b", "a/b")
const toolPart = fc.constantFrom("get", "list", "delete_item", "search", "read", "x", "writeFile", "run", "get")

/** Tool names mixing `mcp__server__tool`, plain and odd names, with shared short names. */
export const toolNameArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom("github", "fs", "db", "a_b"), toolPart).map(([server, tool]) => `mcp__${server}__${tool}`),
  toolPart,
  fc.tuple(toolPart, fc.integer({ min: 0, max: 9 })).map(([tool, i]) => `${tool}${i}`),
  fc.constantFrom("mcp__", "mcp____x", "mcp__s__", "a/b", "__x__")
)

/** One tool schema; descriptions sometimes carry hidden characters. */
export const toolSchemaArb: fc.Arbitrary<ToolSchema> = fc.record({
  name: toolNameArb,
  description: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom("Reads a file. Then more.", "Deletes\u200B things\u202E", "\u001b[31mred\u001b[0m", "")
  ),
  inputSchema: fc.oneof(
    fc.constant({ type: "object" }),
    fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.string({ maxLength: 5 }), fc.record({ type: fc.constant("string") }), { maxKeys: 3 }) })
  ),
  annotations: fc.option(fc.record({ readOnlyHint: fc.boolean(), destructiveHint: fc.boolean() }), { nil: undefined })
})

/** Tool schemas with distinct names. */
export const toolSetArb: fc.Arbitrary<Array<ToolSchema>> = fc.uniqueArray(toolSchemaArb, {
  selector: (tool) => tool.name,
  maxLength: 40
})

const metaArb: fc.Arbitrary<ToolMeta> = fc.record(
  { category: segment, group: segment, summary: fc.constantFrom("Short.", "Two words"), highRisk: fc.boolean() },
  { requiredKeys: [] }
)

/** Annotation layers over the names `names` can produce, exact and by pattern. */
export const annotationLayersArb: fc.Arbitrary<AnnotationLayers> = (() => {
  const annotation: fc.Arbitrary<Annotation> = fc.record({
    match: fc.oneof(toolNameArb, fc.constantFrom(/^mcp__github__/, /delete/g, /x$/)),
    meta: metaArb
  })
  const layer = fc.option(fc.array(annotation, { maxLength: 6 }), { nil: undefined })
  return fc.record({ package: layer, runtime: layer, user: layer })
})()

/** A classifier as data (so it is printable when a property fails) and its function. */
export interface ClassifierSpec {
  readonly id: string
  readonly priority: number
  readonly rules: ReadonlyArray<{ readonly contains: string; readonly category?: string; readonly group?: string }>
}

/** The classifier a spec describes: the first rule whose text is in the name answers. */
export const classifierOf = (spec: ClassifierSpec): Classifier => ({
  id: spec.id,
  priority: spec.priority,
  classify: (tool) => {
    const rule = spec.rules.find((r) => tool.name.includes(r.contains))
    return rule === undefined ? undefined : { category: rule.category, group: rule.group }
  }
})

/** Classifier specs with distinct ids. */
export const classifierSpecsArb: fc.Arbitrary<Array<ClassifierSpec>> = fc.uniqueArray(
  fc.record({
    id: fc.constantFrom("c1", "c2", "c3"),
    priority: fc.integer({ min: -1, max: 2 }),
    rules: fc.array(
      fc.record(
        { contains: fc.constantFrom("get", "github", "delete", "x", "run"), category: segment, group: segment },
        { requiredKeys: ["contains"] }
      ),
      { maxLength: 3 }
    )
  }),
  { selector: (spec) => spec.id, maxLength: 3 }
)

/** Category definitions: plain, claiming groups, and aliases naming tools. */
export const categoriesArb: fc.Arbitrary<Array<CategoryDefinition>> = fc.array(
  fc.record(
    {
      name: segment,
      description: fc.constantFrom("One.", "Two."),
      tools: fc.array(toolNameArb, { maxLength: 4 }),
      groups: fc.array(fc.constantFrom("github", "fs", "misc", "alpha"), { maxLength: 2 })
    },
    { requiredKeys: ["name", "description"] }
  ),
  { maxLength: 4 }
)

/** Everything a build takes, as printable data. */
export interface CatalogInput {
  readonly tools: ReadonlyArray<ToolSchema>
  readonly classifiers: ReadonlyArray<ClassifierSpec>
  readonly annotations: AnnotationLayers
  readonly categories: ReadonlyArray<CategoryDefinition>
  readonly highRisk: ReadonlyArray<string>
}

/** A whole catalog input. */
export const catalogInputArb: fc.Arbitrary<CatalogInput> = fc.record({
  tools: toolSetArb,
  classifiers: classifierSpecsArb,
  annotations: annotationLayersArb,
  categories: categoriesArb,
  highRisk: fc.array(toolNameArb, { maxLength: 3 })
})

/** The build options of a catalog input. */
export const optionsOf = (input: CatalogInput): BuildOptions => ({
  classifiers: input.classifiers.map(classifierOf),
  annotations: input.annotations,
  categories: input.categories,
  highRisk: input.highRisk
})
