import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option, ParseResult, Schema } from "effect"
import { generateTools } from "../../../bench/catalogGenerators.js"
import { buildCatalog, toolSetKey } from "../../../src/catalog/core/build.js"
import { definitionFacts, definitionJson } from "../../../src/catalog/core/definitions.js"
import { type Classifier, ToolSchemaFromJson } from "../../../src/catalog/core/model.js"
import {
  decodeSchemasJson,
  decodeSchemasText,
  factsFileOf,
  factsFileOfParts,
  factsFileParts,
  factsFileText,
  factsHead,
  factsModel,
  keyInHead,
  leanSchemas,
  schemasKey,
  snapshotText
} from "../../../src/catalog/core/schemasFile.js"

/** The facts file of a text, as a reader of its bytes makes it (the listing's two steps). */
const decodeFactsFile = (text: string) => Option.flatMap(factsFileParts(new TextEncoder().encode(text)), factsFileOfParts)

/** What the Schema alone makes of a parsed file: the reference of the hand-checked path. */
const bySchema = (json: unknown) => {
  const issue = (error: ParseResult.ParseError) => {
    const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]!
    return `at ${first.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("")}: ${first.message}`
  }
  if (Array.isArray(json)) return Either.mapLeft(Schema.decodeUnknownEither(Schema.Array(ToolSchemaFromJson))(json), issue)
  return Either.mapLeft(
    Either.map(Schema.decodeUnknownEither(Schema.Struct({ tools: Schema.Array(ToolSchemaFromJson) }))(json), (result) => result.tools),
    issue
  )
}

const jsonValue = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 4 }), fc.constant({ type: "object" }))
const annotationsArb = fc.oneof(
  fc.record({ title: fc.string({ maxLength: 3 }), readOnlyHint: fc.boolean(), openWorldHint: fc.boolean(), extra: jsonValue }, { requiredKeys: [] }),
  jsonValue
)
/** Entries a schemas file may hold: mostly valid tools, with every field sometimes missing or of another type. */
const entryArb = fc.oneof(
  // In the decoded shape already (kept as given), or nearly.
  fc.record({ name: fc.string({ minLength: 1, maxLength: 5 }), description: fc.string({ maxLength: 5 }), inputSchema: jsonValue }),
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 5 }),
    description: fc.string({ maxLength: 5 }),
    inputSchema: jsonValue,
    annotations: fc.record({ title: fc.string({ maxLength: 3 }), readOnlyHint: fc.boolean(), destructiveHint: fc.oneof(fc.boolean(), jsonValue) }, {
      requiredKeys: []
    })
  }),
  // An MCP tool with a title and an output schema, in the decoded order or another.
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 5 }),
    description: fc.string({ maxLength: 5 }),
    inputSchema: jsonValue,
    annotations: fc.record({ readOnlyHint: fc.boolean() }),
    title: fc.oneof(fc.string({ maxLength: 3 }), jsonValue),
    outputSchema: jsonValue
  }, { requiredKeys: ["name", "description", "inputSchema"] }),
  fc.record({
    outputSchema: jsonValue,
    title: fc.string({ maxLength: 3 }),
    name: fc.string({ minLength: 1, maxLength: 5 }),
    inputSchema: jsonValue
  }, { requiredKeys: ["name"] }),
  fc.record({
    description: fc.oneof(fc.string({ maxLength: 5 }), jsonValue),
    name: fc.oneof(fc.string({ minLength: 1, maxLength: 5 }), fc.constant(""), jsonValue),
    inputSchema: jsonValue,
    annotations: annotationsArb,
    title: jsonValue,
    other: jsonValue
  }, { requiredKeys: ["name"] }),
  jsonValue,
  fc.array(jsonValue, { maxLength: 2 })
)

let kept = 0

