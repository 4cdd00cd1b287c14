import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { findProbeSpec, type ProbeSpec } from "../../../src/inventory/domain/probeTable.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { ProcessSpawner, SpawnFailed, type SpawnRequest } from "../../../src/inventory/probe/ProcessSpawner.js"
import {
  escapeCmdArgument,
  escapeCmdCommand,
  planInvocation,
  sanitizeEnv,
  VersionProbe
} from "../../../src/inventory/probe/VersionProbe.js"
import { EXPECTED_PROBE_CONSTANTS } from "../../support/probeEnv.js"

const spec = (name: string): ProbeSpec => findProbeSpec(name)!
const windowsEnv = { SystemRoot: "C:\\Windows", PATH: "C:\\Windows\\System32" }
const CMD = "C:\\Windows\\System32\\cmd.exe"
const PS_ARGS = ["-NoProfile", "-Command", "$PSVersionTable.PSVersion.ToString()"]

const viaCmd = (line: string) => Either.right({ command: CMD, args: ["/d", "/s", "/c", `"${line}"`], windowsVerbatimArguments: true })
const direct = (command: string, args: ReadonlyArray<string> = ["--version"]) =>
  Either.right({ command, args, windowsVerbatimArguments: false })

describe("planInvocation on Windows", () => {
  it.each([
    ["lower case .cmd", "C:\\Users\\me\\AppData\\Roaming\\npm\\npm.cmd", "C:\\Users\\me\\AppData\\Roaming\\npm\\npm.cmd"],
    ["upper case .CMD", "C:\\Users\\me\\AppData\\Roaming\\npm\\pnpm.CMD", "C:\\Users\\me\\AppData\\Roaming\\npm\\pnpm.CMD"],
    ["mixed case .Bat", "C:\\tools\\yarn.Bat", "C:\\tools\\yarn.Bat"],
    ["a trailing dot and space", "C:\\tools\\codex.CMD. ", "C:\\tools\\codex.CMD"],
    ["trailing dots", "C:\\tools\\codex.cmd...", "C:\\tools\\codex.cmd"],
    ["trailing spaces", "C:\\tools\\codex.bat  ", "C:\\tools\\codex.bat"]
  ])("routes a batch shim with %s through %SystemRoot%\\System32\\cmd.exe", (_label, path, file) => {
    expect(planInvocation("win32", windowsEnv, path, spec("npm"))).toEqual(viaCmd(`${file} ^"--version^"`))
  })

  it("caret-escapes spaces in the shim's path and quotes the argument like cross-spawn", () => {
    expect(planInvocation("win32", windowsEnv, "C:\\Program Files\\nodejs\\npm.cmd", spec("npm"))).toEqual(
      viaCmd("C:\\Program^ Files\\nodejs\\npm.cmd ^\"--version^\"")
    )
    expect(planInvocation("win32", windowsEnv, "C:\\tools\\kubectl.cmd", spec("kubectl"))).toEqual(
      viaCmd("C:\\tools\\kubectl.cmd ^\"version^\" ^\"--client^\"")
    )
  })

  it("escapes twice for npm's node_modules\\.bin shims, which re-parse %*", () => {
    expect(planInvocation("win32", windowsEnv, "C:\\proj\\node_modules\\.bin\\codex.cmd", spec("codex"))).toEqual(
      viaCmd("C:\\proj\\node_modules\\.bin\\codex.cmd ^^^\"--version^^^\"")
    )
  })

  it("finds SystemRoot whatever the case of its name", () => {
    expect(planInvocation("win32", { SYSTEMROOT: "D:\\WINNT" }, "C:\\tools\\npm.cmd", spec("npm"))).toEqual(
      Either.right({
        command: "D:\\WINNT\\System32\\cmd.exe",
        args: ["/d", "/s", "/c", "\"C:\\tools\\npm.cmd ^\"--version^\"\""],
        windowsVerbatimArguments: true
      })
    )
  })

  it.each([
    ["missing (COMSPEC and PATH are never used instead)", { COMSPEC: "C:\\evil\\cmd.exe", PATH: "C:\\evil" }],
    ["relative", { SystemRoot: "Windows" }],
    ["holding a metacharacter", { SystemRoot: "C:\\%EVIL%" }],
    ["empty", { SystemRoot: "" }]
  ])("refuses a batch shim when SystemRoot is %s", (_label, env) => {
    expect(planInvocation("win32", env, "C:\\tools\\npm.cmd", spec("npm"))).toEqual(
      Either.left("SystemRoot is not set to an absolute path; refusing to guess which cmd.exe to run")
    )
  })

  it.each(["&", "|", "<", ">", "^", "%", "!", "\"", "(", ")"])(
    "refuses a batch shim whose path holds %s",
    (char) => {
      expect(planInvocation("win32", windowsEnv, `C:\\tools\\a${char}b\\npm.cmd`, spec("npm"))).toEqual(
        Either.left(`batch file path holds the cmd metacharacter ${JSON.stringify(char)}`)
      )
    }
  )

  it("refuses a shim under Program Files (x86), and says which character", () => {
    expect(planInvocation("win32", windowsEnv, "C:\\Program Files (x86)\\Yarn\\bin\\yarn.cmd", spec("yarn")))
      .toEqual(Either.left("batch file path holds the cmd metacharacter \"(\""))
  })

  it("spawns native .exe files directly, metacharacters and all (no shell is involved)", () => {
    expect(planInvocation("win32", windowsEnv, "C:\\Program Files\\nodejs\\node.exe", spec("node")))
      .toEqual(direct("C:\\Program Files\\nodejs\\node.exe"))
    expect(planInvocation("win32", windowsEnv, "C:\\tools\\a&b (x86)\\git.EXE. ", spec("git")))
      .toEqual(direct("C:\\tools\\a&b (x86)\\git.EXE. "))
    expect(planInvocation("win32", {}, "C:\\tools\\gh.com", spec("gh"))).toEqual(direct("C:\\tools\\gh.com"))
  })

  it("gives PowerShell -NoProfile -Command $PSVersionTable.PSVersion.ToString()", () => {
    expect(planInvocation("win32", windowsEnv, "C:\\Program Files\\PowerShell\\7\\pwsh.exe", spec("pwsh")))
      .toEqual(direct("C:\\Program Files\\PowerShell\\7\\pwsh.exe", PS_ARGS))
    expect(
      planInvocation("win32", windowsEnv, "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", spec("powershell"))
    ).toEqual(direct("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", PS_ARGS))
  })

  it.each([
    ["a .ps1 script", "C:\\tools\\npm.ps1", "cannot start a .ps1 file directly"],
    ["a file without extension", "C:\\tools\\node", "cannot start a file without extension directly"],
    ["a relative path", "npm.cmd", "path is not absolute"],
    ["a drive-relative path", "C:npm.cmd", "path is not absolute"],
    ["a root-relative path", "\\tools\\npm.cmd", "path is not absolute"],
    ["a \\\\?\\ device path", "\\\\?\\C:\\tools\\npm.cmd", "path is not absolute"]
  ])("refuses %s", (_label, path, reason) => {
    expect(planInvocation("win32", windowsEnv, path, spec("npm"))).toEqual(Either.left(reason))
  })
})

