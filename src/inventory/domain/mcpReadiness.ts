import type { McpServerItem } from "./agentHosts.js"

/**
 * MCP readiness without connecting (issue 14, part 3): whether a configured server can start as
 * written. A stdio server's command must resolve (an absolute path that exists, or a name with a
 * PATH winner in the inventory: the rule of `query which`), the variables it needs from the
 * environment must be set (names only), and an `npx` package should already be in npm's cache
 * (else the first start downloads it, which fails offline). A remote server's URL must parse,
 * over https unless it is on this machine.
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
}

/** A server's readiness: the `ready` column, and the facts behind it. */
export interface McpReadiness {
  /** `ok`, `missing command`, `missing env NAME, …`, `not cached`, `bad url` or `insecure url`. */
  readonly ready: string
  /** The file the command runs, null when it does not resolve (or the server is remote). */
  readonly resolvedCommand: string | null
  /** Its probed version, when the scan probed that file. */
  readonly version: string | null
  readonly missingEnv: ReadonlyArray<string>
  /** The npx package named in the arguments, null when the command is not npx. */
  readonly npxPackage: string | null
  /** Whether that package is in npm's cache (null: not npx, or unknown). */
  readonly cached: boolean | null
}

const LOCAL_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** npx's flags that take the next argument as their value. */
const NPX_VALUE_FLAGS: ReadonlySet<string> = new Set(["-p", "--package", "-c", "--call", "--cache", "--registry", "--userconfig"])

/** The package an `npx` command line runs (`-p`/`--package` first, else the first plain argument), without its version. */
export const npxPackage = (args: ReadonlyArray<string>): string | null => {
  let spec: string | null = null
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === "-p" || arg === "--package") {
      spec = args[index + 1] ?? null
      break
    }
    if (arg.startsWith("--package=")) {
      spec = arg.slice("--package=".length)
      break
    }
    if (NPX_VALUE_FLAGS.has(arg)) {
      index += 1
      continue
    }
    if (arg.startsWith("-")) continue
    spec = arg
    break
  }
  if (spec === null || spec === "") return null
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0)
  return at === -1 ? spec : spec.slice(0, at)
}

const baseName = (command: string): string => command.slice(Math.max(command.lastIndexOf("/"), command.lastIndexOf("\\")) + 1).replace(/\.(cmd|exe|bat)$/i, "")

/** A server's readiness by the rule of the module comment. */
export const mcpReadiness = (server: McpServerItem, lookup: ReadinessLookup): McpReadiness => {
  const missingEnv = (server.requiredEnvVars ?? []).filter((name) => !lookup.isSet(name))
  const facts = { resolvedCommand: null, version: null, missingEnv, npxPackage: null, cached: null }
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
  const resolved = isPath ? (lookup.exists(command) ? { path: command, version: null } : null) : lookup.resolve(command)
  if (resolved === null) return { ...facts, ready: "missing command" }
  const pkg = baseName(command) === "npx" ? npxPackage(server.args) : null
  const cached = pkg === null ? null : lookup.npxCached(pkg)
  const found = { ...facts, resolvedCommand: resolved.path, version: resolved.version, npxPackage: pkg, cached }
  if (missingEnv.length > 0) return { ...found, ready: `missing env ${missingEnv.join(", ")}` }
  if (cached === false) return { ...found, ready: "not cached" }
  return { ...found, ready: "ok" }
}
