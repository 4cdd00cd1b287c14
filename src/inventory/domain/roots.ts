import { envValue, type MachineEnvironmentShape, type OsFamily, pathModule } from "./machine.js"
import { Root } from "./inventory.js"

/** How deep agent homes and Windows program trees are walked. */
export const RECURSIVE_DEPTH_CAP = 3

/** The separator of `PATH` and `TOOL_MAP_ROOTS` on this OS. */
export const listDelimiter = (os: OsFamily): string => (os === "win32" ? ";" : ":")

interface WellKnownRoot {
  /** Where the root is: under the home dir, an environment variable, or a fixed system dir. */
  readonly base: "home" | "env" | "absolute"
  readonly value: string
  readonly segments: ReadonlyArray<string>
  readonly depth: Root["depth"]
}

const home = (segments: ReadonlyArray<string>, depth: Root["depth"]): WellKnownRoot => ({
  base: "home",
  value: "",
  segments,
  depth
})

/** The seed's well-known roots, per OS family, in walk order. */
const WELL_KNOWN: Record<"posix" | "win32", ReadonlyArray<WellKnownRoot>> = {
  posix: [
    home([".local", "bin"], "one-level"),
    home([".local", "share", "npm", "bin"], "one-level"),
    { base: "absolute", value: "/usr/local/bin", segments: [], depth: "one-level" },
    { base: "absolute", value: "/opt/homebrew/bin", segments: [], depth: "one-level" },
    home([".minimax-code"], "recursive"),
    home([".minimax"], "recursive"),
    home([".Codex"], "recursive"),
    home([".claude"], "recursive")
  ],
  win32: [
    { base: "env", value: "ProgramFiles", segments: [], depth: "recursive" },
    { base: "env", value: "ProgramFiles(x86)", segments: [], depth: "recursive" },
    { base: "env", value: "APPDATA", segments: ["npm"], depth: "one-level" },
    { base: "env", value: "LOCALAPPDATA", segments: ["Microsoft", "WindowsApps"], depth: "one-level" },
    home([".minimax-code"], "recursive"),
    home([".minimax"], "recursive"),
    home([".npm-global", "bin"], "one-level"),
    home(["pwsh7_6"], "recursive"),
    home([".Codex"], "recursive"),
    home([".claude"], "recursive")
  ]
}

const splitList = (value: string | undefined, os: OsFamily): ReadonlyArray<string> =>
  value === undefined ? [] : value.split(listDelimiter(os))

/**
 * Every root of a scan in walk order: the `PATH` dirs (verbatim, empty and relative entries
 * included so the walker can record them), the well-known roots of the OS, then
 * `TOOL_MAP_ROOTS`. Derived from the home dir and environment only.
 */
export const computeRoots = (host: MachineEnvironmentShape): ReadonlyArray<Root> => {
  const path = pathModule(host.os)
  const pathRoots = splitList(envValue(host, "PATH"), host.os).map(
    (dir, index) => new Root({ path: dir, kind: "path", depth: "one-level", pathIndex: index })
  )
  const wellKnown = WELL_KNOWN[host.os === "win32" ? "win32" : "posix"].flatMap((root) => {
    const base = root.base === "home" ? host.homedir : root.base === "env" ? envValue(host, root.value) : root.value
    if (base === undefined || base === "") return []
    return [new Root({ path: path.join(base, ...root.segments), kind: "well-known", depth: root.depth, pathIndex: null })]
  })
  const extra = splitList(envValue(host, "TOOL_MAP_ROOTS"), host.os)
    .filter((dir) => dir !== "")
    .map((dir) => new Root({ path: dir, kind: "extra", depth: "one-level", pathIndex: null }))
  return [...pathRoots, ...wellKnown, ...extra]
}

/** Windows executable extensions from `PATHEXT`, upper-cased, with the OS default. */
export const pathExtensions = (host: MachineEnvironmentShape): ReadonlyArray<string> =>
  host.os !== "win32"
    ? []
    : (envValue(host, "PATHEXT") ?? ".COM;.EXE;.BAT;.CMD")
        .split(";")
        .map((ext) => ext.trim().toUpperCase())
        .filter((ext) => ext.startsWith("."))
