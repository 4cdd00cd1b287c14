/**
 * What fitting a table to the terminal costs (issue 29, point 6): `renderTable` of a `query
 * skills`-shaped table of ROWS rows, whole (a pipe) and within 100 columns (a terminal), in
 * interleaved rounds; ASCII cells, and the same with CJK descriptions (grapheme clusters).
 *
 *   npx tsx bench/tables.ts [ROWS] [ROUNDS]
 */
import * as os from "node:os"
import { type Column, renderTable } from "../src/cli/output.js"
import { fmt, median, medianPairedRatio } from "./harness.js"

const rowsCount = Number(process.argv[2] ?? 5000)
const rounds = Number(process.argv[3] ?? 11)

const TITLES = ["name", "host", "scope", "plugin", "scripts", "state", "also loaded by", "description"]
const TEXT = ["plugin", "also loaded by", "description"]
const columns: ReadonlyArray<Column> = TITLES.map((title, index) => ({ title, shrink: index === 0 ? "key" : TEXT.includes(title) ? "text" : "normal" }))

const rowsOf = (describe: (index: number) => string) =>
  Array.from({ length: rowsCount }, (_, index) => [
    `skill-${index}`, "claude-code", "user", index % 3 === 0 ? `plugin-${index}@market` : "", "", "loaded", index % 5 === 0 ? "opencode" : "", describe(index)
  ])

const tables = {
  ascii: rowsOf((index) => `Reviews change ${index} for correctness, security and style, `.repeat(4)),
  cjk: rowsOf((index) => `変更${index}を正確さ、安全性、スタイルの観点でレビューします。`.repeat(4))
}

const timeOne = (rows: ReadonlyArray<ReadonlyArray<string>>, width: number | undefined): number => {
  const started = process.hrtime.bigint()
  renderTable(columns, rows, width)
  return Number(process.hrtime.bigint() - started) / 1e6
}

console.log(`renderTable of ${rowsCount} rows, ${rounds} interleaved rounds, Node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)}`)
console.log("| cells | whole (pipe) | within 100 columns (terminal) | ratio (median per round) |")
console.log("|---|---:|---:|---:|")
for (const [name, rows] of Object.entries(tables)) {
  timeOne(rows, undefined)
  timeOne(rows, 100)
  const whole: Array<number> = []
  const fitted: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      whole.push(timeOne(rows, undefined))
      fitted.push(timeOne(rows, 100))
    } else {
      fitted.push(timeOne(rows, 100))
      whole.push(timeOne(rows, undefined))
    }
  }
  console.log(`| ${name} | ${fmt(median(whole))} ms | ${fmt(median(fitted))} ms | ${medianPairedRatio(fitted, whole).toFixed(2)} |`)
}
console.log(`load at the end ${os.loadavg()[0]!.toFixed(1)}`)
