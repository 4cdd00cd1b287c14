import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { compare, fmt, installedBin, ROOT } from "./harness.js"


/**
 * The two no-op paths of SPEC section 7 against Node's own start: `scan --if-stale` with no
 * change and `query which git`, both over a bundle of this machine's real PATH (answered by the
 * launcher's everyday entry), and `--version` (the whole CLI's start, for comparison). Median of
 * `runs` interleaved runs each; returns a markdown table.
 */
export const benchStartup = (runs = 15, bin = installedBin()): string => {
  if (!fs.existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first`)
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-startup-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  try {
    const scan = spawnSync(process.execPath, [bin, "scan", "--json"], { env, encoding: "utf8" })
    if (scan.status !== 0) throw new Error(`tool-map scan exited ${scan.status}: ${scan.stderr}`)
    const tools = (JSON.parse(scan.stdout) as { counts: { tools: number } }).counts.tools
    const results = compare(runs, {
      "node -e 0": { command: process.execPath, args: ["-e", "0"] },
      "tool-map scan --if-stale (no change)": { command: process.execPath, args: [bin, "scan", "--if-stale", "--quiet"], env },
      "tool-map query which git": { command: process.execPath, args: [bin, "query", "which", "git"], env },
      // Answered by the whole CLI (not the everyday entry): it must not get slower either.
      "tool-map --version": { command: process.execPath, args: [bin, "--version"], env }
    })
    const base = results["node -e 0"]!
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; bundle of ${tools} tools; median of ${runs} interleaved runs of \`node ${path.relative(ROOT, bin)}\`; load average ${os.loadavg()[0]!.toFixed(1)}.`,
      "",
      "| command | median ms | ratio to node -e 0 |",
      "|---|---|---|",
      ...Object.entries(results).map(([name, ms]) => `| ${name} | ${fmt(ms)} | ${(ms / base).toFixed(2)} |`)
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

// `npx tsx bench/startup.ts [RUNS] [BIN]`: BIN measures another build of the CLI (e.g. an older one).
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(benchStartup(Number(process.argv[2] ?? 15), process.argv[3] === undefined ? undefined : path.resolve(process.argv[3])))
}
