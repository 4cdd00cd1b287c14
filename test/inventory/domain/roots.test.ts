import { describe, expect, it } from "vitest"
import { envValue } from "../../../src/inventory/domain/machine.js"
import { computeRoots, pathExtensions } from "../../../src/inventory/domain/roots.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"

const host = (overrides: Partial<typeof MachineEnvironment.live>) => ({ ...MachineEnvironment.live, env: {}, ...overrides })

describe("computeRoots", () => {
  it("lists PATH verbatim (empty and relative kept), then the well-known roots, then TOOL_MAP_ROOTS", () => {
    const roots = computeRoots(host({ os: "linux", homedir: "/home/u", env: { PATH: "/usr/bin::bin:/usr/bin", TOOL_MAP_ROOTS: "/opt/a::/opt/b" } }))
    expect(roots.map((root) => [root.path, root.kind, root.depth, root.pathIndex])).toEqual([
      ["/usr/bin", "path", "one-level", 0],
      ["", "path", "one-level", 1],
      ["bin", "path", "one-level", 2],
      ["/usr/bin", "path", "one-level", 3],
      ["/home/u/.local/bin", "well-known", "one-level", null],
      ["/home/u/.local/share/npm/bin", "well-known", "one-level", null],
      ["/usr/local/bin", "well-known", "one-level", null],
      ["/opt/homebrew/bin", "well-known", "one-level", null],
      ["/home/u/.minimax-code", "well-known", "recursive", null],
      ["/home/u/.minimax", "well-known", "recursive", null],
      ["/home/u/.Codex", "well-known", "recursive", null],
      ["/home/u/.claude", "well-known", "recursive", null],
      ["/opt/a", "extra", "one-level", null],
      ["/opt/b", "extra", "one-level", null]
    ])
  })

  it("uses Windows rules with the platform injected: ; lists, case-insensitive Path, env-based roots", () => {
    const roots = computeRoots(host({
      os: "win32",
      homedir: "C:\\Users\\u",
      env: { Path: "C:\\Windows\\system32;C:\\tools", ProgramFiles: "C:\\Program Files", APPDATA: "C:\\Users\\u\\AppData\\Roaming", TOOL_MAP_ROOTS: "D:\\x;E:\\y" }
    }))
    expect(roots.map((root) => [root.path, root.kind, root.depth])).toEqual([
      ["C:\\Windows\\system32", "path", "one-level"],
      ["C:\\tools", "path", "one-level"],
      ["C:\\Program Files", "well-known", "recursive"],
      ["C:\\Users\\u\\AppData\\Roaming\\npm", "well-known", "one-level"],
      ["C:\\Users\\u\\.minimax-code", "well-known", "recursive"],
      ["C:\\Users\\u\\.minimax", "well-known", "recursive"],
      ["C:\\Users\\u\\.npm-global\\bin", "well-known", "one-level"],
      ["C:\\Users\\u\\pwsh7_6", "well-known", "recursive"],
      ["C:\\Users\\u\\.Codex", "well-known", "recursive"],
      ["C:\\Users\\u\\.claude", "well-known", "recursive"],
      ["D:\\x", "extra", "one-level"],
      ["E:\\y", "extra", "one-level"]
    ])
  })

  it("reads PATHEXT upper-cased on Windows only", () => {
    expect(pathExtensions(host({ os: "win32", env: { PATHEXT: ".exe;.Cmd;bad;.BAT" } }))).toEqual([".EXE", ".CMD", ".BAT"])
    expect(pathExtensions(host({ os: "win32", env: {} }))).toEqual([".COM", ".EXE", ".BAT", ".CMD"])
    expect(pathExtensions(host({ os: "linux", env: { PATHEXT: ".EXE" } }))).toEqual([])
    expect(envValue(host({ os: "linux", env: { Path: "x" } }), "PATH")).toBe(undefined)
  })
})
