/**
 * `tsx scripts/conformance/pyenv.ts`: tool-map's reading of pyenv shims against pyenv itself, on
 * a machine where pyenv is installed (PYENV_ROOT or ~/.pyenv). For each case a throwaway folder
 * holds a `.python-version`; in it, the built CLI scans with PATH = the shims only, and the shims
 * are run as the probe runs them (no PYENV_* variable). Prints one line per case and program:
 * the shim's answer, tool-map's, and whether tool-map read the choice or ran the shim. Exits 1
 * when a version differs. Build first (`npm run build`).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const ROOT = path.resolve(import.meta.dirname, "../..")
const BIN = path.join(ROOT, "dist", "tool-map.cjs")
const PYENV_ROOT = process.env["PYENV_ROOT"] ?? path.join(os.homedir(), ".pyenv")
const SHIMS = path.join(PYENV_ROOT, "shims")
const PROGRAMS = ["python", "python3"]

const installed = fs.existsSync(path.join(PYENV_ROOT, "versions"))
  ? fs.readdirSync(path.join(PYENV_ROOT, "versions")).sort()
  : []

/** Version-file contents: plain names, several, comments, prefixes, system, unknown, empty. */
const cases = (): ReadonlyArray<{ readonly title: string; readonly file: string | null }> => {
  const [first, second, third] = [installed[0], installed[1], installed[2]]
  if (first === undefined || second === undefined || third === undefined) throw new Error(`pyenv at ${PYENV_ROOT} needs three versions installed`)
  const prefix = second.split(".").slice(0, 2).join(".")
  return [
    { title: "no local file (PYENV_ROOT/version)", file: null },
    { title: `one version ${second}`, file: `${second}\n` },
    { title: `two versions ${first} then ${third}`, file: `${first}\n${third}\n` },
    { title: "comments, blank lines, CRLF, extra words", file: `# pinned\r\n\r\n  ${third}   extra words\r\n` },
    { title: `a prefix ${prefix}`, file: `${prefix}\n` },
    { title: "system", file: "system\n" },
    { title: "an unknown version then an installed one", file: `9.99.99\n${second}\n` },
    { title: "python- prefix", file: `python-${second}\n` },
    { title: "an empty file", file: "" }
  ]
}

const shimAnswer = (cwd: string, program: string): string => {
  const run = spawnSync(path.join(SHIMS, program), ["--version"], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: os.homedir(), LANG: "C.UTF-8" },
    encoding: "utf8"
  })
  const text = `${run.stdout}\n${run.stderr}`
  return /(\d+(?:\.\d+)+)/.exec(text)?.[1] ?? `none (exit ${run.status})`
}

const toolMapAnswer = (cwd: string, program: string): { version: string; read: boolean } => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-pyenv-data-"))
  try {
    const env = { PATH: `${SHIMS}:/usr/bin:/bin`, HOME: os.homedir(), LANG: "C.UTF-8", PLUGIN_DATA: data }
    const run = spawnSync(process.execPath, [BIN, "query", "versions", "--json"], { cwd, env, encoding: "utf8" })
    if (run.status !== 0) throw new Error(`tool-map exited ${run.status}: ${run.stderr}`)
    const { versions: reports } = JSON.parse(run.stdout) as { versions: ReadonlyArray<{ name: string; version: string | null; detail: string | null }> }
    const report = reports.find((entry) => entry.name === program)
    return { version: report?.version ?? "none", read: report?.detail?.includes("run without the shim") === true }
  } finally {
    fs.rmSync(data, { recursive: true, force: true })
  }
}

const main = (): number => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`)
  if (!fs.existsSync(SHIMS)) {
    process.stdout.write(`pyenv is not installed here (${SHIMS} is missing): nothing to compare\n`)
    return 0
  }
  let differ = 0
  let read = 0
  let total = 0
  for (const { title, file } of cases()) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-pyenv-case-"))
    try {
      if (file !== null) fs.writeFileSync(path.join(dir, ".python-version"), file)
      for (const program of PROGRAMS) {
        const expected = shimAnswer(dir, program)
        const got = toolMapAnswer(dir, program)
        const same = got.version === expected || (got.version === "none" && expected.startsWith("none"))
        total++
        if (!same) differ++
        if (got.read) read++
        process.stdout.write(
          `${same ? "agree   " : "DISAGREE"} ${program.padEnd(8)} ${title}: pyenv ${expected}, tool-map ${got.version} (${got.read ? "read" : "ran the shim"})\n`
        )
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  process.stdout.write(`\n${total - differ}/${total} agree; tool-map read the choice in ${read} and ran the shim in ${total - read}\n`)
  return differ === 0 ? 0 : 1
}

process.exitCode = main()
