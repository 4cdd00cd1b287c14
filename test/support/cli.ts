import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The built CLI; `npm test` builds it before vitest runs. */
export const BIN = path.resolve(import.meta.dirname, "../../dist/tool-map.cjs")

export const requireBuiltCli = () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (npm test does).`)
}

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI with exactly the given environment (nothing inherited). */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, cwd?: string): CliRun => {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env,
    cwd: cwd ?? env.HOME ?? os.tmpdir(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A fresh temp dir, removed by the returned function. */
export const makeTempDir = (prefix: string): { readonly dir: string; readonly remove: () => void } => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** Writes an executable file (mode 0755) with the given text. */
export const writeExecutable = (file: string, text = "#!/bin/sh\nexit 0\n") => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text, { mode: 0o755 })
}
