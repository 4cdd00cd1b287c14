import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin, median, medianPairedRatio, sampleInterleaved } from "./harness.js"

const ROOT = path.resolve(import.meta.dirname, "..")
const BIN = installedBin()
const ENVINFO = path.join(ROOT, "node_modules", "envinfo", "dist", "cli.js")

/** Items envinfo reports (versions found), from its JSON output. */
const envinfoCount = (): number => {
  const out = spawnSync(process.execPath, [ENVINFO, "--system", "--binaries", "--languages", "--json"], { encoding: "utf8" })
  const json = JSON.parse(out.stdout) as Record<string, Record<string, unknown>>
  return Object.values(json).reduce(
    (sum, section) => sum + Object.values(section).filter((value) => value !== "Not Found" && value !== undefined).length,
    0
  )
}

/** tool-map scan against envinfo (the no-op paths are bench/startup.ts's). Prints markdown. */
export const benchScan = (runs = 11): string => {
  if (!fs.existsSync(BIN)) throw new Error("dist/tool-map.cjs is missing: run `npm run build` first")
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  try {
    const scan = spawnSync(process.execPath, [BIN, "scan", "--json"], { env, encoding: "utf8" })
    const counts = (JSON.parse(scan.stdout) as { counts: { tools: number; versions: number } }).counts
    const scanName = "tool-map scan"
    const envinfoName = "envinfo --system --binaries --languages"
    const fullSamples = sampleInterleaved(runs, {
      [scanName]: { command: process.execPath, args: [BIN, "scan", "--force", "--quiet"], env },
      [envinfoName]: { command: process.execPath, args: [ENVINFO, "--system", "--binaries", "--languages"] }
    })
    const full = { [scanName]: median(fullSamples[scanName]!), [envinfoName]: median(fullSamples[envinfoName]!) }
    const pairedRatio = medianPairedRatio(fullSamples[envinfoName]!, fullSamples[scanName]!)
    const items = envinfoCount()
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; median of ${runs} interleaved runs.`,
      "",
      "| command | median ms | ratio | items listed |",
      "|---|---|---|---|",
      `| tool-map scan | ${fmt(full[scanName]!)} | 1.00 | ${counts.tools} tools, ${counts.versions} versions |`,
      `| envinfo --system --binaries --languages | ${fmt(full[envinfoName]!)} | ${(full[envinfoName]! / full[scanName]!).toFixed(2)} (envinfo / tool-map) | ${items} |`,
      "",
      `Median over the ${runs} rounds of envinfo's time / tool-map's time in the same round: ${pairedRatio.toFixed(2)} (above 1: tool-map is faster).`
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(benchScan())
