import { Effect, Either, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  boundHistory,
  decodeHistory,
  DEFAULT_HISTORY_BOUNDS,
  entryBytes,
  type HistoryFile,
  nextHistoryText,
  renderHistory
} from "../src/inventory/bundle/history.js"
import { installedBin, median } from "./harness.js"

/*
 * The history of `query changes` (issue 29, point 4): how large one digest of this machine's real
 * scan is, how many the budget keeps, and what a commit pays to extend a full history (read,
 * decode, compare with the newest, bound, render) and `query changes` to decode it, in CPU time
 * (the machine is shared: wall time would measure the others).
 *
 *   npm run build && npx tsx bench/history.ts
 */

const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-history-bench-"))
const scan = spawnSync(process.execPath, [installedBin(), "scan", "--quiet"], { env: { ...process.env, PLUGIN_DATA: data }, encoding: "utf8" })
if (scan.status !== 0) throw new Error(`tool-map scan exited ${scan.status}: ${scan.stderr}`)
const single = Option.getOrThrow(decodeHistory(fs.readFileSync(path.join(data, "tools.history.json"), "utf8")))
const newest = single.entries[0]!
const bytes = entryBytes(newest)
const kept = boundHistory(Array.from({ length: DEFAULT_HISTORY_BOUNDS.maxEntries * 4 }, (_, i) => newest), DEFAULT_HISTORY_BOUNDS).length

// A full history of digests of this size (each a generation of its own), the bundle's own first.
const full: HistoryFile = {
  ...single,
  number: kept,
  entries: Array.from({ length: kept }, (_, i) => ({ ...newest, number: kept - i, digest: { ...newest.digest, generation: `${newest.digest.generation}-${i}` } }))
}
const fullText = renderHistory(full)

const cpuMs = (run: () => void): number => {
  const start = process.cpuUsage()
  run()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}
const sample = (run: () => void, times = 15) => median(Array.from({ length: times }, () => cpuMs(run)))

const extend = (prior: Option.Option<string>) => () => {
  Effect.runSync(nextHistoryText("tools.history.json", Either.right(prior), Option.none(), { ...newest.digest, generation: "next" }, new Date().toISOString()))
}

const rows = [
  ["one digest (compact JSON)", `${bytes.toLocaleString("en")} bytes: ${newest.digest.tools.length} tools, ${newest.digest.versions.length} versions, ${newest.digest.items.length} agent-host items`],
  ["kept within the budget", `${kept} of ${DEFAULT_HISTORY_BOUNDS.maxEntries} (budget ${DEFAULT_HISTORY_BOUNDS.budgetBytes.toLocaleString("en")} bytes)`],
  ["a full history file", `${Buffer.byteLength(fullText).toLocaleString("en")} bytes`],
  ["commit: extend the history, none yet", `${sample(extend(Option.none())).toFixed(1)} ms CPU`],
  ["commit: extend a full history", `${sample(extend(Option.some(fullText))).toFixed(1)} ms CPU`],
  ["query changes: decode a full history", `${sample(() => decodeHistory(fullText)).toFixed(1)} ms CPU`]
]
console.log(`history of query changes, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}\n`)
console.log("| what | figure |\n| --- | --- |")
for (const [what, figure] of rows) console.log(`| ${what} | ${figure} |`)
fs.rmSync(data, { recursive: true, force: true })
