import { Effect } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Root } from "../src/inventory/domain/inventory.js"
import { Walker } from "../src/inventory/discover/Walker.js"
import { materializePathTree, scaledPathTree } from "./generators.js"

/**
 * The walk of synthetic PATH trees of growing size, beside `find -L <dirs> -maxdepth 1 -type f
 * -perm -u+x` on the same tree. Each size is walked in its own child process, so that its peak
 * RSS (`process.resourceUsage().maxRSS`) belongs to that size alone.
 *
 * Run: `npx tsx bench/walk.ts [sizes…]` (default 1000 10000 50000).
 */

/** One measured size. */
export interface WalkBenchRow {
  readonly executables: number
  readonly dirs: number
  /** Records of the walk (one per command name and file) and paths reached (records + alsoAt). */
  readonly tools: number
  readonly reached: number
  /** Lines printed by find (should equal `reached`). */
  readonly findCount: number
  /** The first walk in a fresh process. */
  readonly walkColdMs: number
  readonly walkMedianMs: number
  /** CPU time (user + system, all threads) of the walk: steadier than wall time on a busy box. */
  readonly walkCpuMedianMs: number
  readonly perToolUs: number
  readonly findMedianMs: number
  /** walk / find: below 1 means the walker is faster. */
  readonly ratio: number
  /** Peak RSS of the child that walked this size (garbage not yet collected included). */
  readonly maxRssMb: number
  /** Live heap that the result of the walk holds after a full GC, in all and per path reached. */
  readonly resultHeapMb: number
  readonly resultBytesPerPath: number
}

interface ChildReport {
  /** The first walk of the process, with cold JIT (what one CLI scan pays). */
  readonly coldMs: number
  readonly timesMs: ReadonlyArray<number>
  readonly cpuMs: ReadonlyArray<number>
  readonly tools: number
  readonly reached: number
  readonly maxRssKb: number
  /** Heap still held after a full GC with the last result alive, minus the heap before any walk. */
  readonly retainedBytes: number
}

const THIS_FILE = fileURLToPath(import.meta.url)

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

/** In the child: walk `dirs` as PATH `runs` times after one warm-up, report times and peak RSS. */
const runChild = async (runs: number, dirs: ReadonlyArray<string>): Promise<ChildReport> => {
  const roots = dirs.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
  const walkOnce = Effect.flatMap(Walker, (walker) =>
    walker.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: process.cwd() })
  ).pipe(Effect.provide(Walker.layer))
  const heapNow = () => {
    gc?.()
    return process.memoryUsage().heapUsed
  }
  const heapBefore = heapNow()
  const timesMs: Array<number> = []
  const cpuMs: Array<number> = []
  const coldStarted = performance.now()
  let last = await Effect.runPromise(walkOnce)
  const coldMs = performance.now() - coldStarted
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const cpu = process.cpuUsage()
    last = await Effect.runPromise(walkOnce)
    const used = process.cpuUsage(cpu)
    timesMs.push(performance.now() - started)
    cpuMs.push((used.user + used.system) / 1000)
  }
  const retainedBytes = heapNow() - heapBefore
  return {
    coldMs,
    timesMs,
    cpuMs,
    tools: last.tools.length,
    reached: last.tools.reduce((sum, tool) => sum + 1 + tool.alsoAt.length, 0),
    maxRssKb: process.resourceUsage().maxRSS,
    retainedBytes
  }
}

const spawnChild = (runs: number, dirs: ReadonlyArray<string>): ChildReport => {
  const output = execFileSync(process.execPath, [...process.execArgv, "--expose-gc", THIS_FILE, "--child", String(runs), ...dirs], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024
  })
  return JSON.parse(output.trim().split("\n").pop()!) as ChildReport
}

const timeFind = (dirs: ReadonlyArray<string>, runs: number): { readonly medianMs: number; readonly count: number } => {
  const args = ["-L", ...dirs, "-maxdepth", "1", "-type", "f", "-perm", "-u+x", "-print0"]
  let count = 0
  const times: Array<number> = []
  for (let run = 0; run <= runs; run++) {
    const started = performance.now()
    const found = spawnSync("find", args, { maxBuffer: 256 * 1024 * 1024 })
    const elapsed = performance.now() - started
    count = found.stdout.reduce((sum, byte) => (byte === 0 ? sum + 1 : sum), 0)
    if (run > 0) times.push(elapsed)
  }
  return { medianMs: median(times), count }
}

/** Materializes, walks and times each size; the trees live under the OS temp dir and are removed. */
export const benchWalk = async (
  options: { readonly sizes?: ReadonlyArray<number>; readonly runs?: number; readonly dirs?: number } = {}
): Promise<ReadonlyArray<WalkBenchRow>> => {
  const sizes = options.sizes ?? [1_000, 10_000, 50_000]
  const runs = options.runs ?? 7
  const dirCount = options.dirs ?? 16
  const rows: Array<WalkBenchRow> = []
  for (const executables of sizes) {
    const base = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-map-bench-walk-"))
    try {
      const laid = materializePathTree(base, scaledPathTree({ executables, dirs: dirCount, seed: executables }))
      const child = spawnChild(runs, laid.pathEntries)
      const find = timeFind(laid.pathEntries, runs)
      const walkMedianMs = median(child.timesMs)
      rows.push({
        executables: laid.executables,
        dirs: dirCount,
        tools: child.tools,
        reached: child.reached,
        findCount: find.count,
        walkColdMs: round(child.coldMs),
        walkMedianMs: round(walkMedianMs),
        walkCpuMedianMs: round(median(child.cpuMs)),
        perToolUs: round((walkMedianMs * 1000) / Math.max(1, child.reached), 2),
        findMedianMs: round(find.medianMs),
        ratio: round(walkMedianMs / find.medianMs, 2),
        maxRssMb: round(child.maxRssKb / 1024),
        resultHeapMb: round(child.retainedBytes / 1024 / 1024),
        resultBytesPerPath: Math.round(child.retainedBytes / Math.max(1, child.reached))
      })
    } finally {
      NodeFs.rmSync(base, { recursive: true, force: true })
    }
  }
  return rows
}

/** The rows as a markdown table. */
export const renderWalkTable = (rows: ReadonlyArray<WalkBenchRow>): string =>
  [
    "| executables | dirs | records (names) | paths reached | find paths | walk cold ms | walk median ms | walk CPU ms | µs per path | find median ms | walk / find | peak RSS MB | result heap MB | result B/path |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((row) =>
      `| ${row.executables} | ${row.dirs} | ${row.tools} | ${row.reached} | ${row.findCount} | ${row.walkColdMs} | ${row.walkMedianMs} | ${row.walkCpuMedianMs} | ${row.perToolUs} | ${row.findMedianMs} | ${row.ratio} | ${row.maxRssMb} | ${row.resultHeapMb} | ${row.resultBytesPerPath} |`
    )
  ].join("\n")

const main = async (argv: ReadonlyArray<string>) => {
  if (argv[0] === "--child") {
    process.stdout.write(`${JSON.stringify(await runChild(Number(argv[1]), argv.slice(2)))}\n`)
    return
  }
  const sizes = argv.length > 0 ? argv.map(Number) : undefined
  const rows = await benchWalk(sizes === undefined ? {} : { sizes })
  process.stdout.write(`${renderWalkTable(rows)}\n`)
}

if (process.argv[1] !== undefined && NodePath.resolve(process.argv[1]) === THIS_FILE) {
  await main(process.argv.slice(2))
}
