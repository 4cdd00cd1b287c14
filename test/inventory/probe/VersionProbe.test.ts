import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { VersionReport } from "../../../src/inventory/domain/inventory.js"
import { parseVersion, PROBE_TABLE, probeNames } from "../../../src/inventory/domain/probeTable.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { killMarked, ProcessSpawner, SPAWN_MARKER_VARIABLE, type SpawnRequest } from "../../../src/inventory/probe/ProcessSpawner.js"
import { processStartTicks } from "../../../src/services/processIdentity.js"
import { ProbeRefused, VersionProbe } from "../../../src/inventory/probe/VersionProbe.js"
import { EXPECTED_PROBE_CONSTANTS } from "../../support/probeEnv.js"

const TIMEOUT_MS = 1000
/** Each probe must be over within the timeout plus this. */
const BUDGET_MS = TIMEOUT_MS + 1000

const PATH = process.env["PATH"] ?? "/usr/bin:/bin"

const baseEnv = (home: string): Record<string, string> => ({
  PATH,
  HOME: home,
  LANG: "C.UTF-8"
})

const probeLayer = (
  calls: Array<SpawnRequest>,
  env: Record<string, string>,
  concurrency = 2
) =>
  VersionProbe.layerWithSpawner({ timeout: TIMEOUT_MS, concurrency }).pipe(
    Layer.provide(Layer.merge(ProcessSpawner.layerRecording(calls), MachineEnvironment.layerTest({ os: "linux", env })))
  )

const script = (dir: string, name: string, body: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.writeFileString(NodePath.join(dir, name), body, { mode: 0o755 }).pipe(
      Effect.as(NodePath.join(dir, name))
    ))

const sh = (body: string) => `#!/bin/sh\n${body}\n`

const readPid = (path: string) => Number(NodeFs.readFileSync(path, "utf8").trim())

/**
 * A process is alive unless kill(pid, 0) says ESRCH. An orphan already killed but not yet
 * reaped by PID 1 is a zombie (state Z in /proc): it runs nothing and holds nothing open.
 */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false
  }
  const stat = NodeFs.existsSync(`/proc/${pid}/stat`) ? NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8") : ""
  return !/^\d+ \(.*\) Z /.test(stat)
}

/** The pids still running after a short wait for SIGKILL to land. */
const stillRunning = (pids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 25; attempt++) {
      if (pids.every((pid) => !isRunning(pid))) return []
      yield* Effect.sleep("20 millis")
    }
    return pids.filter(isRunning)
  })

const timed = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = Date.now()
    const result = yield* self
    return [result, Date.now() - start] as const
  })

