import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { pyenvVersionFiles, shimRoot, versionFileNames } from "../../../src/inventory/probe/pyenvShim.js"
import { ProcessSpawner, type SpawnRequest } from "../../../src/inventory/probe/ProcessSpawner.js"
import { VersionProbe } from "../../../src/inventory/probe/VersionProbe.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { fakePyenvRoot as fakeRoot, pyenvShim, write } from "../../support/fakePyenv.js"

const probePython = (shim: string, cwd: string) =>
  Effect.gen(function*() {
    const calls: Array<SpawnRequest> = []
    const report = yield* Effect.flatMap(VersionProbe, (probe) => probe.probe({ name: "python", path: shim })).pipe(
      Effect.provide(
        VersionProbe.layerWithSpawner({ timeout: 5000 }).pipe(
          Layer.provide(Layer.merge(
            ProcessSpawner.layerRecording(calls),
            MachineEnvironment.layerTest({ os: "linux", cwd, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } })
          ))
        )
      )
    )
    return { version: report.version, status: report.status, detail: report.detail, ran: calls.map((call) => call.command) }
  })

layer(NodeFileSystem.layer, { excludeTestServices: true })("a pyenv shim's choice read from pyenv's files", (it) => {
  it.scoped("the global version: the interpreter is run, not the shim", () =>
    Effect.gen(function*() {
      const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      const root = fakeRoot(base)
      expect(yield* probePython(`${root}/shims/python`, base)).toEqual({
        version: "3.11.7",
        status: "ok",
        detail: `pyenv's 3.11.7 (${root}/version), run without the shim`,
        ran: [`${root}/versions/3.11.7/bin/python`]
      })
    }))

  it.scoped("the nearest .python-version above the working directory wins, comments and CRLF as pyenv reads them", () =>
    Effect.gen(function*() {
      const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      const root = fakeRoot(base)
      write(`${base}/project/.python-version`, "# pinned for CI\r\n\r\n  3.12.1  trailing words\r\n")
      NodeFs.mkdirSync(`${base}/project/src/deep`, { recursive: true })
      expect(yield* probePython(`${root}/shims/python`, `${base}/project/src/deep`)).toEqual({
        version: "3.12.1",
        status: "ok",
        detail: `pyenv's 3.12.1 (${base}/project/.python-version), run without the shim`,
        ran: [`${root}/versions/3.12.1/bin/python`]
      })
    }))

  it.scoped("several versions: the first that has the program, as pyenv-which picks", () =>
    Effect.gen(function*() {
      const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      const root = fakeRoot(base)
      NodeFs.mkdirSync(`${root}/versions/2.7.18/bin`, { recursive: true })
      write(`${root}/version`, "2.7.18\n3.12.1\n")
      expect((yield* probePython(`${root}/shims/python`, base)).ran).toEqual([`${root}/versions/3.12.1/bin/python`])
    }))

  it.scoped("an interpreter that prints no version: the shim is run after all", () =>
    Effect.gen(function*() {
      const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      const root = fakeRoot(base)
      write(`${root}/versions/3.11.7/bin/python`, "#!/bin/sh\nexit 3\n", 0o755)
      expect(yield* probePython(`${root}/shims/python`, base)).toEqual({
        version: "9.9.9",
        status: "ok",
        detail: null,
        ran: [`${root}/versions/3.11.7/bin/python`, `${root}/shims/python`]
      })
    }))

  /** Each setup pyenv treats specially: the shim itself must be run (pyenv answers 9.9.9). */
  const shimRuns: ReadonlyArray<readonly [string, (root: string, base: string) => void]> = [
    ["a version-name hook", (root) => write(`${root}/pyenv.d/version-name/pin.bash`, "PYENV_VERSION=3.12.1\n")],
    ["a which hook not guarded by a missing command", (root) =>
      write(`${root}/plugins/mine/etc/pyenv.d/which/force.bash`, "PYENV_COMMAND_PATH=/usr/bin/true\n")],
    ["a guarded which hook that acts after its block", (root) =>
      write(
        `${root}/plugins/mine/etc/pyenv.d/which/late.bash`,
        `if [ ! -x "\${PYENV_COMMAND_PATH}" ]; then\n  :\nfi\nPYENV_COMMAND_PATH=/usr/bin/true\nif true; then\n  :\nfi\n`
      )],
    ["an exec hook of a plugin", (root) => write(`${root}/plugins/mine/etc/pyenv.d/exec/wrap.bash`, "PYENV_COMMAND_PATH=/usr/bin/true\n")],
    ["pyenv's pip hook with a redirect for this program", (root) => write(`${root}/pyenv.d/exec/pip-rehash/python`, "#!/bin/sh\n", 0o755)],
    ["a version prefix pyenv resolves (3.12)", (root) => write(`${root}/version`, "3.12\n")],
    ["system", (root) => write(`${root}/version`, "system\n")],
    ["an empty version file", (root) => write(`${root}/version`, "")],
    ["no version file at all", (root) => NodeFs.rmSync(`${root}/version`)],
    ["a version name pyenv would glob", (root) => write(`${root}/version`, "3.1*\n")],
    ["a version that is not installed before one that is", (root) => write(`${root}/version`, "3.9.1\n3.11.7\n")],
    ["a shim with a line pyenv does not write", (root) =>
      write(`${root}/shims/python`, pyenvShim(root).replace("set -e\n", "set -e\nexport PYENV_VERSION=3.12.1\n"), 0o755)],
    ["an interpreter without execute permission", (root) => NodeFs.chmodSync(`${root}/versions/3.11.7/bin/python`, 0o644)],
    ["libexec/pyenv is a link (pyenv installed elsewhere, its hooks there)", (root, base) => {
      NodeFs.renameSync(`${root}/libexec/pyenv`, `${base}/pyenv-real`)
      NodeFs.symlinkSync(`${base}/pyenv-real`, `${root}/libexec/pyenv`)
    }]
  ]
  for (const [title, setup] of shimRuns) {
    it.scoped(`${title}: the shim is run`, () =>
      Effect.gen(function*() {
        const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
        const root = fakeRoot(base)
        setup(root, base)
        expect(yield* probePython(`${root}/shims/python`, base)).toEqual({
          version: "9.9.9",
          status: "ok",
          detail: null,
          ran: [`${root}/shims/python`]
        })
      }))
  }

  it.scoped("the files a scan watches for a shim: every version file pyenv looks for, in its order; none for another program", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const base = yield* fs.makeTempDirectoryScoped()
      const root = fakeRoot(base)
      write(`${base}/bin/python`, "#!/bin/sh\necho 'Python 3.0.0'\n", 0o755)
      const host = { ...MachineEnvironment.live, os: "linux" as const, cwd: `${base}/project/src` }
      const above = base.split("/").slice(1).map((_, index, parts) => `/${parts.slice(0, parts.length - index).join("/")}/.python-version`)
      expect(yield* pyenvVersionFiles(fs, host, `${root}/shims/python`)).toEqual([
        `${base}/project/src/.python-version`,
        `${base}/project/.python-version`,
        ...above,
        "/.python-version",
        `${root}/version`
      ])
      expect(yield* pyenvVersionFiles(fs, host, `${base}/bin/python`)).toEqual([])
      expect(yield* pyenvVersionFiles(fs, { ...host, os: "win32" }, `${root}/shims/python`)).toEqual([])
    }))

  it.scoped("a copy of the shim outside PYENV_ROOT/shims: the shim is run", () =>
    Effect.gen(function*() {
      const base = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      const root = fakeRoot(base)
      write(`${base}/bin/python`, pyenvShim(root), 0o755)
      expect((yield* probePython(`${base}/bin/python`, base)).ran).toEqual([`${base}/bin/python`])
    }))
})

