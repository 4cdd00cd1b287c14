import type { McpServerItem } from "./agentHosts.js"

/**
 * MCP readiness without connecting (issue 14, part 3): whether a configured server can start as
 * written. A stdio server's command must resolve (an absolute path that exists, or a name with a
 * PATH winner in the inventory: the rule of `query which`), the variables it needs from the
 * environment must be set (names only), and a package a launcher fetches should already be on
 * this machine (else the first start downloads it, which fails offline): an `npx` package in
 * npm's npx cache, a `uvx` (`uv tool run`) package installed with `uv tool install` (which uvx
 * runs without resolving it again) or unpacked in uv's cache. A script given to `node`, `python`,
 * `deno`, `bun` or `tsx` by path must exist. `docker run IMAGE` is not judged: whether the image
 * is local only the Docker daemon can tell. A remote server's URL must parse, over https unless
 * it is on this machine.
 */

/** What the rule needs to know of the machine, looked up by the caller. */
export interface ReadinessLookup {
  /** The file a command name runs (the PATH winner) and its probed version, or null when none. */
  readonly resolve: (name: string) => { readonly path: string; readonly version: string | null } | null
  /** Whether an absolute path exists. */
  readonly exists: (path: string) => boolean
  /** Whether the variable is set in the environment the host gives its servers. */
  readonly isSet: (name: string) => boolean
  /** Whether npm's npx cache holds the package, null when that cannot be told. */
  readonly npxCached: (pkg: string) => boolean | null
  /** Whether uv has the package (its normalized name) installed as a tool or in its cache, null when that cannot be told. */
  readonly uvxCached: (pkg: string) => boolean | null
  /** The probed version of the file at an absolute path, null when the scan did not probe it. */
  readonly versionAt: (path: string) => string | null
}

/** A server's readiness: the `ready` column, and the facts behind it. */
export interface McpReadiness {
  /**
   * `ok`, `first start downloads PKG` (an npx or uvx package not on this machine yet: the host
   * starts it, downloading it first), `missing command`, `missing script PATH`,
   * `missing env NAME, …`, `bad url` or `insecure url`. See {@link startsAsConfigured}.
   */
  readonly ready: string
  /** The file the command runs, null when it does not resolve (or the server is remote). */
  readonly resolvedCommand: string | null
  /** Its probed version, when the scan probed that file. */
  readonly version: string | null
  readonly missingEnv: ReadonlyArray<string>
  /** The npx package named in the arguments, null when the command is not npx. */
  readonly npxPackage: string | null
  /** The uvx package (normalized name) the arguments run, null when the command is not uvx or `uv tool run`. */
  readonly uvxPackage: string | null
  /** Whether the npx or uvx package is on this machine already (null: neither launcher, or unknown). */
  readonly cached: boolean | null
}

const LOCAL_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** npx's flags that take the next argument as their value. */
const NPX_VALUE_FLAGS: ReadonlySet<string> = new Set(["-p", "--package", "-c", "--call", "--cache", "--registry", "--userconfig"])

/** The package an `npx` command line runs (`-p`/`--package` first, else the first plain argument), without its version. */
export const npxPackage = (args: ReadonlyArray<string>): string | null => {
  const spec = launcherSpec(args, ["-p", "--package"], NPX_VALUE_FLAGS)
  if (spec === null || spec === "") return null
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0)
  return at === -1 ? spec : spec.slice(0, at)
}

/**
 * The package spec of a launcher's command line: the value of its package flag (`--flag V` or
 * `--flag=V`), else its first plain argument, skipping the values of the flags that take one.
 */
const launcherSpec = (args: ReadonlyArray<string>, packageFlags: ReadonlyArray<string>, valueFlags: ReadonlySet<string>): string | null => {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (packageFlags.includes(arg)) return args[index + 1] ?? null
    const long = packageFlags.find((flag) => flag.startsWith("--") && arg.startsWith(`${flag}=`))
    if (long !== undefined) return arg.slice(long.length + 1)
    if (valueFlags.has(arg)) {
      index += 1
      continue
    }
    if (!arg.startsWith("-")) return arg
  }
  return null
}

/** A Python package name as uv compares it (PEP 503): lower case, runs of `-`, `_` and `.` as one `-`. */
export const normalizePythonName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, "-")

/** uvx's flags that take the next argument as their value. */
const UVX_VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p", "--index", "--default-index", "--index-url", "-i",
  "--extra-index-url", "--find-links", "-f", "--cache-dir", "--directory", "--project", "--config-file", "--constraints", "-c",
  "--overrides", "--build-constraints", "-b", "--python-platform", "--exclude-newer", "--index-strategy", "--keyring-provider",
  "--resolution", "--prerelease", "--link-mode", "--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--env-file"
])

