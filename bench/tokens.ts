/**
 * How good and how cheap the token estimate is.
 *
 *   npx tsx bench/tokens.ts
 *
 * Error: for every tool of `bench/data/mcp-tool-schemas.json` (real MCP servers from npm),
 * the estimate against gpt-tokenizer's o200k count of the same compact JSON; the median,
 * p90 and max of the absolute relative error, beside a plain chars/4 rule. Speed: the
 * estimate over 50,000 generated tools (fresh schema objects, so nothing is cached).
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import type { ToolSchema } from "../src/catalog/core/model.js"
import { estimateTokens, wireJson } from "../src/inventory/domain/tokens.js"
import { generateTools } from "./catalogGenerators.js"

/** One tool of the corpus, with the npm package it came from. */
export interface CorpusTool extends ToolSchema {
  readonly server: string
}

/** The corpus file: tools and where they came from. */
export interface Corpus {
  readonly sources: ReadonlyArray<{ readonly package: string; readonly version: string; readonly tools: number }>
  readonly tools: ReadonlyArray<CorpusTool>
}

/** Reads `bench/data/mcp-tool-schemas.json`. */
export const loadCorpus = (): Corpus =>
  JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "data", "mcp-tool-schemas.json"), "utf8")) as Corpus

/** Error figures of an estimator over a set of tools. */
export interface ErrorStats {
  readonly tools: number
  readonly median: number
  readonly p90: number
  readonly max: number
  /** Sum of estimates over sum of real counts. */
  readonly totalRatio: number
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** Measures `estimate` against the o200k tokenizer over `tools`. */
export const measureError = (
  tools: ReadonlyArray<ToolSchema>,
  estimate: (tool: ToolSchema) => number = estimateTokens
): ErrorStats => {
  const errors: Array<number> = []
  let estimated = 0
  let actual = 0
  for (const tool of tools) {
    const real = encode(wireJson(tool)).length
    const guess = estimate(tool)
    errors.push(Math.abs(guess - real) / real)
    estimated += guess
    actual += real
  }
  errors.sort((a, b) => a - b)
  return {
    tools: tools.length,
    median: quantile(errors, 0.5),
    p90: quantile(errors, 0.9),
    max: errors.at(-1) ?? 0,
    totalRatio: estimated / actual
  }
}

/** The rule of thumb the estimate is compared with. */
export const charsOverFour = (tool: ToolSchema): number => Math.round(wireJson(tool).length / 4)

/** Milliseconds (median of `runs`) to estimate `n` freshly generated tools, and o200k's time for comparison. */
export const measureSpeed = (
  n: number,
  runs = 5
): { readonly estimateMs: number; readonly estimateCpuMs: number; readonly tokenizerMs: number } => {
  const times: Array<number> = []
  const cpuTimes: Array<number> = []
  for (let run = 0; run < runs; run++) {
    const tools = generateTools(n, run + 1)
    const cpu = process.cpuUsage()
    const start = performance.now()
    let sum = 0
    for (const tool of tools) sum += estimateTokens(tool)
    times.push(performance.now() - start)
    const used = process.cpuUsage(cpu)
    cpuTimes.push((used.user + used.system) / 1000)
    if (sum <= 0) throw new Error("no tokens estimated")
  }
  times.sort((a, b) => a - b)
  cpuTimes.sort((a, b) => a - b)
  const sample = generateTools(Math.min(n, 5_000), 99)
  const start = performance.now()
  for (const tool of sample) encode(wireJson(tool))
  const tokenizerMs = ((performance.now() - start) * n) / sample.length
  return {
    estimateMs: times[Math.floor(times.length / 2)]!,
    estimateCpuMs: cpuTimes[Math.floor(cpuTimes.length / 2)]!,
    tokenizerMs
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** Prints the error and speed tables as markdown. */
export const runTokensBench = (): string => {
  const corpus = loadCorpus()
  const ours = measureError(corpus.tools)
  const naive = measureError(corpus.tools, charsOverFour)
  const speed = measureSpeed(50_000)
  const lines = [
    `### Token estimate vs o200k (${corpus.tools.length} tools from ${corpus.sources.length} MCP servers on npm)`,
    "",
    "| estimator | median abs error | p90 | max | total estimate / total real |",
    "| --- | ---: | ---: | ---: | ---: |",
    `| tool-map estimate | ${pct(ours.median)} | ${pct(ours.p90)} | ${pct(ours.max)} | ${ours.totalRatio.toFixed(3)} |`,
    `| chars / 4 | ${pct(naive.median)} | ${pct(naive.p90)} | ${pct(naive.max)} | ${naive.totalRatio.toFixed(3)} |`,
    "",
    "| 50,000 generated tools | time |",
    "| --- | ---: |",
    `| estimate (median of 5) | ${speed.estimateMs.toFixed(0)} ms (cpu ${speed.estimateCpuMs.toFixed(0)} ms) |`,
    `| o200k encode (extrapolated from 5,000) | ${speed.tokenizerMs.toFixed(0)} ms |`
  ]
  return lines.join("\n")
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(runTokensBench())
}