describe("decodeSchemasJson", () => {
  it.prop("gives exactly what the schema gives, values and errors alike, for arrays and tools/list results", [
    fc.array(entryArb, { maxLength: 6 }),
    fc.boolean()
  ], ([entries, wrapped]) => {
    const json = wrapped ? { tools: entries } : entries
    const fast = decodeSchemasJson(json)
    const slow = bySchema(json)
    expect(fast).toEqual(slow)
    // Same key order too: the snapshot is written from these values.
    if (Either.isRight(fast) && Either.isRight(slow)) expect(JSON.stringify(fast.right)).toBe(JSON.stringify(slow.right))
    if (Either.isRight(fast)) kept += fast.right.filter((tool, i) => tool === entries[i]).length
  }, { fastCheck: { numRuns: 500 } })

  it("kept some entries as given along the way (the property saw both paths)", () => {
    expect(kept).toBeGreaterThan(0)
  })

  it("names the problem of a file that is no schemas file at all", () => {
    // The parser's own words differ between Node versions.
    expect(Either.getLeft(decodeSchemasText("{"))).toEqual(Option.some("it is not JSON (line 1)"))
    // V8's own message would quote the text, secrets included: only the line is named.
    expect(Either.getLeft(decodeSchemasText("[\n{\"name\": CANARY_SECRET_x}\n]"))).toEqual(Option.some("it is not JSON (line 2)"))
    expect(decodeSchemasText("{\"x\":1}")).toEqual(
      Either.left("expected a JSON array of tool schemas or an MCP tools/list result ({ \"tools\": [...] })")
    )
    expect(decodeSchemasText("[{\"name\":\"a\"},{\"name\":3}]")).toEqual(Either.left("at [1].name: Expected string, actual 3"))
  })

  it("refuses a tool nested deeper than the cap, naming it (neutralized, cut) and the cap, before any walk can crash", () => {
    // Objects inside objects: the entry is one level, its inputSchema the next.
    const schema = (levels: number) => `${"{\"properties\":".repeat(levels - 1)}{}${"}".repeat(levels - 1)}`
    const entry = (name: string, levels: number) => `{"name":${JSON.stringify(name)},"inputSchema":${schema(levels)}}`
    expect(Either.map(decodeSchemasText(`[${entry("ok", 1)},${entry("at_cap", 255)}]`), (tools) => tools.map((tool) => tool.name)))
      .toEqual(Either.right(["ok", "at_cap"]))
    expect(decodeSchemasText(`[${entry("ok", 1)},${entry("deep\u001b[31m\u202e", 256)}]`)).toEqual(
      Either.left("at [1]: the tool deep\uFFFD[31m\uFFFD nests deeper than 256 levels of arrays and objects")
    )
    expect(decodeSchemasText(`{"tools":[${entry("x".repeat(5000), 5000)}]}`)).toEqual(
      Either.left(`at .tools[0]: the tool ${"x".repeat(79)}… nests deeper than 256 levels of arrays and objects`)
    )
    // An entry that is not even a tool is refused as deep all the same: no name to give.
    expect(decodeSchemasText(`[${"[".repeat(300)}${"]".repeat(300)}]`)).toEqual(
      Either.left("at [0]: the tool nests deeper than 256 levels of arrays and objects")
    )
  })
})

const TOOLS = [
  { name: "a", description: "Reads.", inputSchema: { type: "object" } },
  { name: "b", description: "", inputSchema: { type: "object", properties: { x: { type: "number" } } }, annotations: { readOnlyHint: true } }
]

describe("the snapshot", () => {
  it("is a tools/list result with its key in the first bytes, and decodes to the schemas it was written from", () => {
    const key = schemasKey(TOOLS)
    const text = snapshotText(TOOLS, key, 1024)
    expect(text.startsWith(`{"toolMapSnapshot":1,"key":"${key}","tools":[\n`)).toBe(true)
    expect(keyInHead(text.slice(0, 256), "key")).toEqual(Option.some(key))
    expect(decodeSchemasText(text)).toEqual(Either.right(TOOLS))
    expect(snapshotText(TOOLS, key, 10)).toBe(`{"toolMapSnapshot":1,"key":"${key}","tools":${JSON.stringify(TOOLS)}}\n`)
  })

  it("has a key that follows order and every definition, and no other key in the head is taken for it", () => {
    expect(schemasKey([...TOOLS].reverse())).not.toBe(schemasKey(TOOLS))
    expect(schemasKey([TOOLS[0]!, { ...TOOLS[1]!, description: "x" }])).not.toBe(schemasKey(TOOLS))
    expect(schemasKey(TOOLS.map((tool) => ({ ...tool })))).toBe(schemasKey(TOOLS))
    expect(keyInHead("{\"version\":1,\"toolSetKey\":\"abc\",\"recordedAt\":\"x\"", "toolSetKey")).toEqual(Option.some("abc"))
    expect(keyInHead("{\n  \"version\": 1,\n  \"toolSetKey\": \"abc\"", "toolSetKey")).toEqual(Option.some("abc"))
    expect(keyInHead("{\"hashes\":{\"toolSetKey\":\"abc\"}}", "toolSetKey")).toEqual(Option.none())
    expect(keyInHead("[{\"key\":\"abc\"}]", "key")).toEqual(Option.none())
  })
})

