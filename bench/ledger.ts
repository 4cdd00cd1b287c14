/**
 * Issue 14's query figures: `query context` and `query changes` against `query agents` on a
 * generated Claude Code home of N items (20,000 by default), each from the built CLI with
 * `--json --from` the same bundle, interleaved; the bundle is written by two scans so it keeps
 * the previous generation's digest (`inv.previous.json`), as every bundle after the first scan does.
 *
 *   npm run build && npx tsx bench/ledger.ts [items] [runs]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { NodeFileSystem } from "@effect/platform-node"
import { fmt, installedBin, medianPairedRatio, mediansOf, sampleInterleaved, timeCommand } from "./harness.js"
import { claudeHome, writeTree } from "./hostGenerators.js"

export const benchLedger = async (items = 20_000, runs = 7): Promise<string> => {
  const bin = installedBin()
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-ledger-"))
  try {
    const home = path.join(dir, "home")
    await Effect.runPromise(writeTree(home, { ...claudeHome(items).tree, "work/README.md": "bench\n" }).pipe(Effect.provide(NodeFileSystem.layer)))
    const bundle = path.join(dir, "bundle", "inv.md")
    const env = { ...process.env, HOME: home, PATH: "/usr/bin:/bin", XDG_DATA_HOME: path.join(dir, "data") }
    const cwd = path.join(home, "work")
    const scans = [timeCommand(process.execPath, [bin, "scan", bundle, "--no-probes", "--quiet"], env, cwd)]
    scans.push(timeCommand(process.execPath, [bin, "scan", bundle, "--no-probes", "--quiet"], env, cwd))
    const query = (...args: ReadonlyArray<string>) => ({ command: process.execPath, args: [bin, "query", ...args, "--json", "--from", bundle], env, cwd })
    const samples = sampleInterleaved(runs, {
      agents: query("agents"),
      context: query("context"),
      changes: query("changes")
    })
    const medians = mediansOf(samples)
    const bytes = fs.statSync(path.join(dir, "bundle", "inv.json")).size
    const digest = path.join(dir, "bundle", "inv.previous.json")
    const digestBytes = fs.existsSync(digest) ? fs.statSync(digest).size : null
    return [
      `### Ledger and drift queries on a generated Claude Code home of ${items.toLocaleString("en-US")} items (median of ${runs} interleaved runs)`,
      "",
      "| command | ms | ratio to `query agents` (median of per-round ratios) |",
      "|---|---:|---:|",
      `| \`query agents --json\` | ${fmt(medians["agents"]!)} | 1.00 |`,
      `| \`query context --json\` | ${fmt(medians["context"]!)} | ${medianPairedRatio(samples["context"]!, samples["agents"]!).toFixed(2)} |`,
      `| \`query changes --json\` | ${fmt(medians["changes"]!)} | ${medianPairedRatio(samples["changes"]!, samples["agents"]!).toFixed(2)} |`,
      "",
      `The bundle's JSON: ${(bytes / 1024 / 1024).toFixed(1)} MiB; the previous generation's digest beside it (inv.previous.json): ${
        digestBytes === null ? "none (a build that keeps it inside the JSON)" : `${(digestBytes / 1024 / 1024).toFixed(1)} MiB`
      }. Its two scans (\`--no-probes\`): ${scans.map(fmt).join(" ms, ")} ms.`
    ].join("\n")
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [items, runs] = process.argv.slice(2).map(Number)
  benchLedger(items !== undefined && items > 0 ? items : undefined, runs !== undefined && runs > 0 ? runs : undefined).then((table) => console.log(table))
}
