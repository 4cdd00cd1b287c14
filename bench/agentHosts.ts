/**
 * Agent-host scan and query benchmark: a generated Claude Code home of 1k, 5k and 20k agents,
 * skills and commands; scan time and peak memory per size; and `query agents --tool Bash --json`
 * against the seed's jq recipe on the exported JSON, in the same run, as a ratio.
 *
 *   npx tsx bench/agentHosts.ts [sizes…]      (e.g. `npx tsx bench/agentHosts.ts 1000 5000`)
 */
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { existsSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { AgentHostsInventory } from "../src/inventory/domain/agentHosts.js"
import { filterAgents } from "../src/inventory/query/agentQueries.js"
import { exportClaudeV1 } from "../src/inventory/query/claudeV1.js"
import { AgentHostFiles } from "../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { AgentHostScanner } from "../src/inventory/discover/AgentHostScanner.js"
import { FrontmatterParser } from "../src/inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../src/services/MachineEnvironment.js"
import { fmt, installedBin, median, ROOT, timeCommand } from "./harness.js"
import { claudeHome, writeTree } from "./hostGenerators.js"

const JQ = "/usr/bin/jq"
const BASH_RECIPE = `.agents[] | select(.tools[] == "Bash") | .name`
// The shipped bundle when built (package.json `bin`), else the module tree.
const CLI = [installedBin(), NodePath.join(ROOT, "dist", "bin.js")].find((file) => existsSync(file)) ?? installedBin()

/** One size's figures. */
export interface AgentHostsBenchRow {
  readonly items: number
  readonly scanMs: number
  readonly msPer1k: number
  readonly peakRssMb: number
  readonly peakHeapDeltaMb: number
  readonly bashAgents: number
  /** Load the bundle's agentHosts JSON, decode it, filter, print: in this process. */
  readonly queryInProcessMs: number
  /** `node dist/tool-map.cjs query agents --tool Bash --json --from …` (null when the CLI is not built or cannot scan here). */
  readonly queryCliMs: number | null
  readonly jqMs: number
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

/** Samples memory while `effect` runs; returns its result with the peaks. */
const withPeakMemory = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const state = { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, baseHeap: process.memoryUsage().heapUsed }
      const timer = setInterval(() => {
        const usage = process.memoryUsage()
        state.rss = Math.max(state.rss, usage.rss)
        state.heap = Math.max(state.heap, usage.heapUsed)
      }, 5)
      return { state, timer }
    }),
    ({ state }) => Effect.map(effect, (value) => ({ value, state })),
    ({ timer }) => Effect.sync(() => clearInterval(timer))
  )

const benchSize = (items: number, runs: number) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "tool-map-bench-hosts-" })
    const home = NodePath.join(dir, "home")
    const cwd = NodePath.join(home, "work")
    yield* writeTree(home, { ...claudeHome(items).tree, "work/README.md": "bench\n" })
    const layer = AgentHostScanner.layer.pipe(
      Layer.provide(AgentHostFiles.layer),
      Layer.provide(Layer.mergeAll(NodeFileSystem.layer, MachineEnvironment.layerTest({ homedir: home, cwd, env: {} }), FrontmatterParser.layer))
    )
    const scan = Effect.flatMap(AgentHostScanner, (scanner) => scanner.scan).pipe(Effect.provide(layer))

    const durations: Array<number> = []
    let peak = { rss: 0, heap: 0, baseHeap: 0 }
    let inventory = AgentHostsInventory.empty
    for (let run = 0; run < runs; run++) {
      const started = performance.now()
      const measured = yield* withPeakMemory(scan)
      durations.push(performance.now() - started)
      if (run === 0) peak = measured.state
      inventory = measured.value.inventory
    }

    // The files the two query paths read: the bundle's agentHosts and the v1 export.
    const inventoryFile = NodePath.join(dir, "agentHosts.json")
    const exportFile = NodePath.join(dir, "tools-inventory.json")
    yield* fs.writeFileString(inventoryFile, yield* Schema.encode(Schema.parseJson(AgentHostsInventory))(inventory))
    yield* fs.writeFileString(exportFile, JSON.stringify(exportClaudeV1(inventory, { generatedAt: new Date().toISOString(), homedir: home }), null, 2))
    const decode = Schema.decodeUnknown(Schema.parseJson(AgentHostsInventory))
    const query = Effect.gen(function* () {
      const loaded = yield* decode(yield* fs.readFileString(inventoryFile))
      return JSON.stringify(filterAgents(loaded, { host: "claude-code", tool: "Bash" }), null, 2)
    })
    const inProcess: Array<number> = []
    const jq: Array<number> = []
    let bashAgents = 0
    for (let run = 0; run < Math.max(runs, 5); run++) {
      const started = performance.now()
      const printed = yield* query
      inProcess.push(performance.now() - started)
      bashAgents = (JSON.parse(printed) as ReadonlyArray<unknown>).length
      jq.push(timeCommand(JQ, [BASH_RECIPE, exportFile]))
    }
    const cli = yield* Effect.sync(() => cliQuery(dir, home, Math.max(runs, 5)))
    const scanMs = median(durations)
    return {
      items,
      scanMs,
      msPer1k: scanMs / (items / 1000),
      peakRssMb: mb(peak.rss),
      peakHeapDeltaMb: mb(peak.heap - peak.baseHeap),
      bashAgents,
      queryInProcessMs: median(inProcess),
      queryCliMs: cli,
      jqMs: median(jq)
    } satisfies AgentHostsBenchRow
  }).pipe(Effect.scoped)

