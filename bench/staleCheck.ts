import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freshnessOf } from "../src/cli/answerFreshness.js"
import { FirstScan } from "../src/inventory/query/FirstScan.js"
import { Bundle } from "../src/inventory/bundle/Bundle.js"
import { defaultWhichIndex, whichFromIndex } from "../src/inventory/query/InventoryReader.js"
import { ReadLayer } from "../src/layers/ReadLayer.js"
import { SyncNodeFileSystemLayer } from "../src/platform/SyncNodeFileSystem.js"
import { MachineEnvironment } from "../src/services/MachineEnvironment.js"
import { fmt, installedBin, median, medianPairedRatio, mediansOf, ROOT, sampleInterleaved, type TimedCommand } from "./harness.js"

/*
 * What the stale check of every query costs (issue 29): the check `scan --if-stale` makes (an
 * interrupted commit repaired, tools.json's watch set read from the which index, each watched
 * input stat'ed), run before a query answers. Two views, each against a reference in the same run:
 *
 * - in this process, the check (`freshnessOf`) against what `query which NAME` does to answer
 *   (`whichFromIndex`), interleaved, over the same bundle;
 * - through the built CLI, `query which git` (start, check, answer) against `scan --if-stale` with
 *   no change (start and the check alone) and Node's own start.
 *
 * Over a bundle of this machine's PATH, and of that PATH plus a directory of generated tools.
 */

interface ScannedBundle {
  readonly label: string
  readonly env: NodeJS.ProcessEnv
  readonly tools: number
  readonly jsonBytes: number
  readonly watched: number
}

const scanInto = (bin: string, label: string, data: string, pathVariable: string): ScannedBundle => {
  const env = { ...process.env, PLUGIN_DATA: data, PATH: pathVariable }
  const scan = spawnSync(process.execPath, [bin, "scan", "--json", "--no-probes"], { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (scan.status !== 0) throw new Error(`tool-map scan exited ${scan.status}: ${scan.stderr}`)
  const tools = (JSON.parse(scan.stdout) as { counts: { tools: number } }).counts.tools
  const json = path.join(data, "tools.json")
  const watched = (JSON.parse(fs.readFileSync(json, "utf8")) as { watch: { inputs: ReadonlyArray<unknown> } }).watch.inputs.length
  return { label, env, tools, jsonBytes: fs.statSync(json).size, watched }
}

/** Milliseconds of one call of `run`. */
const timed = (run: () => Promise<unknown>) =>
  async (): Promise<number> => {
    const started = process.hrtime.bigint()
    await run()
    return Number(process.hrtime.bigint() - started) / 1e6
  }

/** The check against the index lookup that answers `query which git`, `runs` interleaved pairs in this process. */
const inProcess = async (bundle: ScannedBundle, runs: number) => {
  const environment = { ...MachineEnvironment.live, env: bundle.env }
  const layer = ReadLayer.pipe(
    Layer.provide(Layer.succeed(FirstScan, FirstScan.of({ run: () => Effect.die("the bench reads an existing bundle") }))),
    Layer.provideMerge(Layer.merge(Layer.succeed(MachineEnvironment, environment), SyncNodeFileSystemLayer))
  )
  // The everyday entry's graph over the bundle's environment, built once.
  const runtime = ManagedRuntime.make(layer)
  const check = timed(() => runtime.runPromise(freshnessOf("which", Option.none())))
  // What answering costs without the check: the repair, the which index read and vouched, the lookup.
  const lookup = Effect.gen(function* () {
    const paths = yield* (yield* Bundle).locate(Option.none())
    return whichFromIndex(yield* defaultWhichIndex(paths), "git")
  })
  const answer = timed(() => runtime.runPromise(lookup))
  const checks: Array<number> = []
  const answers: Array<number> = []
  // Warm-up: the first run of each compiles the decoders.
  await check()
  await answer()
  for (let round = 0; round < runs; round++) {
    if (round % 2 === 0) {
      checks.push(await check())
      answers.push(await answer())
    } else {
      answers.push(await answer())
      checks.push(await check())
    }
  }
  await runtime.dispose()
  return { check: median(checks), answer: median(answers), ratio: medianPairedRatio(checks, answers) }
}

/** The CLI lines against `node -e 0`, `runs` interleaved rounds. */
const throughCli = (bin: string, bundle: ScannedBundle, runs: number) => {
  const commands: Record<string, TimedCommand> = {
    "node -e 0": { command: process.execPath, args: ["-e", "0"] },
    "tool-map scan --if-stale --quiet (no change: start and the check)": { command: process.execPath, args: [bin, "scan", "--if-stale", "--quiet"], env: bundle.env },
    "tool-map query which git (start, the check, the answer)": { command: process.execPath, args: [bin, "query", "which", "git"], env: bundle.env }
  }
  const samples = sampleInterleaved(runs, commands)
  const medians = mediansOf(samples)
  const base = samples["node -e 0"]!
  return Object.entries(medians).map(([name, ms]) => `| ${bundle.label} | ${name} | ${fmt(ms)} | ${medianPairedRatio(samples[name]!, base).toFixed(2)} |`)
}

/** Runs both views over both bundles; returns a markdown report. */
export const benchStaleCheck = async (runs = 30, generated = 20_000, bin = installedBin()): Promise<string> => {
  if (!fs.existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first`)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-bench-stale-"))
  try {
    const many = path.join(work, "many")
    fs.mkdirSync(many)
    for (let index = 0; index < generated; index++) {
      const file = path.join(many, `gen-tool-${String(index).padStart(5, "0")}`)
      fs.writeFileSync(file, "#!/bin/sh\n")
      fs.chmodSync(file, 0o755)
    }
    const machinePath = process.env["PATH"] ?? ""
    const bundles = [
      scanInto(bin, "this machine's PATH", path.join(work, "machine"), machinePath),
      scanInto(bin, `PATH + ${generated.toLocaleString("en")} generated tools`, path.join(work, "large"), `${machinePath}${path.delimiter}${many}`)
    ]
    const lines: Array<string> = [
      `Machine: ${os.cpus().length} cores, ${os.platform()} ${os.arch()}, Node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)} at the start.`,
      "",
      "| bundle | tools | tools.json | watched inputs |",
      "|---|---|---|---|",
      ...bundles.map((bundle) => `| ${bundle.label} | ${bundle.tools} | ${(bundle.jsonBytes / 1024).toFixed(0)} KiB | ${bundle.watched} |`),
      "",
      `In this process, median of ${runs} interleaved pairs: the check against the index lookup that answers \`query which git\`.`,
      "",
      "| bundle | the check (ms) | the answer's lookup (ms) | median ratio check / lookup (same pair) |",
      "|---|---|---|---|"
    ]
    for (const bundle of bundles) {
      const measured = await inProcess(bundle, runs)
      lines.push(`| ${bundle.label} | ${fmt(measured.check)} | ${fmt(measured.answer)} | ${measured.ratio.toFixed(2)} |`)
    }
    lines.push(
      "",
      `Through \`node ${path.relative(ROOT, bin)}\`, median of ${runs} interleaved rounds.`,
      "",
      "| bundle | command | median ms | median ratio to node -e 0 (same round) |",
      "|---|---|---|---|"
    )
    for (const bundle of bundles) lines.push(...throughCli(bin, bundle, runs))
    return lines.join("\n")
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

// `npx tsx bench/staleCheck.ts [RUNS] [GENERATED_TOOLS]` after `npm run build`.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchStaleCheck(Number(process.argv[2] ?? 30), Number(process.argv[3] ?? 20_000)))
}
