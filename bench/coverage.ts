import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Option } from "effect"
import { decodeInventoryJson } from "../src/inventory/bundle/inventoryDecode.js"
import { fromPathBytes, hasEscapedBytes, toPathBytes } from "../src/platform/WalkerFs.js"
import { normalizeDirectory } from "../src/inventory/domain/toolNames.js"
import { whichTool } from "../src/inventory/domain/which.js"
import { installedBin } from "./harness.js"

/**
 * The coverage of this machine's PATH (issue 12, finding 1): the names that
 * `find -L DIR -maxdepth 1 -type f -perm -u+x` lists in each PATH dir, against the record names
 * of the tools.json that a real scan writes (the built CLI, into a temp data dir), and for each
 * name the winner of `query which` against the shell's own answer: `/bin/sh -c 'command -v
 * NAME'`, and bash's `type -P NAME` for the names sh answers as builtins (`[`, `echo`, `kill`).
 * Both shells run in an empty working directory: a relative or empty PATH entry finds nothing
 * there, as tool-map reads none (their meaning changes with the working directory).
 *
 * `query which` is answered in process by the CLI's own code (`whichTool` over the decoded
 * tools.json) for every name, and through the built CLI for `--cli N` names spread over the
 * list (default 25; `--cli all` for every one, a process each).
 *
 * Run: `npm run build && node --import tsx bench/coverage.ts [--cli N|all] [--bin FILE] [--json]`
 * (not `npx tsx`, which puts node_modules/.bin dirs on the PATH measured); `--bin` measures
 * another build of the CLI, e.g. one from before a change.
 */

/** What the measure found. */
export interface CoverageReport {
  /** PATH entries, and the distinct absolute dirs among them that find read. */
  readonly pathEntries: number
  readonly pathDirs: number
  /** Distinct names find listed over all PATH dirs. */
  readonly names: number
  /** Of them, names of a PATH record in tools.json. */
  readonly covered: number
  /** The names not covered (all of them). */
  readonly missing: ReadonlyArray<string>
  /** Names of PATH records that find did not list (an x bit that is not the owner's, run as root). */
  readonly extra: ReadonlyArray<string>
  /** Names whose `query which` winner is the shell's path. */
  readonly whichAgrees: number
  /** Each disagreement: the name, tool-map's winner, the shell's answer. */
  readonly whichDisagrees: ReadonlyArray<readonly [string, string | null, string | null]>
  /** Names sh answered as builtins, looked up with bash's `type -P` instead (0 without bash). */
  readonly builtins: number
  /** Names sh answered as builtins and no bash to ask: not compared. */
  readonly notCompared: ReadonlyArray<string>
  /** Names checked through the built CLI, and how many of its answers were the shell's. */
  readonly cliChecked: number
  readonly cliAgrees: number
  readonly scanMs: number
}

/** The names `find -L DIR -maxdepth 1 -type f -perm -u+x` lists in `dir` (lossless strings). */
const findNames = (dir: string): ReadonlyArray<string> => {
  const found = spawnSync("find", ["-L", dir, "-maxdepth", "1", "-type", "f", "-perm", "-u+x", "-print0"], { maxBuffer: 256 * 1024 * 1024 })
  const names: Array<string> = []
  let start = 0
  for (let at = found.stdout.indexOf(0); at !== -1; at = found.stdout.indexOf(0, start)) {
    names.push(path.basename(fromPathBytes(found.stdout.subarray(start, at))))
    start = at + 1
  }
  return names
}

/** One shell run over every name: `script` reads a name a line and prints one line for each. */
const askShell = (shell: string, script: string, names: ReadonlyArray<string>, cwd: string): ReadonlyArray<string> => {
  const input = Buffer.concat(names.map((name) => Buffer.concat([toPathBytes(name), Buffer.from("\n")])))
  const run = spawnSync(shell, ["-c", script], { cwd, env: process.env, input, maxBuffer: 256 * 1024 * 1024 })
  const lines: Array<string> = []
  let start = 0
  for (let at = run.stdout.indexOf(0x0a); at !== -1; at = run.stdout.indexOf(0x0a, start)) {
    lines.push(fromPathBytes(run.stdout.subarray(start, at)))
    start = at + 1
  }
  if (lines.length !== names.length) throw new Error(`${shell} answered ${lines.length} lines for ${names.length} names: ${run.stderr.toString()}`)
  return lines
}

/** A shell's answer as a path the walk would write (`/usr/bin//x` is `/usr/bin/x`); null for none. */
const asPath = (answer: string): string | null =>
  answer === "" ? null : `${normalizeDirectory(path.dirname(answer), "linux")}/${path.basename(answer)}`

/** The names at `count` evenly spaced places of `names` (all of them for "all"). */
const spread = (names: ReadonlyArray<string>, count: number | "all"): ReadonlyArray<string> => {
  if (count === "all" || count >= names.length) return names
  return Array.from({ length: count }, (_, index) => names[Math.floor((index * names.length) / count)]!)
}