describe("planInvocation on POSIX", () => {
  it.each(["linux", "darwin"] as const)("runs the absolute path itself with the table's argv on %s", (os) => {
    expect(planInvocation(os, {}, "/usr/bin/git", spec("git"))).toEqual(direct("/usr/bin/git"))
    expect(planInvocation(os, {}, "/opt/tools/npm.cmd", spec("npm"))).toEqual(direct("/opt/tools/npm.cmd"))
    expect(planInvocation(os, {}, "/x/a&b;$(rm)/go", spec("go"))).toEqual(direct("/x/a&b;$(rm)/go", ["version"]))
  })

  it("refuses a relative path (it would be looked up on PATH at spawn time)", () => {
    expect(planInvocation("linux", {}, "git", spec("git"))).toEqual(Either.left("path is not absolute"))
    expect(planInvocation("linux", {}, "./bin/git", spec("git"))).toEqual(Either.left("path is not absolute"))
  })
})

describe("cmd escaping (cross-spawn's rules)", () => {
  it("escapes a command's specials with carets", () => {
    expect(escapeCmdCommand("C:\\a b\\[x];y,z\\npm.cmd")).toBe("C:\\a^ b\\^[x^]^;y^,z\\npm.cmd")
  })

  it.each([
    ["--version", false, "^\"--version^\""],
    ["a b", false, "^\"a^ b^\""],
    ["a\"b", false, "^\"a\\^\"b^\""],
    ["C:\\dir\\", false, "^\"C:\\dir\\\\^\""],
    ["100%", false, "^\"100^%^\""],
    ["--version", true, "^^^\"--version^^^\""]
  ])("quotes %j (double: %s) as %s", (arg, double, expected) => {
    expect(escapeCmdArgument(arg, double)).toBe(expected)
  })
})