// No TestServices: these tests run real processes on the real clock.
layer(NodeFileSystem.layer, { excludeTestServices: true })("VersionProbe with real processes", (it) => {
  it.scoped("a probe that reads stdin forever sees EOF and answers at once", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const path = yield* script(dir, "git", sh(`echo $$ > '${dir}/git.pid'\ncat\necho "git version 2.45.1"`))
      const calls: Array<SpawnRequest> = []
      const [report, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "git", path })).pipe(
          Effect.provide(probeLayer(calls, baseEnv(dir)))
        )
      )
      expect({ ...report, durationMs: 0 }).toEqual(
        new VersionReport({ name: "git", path, version: "2.45.1", status: "ok", durationMs: 0, detail: null })
      )
      expect(elapsed).toBeLessThan(TIMEOUT_MS)
      expect(calls.map((call) => [call.command, call.args])).toEqual([[path, ["--version"]]])
      expect(yield* stillRunning([readPid(`${dir}/git.pid`)])).toEqual([])
    }))

  it.scoped("a probe that ignores SIGTERM is killed with its group at the timeout", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const path = yield* script(
        dir,
        "node",
        sh(`trap '' TERM\necho $$ > '${dir}/node.pid'\nsleep 30 &\necho $! > '${dir}/child.pid'\nwait\nwait`)
      )
      const [report, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "node", path })).pipe(
          Effect.provide(probeLayer([], baseEnv(dir)))
        )
      )
      expect([report.status, report.version, report.detail]).toEqual([
        "timeout",
        null,
        "no exit within 1000 ms; process group killed"
      ])
      expect(report.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS)
      expect(elapsed).toBeLessThan(BUDGET_MS)
      const pids = [readPid(`${dir}/node.pid`), readPid(`${dir}/child.pid`)]
      expect(yield* stillRunning(pids)).toEqual([])
    }))

  /**
   * Probes a `docker` script that writes its pid to docker.pid, starts a daemon with `daemon`
   * (a shell line that writes the daemon's pid to daemon.pid), then prints a version and exits.
   */
  const probeDockerWithDaemon = (dir: string, daemon: string) =>
    Effect.gen(function*() {
      const path = yield* script(
        dir,
        "docker",
        sh(`echo $$ > '${dir}/docker.pid'\n${daemon}\necho "Docker version 24.0.7, build afdd53b"\nexit 0`)
      )
      const [report, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "docker", path })).pipe(
          Effect.provide(probeLayer([], baseEnv(dir)))
        )
      )
      expect([report.status, report.version, report.detail]).toEqual([
        "ok",
        "24.0.7",
        "a child kept the output open after exit; process group killed"
      ])
      expect(elapsed).toBeLessThan(TIMEOUT_MS)
      return { probe: readPid(`${dir}/docker.pid`), daemon: readPid(`${dir}/daemon.pid`) }
    })

  it.scoped("a probe that forks a daemon holding stdout open ends soon after its own exit", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())
      const pids = yield* probeDockerWithDaemon(dir, `sleep 30 &\necho $! > '${dir}/daemon.pid'`)
      expect(yield* stillRunning([pids.probe, pids.daemon])).toEqual([])
    }))

  it.scoped.skipIf(process.platform !== "linux")("a daemon that leaves the process group with setsid and holds stdout open is killed too", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => Either.try(() => process.kill(readPid(`${dir}/daemon.pid`), "SIGKILL"))))
      const pids = yield* probeDockerWithDaemon(
        dir,
        `setsid sh -c 'cut -d" " -f5 /proc/$$/stat > "${dir}/daemon.pgrp"; echo $$ > "${dir}/daemon.pid.partial"; ` +
          `mv "${dir}/daemon.pid.partial" "${dir}/daemon.pid"; exec sleep 30' &\n` +
          `while [ ! -e '${dir}/daemon.pid' ]; do sleep 0.01; done`
      )
      // It left the probe's process group: the group kill alone would have missed it.
      expect(readPid(`${dir}/daemon.pgrp`)).not.toBe(pids.probe)
      expect(yield* stillRunning([pids.daemon])).toEqual([])
    }))

  it.scoped.skipIf(process.platform !== "linux")(
    "killMarked kills exactly the processes started since the trace whose environment holds the whole marker",
    () =>
      Effect.gen(function*() {
        const value = NodeCrypto.randomBytes(12).toString("hex")
        const started: Array<number> = []
        yield* Effect.addFinalizer(() => Effect.sync(() => started.forEach((pid) => Either.try(() => process.kill(pid, "SIGKILL")))))
        const start = (env: Record<string, string>) =>
          Effect.gen(function*() {
            const pid = ChildProcess.spawn("sleep", ["30"], { env: { PATH, ...env }, stdio: "ignore" }).pid!
            started.push(pid)
            // Start times are in clock ticks (usually 10 ms): keep the processes in distinct ticks.
            yield* Effect.sleep("40 millis")
            return pid
          })
        const older = yield* start({ [SPAWN_MARKER_VARIABLE]: value })
        const marked = yield* start({ [SPAWN_MARKER_VARIABLE]: value })
        const longer = yield* start({ [SPAWN_MARKER_VARIABLE]: `${value}ff` })
        const otherName = yield* start({ [`X_${SPAWN_MARKER_VARIABLE}`]: value })
        const trace = { marker: `${SPAWN_MARKER_VARIABLE}=${value}`, startTicks: processStartTicks(marked)! }
        expect(trace.startTicks).toBeGreaterThan(processStartTicks(older)!)
        expect(killMarked(trace)).toEqual([marked])
        expect(yield* stillRunning([marked])).toEqual([])
        expect([older, longer, otherName].map(isRunning)).toEqual([true, true, true])
        expect(killMarked(trace)).toEqual([])
      })
  )

  it.scoped("a probe that prints 10 MB is cut at the cap and neither blocks nor hangs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      // Node's "pipe" is a socketpair: a closed reader gives the writer EPIPE or ECONNRESET (not
      // always SIGPIPE), so the writer exits with its own code either way.
      const path = yield* script(
        dir,
        "pnpm",
        `#!${process.execPath}\nrequire("fs").writeFileSync(${JSON.stringify(`${dir}/pnpm.pid`)}, String(process.pid))\n` +
          `process.stdout.on("error", () => process.exit(7))\n` +
          `process.stdout.write("9.1.0\\n" + "x".repeat(10 * 1024 * 1024))\n`
      )
      const [report, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "pnpm", path })).pipe(
          Effect.provide(probeLayer([], baseEnv(dir)))
        )
      )
      expect([report.status, report.version, report.detail]).toEqual([
        "ok",
        "9.1.0",
        "exited with code 7; output cut at 8192 bytes"
      ])
      expect(elapsed).toBeLessThan(TIMEOUT_MS)
      expect(yield* stillRunning([readPid(`${dir}/pnpm.pid`)])).toEqual([])
    }))

  it.scoped("a version printed only on stderr is read when the table says so", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const python3 = yield* script(dir, "python3", sh(`echo "Python 3.12.4" >&2`))
      const java = yield* script(dir, "java", sh(`echo 'openjdk version "21.0.2" 2024-01-16' >&2`))
      const git = yield* script(dir, "git", sh(`echo "git version 2.45.1" >&2`))
      const reports = yield* Effect.flatMap(VersionProbe, (probe) =>
        probe.probeAll([
          { name: "python3", path: python3 },
          { name: "java", path: java },
          { name: "git", path: git }
        ])).pipe(Effect.provide(probeLayer([], baseEnv(dir))))
      expect(reports.map((r) => [r.name, r.status, r.version, r.detail])).toEqual([
        ["python3", "ok", "3.12.4", null],
        ["java", "ok", "21.0.2", null],
        // git's version is on stdout: stderr is not read for it.
        ["git", "error", null, "no version found on stdout"]
      ])
    }))

  it.scoped("a missing program, an unset path and a non-executable file are recorded, not thrown", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const notExecutable = NodePath.join(dir, "yarn")
      yield* fs.writeFileString(notExecutable, sh(`echo 1.22.19`), { mode: 0o644 })
      const reports = yield* Effect.flatMap(VersionProbe, (probe) =>
        probe.probeAll([
          { name: "gh", path: NodePath.join(dir, "nowhere", "gh") },
          { name: "npm", path: null },
          { name: "yarn", path: notExecutable }
        ])).pipe(Effect.provide(probeLayer([], baseEnv(dir))))
      expect(reports.map((r) => [r.name, r.path, r.status, r.version, r.detail])).toEqual([
        ["gh", NodePath.join(dir, "nowhere", "gh"), "missing", null, "the file or its interpreter does not exist (ENOENT)"],
        ["npm", null, "missing", null, "not found on PATH or in the roots"],
        ["yarn", notExecutable, "error", null, "could not start: EACCES"]
      ])
    }))

  it.scoped("a name outside the allowlist is refused before anything is spawned", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const git = yield* script(dir, "git", sh(`echo "git version 2.45.1"`))
      const calls: Array<SpawnRequest> = []
      const { refused, refusedUpper, all } = yield* Effect.gen(function*() {
        const probe = yield* VersionProbe
        return {
          refused: yield* Effect.flip(probe.probe({ name: "rm", path: "/bin/rm" })),
          refusedUpper: yield* Effect.flip(probe.probe({ name: "GIT", path: git })),
          all: yield* probe.probeAll([{ name: "sh", path: "/bin/sh" }, { name: "git", path: git }])
        }
      }).pipe(Effect.provide(probeLayer(calls, baseEnv(dir))))
      expect(refused).toEqual(new ProbeRefused({ name: "rm", path: "/bin/rm", reason: "not in the probe allowlist" }))
      expect(refusedUpper).toEqual(new ProbeRefused({ name: "GIT", path: git, reason: "not in the probe allowlist" }))
      expect(all.map((r) => [r.name, r.status, r.version, r.detail, r.durationMs])).toEqual([
        ["sh", "refused", null, "not in the probe allowlist", 0],
        ["git", "ok", "2.45.1", null, all[1]!.durationMs]
      ])
      // Only the allow-listed git was ever spawned.
      expect(calls.map((call) => call.command)).toEqual([git])
    }))

  it.scoped("a refused name that looks like a token is redacted in the error", () =>
    Effect.gen(function*() {
      const token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
      const calls: Array<SpawnRequest> = []
      const refused = yield* Effect.flatMap(VersionProbe, (probe) =>
        Effect.flip(probe.probe({ name: token, path: `/tmp/${token}` }))).pipe(
          Effect.provide(probeLayer(calls, baseEnv("/tmp")))
        )
      expect(refused).toEqual(new ProbeRefused({ name: "[redacted]", path: "/tmp/[redacted]", reason: "not in the probe allowlist" }))
      expect(refused.message).not.toContain(token)
      expect(calls).toEqual([])
    }))

  it.scoped("a non-zero exit that still prints a version is ok, with the exit code as detail", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const gh = yield* script(dir, "gh", sh(`echo "gh version 2.50.0 (2024-05-29)"\nexit 3`))
      const uv = yield* script(dir, "uv", sh(`echo "error: no such flag"\nexit 2`))
      const reports = yield* Effect.flatMap(VersionProbe, (probe) =>
        probe.probeAll([{ name: "gh", path: gh }, { name: "uv", path: uv }])).pipe(
          Effect.provide(probeLayer([], baseEnv(dir)))
        )
      expect(reports.map((r) => [r.name, r.status, r.version, r.detail])).toEqual([
        ["gh", "ok", "2.50.0", "exited with code 3"],
        ["uv", "error", null, "exited with code 2; no version found on stdout"]
      ])
    }))

  it.scoped("NODE_OPTIONS and the other injection variables of the parent never reach a probe", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const marker = NodePath.join(dir, "canary-loaded")
      const canary = NodePath.join(dir, "canary.cjs")
      yield* fs.writeFileString(canary, `require("fs").writeFileSync(${JSON.stringify(marker)}, "loaded")\n`)
      // The canary works: a node started with this NODE_OPTIONS does load it.
      ChildProcess.spawnSync(process.execPath, ["-e", ""], { env: { NODE_OPTIONS: `--require ${canary}` } })
      expect(NodeFs.existsSync(marker)).toBe(true)
      NodeFs.rmSync(marker)

      const envDump = NodePath.join(dir, "env.json")
      const node = yield* script(
        dir,
        "node",
        `#!${process.execPath}\nrequire("fs").writeFileSync(${JSON.stringify(envDump)}, JSON.stringify(process.env))\n` +
          `console.log(process.version)\n`
      )
      const parentEnv = {
        ...baseEnv(dir),
        LC_ALL: "C",
        TERM: "dumb",
        NODE_OPTIONS: `--require ${canary}`,
        BASH_ENV: canary,
        ENV: canary,
        PYTHONSTARTUP: canary,
        PERL5OPT: "-Mstrict",
        RUBYOPT: "-w",
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "core.pager",
        GIT_CONFIG_VALUE_0: "touch /tmp/pwned",
        GIT_CONFIG_GLOBAL: canary,
        LD_PRELOAD: canary,
        GH_TOKEN: "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
      }
      const calls: Array<SpawnRequest> = []
      const report = yield* Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "node", path: node })).pipe(
        Effect.provide(probeLayer(calls, parentEnv))
      )
      const expectedEnv = {
        PATH,
        HOME: dir,
        LANG: "C.UTF-8",
        LC_ALL: "C",
        TERM: "dumb",
        ...EXPECTED_PROBE_CONSTANTS
      }
      expect([report.status, report.version]).toEqual(["ok", process.version.slice(1)])
      expect(NodeFs.existsSync(marker)).toBe(false)
      expect(calls.map((call) => call.env)).toEqual([expectedEnv])
      // The spawner adds only its marker (random per child), by which escaped descendants are found.
      const { [SPAWN_MARKER_VARIABLE]: spawnMarker, ...childEnv } = JSON.parse(NodeFs.readFileSync(envDump, "utf8")) as Record<string, string>
      expect(childEnv).toEqual(expectedEnv)
      expect(spawnMarker).toMatch(/^[0-9a-f]{24}$/)
    }))

  it.scoped("probes run concurrently, results in request order", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const names = ["git", "gh", "docker", "node"]
      const requests = yield* Effect.forEach(names, (name, index) =>
        Effect.map(script(dir, name, sh(`sleep 0.4\necho "${name} 1.0.${index}"`)), (path) => ({ name, path })))
      const [reports, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probeAll(requests)).pipe(
          Effect.provide(probeLayer([], baseEnv(dir), 4))
        )
      )
      expect(reports.map((r) => [r.name, r.status, r.version])).toEqual([
        ["git", "ok", "1.0.0"],
        ["gh", "ok", "1.0.1"],
        ["docker", "ok", "1.0.2"],
        ["node", "ok", "1.0.3"]
      ])
      // One after the other would take 1.6 s.
      expect(elapsed).toBeLessThan(1200)
      expect(reports.every((r) => r.durationMs >= 400)).toBe(true)
    }))

  it.scoped("the concurrency bound holds across calls: two batches of two share two slots", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const requests = yield* Effect.forEach(["git", "gh", "docker", "node"], (name) =>
        Effect.map(script(dir, name, sh(`sleep 0.4\necho "${name} 1.0.0"`)), (path) => ({ name, path })))
      const [batches, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) =>
          Effect.all([probe.probeAll(requests.slice(0, 2)), probe.probeAll(requests.slice(2))], {
            concurrency: "unbounded"
          })).pipe(Effect.provide(probeLayer([], baseEnv(dir), 2)))
      )
      expect(batches.flat().map((r) => [r.name, r.status])).toEqual([
        ["git", "ok"],
        ["gh", "ok"],
        ["docker", "ok"],
        ["node", "ok"]
      ])
      // Four at once would take 0.4 s; two slots take two rounds.
      expect(elapsed).toBeGreaterThanOrEqual(800)
      expect(batches.flat().every((r) => r.durationMs >= 400)).toBe(true)
    }))

  it.scoped("by default every program of the table runs at once: all of them hanging end within about one timeout", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const requests = yield* Effect.forEach(probeNames(), (name) =>
        Effect.map(script(dir, name, sh("exec sleep 30")), (path) => ({ name, path })))
      const [reports, elapsed] = yield* timed(
        Effect.flatMap(VersionProbe, (probe) => probe.probeAll(requests)).pipe(
          Effect.provide(
            VersionProbe.layerWithSpawner({ timeout: TIMEOUT_MS }).pipe(
              Layer.provide(Layer.merge(ProcessSpawner.layer, MachineEnvironment.layerTest({ os: "linux", env: baseEnv(dir) })))
            )
          )
        )
      )
      expect(reports.map((r) => [r.name, r.status])).toEqual(probeNames().map((name) => [name, "timeout"]))
      // In waves of 4 (the earlier bound on 2 cores) the 27 took 7 timeouts. One wave takes one
      // timeout plus the spawning, which a loaded machine stretches (4.2 s at load 12 on 2 cores).
      expect(elapsed).toBeLessThan((Math.ceil(probeNames().length / 4) - 1) * TIMEOUT_MS)
    }), 30_000)

  it.scoped("probes given when their scan's probing began share one timeout from then; one that would start after it is not started", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const git = yield* script(dir, "git", sh("exec sleep 30"))
      const gh = yield* script(dir, "gh", sh("exec sleep 30"))
      const calls: Array<SpawnRequest> = []
      const probe = yield* Effect.provide(VersionProbe, probeLayer(calls, baseEnv(dir)))
      // Began 600 ms ago: git gets the 400 ms left of the 1 s timeout, not a whole one.
      const [[late], elapsed] = yield* timed(probe.probeAll([{ name: "git", path: git, since: Date.now() - 600 }]))
      expect([late!.status, late!.detail?.replace(/\d+ ms/, "N ms")]).toEqual(["timeout", "no exit within N ms; process group killed"])
      expect(Number(/within (\d+) ms/.exec(late!.detail ?? "")?.[1])).toBeLessThanOrEqual(400)
      expect(elapsed).toBeLessThan(TIMEOUT_MS)
      // Began a whole timeout ago: gh is not spawned at all.
      const [past] = yield* probe.probeAll([{ name: "gh", path: gh, since: Date.now() - TIMEOUT_MS }])
      expect([past!.status, past!.detail]).toEqual(["timeout", `not started: the scan's probes had used their ${TIMEOUT_MS} ms`])
      expect(calls.map((call) => NodePath.basename(call.command))).toEqual(["git"])
    }), 30_000)

  /** An npm-style install: `<dir>/bin/<name>` links to the package's bin script. */
  const npmInstall = (dir: string, options: {
    readonly name: string
    readonly manifest: string
    readonly script: string
    readonly binTarget?: string
  }) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const packageDir = NodePath.join(dir, "lib", "node_modules", options.name)
      const scriptPath = NodePath.join(packageDir, options.script)
      yield* fs.makeDirectory(NodePath.dirname(scriptPath), { recursive: true })
      yield* fs.makeDirectory(NodePath.join(dir, "bin"), { recursive: true })
      yield* fs.writeFileString(NodePath.join(packageDir, "package.json"), options.manifest)
      yield* fs.writeFileString(scriptPath, sh(`echo "9.9.9"`), { mode: 0o755 })
      const link = NodePath.join(dir, "bin", options.name)
      yield* fs.symlink(options.binTarget ?? scriptPath, link)
      return { link, manifestPath: NodePath.join(packageDir, "package.json") }
    })

  it.scoped("an npm package's bin script: the version is read from its package.json and nothing runs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const { link, manifestPath } = yield* npmInstall(dir, {
        name: "npm",
        script: "bin/npm-cli.js",
        manifest: JSON.stringify({ name: "npm", version: "11.2.0", bin: { npm: "bin/npm-cli.js", npx: "bin/npx-cli.js" } })
      })
      const calls: Array<SpawnRequest> = []
      const report = yield* Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "npm", path: link })).pipe(
        Effect.provide(probeLayer(calls, baseEnv(dir)))
      )
      expect([report.status, report.version, report.path, report.detail]).toEqual([
        "ok",
        "11.2.0",
        link,
        `read from ${manifestPath}; not run`
      ])
      expect(calls).toEqual([])
    }))

  it.scoped("anything but the package's own bin with a plain version is run as usual", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const base = yield* fs.makeTempDirectoryScoped()
      const cases = [
        // corepack's shim is named npm, but the package is corepack.
        { name: "npm", script: "dist/npm.js", manifest: JSON.stringify({ name: "corepack", version: "0.29.0", bin: { npm: "dist/npm.js" } }) },
        // The package's bin for the name is another file.
        { name: "npm", script: "bin/npm-cli.js", manifest: JSON.stringify({ name: "npm", version: "11.2.0", bin: { npm: "bin/other.js" } }) },
        { name: "gemini", script: "dist/index.js", manifest: JSON.stringify({ name: "@google/gemini-cli", version: "latest", bin: { gemini: "dist/index.js" } }) },
        // pnpm and yarn have no version source: a project may pin another release of them.
        { name: "pnpm", script: "bin/pnpm.cjs", manifest: JSON.stringify({ name: "pnpm", version: "9.12.0", bin: { pnpm: "bin/pnpm.cjs" } }) },
        { name: "npm", script: "bin/npm-cli.js", manifest: "{ \"name\": \"npm\", \"version\": \"11.2.0\"," },
        { name: "npm", script: "bin/npm-cli.js", manifest: JSON.stringify({ name: "npm", version: "11.2.0", bin: { npm: "bin/npm-cli.js" }, pad: "x".repeat(300 * 1024) }) },
        // A string bin belongs to the unscoped package name only.
        { name: "claude", script: "cli.js", manifest: JSON.stringify({ name: "@anthropic-ai/claude-code", version: "2.0.1", bin: "cli.js" }) }
      ]
      const requests = yield* Effect.forEach(cases, (entry, index) =>
        Effect.map(npmInstall(NodePath.join(base, String(index)), entry), ({ link }) => ({ name: entry.name, path: link })))
      const calls: Array<SpawnRequest> = []
      const reports = yield* Effect.flatMap(VersionProbe, (probe) => probe.probeAll(requests)).pipe(
        Effect.provide(probeLayer(calls, baseEnv(base), 6))
      )
      expect(reports.map((r) => [r.name, r.status, r.version, r.detail])).toEqual(cases.map((entry) => [entry.name, "ok", "9.9.9", null]))
      expect(calls.map((call) => call.command).sort()).toEqual(requests.map((request) => request.path).sort())
    }))

  it.scoped("the Node running tool-map, by any link, is its own version; another node runs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const link = NodePath.join(dir, "node")
      yield* fs.symlink(process.execPath, link)
      const other = yield* script(NodePath.join(dir), "node-copy", sh(`echo "v1.2.3"`))
      const calls: Array<SpawnRequest> = []
      const reports = yield* Effect.flatMap(VersionProbe, (probe) =>
        probe.probeAll([{ name: "node", path: link }, { name: "node", path: other }])).pipe(
          Effect.provide(probeLayer(calls, baseEnv(dir)))
        )
      expect(reports.map((r) => [r.status, r.version, r.detail])).toEqual([
        ["ok", process.version.slice(1), "the Node that runs tool-map; not run"],
        ["ok", "1.2.3", null]
      ])
      expect(calls.map((call) => call.command)).toEqual([other])
    }))

  it.scoped("the java of a JDK image: JAVA_VERSION of its release file; anything else runs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const base = yield* fs.makeTempDirectoryScoped()
      const javaScript = sh(`echo 'openjdk version "9.9.9" 2030-01-01' >&2`)
      const jdk = (name: string, release: string | null, launcherDir = "bin") =>
        Effect.gen(function*() {
          const image = NodePath.join(base, name)
          yield* fs.makeDirectory(NodePath.join(image, launcherDir), { recursive: true })
          if (release !== null) yield* fs.writeFileString(NodePath.join(image, "release"), release)
          const java = yield* script(NodePath.join(image, launcherDir), "java", javaScript)
          // As Debian installs it: /usr/bin/java -> /etc/alternatives/java -> the image's.
          const link = NodePath.join(base, `${name}-java`)
          yield* fs.symlink(java, link)
          return { name: "java", path: link }
        })
      const release = `IMPLEMENTOR="Debian"\nJAVA_RUNTIME_VERSION="17.0.15+6-Debian-1deb12u1"\nJAVA_VERSION="17.0.15"\n`
      const requests = [
        yield* jdk("jdk17", release),
        yield* jdk("jdk8", `JAVA_VERSION="1.8.0_292"\n`),
        yield* jdk("no-release", null),
        yield* jdk("bad-version", `JAVA_VERSION="17.0.15 && touch /tmp/x"\n`),
        yield* jdk("not-bin", release, "tools")
      ]
      const calls: Array<SpawnRequest> = []
      const reports = yield* Effect.flatMap(VersionProbe, (probe) => probe.probeAll(requests)).pipe(
        Effect.provide(probeLayer(calls, baseEnv(base), 6))
      )
      expect(reports.map((r) => [r.version, r.detail])).toEqual([
        ["17.0.15", `read from ${base}/jdk17/release; not run`],
        ["1.8.0_292", `read from ${base}/jdk8/release; not run`],
        ["9.9.9", null],
        ["9.9.9", null],
        ["9.9.9", null]
      ])
      expect(calls.length).toBe(3)
    }))

  it.scoped("a package.json above node_modules is never taken for the script's own", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      yield* fs.makeDirectory(NodePath.join(dir, "node_modules"))
      yield* fs.writeFileString(NodePath.join(dir, "package.json"), JSON.stringify({ name: "npm", version: "10.0.0", bin: { npm: "node_modules/npm" } }))
      const path = yield* script(NodePath.join(dir, "node_modules"), "npm", sh(`echo "9.9.9"`))
      const calls: Array<SpawnRequest> = []
      const report = yield* Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "npm", path })).pipe(
        Effect.provide(probeLayer(calls, baseEnv(dir)))
      )
      expect([report.status, report.version]).toEqual(["ok", "9.9.9"])
      expect(calls.length).toBe(1)
    }))
})

