/**
 * The agent-host part of a scan against a script that only reads the same files and parses their
 * frontmatter with `yaml` (issue 15: at most 1.5x). A generated Claude Code home of N agents,
 * skills and commands; in this process, the two interleaved (the order alternates each round)
 * after two uncounted runs each, so both run warm; medians and the median of per-round ratios,
 * of wall time and of the process's CPU time (user and system, the GC's threads included: on a
 * machine shared with other work, CPU time moves less with their load than wall time does).
 *
 *   npx tsx bench/agentHostRead.ts [sizes…]      (default 1000 5000 20000)
 */
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"
import { AgentHostFiles } from "../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { AgentHostScanner } from "../src/inventory/discover/AgentHostScanner.js"
import { FrontmatterParser } from "../src/inventory/discover/FrontmatterParser.js"
import { SyncNodeFileSystemLayer } from "../src/platform/SyncNodeFileSystem.js"
import { MachineEnvironment } from "../src/services/MachineEnvironment.js"
import { fmt, median, medianPairedRatio } from "./harness.js"
import { claudeHome, writeTree } from "./hostGenerators.js"

/** What the script found: how many files it parsed, and how many had a frontmatter mapping. */
export interface ReadAndParseCount {
  readonly files: number
  readonly withFrontmatter: number
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/

/**
 * The reference: every `.md` file under `dir`, found by a recursive listing, read, and its
 * frontmatter (between the `---` lines) parsed with `yaml`. What a hand-written script does.
 */
export const readAndParse = (dir: string): ReadAndParseCount => {
  let files = 0
  let withFrontmatter = 0
  const visit = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const path = NodePath.join(at, entry.name)
      if (entry.isDirectory()) visit(path)
      else if (entry.isFile() && entry.name.endsWith(".md")) {
        files++
        const block = FRONTMATTER.exec(fs.readFileSync(path, "utf8"))
        if (block !== null && typeof parse(block[1]!) === "object") withFrontmatter++
      }
    }
  }
  visit(dir)
  return { files, withFrontmatter }
}

/** One size's figures. */
export interface AgentHostReadRow {
  readonly items: number
  readonly scanMs: number
  readonly scriptMs: number
  /** The median of scan / script per round. */
  readonly pairedRatio: number
  /** The same of the process's CPU time (user and system) over each run. */
  readonly scanCpuMs: number
  readonly scriptCpuMs: number
  readonly pairedCpuRatio: number
}

/** Wall and CPU milliseconds of one run. */
interface RunTime {
  readonly wallMs: number
  readonly cpuMs: number
}

const startTimer = () => {
  const wall = performance.now()
  const cpu = process.cpuUsage()
  return (): RunTime => {
    const used = process.cpuUsage(cpu)
    return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 }
  }
}

const sizeRow = (items: number, rounds: number) =>
  Effect.gen(function* () {
    const files = yield* FileSystem.FileSystem
    const dir = yield* files.makeTempDirectoryScoped({ prefix: "tool-map-bench-host-read-" })
    const home = NodePath.join(dir, "home")
    yield* writeTree(home, { ...claudeHome(items).tree, "work/README.md": "bench\n" })
    // The scan's own services over the CLI's file system (synchronous calls, as the CLI runs them).
    const layer = AgentHostScanner.layer.pipe(
      Layer.provide(AgentHostFiles.layerSync),
      Layer.provide(Layer.mergeAll(SyncNodeFileSystemLayer, MachineEnvironment.layerTest({ homedir: home, cwd: NodePath.join(home, "work"), env: {} }), FrontmatterParser.layer))
    )
    const scanner = yield* Effect.provide(AgentHostScanner, layer)
    const timeScan = Effect.gen(function* () {
      const stop = startTimer()
      const result = yield* scanner.scan
      const elapsed = stop()
      const found = result.inventory.items.length
      if (found !== items) return yield* Effect.dieMessage(`the scan found ${found} items, not ${items}`)
      return elapsed
    })
    const timeScript = Effect.sync(() => {
      const stop = startTimer()
      const count = readAndParse(NodePath.join(home, ".claude"))
      const elapsed = stop()
      if (count.files !== items || count.withFrontmatter !== items) throw new Error(`the script parsed ${count.withFrontmatter} of ${count.files} files, not ${items}`)
      return elapsed
    })
    for (let warm = 0; warm < 2; warm++) {
      yield* timeScan
      yield* timeScript
    }
    const scan: Array<RunTime> = []
    const script: Array<RunTime> = []
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        scan.push(yield* timeScan)
        script.push(yield* timeScript)
      } else {
        script.push(yield* timeScript)
        scan.push(yield* timeScan)
      }
    }
    const wall = (runs: ReadonlyArray<RunTime>) => runs.map((run) => run.wallMs)
    const cpu = (runs: ReadonlyArray<RunTime>) => runs.map((run) => run.cpuMs)
    return {
      items,
      scanMs: median(wall(scan)),
      scriptMs: median(wall(script)),
      pairedRatio: medianPairedRatio(wall(scan), wall(script)),
      scanCpuMs: median(cpu(scan)),
      scriptCpuMs: median(cpu(script)),
      pairedCpuRatio: medianPairedRatio(cpu(scan), cpu(script))
    } satisfies AgentHostReadRow
  }).pipe(Effect.scoped)

/** The markdown table of the rows. */
export const renderAgentHostReadTable = (rows: ReadonlyArray<AgentHostReadRow>, rounds: number): string =>
  [
    `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; ${rounds} interleaved rounds in one process after two warm-up runs each; load average ${os.loadavg()[0]!.toFixed(1)}.`,
    "",
    "| items | agent-host scan ms | read-and-parse script ms | scan / script (medians) | median of per-round ratios | scan CPU ms | script CPU ms | CPU: median of per-round ratios |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((row) =>
      `| ${row.items} | ${fmt(row.scanMs)} | ${fmt(row.scriptMs)} | ${(row.scanMs / row.scriptMs).toFixed(2)} | ${row.pairedRatio.toFixed(2)} | ${fmt(row.scanCpuMs)} | ${fmt(row.scriptCpuMs)} | ${row.pairedCpuRatio.toFixed(2)} |`
    ),
    "",
    "The scan is AgentHostScanner.scan over the CLI's file system: every host's places, each file read, hashed and parsed (frontmatter limits, tool lists, precedence, ledger figures). The script lists ~/.claude recursively, reads each .md file and parses its frontmatter with yaml. CPU time is the process's (user and system, the GC's threads included) over each run: other processes' load moves it less than wall time. Goal (issue 15): at most 1.5x."
  ].join("\n")

/** Runs the benchmark and returns its markdown table. */
export const benchAgentHostRead = (sizes: ReadonlyArray<number> = [1000, 5000, 20000], rounds = 7): Promise<string> =>
  Effect.runPromise(
    Effect.forEach(sizes, (size) => sizeRow(size, rounds)).pipe(
      Effect.map((rows) => renderAgentHostReadTable(rows, rounds)),
      Effect.provide(NodeFileSystem.layer)
    )
  )

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === NodePath.resolve(process.argv[1])) {
  const sizes = process.argv.slice(2).map(Number).filter((size) => Number.isInteger(size) && size > 0)
  console.log(await benchAgentHostRead(sizes.length > 0 ? sizes : undefined))
}
