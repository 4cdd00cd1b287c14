import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

const CANARY_ENV = "ghp_CanaryEnvSecret0123456789abcdefABCDEF"
const CANARY_URL = "https://canaryuser:CanaryUrlPassw0rd@git.example.com"

/** A fake machine: HOME with a gitconfig and ssh keys, three PATH dirs with links, shadowing and junk. */
const makeMachine = (root: string) => {
  const home = path.join(root, "home")
  const binA = path.join(root, "bin-a")
  const binB = path.join(root, "bin-b")
  const binC = path.join(root, "bin-c")
  for (const dir of [home, binA, binB, binC]) fs.mkdirSync(dir, { recursive: true })
  writeExecutable(path.join(binA, "git"), "#!/bin/sh\necho 'git version 2.99.1'\n")
  writeExecutable(path.join(binA, "python3.12"))
  writeExecutable(path.join(binA, "shared-name"))
  writeExecutable(path.join(binB, "shared-name"))
  writeExecutable(path.join(binC, "shared-name"))
  writeExecutable(path.join(binB, "node"), "#!/bin/sh\necho v99.0.0\n")
  fs.writeFileSync(path.join(binB, "README.txt"), "not executable")
  fs.symlinkSync(path.join(binA, "python3.12"), path.join(binB, "python3"))
  fs.symlinkSync(path.join(root, "nowhere"), path.join(binC, "dangling"))
  fs.mkdirSync(path.join(binC, "subdir"))
  writeExecutable(path.join(binC, "subdir", "deep-tool"))
  fs.writeFileSync(path.join(home, ".gitconfig"), `[user]\n  name = Test User\n  email = test@example.com\n[url "${CANARY_URL}"]\n  insteadOf = https://git.example.com\n`)
  fs.mkdirSync(path.join(home, ".ssh"))
  fs.writeFileSync(path.join(home, ".ssh", "id_ed25519"), "PRIVATE KEY CONTENT")
  fs.writeFileSync(path.join(home, ".ssh", "id_ed25519.pub"), "ssh-ed25519 AAAA test")
  const env = {
    HOME: home,
    PATH: [binA, binB, binC].join(":"),
    PLUGIN_DATA: path.join(root, "data"),
    GITHUB_TOKEN: CANARY_ENV,
    LANG: "C.UTF-8"
  }
  return { home, dirs: [binA, binB, binC], env }
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

describe("the built CLI on a fake machine", () => {
  let temp: ReturnType<typeof makeTempDir>
  let machine: ReturnType<typeof makeMachine>

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-e2e-")
    machine = makeMachine(temp.dir)
  })
  afterAll(() => temp.remove())

  it("scans into $PLUGIN_DATA and finds exactly what find -L finds on PATH", () => {
    const run = runCli(["scan", "--json"], machine.env)
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const outcome = JSON.parse(run.stdout)
    const data = machine.env.PLUGIN_DATA
    expect(outcome.skipped).toBe(false)
    expect(outcome.files).toEqual({
      json: path.join(data, "tools.json"),
      markdown: path.join(data, "tools.md"),
      summary: path.join(data, "tools.summary.md")
    })
    expect(fs.readdirSync(data).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])

    const inventory = readJson(path.join(data, "tools.json"))
    expect(inventory.generation).toBe(outcome.generation)
    for (const file of ["tools.md", "tools.summary.md"]) {
      expect(fs.readFileSync(path.join(data, file), "utf8").split("\n")[0]).toBe(`<!-- tool-map generation=${outcome.generation} -->`)
    }
    const found = execFileSync("find", ["-L", ...machine.dirs, "-maxdepth", "1", "-type", "f", "-perm", "-u+x"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line !== "")
      .sort()
    const onPath = inventory.tools
      .filter((tool: { pathIndex: number | null }) => tool.pathIndex !== null)
      .flatMap((tool: { path: string; alsoAt: Array<string> }) => [tool.path, ...tool.alsoAt.filter((p) => machine.dirs.includes(path.dirname(p)))])
      .sort()
    expect(onPath).toEqual(found)
    const shadowed = inventory.tools.filter((tool: { name: string }) => tool.name === "shared-name")
    expect(shadowed.map((tool: { path: string; shadowedBy: string | null }) => [tool.path, tool.shadowedBy])).toEqual([
      [path.join(machine.dirs[0]!, "shared-name"), null],
      [path.join(machine.dirs[1]!, "shared-name"), path.join(machine.dirs[0]!, "shared-name")],
      [path.join(machine.dirs[2]!, "shared-name"), path.join(machine.dirs[0]!, "shared-name")]
    ])
    const versions = Object.fromEntries(inventory.versions.map((v: { name: string; version: string | null; status: string }) => [v.name, [v.status, v.version]]))
    expect(versions.git).toEqual(["ok", "2.99.1"])
    expect(versions.node).toEqual(["ok", "99.0.0"])
    expect(versions.pnpm).toEqual(["missing", null])
    expect(inventory.identity).toEqual({ gitUserName: "Test User", gitUserEmail: "test@example.com", sshFiles: ["id_ed25519", "id_ed25519.pub"] })
    expect(fs.statSync(path.join(data, "tools.summary.md")).size).toBeLessThanOrEqual(6144)
  })

  it("answers queries from the cache", () => {
    const which = runCli(["query", "which", "shared-name", "--json"], machine.env)
    expect(which.status).toBe(0)
    const answer = JSON.parse(which.stdout)
    expect(answer.winner).toBe(path.join(machine.dirs[0]!, "shared-name"))
    expect(answer.copies.map((copy: { path: string; wins: boolean }) => [copy.path, copy.wins])).toEqual([
      [path.join(machine.dirs[0]!, "shared-name"), true],
      [path.join(machine.dirs[1]!, "shared-name"), false],
      [path.join(machine.dirs[2]!, "shared-name"), false]
    ])
    // A link is a command name of its own: its record, its link target, the other name of its file.
    const link = JSON.parse(runCli(["query", "which", "python3", "--json"], machine.env).stdout)
    expect(link.winner).toBe(path.join(machine.dirs[1]!, "python3"))
    expect(link.copies.map((copy: { path: string; linkTarget: string | null; sameFileAs: string | null }) => [copy.path, copy.linkTarget, copy.sameFileAs])).toEqual([
      [path.join(machine.dirs[1]!, "python3"), path.join(machine.dirs[0]!, "python3.12"), null]
    ])
    const tools = runCli(["query", "tools", "--name", "python*", "--json"], machine.env)
    expect(tools.status).toBe(0)
    expect(JSON.parse(tools.stdout).tools.map((tool: { path: string; sameFileAs: ReadonlyArray<string> }) => [tool.path, tool.sameFileAs])).toEqual([
      [path.join(machine.dirs[0]!, "python3.12"), [path.join(machine.dirs[1]!, "python3")]],
      [path.join(machine.dirs[1]!, "python3"), [path.join(machine.dirs[0]!, "python3.12")]]
    ])
    const byName = runCli(["query", "tools", "--name", "python3", "--json"], machine.env)
    expect(JSON.parse(byName.stdout).tools.map((tool: { path: string }) => tool.path)).toEqual([path.join(machine.dirs[1]!, "python3")])
    const missing = runCli(["query", "which", "no-such-tool"], machine.env)
    expect(missing.status).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.stderr).toBe(
      "tool-map: No tool named no-such-tool is on PATH or in the scanned roots (run `tool-map scan --force` if it was just installed).\n"
    )
  })

  it("--if-stale is a no-op until a watched input changes, then says why it rescans", () => {
    const first = runCli(["scan", "--if-stale", "--json", "--no-probes"], machine.env)
    expect(first.status).toBe(0)
    expect(JSON.parse(first.stdout)).toMatchObject({ skipped: true, reason: "no watched input changed since the last scan" })
    writeExecutable(path.join(machine.dirs[2]!, "new-tool"))
    const second = runCli(["scan", "--if-stale", "--json", "--no-probes"], machine.env)
    expect(second.status).toBe(0)
    expect(JSON.parse(second.stdout)).toMatchObject({ skipped: false, rescanReason: `${machine.dirs[2]} changed` })
    const stale = runCli(["query", "stale", "--json"], machine.env)
    expect(JSON.parse(stale.stdout)).toMatchObject({ stale: false, reason: null })
  })

  it("--if-stale rescans when a markdown file of the bundle is missing or of another generation", () => {
    const summary = path.join(machine.env.PLUGIN_DATA, "tools.summary.md")
    const markdown = path.join(machine.env.PLUGIN_DATA, "tools.md")
    expect(runCli(["scan", "--force", "--quiet", "--no-probes"], machine.env).status).toBe(0)
    fs.rmSync(summary)
    const missing = runCli(["scan", "--if-stale", "--json", "--no-probes"], machine.env)
    expect(JSON.parse(missing.stdout)).toMatchObject({ skipped: false, rescanReason: `${summary} is missing` })
    expect(fs.existsSync(summary)).toBe(true)
    fs.writeFileSync(markdown, "<!-- tool-map generation=20200101T000000Z-00000000 -->\nedited\n")
    const edited = runCli(["scan", "--if-stale", "--json", "--no-probes"], machine.env)
    expect(JSON.parse(edited.stdout)).toMatchObject({
      skipped: false,
      rescanReason: `${markdown} is not of the generation ${path.join(machine.env.PLUGIN_DATA, "tools.json")} records`
    })
    const settled = runCli(["scan", "--if-stale", "--json", "--no-probes"], machine.env)
    expect(JSON.parse(settled.stdout)).toMatchObject({ skipped: true })
  })

  it("refuses a tools.json that is not a regular file instead of blocking on it", () => {
    const fifoDir = path.join(temp.dir, "fifo")
    fs.mkdirSync(fifoDir)
    execFileSync("mkfifo", [path.join(fifoDir, "tools.json")])
    const query = runCli(["query", "versions"], { ...machine.env, PLUGIN_DATA: fifoDir })
    expect(query.status).toBe(4)
    expect(query.stderr).toBe(
      `tool-map: Cannot read the tool-map bundle at ${path.join(fifoDir, "tools.json")}: it is not a regular file (fifo)\n`
    )
  })

  it("a query whose first scan meets another scan's lock exits 5 and names the holder", () => {
    const lockedDir = path.join(temp.dir, "locked")
    fs.mkdirSync(lockedDir)
    const lock = path.join(lockedDir, ".tools.lock")
    // Held by this test's own process: alive, and not the CLI's.
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, nonce: "held-by-the-test", createdAt: new Date().toISOString() }))
    const query = runCli(["query", "tools"], { ...machine.env, PLUGIN_DATA: lockedDir })
    expect(query.status).toBe(5)
    expect(query.stderr).toBe(
      `tool-map: Cannot read the tool-map bundle at ${path.join(lockedDir, "tools.json")}: no bundle existed and the first scan failed: The tool-map bundle is being written by another tool-map process (pid ${process.pid}): ${lock} is held. Wait for it to finish and retry; if no such process is running, delete ${lock}.\n`
    )
    expect(fs.readdirSync(lockedDir)).toEqual([".tools.lock"])
  })

  it("a scan stopped by SIGTERM or SIGINT exits 130 and leaves the bundle as it was", async () => {
    const slowDir = path.join(temp.dir, "slow-bin")
    fs.mkdirSync(slowDir, { recursive: true })
    // A probe that takes its time, so that the signal lands while the scan waits on it.
    writeExecutable(path.join(slowDir, "git"), "#!/bin/sh\n/bin/sleep 4\necho 'git version 2.99.1'\n")
    const env = { ...machine.env, PATH: `${slowDir}:${machine.env.PATH}`, PLUGIN_DATA: path.join(temp.dir, "signalled") }
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const child = spawn(process.execPath, [BIN, "scan", "--quiet"], { env, stdio: "ignore" })
      const exited = new Promise<number | null>((resolve) => child.once("exit", (status) => resolve(status)))
      await new Promise((resolve) => setTimeout(resolve, 1200))
      expect(child.exitCode).toBe(null)
      child.kill(signal)
      const code = await exited
      expect([signal, code]).toEqual([signal, 130])
      expect(fs.existsSync(env.PLUGIN_DATA) ? fs.readdirSync(env.PLUGIN_DATA) : []).toEqual([])
    }
  })

  it("writes a redirected bundle next to PATH.md", () => {
    const target = path.join(temp.dir, "out", "inv.md")
    const run = runCli(["scan", target, "--no-probes", "--quiet"], machine.env)
    expect(run.status).toBe(0)
    expect(run.stdout).toBe("")
    expect(fs.readdirSync(path.dirname(target)).sort()).toEqual(["inv.json", "inv.md", "inv.summary.md", "inv.which.jsonl"])
    const versions = runCli(["query", "versions", "--json", "--from", target], machine.env)
    expect(versions.status).toBe(0)
    expect(JSON.parse(versions.stdout)).toEqual({ stale: false, staleReason: null, versions: [] })
  })

  it("never writes a planted secret anywhere", () => {
    const outputs = [
      ...fs.readdirSync(machine.env.PLUGIN_DATA).map((file) => path.join(machine.env.PLUGIN_DATA, file)),
      ...fs.readdirSync(path.join(temp.dir, "out")).map((file) => path.join(temp.dir, "out", file))
    ]
    const run = runCli(["scan", "--force"], machine.env)
    const texts = [...outputs.map((file) => fs.readFileSync(file, "utf8")), run.stdout, run.stderr]
    for (const text of texts) {
      expect(text).not.toContain(CANARY_ENV)
      expect(text).not.toContain("CanaryUrlPassw0rd")
      expect(text).not.toContain("PRIVATE KEY CONTENT")
    }
  })

  it("fails with one clear sentence and a documented exit code", () => {
    const emptyGlob = runCli(["query", "tools", "--name", ""], machine.env)
    expect([emptyGlob.status, emptyGlob.stdout, emptyGlob.stderr.trim()]).toEqual([2, "", "--name needs a non-empty glob, e.g. --name 'python*'"])

    const misspelled = runCli(["scan", "--no-probe"], machine.env)
    expect([misspelled.status, misspelled.stderr]).toEqual([
      2,
      "tool-map: unknown option '--no-probe' for `tool-map scan` (did you mean --no-probes?). Valid: --if-stale, --force, --no-probes, --json, --quiet. See `tool-map scan --help`.\n"
    ])

    const badFlag = runCli(["scan", "--frobnicate"], machine.env)
    expect(badFlag.status).toBe(2)
    expect(badFlag.stdout + badFlag.stderr).toContain("--frobnicate")

    const notMarkdown = runCli(["scan", path.join(temp.dir, "inv.txt")], machine.env)
    expect(notMarkdown.status).toBe(2)
    expect(notMarkdown.stderr).toMatch(/^tool-map: The output path .*inv\.txt is not usable: .*\. Give a path ending in \.md, e\.g\. out\/inventory\.md\.\n$/)

    const blocker = path.join(temp.dir, "a-file")
    fs.writeFileSync(blocker, "")
    const unwritable = runCli(["scan", "--no-probes"], { ...machine.env, PLUGIN_DATA: path.join(blocker, "data") })
    expect(unwritable.status).toBe(3)
    expect(unwritable.stderr).toContain(path.join(blocker, "data"))
    expect(unwritable.stderr.trim().split("\n")).toHaveLength(1)

    const both = runCli(["scan", "--force", "--if-stale"], machine.env)
    expect(both.status).toBe(2)
    expect(both.stderr).toBe("tool-map: The flags --if-stale and --force contradict each other: give one of them.\n")

    const corruptDir = path.join(temp.dir, "corrupt")
    fs.mkdirSync(corruptDir)
    fs.writeFileSync(path.join(corruptDir, "tools.json"), "{ not json")
    const corrupt = runCli(["query", "versions"], { ...machine.env, PLUGIN_DATA: corruptDir })
    expect(corrupt.status).toBe(4)
    expect(corrupt.stderr).toBe(
      `tool-map: Cannot read the tool-map bundle at ${path.join(corruptDir, "tools.json")}: it is not a valid tool-map bundle (corrupt or from an incompatible version); run \`tool-map scan --force\` to rebuild it\n`
    )
  })
})
