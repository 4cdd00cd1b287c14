import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PROBE_TABLE } from "../../src/inventory/domain/probeTable.js"
import { BIN, makeTempDir, requireBuiltCli, runCli, sigtermOnceChildRuns, writeExecutable } from "../support/cli.js"

/** The built CLI as a process; SIGTERM once it has used `termAfterCpuMs` of CPU time, when given. How it ended, and when. */
/** Runs the built CLI; with `termOnceChildRuns`, sends SIGTERM once it has started a child (a probe). */
const runAsync = (args: ReadonlyArray<string>, env: Record<string, string>, termOnceChildRuns = false) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly ms: number; readonly afterTermMs: number | null }>((resolve) => {
    const started = performance.now()
    let termedAt: number | null = null
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: env.HOME, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    if (termOnceChildRuns) void sigtermOnceChildRuns(child).then((sentAt) => (termedAt = sentAt))
    const cap = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("close", (code) => {
      clearTimeout(cap)
      const now = performance.now()
      resolve({ code, stdout, ms: now - started, afterTermMs: termedAt === null ? null : now - termedAt })
    })
  })

/** The names of the tools in a `query tools --json` answer that the fake PATH dir holds (the well-known roots add the machine's). */
const onPath = (stdout: string, bin: string): ReadonlyArray<string> =>
  (JSON.parse(stdout) as { readonly tools: ReadonlyArray<{ readonly name: string; readonly path: string }> }).tools
    .filter((tool) => path.dirname(tool.path) === bin)
    .map((tool) => tool.name)