describe("pyenv's file formats", () => {
  it("a version file: first word per line, comments and blank lines skipped, a globbing or oversized name refused", () => {
    expect(versionFileNames("3.12.1\n")).toEqual(["3.12.1"])
    expect(versionFileNames("# a comment\n\n\t3.11.7 ignored\r\npypy3.10-7.3.15\n")).toEqual(["3.11.7", "pypy3.10-7.3.15"])
    expect(versionFileNames("")).toEqual([])
    expect(versionFileNames("3.*\n")).toBeNull()
    expect(versionFileNames("../outside\n")).toBeNull()
    expect(versionFileNames(`${"3".repeat(1025)}\n`)).toBeNull()
  })

  it("a shim: pyenv's two templates for their own folder, nothing else", () => {
    const root = "/home/ada/.pyenv"
    expect(shimRoot(pyenvShim(root), `${root}/shims/python`)).toBe(root)
    // Before pyenv 2.4: no SHIM_PATH block.
    const older = pyenvShim(root).replace(/SHIM_PATH=[^\n]*\n[^\n]*\n[^\n]*\nfi\n/, "")
    expect(older).not.toContain("SHIM_PATH")
    expect(shimRoot(older, `${root}/shims/python3`)).toBe(root)
    expect(shimRoot(older, "/usr/local/bin/python3")).toBeNull()
    expect(shimRoot(older.replace(`${root}/libexec`, "/tmp/libexec"), `${root}/shims/python3`)).toBeNull()
    expect(shimRoot(older.replaceAll(root, "/home/$USER/.pyenv"), "/home/$USER/.pyenv/shims/python3")).toBeNull()
    expect(shimRoot(older.replaceAll("\n", "\r\n"), `${root}/shims/python3`)).toBeNull()
  })
})
