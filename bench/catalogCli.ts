/**
 * The catalog commands as a user runs them, against a bare `JSON.parse` of the same schemas
 * file in a process of its own.
 *
 *   npx tsx bench/catalogCli.ts                      # 1k, 10k and 50k tools, the installed build
 *   npx tsx bench/catalogCli.ts --sizes 1000 --runs 3 [--bin OTHER/tool-map.cjs]
 *
 * Per size, on tools from `generateTools` (about 700 bytes of JSON each), in a fresh data dir
 * where a first `catalog ls / --schemas F` has kept the schemas (the catalog is then unchanged):
 * - `catalog ls / --schemas F`, `catalog ls --query Q --schemas F` and `catalog ls /` (from the
 *   kept snapshot), timed in interleaved rounds with `node -e 'JSON.parse(fs.readFileSync(F))'`;
 *   medians, each command's median over the parse's, and the median of per-round ratios;
 * - peak RSS of each (the process's maxRSS, read at exit by a preload; not in the timed runs);
 * - what the listings wrote: the files of the data dir whose content, inode or mtime changed,
 *   and their bytes (zero for an unchanged catalog), plus the bytes written to storage by the
 *   second listing where /proc/self/io tells; the first `--query` (which builds the router's
 *   index and keeps it in the data dir, timed apart) and what it wrote.
 * Goals (issue 9): at most 2x the parse at 50k, peak RSS at most 200 MiB, zero bytes written.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateTools } from "./catalogGenerators.js"
import { fmt, installedBin, median, medianPairedRatio, mediansOf, ROOT, sampleInterleaved, type TimedCommand } from "./harness.js"

const QUERY = "list issue"

/** Writes the peak RSS (KiB) and the bytes written to storage (-1 when unknown) of the process to $TOOL_MAP_BENCH_STATS at exit. */
const PRELOAD = `
const fs = require("node:fs")
process.on("exit", () => {
  let written = -1
  try { written = Number(/write_bytes: (\\d+)/.exec(fs.readFileSync("/proc/self/io", "utf8"))[1]) } catch {}
  fs.writeFileSync(process.env.TOOL_MAP_BENCH_STATS, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, written }))
})
`

interface FileState {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

const filesUnder = (dir: string): Map<string, FileState> => {
  const out = new Map<string, FileState>()
  if (!fs.existsSync(dir)) return out
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const info = fs.statSync(path.join(dir, name))
    if (info.isFile()) out.set(name, { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino })
  }
  return out
}

/** Files created or replaced between two listings of a directory, and their bytes now. */
const changedFiles = (before: Map<string, FileState>, after: Map<string, FileState>) => {
  const names = [...after].filter(([name, now]) => {
    const was = before.get(name)
    return was === undefined || was.mtimeMs !== now.mtimeMs || was.ino !== now.ino || was.size !== now.size
  }).map(([name]) => name)
  return { files: names, bytes: names.reduce((sum, name) => sum + after.get(name)!.size, 0) }
}

interface Stats {
  readonly maxRssKiB: number
  readonly written: number
}

