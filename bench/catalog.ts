/**
 * Catalog costs by size, and the context an agent saves by browsing instead of loading.
 *
 *   npx tsx bench/catalog.ts            # 1k, 10k and 50k tools
 *   npx tsx bench/catalog.ts 1000 5000  # other sizes
 *
 * Per size, on tools from `generateTools` (about 250 tokens each, 25 per server):
 * - build: a cold build (fresh schema objects, so every definition is hashed and estimated);
 * - rebuild: the same schema objects again (what a registry change costs: hashes and token
 *   estimates are kept per schema object);
 * - root data: the root's categories with counts and token totals; root text: the
 *   `tools_ls /` answer rendered by `renderListing`;
 * - group listing: the `tools_ls` text of the largest group;
 * - search: `searchCatalog` with a name query and a description query, 40 hits, on a
 *   catalog already searched once;
 * - first search: the name query on a catalog never searched, which builds the catalog's
 *   search index first (the index is built on demand, not by `buildCatalog`);
 * - heap: the live heap the catalog holds, measured after a forced GC, without and with its
 *   search index.
 * Times are medians of several runs: wall clock, and CPU time of this process (which a busy
 * machine inflates less). Goals: 50k builds in under 1 s, a search in under 10 ms.
 */
import { cpus, loadavg } from "node:os"
import { runInNewContext } from "node:vm"
import { setFlagsFromString } from "node:v8"
import { pathToFileURL } from "node:url"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { buildCatalog, searchCatalog } from "../src/catalog/core/catalog.js"
import { type AgentView, renderListing } from "../src/catalog/core/entryTools.js"
import type { Catalog, GroupNode, ToolSchema } from "../src/catalog/core/model.js"
import { wireJson } from "../src/inventory/domain/tokens.js"
import { benchOptions, generateTools } from "./catalogGenerators.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** A median wall-clock and CPU time, in milliseconds. */
export interface Timing {
  readonly wallMs: number
  readonly cpuMs: number
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Times `run` `runs` times (after `prepare`, which is not timed) and keeps the medians. */
export const time = <A>(runs: number, run: (input: A) => unknown, prepare: () => A): Timing => {
  const walls: Array<number> = []
  const cpus: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const input = prepare()
    const cpu = process.cpuUsage()
    const start = performance.now()
    run(input)
    walls.push(performance.now() - start)
    const used = process.cpuUsage(cpu)
    cpus.push((used.user + used.system) / 1000)
  }
  return { wallMs: median(walls), cpuMs: median(cpus) }
}

const NOTHING_LOADED: AgentView = { visible: () => false, denied: new Set() }

/** The figures of one catalog size. */
export interface CatalogSizeResult {
  readonly tools: number
  readonly build: Timing
  /** `JSON.parse(JSON.stringify(tools))`: what merely copying the schema list costs, same run. */
  readonly reference: Timing
  readonly rebuild: Timing
  readonly rootData: Timing
  readonly rootText: Timing
  readonly groupListing: Timing
  readonly searchName: Timing
  readonly searchDescription: Timing
  readonly firstSearch: Timing
  readonly heapMb: number
  readonly indexHeapMb: number
}

const largestGroup = (catalog: Catalog): GroupNode =>
  [...catalog.groups.values()].flat().reduce((best, group) => (group.toolCount > best.toolCount ? group : best))

/** The root listing as data: what `tools_ls /` shows, without the text. */
export const rootListingData = (catalog: Catalog) =>
  catalog.root.children.map((category) => ({
    name: category.name,
    description: category.description,
    groups: category.children.length,
    tools: category.toolCount,
    tokens: category.tokens
  }))

