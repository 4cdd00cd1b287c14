import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fmt, installedBin, medianPairedRatio, mediansOf, ROOT, sampleInterleaved } from "./harness.js"

const BIN = installedBin()
const ENVINFO = path.join(ROOT, "node_modules", "envinfo", "dist", "cli.js")
const ENVINFO_ARGS = ["--system", "--binaries", "--languages"]

/** Items envinfo reports (versions found), from its JSON output. */
const envinfoCount = (): number => {
  const out = spawnSync(process.execPath, [ENVINFO, ...ENVINFO_ARGS, "--json"], { encoding: "utf8" })
  const json = JSON.parse(out.stdout) as Record<string, Record<string, unknown>>
  return Object.values(json).reduce(
    (sum, section) => sum + Object.values(section).filter((value) => value !== "Not Found" && value !== undefined).length,
    0
  )
}

/**
 * tool-map scan against envinfo, two ways (the no-op paths are bench/startup.ts's):
 * - `npx envinfo …`, the reference command as the issue and envinfo's README give it, run from
 *   the project's root, where npx finds the devDependency in node_modules/.bin (checked first:
 *   npx would otherwise download it);
 * - envinfo's own script under node, without npx's start-up: the stricter comparison.
 * Prints markdown.
 */
export const benchScan = (runs = 11): string => {
  if (!fs.existsSync(BIN)) throw new Error("dist/tool-map.cjs is missing: run `npm run build` first")
  if (!fs.existsSync(path.join(ROOT, "node_modules", ".bin", "envinfo"))) throw new Error("envinfo is not installed: run `npm ci` first")
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-"))
  const env = { ...process.env, PLUGIN_DATA: data }
  try {
    const scan = spawnSync(process.execPath, [BIN, "scan", "--json"], { env, encoding: "utf8" })
    const counts = (JSON.parse(scan.stdout) as { counts: { tools: number; versions: number } }).counts
    const names = {
      scan: "`tool-map scan`",
      npx: "`npx envinfo --system --binaries --languages`",
      script: "`node node_modules/envinfo/dist/cli.js --system --binaries --languages`"
    }
    const samples = sampleInterleaved(runs, {
      [names.scan]: { command: process.execPath, args: [BIN, "scan", "--force", "--quiet"], env },
      [names.npx]: { command: "npx", args: ["envinfo", ...ENVINFO_ARGS], cwd: ROOT },
      [names.script]: { command: process.execPath, args: [ENVINFO, ...ENVINFO_ARGS], cwd: ROOT }
    })
    const medians = mediansOf(samples)
    const items = envinfoCount()
    const row = (name: string, listed: string) => {
      const ratio = name === names.scan
        ? "1.00 | 1.00"
        : `${(medians[name]! / medians[names.scan]!).toFixed(2)} | ${medianPairedRatio(samples[name]!, samples[names.scan]!).toFixed(2)}`
      return `| ${name} | ${fmt(medians[name]!)} | ${ratio} | ${listed} |`
    }
    return [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; ${runs} interleaved rounds.`,
      "",
      "| command | median ms | its time / tool-map's (medians) | same, median of per-round ratios | items listed |",
      "|---|---|---|---|---|",
      row(names.scan, `${counts.tools} tools, ${counts.versions} versions`),
      row(names.npx, `${items}`),
      row(names.script, `${items}`),
      "",
      "Ratios above 1: tool-map is faster. The per-round ratio compares runs of the same round (the order rotates each round), so a slow drift of the machine's load mostly cancels out."
    ].join("\n")
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(benchScan())