/**
 * The package a `uvx` command line runs (`--from`'s requirement first, else the first plain
 * argument, the command), as uv names it: without version (`@1.0`, `==1.0`, `>=1`), extras or
 * markers, normalized.
 */
export const uvxPackage = (args: ReadonlyArray<string>): string | null => {
  const spec = launcherSpec(args, ["--from"], UVX_VALUE_FLAGS)
  const name = spec === null ? null : /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1] ?? null
  return name === null ? null : normalizePythonName(name)
}

/** The launcher arguments of `uv tool run …` (uvx is its alias), null when the command line is not that. */
export const uvToolRunArgs = (command: string, args: ReadonlyArray<string>): ReadonlyArray<string> | null => {
  const base = baseName(command)
  if (base === "uvx") return args
  return base === "uv" && args[0] === "tool" && args[1] === "run" ? args.slice(2) : null
}

/** Runtimes whose first plain argument, when it names a script file by path, must exist. */
const SCRIPT_RUNTIME = /^(node|python(\d+(\.\d+)*)?|deno|bun|tsx)$/

/** Flags after which the runtime runs no script file named in the arguments (`python -m`, `node -e`). */
const NO_SCRIPT_FLAGS: ReadonlySet<string> = new Set(["-m", "-c", "-e", "--eval", "-p", "--print"])

/**
 * The script file a runtime is given by path (`node ./server.js`, `python /srv/mcp.py`): its
 * first plain argument when that holds a path separator and ends in .js, .mjs, .cjs, .ts, .mts,
 * .cts or .py; null otherwise (a module, inline code, a subcommand such as `deno run`).
 */
export const scriptArgument = (command: string, args: ReadonlyArray<string>): string | null => {
  if (!SCRIPT_RUNTIME.test(baseName(command)) || args.some((arg) => NO_SCRIPT_FLAGS.has(arg))) return null
  const first = args.find((arg) => !arg.startsWith("-"))
  return first !== undefined && /[/\\]/.test(first) && /\.([cm]?[jt]s|py)$/.test(first) ? first : null
}

const baseName = (command: string): string => command.slice(Math.max(command.lastIndexOf("/"), command.lastIndexOf("\\")) + 1).replace(/\.(cmd|exe|bat)$/i, "")

/** A server's readiness by the rule of the module comment. */
export const mcpReadiness = (server: McpServerItem, lookup: ReadinessLookup): McpReadiness => {
  const missingEnv = (server.requiredEnvVars ?? []).filter((name) => !lookup.isSet(name))
  const facts = { resolvedCommand: null, version: null, missingEnv, npxPackage: null, uvxPackage: null, cached: null }
  if (server.command === null) {
    if (server.url === null) return { ...facts, ready: "missing command" }
    if (!URL.canParse(server.url)) return { ...facts, ready: "bad url" }
    const url = new URL(server.url)
    const secure = url.protocol === "https:" || url.protocol === "wss:"
    const local = LOCAL_HOSTS.has(url.hostname)
    if (!secure && !local) return { ...facts, ready: "insecure url" }
    return { ...facts, ready: missingEnv.length > 0 ? `missing env ${missingEnv.join(", ")}` : "ok" }
  }
  const command = server.command
  const isPath = command.includes("/") || command.includes("\\")
  const resolved = isPath ? (lookup.exists(command) ? { path: command, version: lookup.versionAt(command) } : null) : lookup.resolve(command)
  if (resolved === null) return { ...facts, ready: "missing command" }
  const npx = baseName(command) === "npx" ? npxPackage(server.args) : null
  const uvArgs = uvToolRunArgs(command, server.args)
  const uvx = uvArgs === null ? null : uvxPackage(uvArgs)
  const cached = npx !== null ? lookup.npxCached(npx) : uvx !== null ? lookup.uvxCached(uvx) : null
  const found = { ...facts, resolvedCommand: resolved.path, version: resolved.version, npxPackage: npx, uvxPackage: uvx, cached }
  const script = scriptArgument(command, server.args)
  if (script !== null && !lookup.exists(script)) return { ...found, ready: `missing script ${script}` }
  if (missingEnv.length > 0) return { ...found, ready: `missing env ${missingEnv.join(", ")}` }
  if (cached === false) return { ...found, ready: `${FIRST_START_DOWNLOADS} ${npx ?? uvx}` }
  return { ...found, ready: "ok" }
}

const FIRST_START_DOWNLOADS = "first start downloads"

/** True when a server of this readiness starts as configured: ready, or only its package to download first. */
export const startsAsConfigured = (ready: string): boolean => ready === "ok" || ready.startsWith(`${FIRST_START_DOWNLOADS} `)