describe("sanitizeEnv", () => {
  const hostile = {
    NODE_OPTIONS: "--require /tmp/evil.cjs",
    BASH_ENV: "/tmp/evil.sh",
    ENV: "/tmp/evil.sh",
    PYTHONSTARTUP: "/tmp/evil.py",
    PERL5OPT: "-Mevil",
    RUBYOPT: "-revil",
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.pager",
    GIT_CONFIG_PARAMETERS: "'core.pager'='evil'",
    LD_PRELOAD: "/tmp/evil.so",
    DYLD_INSERT_LIBRARIES: "/tmp/evil.dylib",
    GH_TOKEN: "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    UNSET: undefined
  }
  it("keeps only the POSIX allowlist and LC_*, case-sensitively", () => {
    expect(
      sanitizeEnv("linux", {
        ...hostile,
        PATH: "/usr/bin",
        Path: "/evil",
        HOME: "/home/me",
        USER: "me",
        LANG: "en_US.UTF-8",
        LC_CTYPE: "C",
        lc_all: "evil",
        TERM: "xterm",
        TMPDIR: "/tmp",
        SHELL: "/bin/bash",
        NUL: "a\0b"
      })
    ).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/me",
      USER: "me",
      LANG: "en_US.UTF-8",
      LC_CTYPE: "C",
      TERM: "xterm",
      TMPDIR: "/tmp",
      ...EXPECTED_PROBE_CONSTANTS
    })
  })

  it("matches Windows names case-insensitively and keeps their own spelling", () => {
    expect(
      sanitizeEnv("win32", {
        ...hostile,
        node_options: "--require evil",
        Path: "C:\\Windows",
        SYSTEMROOT: "C:\\Windows",
        pathext: ".COM;.EXE;.BAT;.CMD",
        ComSpec: "C:\\Windows\\system32\\cmd.exe",
        USERPROFILE: "C:\\Users\\me",
        APPDATA: "C:\\Users\\me\\AppData\\Roaming",
        "ProgramFiles(x86)": "C:\\Program Files (x86)",
        PSModulePath: "C:\\evil"
      })
    ).toEqual({
      Path: "C:\\Windows",
      SYSTEMROOT: "C:\\Windows",
      pathext: ".COM;.EXE;.BAT;.CMD",
      ComSpec: "C:\\Windows\\system32\\cmd.exe",
      USERPROFILE: "C:\\Users\\me",
      APPDATA: "C:\\Users\\me\\AppData\\Roaming",
      "ProgramFiles(x86)": "C:\\Program Files (x86)",
      ...EXPECTED_PROBE_CONSTANTS
    })
  })
})

describe("VersionProbe on an injected Windows host", () => {
  it.effect("spawns what planInvocation says and records refusals without spawning", () =>
    Effect.gen(function*() {
      const calls: Array<SpawnRequest> = []
      const fakeSpawner = Layer.succeed(ProcessSpawner, ProcessSpawner.of({
        spawn: (request) =>
          Effect.suspend(() => {
            calls.push(request)
            return Effect.fail(new SpawnFailed({ command: request.command, code: "ENOENT", reason: "spawn ENOENT" }))
          })
      }))
      const host = MachineEnvironment.layerTest({
        os: "win32",
        env: { SystemRoot: "C:\\Windows", Path: "C:\\Windows", NODE_OPTIONS: "--require evil" }
      })
      const reports = yield* Effect.flatMap(VersionProbe, (probe) =>
        probe.probeAll([
          { name: "npm", path: "C:\\Users\\me\\AppData\\Roaming\\npm\\npm.CMD. " },
          { name: "pwsh", path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe" },
          { name: "yarn", path: "C:\\a&b\\yarn.cmd" }
        ])).pipe(Effect.provide(VersionProbe.layerWithSpawner({ timeout: 1000 }).pipe(
          Layer.provide(Layer.mergeAll(fakeSpawner, host, NodeFileSystem.layer))
        )))
      // Probes start concurrently: the order of the spawns is not part of the contract (sorted by command).
      const spawned = [...calls].sort((a, b) => (a.command < b.command ? -1 : a.command > b.command ? 1 : 0))
      expect(spawned.map(({ args, command, windowsVerbatimArguments }) => ({ command, args, windowsVerbatimArguments })))
        .toEqual([
          { command: "C:\\Program Files\\PowerShell\\7\\pwsh.exe", args: PS_ARGS, windowsVerbatimArguments: false },
          {
            command: CMD,
            args: ["/d", "/s", "/c", "\"C:\\Users\\me\\AppData\\Roaming\\npm\\npm.CMD ^\"--version^\"\""],
            windowsVerbatimArguments: true
          }
        ])
      expect(spawned.map((call) => call.env)).toEqual([
        {
          SystemRoot: "C:\\Windows",
          Path: "C:\\Windows",
          ...EXPECTED_PROBE_CONSTANTS
        },
        {
          SystemRoot: "C:\\Windows",
          Path: "C:\\Windows",
          ...EXPECTED_PROBE_CONSTANTS
        }
      ])
      expect(reports.map((r) => [r.name, r.status, r.detail])).toEqual([
        ["npm", "missing", "the file or its interpreter does not exist (ENOENT)"],
        ["pwsh", "missing", "the file or its interpreter does not exist (ENOENT)"],
        ["yarn", "refused", "batch file path holds the cmd metacharacter \"&\""]
      ])
    }))
})
