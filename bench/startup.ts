import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin, medianPairedRatio, mediansOf, ROOT, sampleInterleaved, type TimedCommand } from "./harness.js"

/** The lines timed, each a command of `node BIN …`. */
const LINES: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["scan --if-stale (no change)", ["scan", "--if-stale", "--quiet"]],
  ["query which git", ["query", "which", "git"]],
  ["query which git --json", ["query", "which", "git", "--json"]],
  // Answered by the whole CLI (not the everyday entry): they must not get slower either.
  ["--version", ["--version"]],
  ["catalog ls /", ["catalog", "ls", "/"]]
]

/**
 * The two no-op paths of SPEC section 7 against Node's own start: `scan --if-stale` with no
 * change and `query which git` (plain and `--json`), both over a bundle of this machine's real
 * PATH (answered by the launcher's everyday entry), and `--version` and `catalog ls /` (the whole
 * CLI's start, for comparison). With `reference`, the same lines of another build in the same
 * rounds, over the same bundle. Median of `runs` interleaved runs each, and the median over
 * rounds of each run's ratio to that round's `node -e 0`; returns a markdown table.
 */
export const benchStartup = (runs = 15, bin = installedBin(), reference?: string): string => {
  for (const file of [bin, ...(reference === undefined ? [] : [reference])]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` first`)
  }
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-startup-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  try {
    const scan = spawnSync(process.execPath, [bin, "scan", "--json"], { env, encoding: "utf8" })
    if (scan.status !== 0) throw new Error(`tool-map scan exited ${scan.status}: ${scan.stderr}`)
    const tools = (JSON.parse(scan.stdout) as { counts: { tools: number } }).counts.tools
    // `catalog ls /` lists the schemas a first listing kept: the MCP tool schemas of bench/data.
    const kept = spawnSync(process.execPath, [bin, "catalog", "ls", "/", "--schemas", path.join(ROOT, "bench", "data", "mcp-tool-schemas.json")], { env, encoding: "utf8" })
    if (kept.status !== 0) throw new Error(`tool-map catalog ls / --schemas exited ${kept.status}: ${kept.stderr}`)
    const builds = reference === undefined ? [["", bin] as const] : [["", bin] as const, ["reference: ", reference] as const]
    const commands: Record<string, TimedCommand> = { "node -e 0": { command: process.execPath, args: ["-e", "0"] } }
    for (const [label, args] of LINES) {
      for (const [prefix, file] of builds) commands[`${prefix}tool-map ${label}`] = { command: process.execPath, args: [file, ...args], env }
    }
    const samples = sampleInterleaved(runs, commands)
    const medians = mediansOf(samples)
    const base = samples["node -e 0"]!
    const builtFrom = builds.map(([prefix, file]) => `${prefix === "" ? "" : "reference "}\`node ${path.relative(ROOT, file)}\``).join(" against ")
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; bundle of ${tools} tools; ${runs} interleaved rounds of ${builtFrom}; load average ${os.loadavg()[0]!.toFixed(1)}.`,
      "",
      "| command | median ms | median ratio to node -e 0 (same round) |",
      "|---|---|---|",
      ...Object.entries(medians).map(([name, ms]) => `| ${name} | ${fmt(ms)} | ${medianPairedRatio(samples[name]!, base).toFixed(2)} |`)
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

// `npx tsx bench/startup.ts [RUNS] [BIN] [REFERENCE_BIN]`: BIN measures another build of the CLI,
// REFERENCE_BIN (e.g. an older build) is timed in the same rounds.
if (import.meta.url === `file://${process.argv[1]}`) {
  const resolved = (arg: string | undefined) => (arg === undefined ? undefined : path.resolve(arg))
  console.log(benchStartup(Number(process.argv[2] ?? 15), resolved(process.argv[3]), resolved(process.argv[4])))
}