/** Measures one size. */
export const measureCatalogSize = (n: number, runs = n >= 50_000 ? 3 : 5): CatalogSizeResult => {
  const options = benchOptions()
  let seed = 1
  const fresh = () => {
    const tools = generateTools(n, seed++)
    gc()
    return tools
  }
  const build = time(runs, (tools: ReadonlyArray<ToolSchema>) => buildCatalog(tools, options), fresh)
  const reference = time(runs, (tools: ReadonlyArray<ToolSchema>) => JSON.parse(JSON.stringify(tools)), fresh)
  const tools = generateTools(n, 1)
  gc()
  const before = process.memoryUsage().heapUsed
  const catalog = buildCatalog(tools, options)
  gc()
  const heapMb = (process.memoryUsage().heapUsed - before) / 2 ** 20
  searchCatalog(catalog, "delete issue", { limit: 40 })
  gc()
  const indexHeapMb = (process.memoryUsage().heapUsed - before) / 2 ** 20
  const rebuild = time(runs, () => buildCatalog(tools, options), () => gc())
  const firstSearch = time(runs, (fresh: Catalog) => searchCatalog(fresh, "delete issue", { limit: 40 }), () => {
    const fresh = buildCatalog(tools, options)
    gc()
    return fresh
  })
  const group = largestGroup(catalog)
  const many = Math.max(runs, 21)
  const result: CatalogSizeResult = {
    tools: n,
    build,
    reference,
    rebuild,
    rootData: time(many, () => rootListingData(catalog), () => undefined),
    rootText: time(many, () => renderListing(catalog, catalog.root, NOTHING_LOADED), () => undefined),
    groupListing: time(many, () => renderListing(catalog, group, NOTHING_LOADED), () => undefined),
    searchName: time(many, () => searchCatalog(catalog, "delete issue", { limit: 40 }), () => undefined),
    searchDescription: time(
      many,
      () => searchCatalog(catalog, "repository workspace", { limit: 40 }),
      () => undefined
    ),
    firstSearch,
    heapMb,
    indexHeapMb
  }
  if (catalog.tools.length !== n) throw new Error(`built ${catalog.tools.length} of ${n} tools`)
  return result
}

/** Tokens of the root listing of a catalog against the tokens of all its schemas. */
export interface ListingSaving {
  readonly tools: number
  readonly listingTokens: number
  readonly schemaTokens: number
  readonly estimatedSchemaTokens: number
  readonly listing: string
}

/** The saving for an `n`-tool catalog: o200k tokens of `tools_ls /` against all schemas. */
export const measureListingSaving = (n = 1000): ListingSaving => {
  const tools = generateTools(n, 7)
  const catalog = buildCatalog(tools, benchOptions())
  const listing = renderListing(catalog, catalog.root, NOTHING_LOADED)
  let schemaTokens = 0
  for (const tool of tools) schemaTokens += encode(wireJson(tool)).length
  return {
    tools: n,
    listingTokens: encode(listing).length,
    schemaTokens,
    estimatedSchemaTokens: catalog.totalTokens,
    listing
  }
}

const ms = (t: Timing) => `${t.wallMs.toFixed(t.wallMs < 10 ? 2 : 0)} ms (cpu ${t.cpuMs.toFixed(t.cpuMs < 10 ? 2 : 0)})`

/** Runs the catalog bench and returns its markdown tables. */
export const runCatalogBench = (sizes: ReadonlyArray<number> = [1_000, 10_000, 50_000]): string => {
  const load = [loadavg()[0]!]
  const rows = sizes.map((n) => measureCatalogSize(n))
  const saving = measureListingSaving(1000)
  load.push(loadavg()[0]!)
  const lines = [
    "### Catalog by size (median wall time, CPU time in brackets)",
    "",
    "| tools | build | JSON round trip of the schemas | build / round trip | rebuild (same schemas) | root data | `tools_ls /` text | largest group listing | search (name) | search (description) | first search (builds the index) | heap | heap with search index |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.tools.toLocaleString("en-US")} | ${ms(r.build)} | ${ms(r.reference)} | ${
        (r.build.cpuMs / r.reference.cpuMs).toFixed(1)
      }× | ${ms(r.rebuild)} | ${ms(r.rootData)} | ${ms(r.rootText)} | ${ms(r.groupListing)} | ${ms(r.searchName)} | ${
        ms(r.searchDescription)
      } | ${ms(r.firstSearch)} | ${r.heapMb.toFixed(1)} MB | ${r.indexHeapMb.toFixed(1)} MB |`
    ),
    "",
    `Goals: 50,000 tools build in under 1 s, a search under 10 ms. Load average of this machine (${cpus().length} cores) at the start and end of the run: ${
      load.map((l) => l.toFixed(1)).join(" → ")
    }.`,
    "",
    `### Context saving for a ${saving.tools.toLocaleString("en-US")}-tool catalog (o200k tokens)`,
    "",
    "| what the agent receives | tokens |",
    "| --- | ---: |",
    `| \`tools_ls /\` root listing | ${saving.listingTokens.toLocaleString("en-US")} |`,
    `| all ${saving.tools.toLocaleString("en-US")} schemas | ${saving.schemaTokens.toLocaleString("en-US")} (estimated ${
      saving.estimatedSchemaTokens.toLocaleString("en-US")
    }) |`,
    `| ratio | ${(saving.schemaTokens / saving.listingTokens).toFixed(0)}× smaller |`
  ]
  return lines.join("\n")
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0)
  console.log(runCatalogBench(sizes.length > 0 ? sizes : undefined))
}
