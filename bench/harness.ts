import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** The project's root directory. */
export const ROOT = path.resolve(import.meta.dirname, "..")

/** The file package.json installs as the `tool-map` command (what a user runs). */
export const installedBin = (): string => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
  return path.resolve(ROOT, pkg.bin["tool-map"]!)
}

/** A command to time: what to run, with which environment, from which directory. */
export interface TimedCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
}

/** Wall-clock milliseconds of one run of a command; throws when it fails. */
export const timeCommand = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env, cwd?: string): number => {
  const started = process.hrtime.bigint()
  const result = spawnSync(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return elapsed
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/**
 * Every wall time of `runs` interleaved rounds of each command (interleaving spreads machine
 * noise evenly). Each round starts one command further along, so no command always runs first.
 */
export const sampleInterleaved = (runs: number, commands: Record<string, TimedCommand>): Record<string, ReadonlyArray<number>> => {
  const entries = Object.entries(commands)
  const samples: Record<string, Array<number>> = Object.fromEntries(entries.map(([name]) => [name, []]))
  for (let run = 0; run < runs; run++) {
    for (let step = 0; step < entries.length; step++) {
      const [name, spec] = entries[(run + step) % entries.length]!
      samples[name]!.push(timeCommand(spec.command, spec.args, spec.env, spec.cwd))
    }
  }
  return samples
}

/** Median of `runs` interleaved runs of each command. */
export const compare = (runs: number, commands: Record<string, TimedCommand>): Record<string, number> =>
  mediansOf(sampleInterleaved(runs, commands))

/** The median of each command's samples. */
export const mediansOf = (samples: Record<string, ReadonlyArray<number>>): Record<string, number> =>
  Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]))

/**
 * The median over rounds of `a`'s time divided by `b`'s in the same round: the runs of a round
 * are close in time, so a slow drift of the machine's load mostly cancels out of each ratio.
 */
export const medianPairedRatio = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number =>
  median(a.map((value, index) => value / b[index]!))

export const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