describe("hostile inputs to the queries and the scan (issue 11)", () => {
  const temp = makeTempDir("tool-map-hardening-")
  afterAll(temp.remove)
  const machine = (name: string) => {
    const home = path.join(temp.dir, name, "home")
    const bin = path.join(temp.dir, name, "bin")
    fs.mkdirSync(home, { recursive: true })
    fs.mkdirSync(bin, { recursive: true })
    return { home, bin, data: path.join(home, ".local", "share", "tool-map"), env: { HOME: home, PATH: bin, LANG: "C" } }
  }

  beforeAll(() => {
    requireBuiltCli()
  })

  it("a backtracking glob against a 200-character name answers at once (it hung past 20 s)", () => {
    const m = machine("glob")
    writeExecutable(path.join(m.bin, "a".repeat(200)))
    writeExecutable(path.join(m.bin, "aaaaab"))
    expect(runCli(["scan", "--no-probes", "--quiet"], m.env).status).toBe(0)
    const result = spawnSync(process.execPath, [BIN, "query", "tools", "--name", "*a*a*a*a*a*b", "--json"], {
      env: m.env,
      encoding: "utf8",
      timeout: 20_000
    })
    expect([result.status, onPath(result.stdout, m.bin)]).toEqual([0, ["aaaaab"]])
  })

  it("--from a summary file reads its bundle and writes nothing; --from a typo is exit 4", () => {
    const m = machine("from")
    writeExecutable(path.join(m.bin, "git"))
    const out = path.join(temp.dir, "from", "out")
    expect(runCli(["scan", "--no-probes", "--quiet", path.join(out, "inv.md")], m.env).status).toBe(0)
    const snapshot = () => fs.readdirSync(out).sort().map((name) => [name, fs.readFileSync(path.join(out, name), "utf8")])
    const before = snapshot()
    const bySummary = runCli(["query", "tools", "--json", "--from", path.join(out, "inv.summary.md")], m.env)
    expect([bySummary.status, onPath(bySummary.stdout, m.bin), bySummary.stderr]).toEqual([0, ["git"], ""])
    const typo = runCli(["query", "tools", "--from", path.join(out, "typo.md")], m.env)
    expect([typo.status, typo.stdout, typo.stderr.trim()]).toEqual([
      4,
      "",
      `tool-map: Cannot read the tool-map bundle at ${path.join(out, "typo.md")}: there is no tool-map bundle there (${path.join(out, "typo.json")} does not exist). --from only reads a bundle; write one with \`tool-map scan ${path.join(out, "typo.md")}\``
    ])
    expect(snapshot()).toEqual(before)
  })

  it("a leftover journal in a data dir the reader cannot write: the bundle is read, the pending repair said (it exited 3)", () => {
    const m = machine("readonly")
    writeExecutable(path.join(m.bin, "git"))
    expect(runCli(["scan", "--no-probes", "--quiet"], m.env).status).toBe(0)
    const generation = JSON.parse(fs.readFileSync(path.join(m.data, "tools.json"), "utf8")).generation as string
    // A commit killed after its last swap, before it removed its journal: the bundle is whole.
    const files = ["tools.json", "tools.md", "tools.summary.md"]
    const journal = { format: "tool-map-journal/1", generation, state: "forward", files: files.map((target) => ({ target, stage: `.${target}.${generation}.stage`, backup: null })) }
    fs.writeFileSync(path.join(m.data, ".tools.journal"), JSON.stringify(journal))
    const listing = fs.readdirSync(m.data).sort()
    // Root writes anywhere: the reader runs as nobody; another user makes the directory read-only.
    const asRoot = process.getuid?.() === 0
    for (let dir = m.data; dir.startsWith(temp.dir); dir = path.dirname(dir)) fs.chmodSync(dir, asRoot ? 0o755 : 0o555)
    const command = asRoot
      ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, BIN]
      : [process.execPath, BIN]
    const query = (...args: ReadonlyArray<string>) =>
      spawnSync(command[0]!, [...command.slice(1), ...args], { env: m.env, cwd: "/", encoding: "utf8", timeout: 30_000 })
    const message = `tool-map: an interrupted write of the tool-map bundle in ${m.data} (generation ${generation}) is not repaired yet; the bundle it will be rolled forward to is read. The next tool-map run that can write to ${m.data} repairs it.`
    const tools = query("query", "tools", "--json")
    expect([tools.status, onPath(tools.stdout, m.bin), tools.stderr.replace(/^\[[^\]]*\] WARN \(#\d+\): /, "").trim()]).toEqual([0, ["git"], message])
    const stale = query("query", "stale", "--json")
    expect([stale.status, JSON.parse(stale.stdout).repairPending]).toEqual([0, message.slice("tool-map: ".length)])
    for (let dir = m.data; dir.startsWith(temp.dir); dir = path.dirname(dir)) fs.chmodSync(dir, 0o755)
    expect(fs.readdirSync(m.data).sort()).toEqual(listing)
    // The next run that can write repairs it.
    expect(runCli(["query", "tools", "--json"], m.env).stderr).toBe("")
    // The which index of the same generation stays beside them (the journal did not name it).
    expect(fs.readdirSync(m.data).sort()).toEqual([...files, "tools.which.jsonl"])
  })

  it("every allow-listed program hanging on PATH: the scan ends within about one probe timeout (it took 35 s), and SIGTERM stops it", async () => {
    const m = machine("probes")
    for (const spec of PROBE_TABLE) writeExecutable(path.join(m.bin, spec.name), "#!/bin/sh\nexec /bin/sleep 60\n")
    const scan = await runAsync(["scan", "--json"], m.env)
    expect(scan.code).toBe(0)
    const versions = runCli(["query", "versions", "--json"], m.env)
    expect(JSON.parse(versions.stdout).versions.map((report: { readonly status: string }) => report.status)).toEqual(PROBE_TABLE.map(() => "timeout"))
    // The probe timeout is 5 s; in waves of 4 the 27 took 7 of them (35 s). One wave is one
    // timeout plus the start-up and walk, which a loaded machine stretches by seconds.
    expect(scan.ms).toBeLessThan(2 * 5_000 + 5_000)
    // SIGTERM while the probes hang: once the scan has a probe running (500 ms of CPU was never
    // reached on a fast machine, which spends its CPU before the probes and then waits).
    const stopped = await runAsync(["scan", "--force"], m.env, true)
    // The figures of the README's hardening table.
    console.log(`probes test: ${PROBE_TABLE.length} hanging probes, scan ${scan.ms.toFixed(0)} ms; SIGTERM exit ${stopped.afterTermMs?.toFixed(0)} ms after the signal`)
    expect(stopped.code).toBe(130)
    expect(stopped.afterTermMs).toBeLessThan(3_000)
  }, 60_000)
})