describe("the facts file", () => {
  const file = factsFileOf({ model: factsModel(), key: schemasKey(TOOLS), texts: ["1".repeat(64), "2".repeat(64)] }, TOOLS)

  it("holds the facts, names, descriptions and annotations of the schemas in order", () => {
    expect(file.facts).toEqual(TOOLS.map(definitionFacts))
    expect(file.names).toEqual(["a", "b"])
    expect(file.descriptions).toEqual(["Reads.", ""])
    expect(file.annotations).toEqual([null, { readOnlyHint: true }])
  })

  it("reads back what was written, its model, key and texts from its head alone", () => {
    const text = factsFileText(file)
    expect(text).toBe(
      `{"toolMapFacts":1,"model":"${file.model}","key":"${file.key}","texts":["${"1".repeat(64)}","${"2".repeat(64)}"],"tokens":${
        JSON.stringify(file.facts.map((facts) => facts.tokens))
      },"names":[1,1],"descriptions":[6,0],"annotations":[null,{"readOnlyHint":true}],"extras":[],"blocks":[128,2,6]}\n${file.facts[0]!.hash}${file.facts[1]!.hash}abReads.`
    )
    expect(decodeFactsFile(text)).toEqual(Option.some(file))
    expect(factsHead(text.slice(0, 600))).toEqual(Option.some({ model: file.model, key: file.key, texts: file.texts }))
  })

  it("keeps which schemas have a title or an output schema, and is no facts file when that list is not well formed", () => {
    const titled = [TOOLS[0]!, { ...TOOLS[1]!, title: "Read", outputSchema: { type: "object" } }, { ...TOOLS[0]!, name: "c", outputSchema: null }]
    const withExtras = factsFileOf({ model: factsModel(), key: schemasKey(titled), texts: [] }, titled)
    expect(withExtras.extras).toEqual([[1, "Read", true], [2, null, true]])
    const text = factsFileText(withExtras)
    expect(text).toContain(`"extras":[[1,"Read",true],[2,null,true]]`)
    expect(decodeFactsFile(text)).toEqual(Option.some(withExtras))
    for (const bad of ["[[2,null,true],[1,\"Read\",true]]", "[[3,null,true]]", "[[1,5,true]]", "[[1,null,1]]", "[[1,null]]", "{}"]) {
      expect(decodeFactsFile(text.replace(`"extras":[[1,"Read",true],[2,null,true]]`, `"extras":${bad}`))).toEqual(Option.none())
    }
  })

  it("keeps the tool-set key of the schemas, when the writer knew it", () => {
    const withKey = { ...file, setKey: toolSetKey(TOOLS) }
    const text = factsFileText(withKey)
    expect(decodeFactsFile(text)).toEqual(Option.some(withKey))
    expect(factsHead(text.slice(0, 600))).toEqual(Option.some({ model: file.model, key: file.key, texts: file.texts }))
    expect(Option.map(decodeFactsFile(text.replace(withKey.setKey, "nothex")), (read) => read.setKey)).toEqual(Option.some(undefined))
  })

  it("is no facts file when any entry is not a hash and a count, a name, a description and annotations as decoded", () => {
    const text = factsFileText(file)
    expect(decodeFactsFile(text.replace(file.facts[1]!.hash, "X".repeat(64)))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(file.facts[1]!.hash, file.facts[1]!.hash.slice(1)))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(`[${file.facts[0]!.tokens},`, "[1.5,"))).toEqual(Option.none())
    const names = "\"names\":[1,1]"
    const descriptions = "\"descriptions\":[6,0]"
    expect(text).toContain(`${names},${descriptions}`)
    expect(decodeFactsFile(text.replace(names, "\"names\":[0,2]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(names, "\"names\":3"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(names, "\"names\":[1,2]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(names, "\"names\":[2]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(descriptions, "\"descriptions\":[6,1]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(descriptions, "\"descriptions\":[7,-1]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(descriptions, "\"descriptions\":[5,0]"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace(descriptions, "\"descriptions\":[\"Reads.\",\"\"]"))).toEqual(Option.none())
    // Blocks that do not fill the rest of the file exactly, or no first line at all.
    expect(decodeFactsFile(text.replace("\"blocks\":[128,2,6]", "\"blocks\":[128,2,5]"))).toEqual(Option.none())
    expect(decodeFactsFile(`${text}x`)).toEqual(Option.none())
    expect(decodeFactsFile(text.replace("\n", " "))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace("{\"readOnlyHint\":true}", "{\"readOnlyHint\":1}"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace("{\"readOnlyHint\":true}", "{\"readOnlyHint\":true,\"x\":1}"))).toEqual(Option.none())
    expect(decodeFactsFile(text.replace("\"annotations\":[null,", "\"annotations\":["))).toEqual(Option.none())
    expect(decodeFactsFile("{\"toolMapFacts\":2}")).toEqual(Option.none())
    expect(factsHead("{\"toolMapFacts\":1,\"key\":\"x\"")).toEqual(Option.none())
  })

  it.prop("gives back every name and description as written, surrogates and escapes included", [
    fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 6, unit: "binary" }), fc.string({ maxLength: 6, unit: "binary" })), { maxLength: 6 })
  ], ([pairs]) => {
    const schemas = pairs.map(([name, description]) => ({ name, description, inputSchema: { type: "object" } }))
    const written = factsFileOf({ model: factsModel(), key: schemasKey(schemas), texts: [] }, schemas)
    const read = Option.getOrThrow(decodeFactsFile(factsFileText(written)))
    expect(read.names).toEqual(pairs.map(([name]) => name))
    expect(read.descriptions).toEqual(pairs.map(([, description]) => description))
  })

  it("writes names and descriptions with a lone surrogate as JSON strings, and reads them back as they were", () => {
    const schemas = [{ name: "a\ud800", description: "x\udc00y", inputSchema: { type: "object" } }, { name: "b", description: "é", inputSchema: {} }]
    const written = factsFileOf({ model: factsModel(), key: schemasKey(schemas), texts: [] }, schemas)
    const text = factsFileText(written)
    expect(text).toContain(`"escaped":true,"blocks":[128,${JSON.stringify("a\ud800b").length},${JSON.stringify("x\udc00yé").length + 1}]}\n`)
    expect(text.endsWith(`${JSON.stringify("a\ud800b")}${JSON.stringify("x\udc00yé")}`)).toBe(true)
    expect(decodeFactsFile(text)).toEqual(Option.some(written))
    // A surrogate pair split across two names is whole in their concatenation: written raw.
    const split = [{ name: "a\ud83d", description: "", inputSchema: {} }, { name: "\ude00b", description: "", inputSchema: {} }]
    const pair = factsFileOf({ model: factsModel(), key: schemasKey(split), texts: [] }, split)
    expect(factsFileText(pair)).not.toContain("escaped")
    expect(decodeFactsFile(factsFileText(pair))).toEqual(Option.some(pair))
  })

  it("has a model stamp of this build: the same in every call", () => {
    expect(factsModel()).toMatch(/^[0-9a-f]{32}$/)
    expect(factsModel()).toBe(file.model)
  })
})

