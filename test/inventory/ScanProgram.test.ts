import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schedule } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { AgentHostScanner } from "../../src/inventory/discover/AgentHostScanner.js"
import { AgentHostFiles } from "../../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { Bundle } from "../../src/inventory/bundle/Bundle.js"
import { BundleWriter } from "../../src/inventory/bundle/BundleWriter.js"
import { FrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"
import { IdentityReader } from "../../src/inventory/discover/IdentityReader.js"
import { ProcessSpawner, type SpawnRequest } from "../../src/inventory/probe/ProcessSpawner.js"
import { ScanProgram } from "../../src/inventory/ScanProgram.js"
import { ScanProgress } from "../../src/inventory/ScanProgress.js"
import { VersionProbe } from "../../src/inventory/probe/VersionProbe.js"
import { Walker } from "../../src/inventory/discover/Walker.js"
import { fakePyenvRoot } from "../support/fakePyenv.js"

/** A fake machine: two PATH dirs that both hold a `git` printing a different version, an empty home. */
const machine = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "scan-program-")))
    for (const [bin, version] of [["bin1", "2.0.0"], ["bin2", "3.0.0"]] as const) {
      NodeFs.mkdirSync(NodePath.join(dir, bin))
      NodeFs.writeFileSync(NodePath.join(dir, bin, "git"), `#!/bin/sh\necho "git version ${version}"\n`, { mode: 0o755 })
    }
    NodeFs.mkdirSync(NodePath.join(dir, "home"))
    return dir
  }),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * ScanProgram over the live services, a recording spawner and a walker whose PATH lookup
 * `lookup` rewrites and whose walk starts only once `walkAfter` holds of the spawns so far.
 */
const scanLayer = (
  dir: string,
  calls: Array<SpawnRequest>,
  lookup: (found: ReadonlyMap<string, string>) => ReadonlyMap<string, string>,
  walkAfter: (calls: ReadonlyArray<SpawnRequest>) => boolean = () => true,
  path = `${dir}/bin1:${dir}/bin2`
) => {
  const ready = Effect.suspend(() => (walkAfter(calls) ? Effect.void : Effect.fail("not yet"))).pipe(
    Effect.retry(Schedule.spaced("5 millis")),
    Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => new Error("the walk waited 3 s for a probe that never started") }),
    Effect.orDie
  )
  const host = MachineEnvironment.layerTest({
    os: "linux",
    env: { PATH: path, HOME: `${dir}/home`, PLUGIN_DATA: `${dir}/data` },
    homedir: `${dir}/home`,
    cwd: dir
  })
  const walker = Layer.effect(
    Walker,
    Effect.map(Walker, (live) =>
      Walker.of({
        walk: (roots, options) => Effect.zipRight(ready, live.walk(roots, options)),
        resolveOnPath: (roots, names, options) => Effect.map(live.resolveOnPath(roots, names, options), lookup)
      }))
  ).pipe(Layer.provide(Walker.layer))
  const services = Layer.mergeAll(
    walker,
    VersionProbe.layerWithSpawner({ timeout: 5000 }).pipe(Layer.provide(ProcessSpawner.layerRecording(calls))),
    IdentityReader.layer,
    AgentHostScanner.layer.pipe(Layer.provide(Layer.merge(FrontmatterParser.layer, AgentHostFiles.layer))),
    Bundle.layer,
    BundleWriter.layer,
    ScanProgress.silent
  )
  return ScanProgram.layer.pipe(Layer.provideMerge(services), Layer.provide(host), Layer.provide(NodeContext.layer))
}

const commandsUnder = (dir: string, calls: ReadonlyArray<SpawnRequest>) =>
  calls.map((call) => call.command).filter((command) => command.startsWith(dir)).sort()

const scanVersions = (dir: string, layer: Layer.Layer<ScanProgram>) =>
  Effect.gen(function*() {
    const outcome = yield* Effect.flatMap(ScanProgram, (scan) =>
      scan.run({ target: Option.none(), ifStale: false, probes: true, progress: false })).pipe(Effect.provide(layer))
    expect(outcome._tag).toBe("Written")
    const json = JSON.parse(NodeFs.readFileSync(NodePath.join(dir, "data", "tools.json"), "utf8")) as {
      readonly versions: ReadonlyArray<{ readonly name: string; readonly version: string | null; readonly path: string | null }>
    }
    // The well-known roots (/usr/local/bin…) are walked too: only this machine's files are compared.
    return json.versions.filter((report) => report.path?.startsWith(dir) === true).map(({ name, path, version }) => ({ name, path, version }))
  })