/** The built CLI against a bundle of this home, or null when it is not built or fails here. */
const cliQuery = (dir: string, home: string, runs: number): number | null => {
  if (!existsSync(CLI)) return null
  const bundle = NodePath.join(dir, "bundle", "inv.md")
  const env = { ...process.env, HOME: home, PATH: "/usr/bin:/bin", XDG_DATA_HOME: NodePath.join(dir, "data") }
  const attempt = Effect.runSync(
    Effect.try(() => {
      timeCommand(process.execPath, [CLI, "scan", bundle], env)
      const samples: Array<number> = []
      for (let run = 0; run < runs; run++) {
        samples.push(timeCommand(process.execPath, [CLI, "query", "agents", "--host", "claude-code", "--tool", "Bash", "--json", "--from", bundle], env))
      }
      return median(samples)
    }).pipe(Effect.option)
  )
  return attempt._tag === "Some" ? attempt.value : null
}

/** Runs the benchmark and returns its markdown table (what bench/run.ts prints). */
export const benchAgentHosts = (options: { readonly sizes?: ReadonlyArray<number>; readonly runs?: number } = {}): Promise<string> =>
  Effect.runPromise(
    Effect.forEach(options.sizes ?? [1000, 5000, 20000], (size) => benchSize(size, options.runs ?? 3)).pipe(
      Effect.map(renderTable),
      Effect.provide(NodeFileSystem.layer)
    )
  )

/** The markdown table of the rows. */
export const renderTable = (rows: ReadonlyArray<AgentHostsBenchRow>): string => {
  const lines = [
    "### Agent hosts: scan of a generated Claude Code home, and `query agents --tool Bash --json` vs the seed's jq recipe",
    "",
    "| items | scan ms (median) | ms per 1k items | peak RSS MB | peak heap Δ MB | agents with Bash | query in-process ms | query CLI ms | jq ms | in-process / jq | CLI / jq |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  ]
  for (const row of rows) {
    lines.push(
      `| ${row.items} | ${fmt(row.scanMs)} | ${fmt(row.msPer1k)} | ${row.peakRssMb} | ${row.peakHeapDeltaMb} | ${row.bashAgents} | ${fmt(row.queryInProcessMs)} | ${row.queryCliMs === null ? "n/a" : fmt(row.queryCliMs)} | ${fmt(row.jqMs)} | ${(row.queryInProcessMs / row.jqMs).toFixed(2)} | ${row.queryCliMs === null ? "n/a" : (row.queryCliMs / row.jqMs).toFixed(2)} |`
    )
  }
  lines.push(
    "",
    "Items are a third each agents, skills and commands. The CLI query reads a bundle written by `tool-map scan` with HOME set to the generated home (the CLI column includes Node's start); jq runs the seed's recipe on `export claude-v1` output of the same inventory."
  )
  return lines.join("\n")
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === NodePath.resolve(process.argv[1])) {
  const sizes = process.argv.slice(2).map(Number).filter((size) => Number.isInteger(size) && size > 0)
  benchAgentHosts(sizes.length > 0 ? { sizes } : {}).then((table) => console.log(table))
}
