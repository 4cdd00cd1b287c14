import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { materializePathTree, pathTreeArbitrary } from "../../bench/generators.js"
import { fromPathBytes, toPathBytes } from "../../src/platform/WalkerFs.js"
import { neutralize } from "../../src/inventory/domain/untrusted.js"
import { makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

/**
 * Issue 12, finding 1, through the built CLI: every name the shell can call on a PATH is a
 * record of tools.json, and `query which NAME` names the file `sh -c 'command -v NAME'` names.
 * The shell runs in an empty working directory (an empty or relative PATH entry, which
 * tool-map does not read, finds nothing there).
 */

interface ToolRow {
  readonly name: string
  readonly path: string
  readonly linkTarget: string | null
  readonly pathIndex: number | null
  readonly shadowedBy: string | null
  readonly alsoAt: ReadonlyArray<string>
  readonly sameFileAs: ReadonlyArray<string>
}

/** What `command -v` prints for each name in one `/bin/sh` (a line each, "" for none), as lossless strings. */
const commandV = (pathVariable: string, cwd: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const input = Buffer.concat(names.map((name) => Buffer.concat([toPathBytes(name), Buffer.from("\n")])))
  const run = spawnSync("/bin/sh", ["-c", "while IFS= read -r n; do command -v \"$n\" || echo; done"], { cwd, env: { PATH: pathVariable }, input })
  const lines = run.stdout.toString("latin1").split("\n").slice(0, -1).map((line) => fromPathBytes(Buffer.from(line, "latin1")))
  expect(lines.length).toBe(names.length)
  return lines
}

/** Every name listed in the absolute PATH dirs that exist, and one that is nowhere. */
const candidateNames = (entries: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set([
    ...entries
      .filter((entry) => entry.startsWith("/") && fs.statSync(entry, { throwIfNoEntry: false })?.isDirectory() === true)
      .flatMap((dir) => fs.readdirSync(dir, { encoding: "buffer" }).map(fromPathBytes)),
    "no-such-tool"
  ])
]

/**
 * Scans with the built CLI and returns the tool records of `query tools --json` found on PATH
 * (the well-known roots of this machine that depend on no variable, such as /usr/local/bin, are walked too).
 */
const scanPathTools = (env: Record<string, string>): ReadonlyArray<ToolRow> => {
  const scan = runCli(["scan", "--no-probes", "--quiet"], env)
  expect([scan.status, scan.stderr]).toEqual([0, ""])
  const tools = runCli(["query", "tools", "--json"], env)
  expect(tools.status).toBe(0)
  return (JSON.parse(tools.stdout) as { readonly tools: ReadonlyArray<ToolRow> }).tools.filter((tool) => tool.pathIndex !== null)
}

describe("command names through the built CLI, against sh's command -v", () => {
  let temp: ReturnType<typeof makeTempDir>

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-e2e-names-")
  })
  afterAll(() => temp.remove())

  it("rustup's proxies, a busybox dir of hard links and symlinks, shadowing, a dir alias: a record and the shell's winner per name", () => {
    const root = path.join(temp.dir, "fixture")
    const [cargoBin, box, usr, late, alias, home, cwd] = ["cargo-bin", "box", "usr", "late", "alias", "home", "cwd"].map((name) => path.join(root, name)) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string
    ]
    for (const dir of [usr, late, home, cwd]) fs.mkdirSync(dir, { recursive: true })
    writeExecutable(path.join(cargoBin, "rustup"))
    for (const proxy of ["cargo", "rustc", "rustfmt"]) fs.symlinkSync("rustup", path.join(cargoBin, proxy))
    writeExecutable(path.join(box, "busybox"))
    for (const applet of ["ls", "cat", "vi"]) fs.linkSync(path.join(box, "busybox"), path.join(box, applet))
    fs.symlinkSync("busybox", path.join(box, "grep"))
    fs.symlinkSync(path.join(box, "busybox"), path.join(box, "sed"))
    writeExecutable(path.join(usr, "ls"))
    writeExecutable(path.join(usr, "cargo"))
    fs.writeFileSync(path.join(usr, "notes"), "not executable", { mode: 0o644 })
    fs.symlinkSync("../cargo-bin/rustc", path.join(usr, "rustc"))
    fs.symlinkSync("nowhere", path.join(usr, "dead"))
    writeExecutable(path.join(late, "notes"))
    fs.symlinkSync("box", alias)
    const pathVariable = [cargoBin, box, usr, late, alias, ""].join(":")
    const env = { HOME: home, PATH: pathVariable, PLUGIN_DATA: path.join(root, "data"), LANG: "C.UTF-8" }

    const tools = scanPathTools(env)
    const names = candidateNames(pathVariable.split(":"))
    const shell = commandV(pathVariable, cwd, names)
    const found = names.filter((_, index) => shell[index] !== "")
    expect(found.sort()).toEqual(["busybox", "cargo", "cat", "grep", "ls", "notes", "rustc", "rustfmt", "rustup", "sed", "vi"])
    expect([...new Set(tools.map((tool) => tool.name))].sort()).toEqual(found)
    for (const [index, name] of names.entries()) {
      const which = runCli(["query", "which", "--json", "--", name], env)
      if (shell[index] === "") {
        expect([name, which.status]).toEqual([name, 1])
      } else {
        expect([name, which.status, (JSON.parse(which.stdout) as { readonly winner: string }).winner]).toEqual([name, 0, shell[index]])
      }
    }
    const byName = (name: string) => tools.filter((tool) => tool.name === name).map((tool) => [tool.path, tool.linkTarget, tool.shadowedBy, tool.alsoAt, tool.sameFileAs])
    const rustup = path.join(cargoBin, "rustup")
    expect(byName("cargo")).toEqual([
      [path.join(cargoBin, "cargo"), rustup, null, [], [path.join(cargoBin, "rustc"), path.join(cargoBin, "rustfmt"), rustup]],
      [path.join(usr, "cargo"), null, path.join(cargoBin, "cargo"), [], []]
    ])
    // usr/rustc leads to the same file under the same name: one more path of the cargo-bin record.
    expect(byName("rustc")).toEqual([
      [path.join(cargoBin, "rustc"), rustup, null, [path.join(usr, "rustc")], [path.join(cargoBin, "cargo"), path.join(cargoBin, "rustfmt"), rustup]]
    ])
    const applets = ["busybox", "cat", "grep", "ls", "sed", "vi"].map((name) => path.join(box, name))
    expect(byName("vi")).toEqual([[path.join(box, "vi"), null, null, [path.join(alias, "vi")], applets.filter((applet) => !applet.endsWith("/vi"))]])
    expect(byName("notes")).toEqual([[path.join(late, "notes"), null, null, [], []]])
  }, 180_000)

  it("generated PATH trees: the record names are the names sh finds, and the unshadowed record of each is sh's winner", () => {
    const trees = fc.sample(pathTreeArbitrary({ maxDirs: 4, maxEntries: 10 }), { seed: 20261202, numRuns: 4 })
    trees.forEach((tree, number) => {
      const base = path.join(temp.dir, `tree-${number}`)
      fs.mkdirSync(base)
      const laid = materializePathTree(base, tree)
      const cwd = path.join(base, "cwd")
      fs.mkdirSync(cwd)
      const pathVariable = laid.pathEntries.join(":")
      const env = { HOME: cwd, PATH: pathVariable, PLUGIN_DATA: path.join(base, "data"), LANG: "C.UTF-8" }
      const tools = scanPathTools(env)
      const names = candidateNames(laid.pathEntries)
      const shell = commandV(pathVariable, cwd, names)
      // What tool-map prints went through the one boundary for untrusted text (a byte that is not UTF-8 shows as U+FFFD).
      const winners = new Map(names.flatMap((name, index) => (shell[index] === "" ? [] : [[neutralize(name), neutralize(shell[index]!)] as const])))
      expect([number, [...new Set(tools.map((tool) => tool.name))].sort()]).toEqual([number, [...winners.keys()].sort()])
      const ours = new Map(tools.filter((tool) => tool.shadowedBy === null).map((tool) => [tool.name, tool.path] as const))
      expect([number, ours]).toEqual([number, winners])
    })
  }, 180_000)
})