/** Decodable schemas files: the entries of `entryArb` the decode takes, sometimes wrapped as a tools/list result. */
const schemasTextArb = fc.tuple(fc.array(entryArb, { maxLength: 8 }), fc.boolean()).map(([entries, wrapped]) => {
  const valid = entries.filter((entry) => Either.isRight(decodeSchemasJson([entry])))
  return JSON.stringify(wrapped ? { tools: valid } : valid)
})

describe("leanSchemas: the schemas of a known text, from its facts file", () => {
  /** The reference (the text decoded) and the lean schemas of its facts file, with a count of full decodes. */
  const both = (text: string, options?: { readonly setKey?: boolean }) => {
    const decoded = Either.getOrThrow(decodeSchemasText(text))
    const written = factsFileOf({ model: factsModel(), key: schemasKey(decoded), texts: ["1".repeat(64)] }, decoded)
    const file = Option.getOrThrow(decodeFactsFile(factsFileText(options?.setKey === true ? { ...written, setKey: toolSetKey(decoded) } : written)))
    let decodes = 0
    const lean = leanSchemas(file, () => {
      decodes += 1
      return Either.getOrThrow(decodeSchemasText(text))
    })
    return { decoded, lean, decodes: () => decodes }
  }

  it.prop("build the very catalog the decoded text builds, without decoding the text", [schemasTextArb, fc.boolean()], ([text, setKey]) => {
    const { decoded, decodes, lean } = both(text, { setKey })
    expect(lean.map((schema) => Object.keys(schema))).toEqual(decoded.map((schema) => Object.keys(schema)))
    expect(lean.map(({ annotations, description, name, title }) => [name, description, annotations, title])).toEqual(
      decoded.map(({ annotations, description, name, title }) => [name, description, annotations, title])
    )
    expect(toolSetKey(lean)).toBe(toolSetKey(decoded))
    expect(schemasKey(lean)).toBe(schemasKey(decoded))
    expect(buildCatalog(lean)).toEqual(buildCatalog(decoded))
    expect(buildCatalog(lean, { highRisk: decoded.slice(0, 1).map((schema) => schema.name) })).toEqual(
      buildCatalog(decoded, { highRisk: decoded.slice(0, 1).map((schema) => schema.name) })
    )
    expect(decodes()).toBe(0)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("are the decoded schemas for whatever reads them whole: JSON, canonical JSON, a snapshot, a classifier", [schemasTextArb], ([text]) => {
    const { decoded, decodes, lean } = both(text)
    expect(JSON.stringify(lean)).toBe(JSON.stringify(decoded))
    expect(lean.map(definitionJson)).toEqual(decoded.map(definitionJson))
    expect(lean.map((schema) => definitionFacts({ ...schema }))).toEqual(decoded.map(definitionFacts))
    expect(snapshotText(lean, "k", 1 << 20)).toBe(snapshotText(decoded, "k", 1 << 20))
    expect(lean).toEqual(decoded)
    // A classifier that looks at input schemas places the tools alike.
    const byInput: Classifier = {
      id: "by-input",
      classify: (tool) => ({ group: typeof tool.inputSchema === "object" && tool.inputSchema !== null ? "objects" : "others" })
    }
    expect(buildCatalog(lean, { classifiers: [byInput] })).toEqual(buildCatalog(decoded, { classifiers: [byInput] }))
    expect(decodes()).toBe(lean.length === 0 ? 0 : 1)
  }, { fastCheck: { numRuns: 200 } })

  it("on realistic tool sets too, and a text that does not hold the file's schemas is a defect, not other schemas", () => {
    const text = JSON.stringify(generateTools(300))
    const { decoded, decodes, lean } = both(text)
    expect(buildCatalog(lean)).toEqual(buildCatalog(decoded))
    expect(decodes()).toBe(0)
    expect(JSON.stringify(lean)).toBe(text)
    expect(decodes()).toBe(1)
    const file = Option.getOrThrow(decodeFactsFile(factsFileText(factsFileOf({ model: factsModel(), key: "k", texts: [] }, decoded))))
    const other = leanSchemas(file, () => decoded.slice(1))
    expect(() => other[0]!.inputSchema).toThrow("leanSchemas: the schemas text does not hold the schemas of its facts file")
  })
})