describe("the probe table", () => {
  it("holds the seed's fifteen names, and only frozen entries", () => {
    const seed = [
      "node", "npm", "pnpm", "yarn", "mcode", "openclaw", "clawhub", "codex",
      "git", "python", "python3", "gh", "docker", "pwsh", "powershell"
    ]
    expect(probeNames().slice(0, 15)).toEqual(seed)
    expect(new Set(probeNames()).size).toBe(probeNames().length)
    expect(Object.isFrozen(PROBE_TABLE)).toBe(true)
    expect(PROBE_TABLE.every((spec) => Object.isFrozen(spec) && Object.isFrozen(spec.args))).toBe(true)
  })

  it("gives PowerShell its exact argv and the others theirs", () => {
    const argsOf = (name: string) => PROBE_TABLE.find((spec) => spec.name === name)?.args
    expect(argsOf("pwsh")).toEqual(["-NoProfile", "-Command", "$PSVersionTable.PSVersion.ToString()"])
    expect(argsOf("powershell")).toEqual(["-NoProfile", "-Command", "$PSVersionTable.PSVersion.ToString()"])
    expect(argsOf("git")).toEqual(["--version"])
    expect(argsOf("go")).toEqual(["version"])
    expect(argsOf("java")).toEqual(["-version"])
    expect(argsOf("kubectl")).toEqual(["version", "--client"])
  })

  it.each([
    ["node", "v20.11.1\n", "", "20.11.1"],
    ["git", "git version 2.43.0.windows.1\n", "", "2.43.0"],
    ["docker", "Docker version 24.0.7, build afdd53b\n", "", "24.0.7"],
    ["go", "go version go1.22.3 linux/amd64\n", "", "1.22.3"],
    ["java", "", "openjdk version \"21.0.2\" 2024-01-16\nOpenJDK Runtime Environment\n", "21.0.2"],
    ["kubectl", "Client Version: v1.29.0\nKustomize Version: v5.0.4-0.20230601165947-6ce0bf390ce3\n", "", "1.29.0"],
    ["pwsh", "7.4.1\r\n", "", "7.4.1"],
    ["codex", "", "codex-cli 0.46.0\n", "0.46.0"],
    ["python", "", "Python 2.7.18\n", "2.7.18"],
    ["yarn", "warning: something 1\n4.1.0-rc.2\n", "", "4.1.0-rc.2"],
    ["rustc", "rustc 1.75.0 (82e1608df 2023-12-21)\n", "", "1.75.0"],
    ["gh", "no version here\n", "gh version 2.40.0\n", null]
  ])("reads %s's version from its stream", (name, stdout, stderr, expected) => {
    const spec = PROBE_TABLE.find((entry) => entry.name === name)!
    expect(parseVersion(spec, { stdout, stderr })).toBe(expected)
  })
})