/** One run of a command under the preload: its peak RSS and bytes written. */
const statsOf = (spec: TimedCommand, preload: string, statsFile: string): Stats => {
  const result = spawnSync(spec.command, ["-r", preload, ...spec.args], {
    env: { ...spec.env, TOOL_MAP_BENCH_STATS: statsFile },
    cwd: spec.cwd,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8"
  })
  if (result.status !== 0) throw new Error(`${spec.args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return JSON.parse(fs.readFileSync(statsFile, "utf8")) as Stats
}

interface SizeResult {
  readonly tools: number
  readonly fileBytes: number
  readonly medians: Record<string, number>
  readonly ratios: Record<string, { readonly ofMedians: number; readonly perRound: number }>
  readonly peakMiB: Record<string, number>
  readonly firstRun: { readonly ms: number; readonly files: ReadonlyArray<string>; readonly bytes: number }
  readonly firstQueryRun: { readonly ms: number; readonly files: ReadonlyArray<string>; readonly bytes: number }
  readonly second: { readonly files: ReadonlyArray<string>; readonly bytes: number; readonly written: number }
}

const PARSE = "bare JSON.parse"
const LS = "catalog ls / --schemas F"
const QUERY_LS = `catalog ls --query "${QUERY}" --schemas F`
const LS_SNAPSHOT = "catalog ls / (kept snapshot)"

const measureSize = (bin: string, n: number, runs: number, work: string): SizeResult => {
  const dir = fs.mkdtempSync(path.join(work, `n${n}-`))
  const schemas = path.join(dir, "tools.json")
  fs.writeFileSync(schemas, JSON.stringify(generateTools(n)))
  const home = path.join(dir, "home")
  fs.mkdirSync(home)
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_DATA_HOME: path.join(dir, "xdg"), LANG: "C.UTF-8" }
  const catalogDir = path.join(dir, "xdg", "tool-map", "catalog")
  const node = process.execPath
  const commands: Record<string, TimedCommand> = {
    [PARSE]: { command: node, args: ["-e", "JSON.parse(require('node:fs').readFileSync(process.argv[1]))", schemas], env },
    [LS]: { command: node, args: [bin, "catalog", "ls", "/", "--schemas", schemas], env },
    [QUERY_LS]: { command: node, args: [bin, "catalog", "ls", "--query", QUERY, "--schemas", schemas], env },
    [LS_SNAPSHOT]: { command: node, args: [bin, "catalog", "ls", "/"], env }
  }
  // The first listing keeps the schemas (and writes what a new catalog needs): timed apart.
  const started = process.hrtime.bigint()
  const first = spawnSync(node, commands[LS]!.args, { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
  if (first.status !== 0) throw new Error(`the first listing exited ${first.status}: ${first.stderr}`)
  const firstMs = Number(process.hrtime.bigint() - started) / 1e6
  const afterListing = filesUnder(catalogDir)
  const firstRun = { ms: firstMs, ...changedFiles(new Map(), afterListing) }
  // The first ranking of the tool set builds the router's index and keeps it: timed apart too.
  const queryStarted = process.hrtime.bigint()
  const firstQuery = spawnSync(node, commands[QUERY_LS]!.args, { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
  if (firstQuery.status !== 0) throw new Error(`the first query exited ${firstQuery.status}: ${firstQuery.stderr}`)
  const firstQueryMs = Number(process.hrtime.bigint() - queryStarted) / 1e6
  const afterFirst = filesUnder(catalogDir)
  const firstQueryRun = { ms: firstQueryMs, ...changedFiles(afterListing, afterFirst) }

  const preload = path.join(dir, "stats.cjs")
  fs.writeFileSync(preload, PRELOAD)
  const statsFile = path.join(dir, "stats.json")
  const second = statsOf(commands[LS]!, preload, statsFile)
  const secondChange = changedFiles(afterFirst, filesUnder(catalogDir))

  const samples = sampleInterleaved(runs, commands)
  const medians = mediansOf(samples)
  const ratios = Object.fromEntries(Object.keys(commands).filter((name) => name !== PARSE).map((name) => [name, {
    ofMedians: medians[name]! / medians[PARSE]!,
    perRound: medianPairedRatio(samples[name]!, samples[PARSE]!)
  }]))
  const peakMiB = Object.fromEntries(Object.entries(commands).map(([name, spec]) => [
    name,
    median([0, 1, 2].map(() => statsOf(spec, preload, statsFile).maxRssKiB)) / 1024
  ]))
  const untouched = changedFiles(afterFirst, filesUnder(catalogDir))
  if (untouched.files.length > 0) throw new Error(`the listings of an unchanged catalog wrote ${untouched.files.join(", ")}`)
  return {
    tools: n,
    fileBytes: fs.statSync(schemas).size,
    medians,
    ratios,
    peakMiB,
    firstRun,
    firstQueryRun,
    second: { ...secondChange, written: second.written }
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

/** Runs the bench and returns markdown. */
export const benchCatalogCli = (options: { readonly sizes?: ReadonlyArray<number>; readonly runs?: number; readonly bin?: string } = {}): string => {
  const bin = options.bin ?? installedBin()
  if (!fs.existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first`)
  const sizes = options.sizes ?? [1_000, 10_000, 50_000]
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-catalog-cli-"))
  const load = [os.loadavg()[0]!]
  try {
    const results = sizes.map((n) => measureSize(bin, n, options.runs ?? (n >= 50_000 ? 7 : 11), work))
    load.push(os.loadavg()[0]!)
    const names = [LS, QUERY_LS, LS_SNAPSHOT]
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; \`node ${path.relative(ROOT, bin)}\`; load average ${
        load.map((value) => value.toFixed(1)).join(" → ")
      }; query \`${QUERY}\`.`,
      "",
      "| tools | schemas file | bare JSON.parse | " + names.map((name) => `\`${name}\``).join(" | ") + " |",
      "| ---: | ---: | ---: | " + names.map(() => "---:").join(" | ") + " |",
      ...results.map((r) =>
        `| ${r.tools.toLocaleString("en-US")} | ${mib(r.fileBytes)} | ${fmt(r.medians[PARSE]!)} ms | ` +
        names.map((name) => `${fmt(r.medians[name]!)} ms: ${r.ratios[name]!.ofMedians.toFixed(2)}x (per round ${r.ratios[name]!.perRound.toFixed(2)}x)`).join(" | ") +
        " |"
      ),
      "",
      "Peak RSS (median of 3 runs):",
      "",
      "| tools | bare JSON.parse | " + names.map((name) => `\`${name}\``).join(" | ") + " |",
      "| ---: | ---: | " + names.map(() => "---:").join(" | ") + " |",
      ...results.map((r) =>
        `| ${r.tools.toLocaleString("en-US")} | ${r.peakMiB[PARSE]!.toFixed(0)} MiB | ` + names.map((name) => `${r.peakMiB[name]!.toFixed(0)} MiB`).join(" | ") + " |"
      ),
      "",
      "What the listings wrote in the data dir:",
      "",
      "| tools | first `ls / --schemas F` (a new catalog) | first `ls --query` (builds and keeps the router's index) | second `ls / --schemas F` | bytes the second sent to storage (/proc/self/io) |",
      "| ---: | --- | --- | --- | ---: |",
      ...results.map((r) =>
        `| ${r.tools.toLocaleString("en-US")} | ${fmt(r.firstRun.ms)} ms, ${r.firstRun.files.length} files, ${mib(r.firstRun.bytes)} | ${
          fmt(r.firstQueryRun.ms)} ms, ${r.firstQueryRun.files.join(", ") || "nothing"}, ${mib(r.firstQueryRun.bytes)} | ${
          r.second.files.length === 0 ? "nothing" : `${r.second.files.join(", ")} (${mib(r.second.bytes)})`
        } | ${r.second.written < 0 ? "unknown" : r.second.written.toLocaleString("en-US")} |`
      ),
      "",
      "Ratios are each command's median over the parse's median, and the median of the per-round ratios (the order rotates each round, so a drift of the machine's load mostly cancels out). Every later listing in the timed rounds is checked to have written nothing."
    ].join("\n")
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const valuesOf = (flag: string) => {
    const at = args.indexOf(flag)
    if (at < 0) return []
    const values: Array<string> = []
    for (let i = at + 1; i < args.length && !args[i]!.startsWith("--"); i++) values.push(args[i]!)
    return values
  }
  const sizes = valuesOf("--sizes").map(Number).filter((n) => Number.isInteger(n) && n > 0)
  const runs = Number(valuesOf("--runs")[0] ?? Number.NaN)
  const bin = valuesOf("--bin")[0]
  console.log(benchCatalogCli({
    ...(sizes.length > 0 ? { sizes } : {}),
    ...(Number.isInteger(runs) && runs > 0 ? { runs } : {}),
    ...(bin === undefined ? {} : { bin: path.resolve(bin) })
  }))
}