describe("ScanProgram", () => {
  it.scopedLive("probes the PATH winners once, started before the walk", () =>
    Effect.gen(function*() {
      const dir = yield* machine
      const calls: Array<SpawnRequest> = []
      // The walk does not start before the probe of bin1/git has: probes started after it would never come.
      const started = (spawned: ReadonlyArray<SpawnRequest>) => spawned.some((call) => call.command === `${dir}/bin1/git`)
      const versions = yield* scanVersions(dir, scanLayer(dir, calls, (found) => found, started))
      expect(versions).toEqual([{ name: "git", path: `${dir}/bin1/git`, version: "2.0.0" }])
      expect(commandsUnder(dir, calls)).toEqual([`${dir}/bin1/git`])
    }))

  it.scopedLive("keeps only what the walk resolved: an early probe of another file is stopped and the winner probed", () =>
    Effect.gen(function*() {
      const dir = yield* machine
      // The file the lookup wrongly chose hangs: the scan must neither wait for it nor use it.
      NodeFs.writeFileSync(NodePath.join(dir, "bin2", "git"), `#!/bin/sh\n/bin/sleep 30\necho "git version 3.0.0"\n`, { mode: 0o755 })
      const calls: Array<SpawnRequest> = []
      const started = Date.now()
      // As if bin1/git appeared between the lookup and the walk: the lookup saw only bin2/git.
      const versions = yield* scanVersions(dir, scanLayer(dir, calls, () => new Map([["git", `${dir}/bin2/git`]])))
      expect(versions).toEqual([{ name: "git", path: `${dir}/bin1/git`, version: "2.0.0" }])
      expect(commandsUnder(dir, calls)).toContain(`${dir}/bin1/git`)
      // Far below the 5 s probe timeout the hanging probe would otherwise cost.
      expect(Date.now() - started).toBeLessThan(4000)
    }))

  it.scopedLive("a name the lookup missed is probed after the walk", () =>
    Effect.gen(function*() {
      const dir = yield* machine
      const calls: Array<SpawnRequest> = []
      const versions = yield* scanVersions(dir, scanLayer(dir, calls, () => new Map()))
      expect(versions).toEqual([{ name: "git", path: `${dir}/bin1/git`, version: "2.0.0" }])
      expect(commandsUnder(dir, calls)).toEqual([`${dir}/bin1/git`])
    }))

  it.scopedLive("watches pyenv's version files: after `pyenv global`, --if-stale scans again and reads the new choice", () =>
    Effect.gen(function*() {
      const dir = yield* machine
      const root = fakePyenvRoot(dir)
      const layer = scanLayer(dir, [], (found) => found, () => true, `${root}/shims`)
      const run = (ifStale: boolean) =>
        Effect.flatMap(ScanProgram, (scan) => scan.run({ target: Option.none(), ifStale, probes: true, progress: false })).pipe(Effect.provide(layer))
      const python = () =>
        (JSON.parse(NodeFs.readFileSync(NodePath.join(dir, "data", "tools.json"), "utf8")) as {
          readonly versions: ReadonlyArray<{ readonly name: string; readonly version: string | null; readonly detail: string | null }>
        }).versions.filter((report) => report.name === "python").map(({ detail, version }) => ({ version, detail }))
      expect((yield* run(false))._tag).toBe("Written")
      expect(python()).toEqual([{ version: "3.11.7", detail: `pyenv's 3.11.7 (${root}/version), run without the shim` }])
      expect((yield* run(true))._tag).not.toBe("Written")
      NodeFs.writeFileSync(`${root}/version`, "3.12.1\n")
      expect((yield* run(true))._tag).toBe("Written")
      expect(python()).toEqual([{ version: "3.12.1", detail: `pyenv's 3.12.1 (${root}/version), run without the shim` }])
      // A `pyenv local` in the working directory is a change too.
      NodeFs.writeFileSync(`${dir}/.python-version`, "3.11.7\n")
      expect((yield* run(true))._tag).toBe("Written")
      expect(python()).toEqual([{ version: "3.11.7", detail: `pyenv's 3.11.7 (${dir}/.python-version), run without the shim` }])
    }))
})