/** Scans this machine with the built CLI (or the build at `bin`) and measures the coverage of its PATH. */
export const measureCoverage = (options: { readonly cli?: number | "all"; readonly bin?: string } = {}): CoverageReport => {
  const bin = options.bin ?? installedBin()
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`)
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-coverage-"))
  try {
    const data = path.join(temp, "data")
    const cwd = path.join(temp, "cwd")
    fs.mkdirSync(cwd)
    const env = { ...process.env, PLUGIN_DATA: data }
    const started = performance.now()
    const scan = spawnSync(process.execPath, [bin, "scan", "--no-probes", "--quiet"], { env, encoding: "utf8" })
    const scanMs = performance.now() - started
    if (scan.status !== 0) throw new Error(`tool-map scan exited ${scan.status}: ${scan.stderr}`)
    const inventory = Option.getOrThrowWith(
      decodeInventoryJson(fs.readFileSync(path.join(data, "tools.json"), "utf8")),
      () => new Error("tools.json does not decode")
    )

    const entries = (process.env.PATH ?? "").split(":")
    const dirs = [...new Set(entries.filter((entry) => entry.startsWith("/")))]
    const names = [...new Set(dirs.flatMap(findNames))].sort()
    const recordNames = new Set(inventory.tools.filter((tool) => tool.pathIndex !== null).map((tool) => tool.name))
    const listed = new Set(names)

    const fromSh = askShell("/bin/sh", "while IFS= read -r n; do command -v \"$n\" || echo; done", names, cwd)
    const builtinAt = fromSh.flatMap((answer, index) => (answer === "" || answer.startsWith("/") ? [] : [index]))
    const hasBash = fs.existsSync("/bin/bash")
    const fromBash = hasBash && builtinAt.length > 0
      ? askShell("/bin/bash", "while IFS= read -r n; do type -P -- \"$n\" || echo; done", builtinAt.map((index) => names[index]!), cwd)
      : []
    const shellAnswer = new Map(names.map((name, index) => [name, fromSh[index]!] as const))
    builtinAt.forEach((index, at) => shellAnswer.set(names[index]!, fromBash[at] ?? "builtin"))
    const notCompared = hasBash ? [] : builtinAt.map((index) => names[index]!)

    const whichDisagrees: Array<readonly [string, string | null, string | null]> = []
    let whichAgrees = 0
    for (const name of names) {
      if (notCompared.includes(name)) continue
      const expected = asPath(shellAnswer.get(name)!)
      const winner = whichTool(inventory, name).winner
      if (winner === expected) whichAgrees += 1
      else whichDisagrees.push([name, winner, expected])
    }

    // Through the built CLI: names that are not UTF-8 cannot be an argument of a process here.
    const sample = spread(names.filter((name) => !hasEscapedBytes(name) && !notCompared.includes(name)), options.cli ?? 25)
    let cliAgrees = 0
    for (const name of sample) {
      const query = spawnSync(process.execPath, [bin, "query", "which", "--json", "--", name], { env, encoding: "utf8" })
      const winner = query.status === 0 ? (JSON.parse(query.stdout) as { readonly winner: string | null }).winner : null
      if (winner === asPath(shellAnswer.get(name)!)) cliAgrees += 1
    }

    return {
      pathEntries: entries.length,
      pathDirs: dirs.length,
      names: names.length,
      covered: names.filter((name) => recordNames.has(name)).length,
      missing: names.filter((name) => !recordNames.has(name)),
      extra: [...recordNames].filter((name) => !listed.has(name)).sort(),
      whichAgrees,
      whichDisagrees,
      builtins: hasBash ? builtinAt.length : 0,
      notCompared,
      cliChecked: sample.length,
      cliAgrees,
      scanMs
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

const percent = (part: number, whole: number) => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(2)}%`)
const firstOf = (list: ReadonlyArray<string>, count = 20) =>
  list.length === 0 ? "none" : `${list.slice(0, count).join(", ")}${list.length > count ? ` … and ${list.length - count} more` : ""}`

/** The report as the lines the script prints. */
export const renderCoverage = (report: CoverageReport): string => {
  const compared = report.names - report.notCompared.length
  return [
    `Machine: ${os.platform()} ${os.arch()}, Node ${process.version}; PATH of ${report.pathEntries} entries, ${report.pathDirs} distinct absolute dirs; scan ${Math.round(report.scanMs)} ms (--no-probes).`,
    `names (find -L DIR -maxdepth 1 -type f -perm -u+x, over the PATH dirs): ${report.names}`,
    `covered (the name of a PATH record in tools.json): ${report.covered} (${percent(report.covered, report.names)})`,
    `missing: ${firstOf(report.missing)}`,
    `records find does not list: ${firstOf(report.extra)}`,
    `query which agrees with the shell (sh command -v; bash type -P for ${report.builtins} builtin names): ${report.whichAgrees} of ${compared} (${percent(report.whichAgrees, compared)})`,
    `disagreements (name: tool-map / shell): ${
      report.whichDisagrees.length === 0 ? "none" : report.whichDisagrees.slice(0, 20).map(([name, ours, shell]) => `${name}: ${ours} / ${shell}`).join("; ")
    }`,
    ...(report.notCompared.length === 0 ? [] : [`not compared (sh builtins, no bash): ${firstOf(report.notCompared)}`]),
    `through the built CLI (tool-map query which NAME --json): ${report.cliAgrees} of ${report.cliChecked} names agree`
  ].join("\n")
}

const main = (argv: ReadonlyArray<string>) => {
  const at = argv.indexOf("--cli")
  const cli = at === -1 ? undefined : argv[at + 1] === "all" ? "all" as const : Number(argv[at + 1])
  if (cli !== undefined && cli !== "all" && !(Number.isInteger(cli) && cli >= 0)) throw new Error("--cli takes a count or all")
  const binAt = argv.indexOf("--bin")
  const bin = binAt === -1 ? undefined : argv[binAt + 1]
  if (binAt !== -1 && bin === undefined) throw new Error("--bin takes the path of a built tool-map.cjs")
  const report = measureCoverage({ ...(cli === undefined ? {} : { cli }), ...(bin === undefined ? {} : { bin: path.resolve(bin) }) })
  process.stdout.write(`${argv.includes("--json") ? JSON.stringify(report, null, 1) : renderCoverage(report)}\n`)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main(process.argv.slice(2))
