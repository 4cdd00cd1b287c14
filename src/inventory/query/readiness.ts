import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import type { McpServerItem } from "../domain/agentHosts.js"
import type { Inventory } from "../domain/inventory.js"
import { envValue, pathModule, toOsFamily } from "../domain/machine.js"
import { mcpReadiness, type McpReadiness, normalizePythonName, npxPackage, scriptArgument, uvToolRunArgs, uvxPackage } from "../domain/mcpReadiness.js"
import { copiesNamed, namedCopies, pathWinner } from "../domain/toolNames.js"

/**
 * The readiness of `servers` (see `domain/mcpReadiness.ts`), by id: commands resolved against the
 * inventory's PATH (the rule of `query which`), absolute and relative paths (relative to the
 * working directory, where hosts start their servers), npm's npx cache and uv's tool dir and
 * cache looked up on the file system, variables in this environment. Never fails: what cannot be
 * looked at counts as absent, and an unreadable cache as unknown. Each cache is looked at only
 * when a server runs its launcher.
 */
export const readinessOf = (
  inventory: Inventory,
  servers: ReadonlyArray<McpServerItem>
): Effect.Effect<ReadonlyMap<string, McpReadiness>, never, FileSystem.FileSystem | MachineEnvironment> =>
  Effect.gen(function* () {
    if (servers.length === 0) return new Map<string, McpReadiness>()
    const fs = yield* FileSystem.FileSystem
    const env = yield* MachineEnvironment
    const os = toOsFamily(inventory.host.os)
    const path = pathModule(os)
    const exists = (file: string) => fs.exists(path.resolve(env.cwd, file)).pipe(Effect.orElseSucceed(() => false))

    const copies = namedCopies(inventory.tools, inventory.path, os)
    const versions = new Map(inventory.versions.flatMap((report) => (report.path === null ? [] : [[report.path, report.version] as const])))
    const resolve = (name: string) => {
      const winner = pathWinner(copiesNamed(copies, name, os))
      return winner === undefined ? null : { path: winner.path, version: versions.get(winner.path) ?? versions.get(winner.tool.path) ?? null }
    }

    const paths = [...new Set(servers.flatMap((server) => {
      if (server.command === null) return []
      const script = scriptArgument(server.command, server.args)
      return [...(/[/\\]/.test(server.command) ? [server.command] : []), ...(script === null ? [] : [script])]
    }))]
    const existing = new Set(
      (yield* Effect.forEach(paths, (file) => Effect.map(exists(file), (found) => (found ? [file] : [])), { concurrency: 16 })).flat()
    )

    // npx keeps each package it ran in `<npm cache>/_npx/<hash>/node_modules/<package>`.
    const npxRoot = path.join(envValue(env, "npm_config_cache") ?? path.join(env.homedir, ".npm"), "_npx")
    const packages = [...new Set(servers.flatMap((server) => {
      const pkg = server.command !== null && /(^|[/\\])npx(\.cmd|\.exe)?$/i.test(server.command) ? npxPackage(server.args) : null
      return pkg === null ? [] : [pkg]
    }))]
    const cache = packages.length === 0
      ? new Map<string, boolean | null>()
      : yield* fs.readDirectory(npxRoot).pipe(
          Effect.flatMap((dirs) =>
            Effect.forEach(packages, (pkg) =>
              Effect.map(
                Effect.forEach(dirs, (dir) => exists(path.join(npxRoot, dir, "node_modules", pkg, "package.json")), { concurrency: 16 }),
                (found) => [pkg, found.some((hit) => hit)] as const
              ))),
          Effect.map((entries) => new Map<string, boolean | null>(entries)),
          Effect.catchAll((error) =>
            Effect.succeed(new Map<string, boolean | null>(packages.map((pkg) => [pkg, error._tag === "SystemError" && error.reason === "NotFound" ? false : null]))))
        )

    const uvPackages = [...new Set(servers.flatMap((server) => {
      if (server.command === null) return []
      const args = uvToolRunArgs(server.command, server.args)
      const pkg = args === null ? null : uvxPackage(args)
      return pkg === null ? [] : [pkg]
    }))]
    const uvCache = uvPackages.length === 0 ? new Map<string, boolean | null>() : yield* uvCached(uvPackages, env, os, exists)

    const lookup = {
      resolve,
      exists: (file: string) => existing.has(file),
      isSet: (name: string) => (envValue(env, name) ?? "") !== "",
      npxCached: (pkg: string) => cache.get(pkg) ?? null,
      uvxCached: (pkg: string) => uvCache.get(pkg) ?? null,
      versionAt: (file: string) => versions.get(file) ?? null
    }
    return new Map(servers.map((server) => [server.id, mcpReadiness(server, lookup)] as const))
  })

/**
 * Which uvx packages uv has on this machine: installed with `uv tool install` (a dir of the
 * package's name under uv's tool dir: `$UV_TOOL_DIR`, else `$XDG_DATA_HOME/uv/tools`, else
 * `~/.local/share/uv/tools`; `%APPDATA%\\uv\\data\\tools` on Windows), or unpacked from a wheel in
 * uv's cache (`<name>-<version>.dist-info` in an entry of `archive-v0` under `$UV_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/uv`, else `~/.cache/uv`; `%LOCALAPPDATA%\\uv\\cache`). The places are uv's
 * documented storage directories; no uv was at hand to check the cache layout against.
 */
const uvCached = (
  packages: ReadonlyArray<string>,
  env: MachineEnvironment["Type"],
  os: ReturnType<typeof toOsFamily>,
  exists: (file: string) => Effect.Effect<boolean>
): Effect.Effect<ReadonlyMap<string, boolean | null>, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = pathModule(os)
    const value = (name: string) => {
      const found = envValue(env, name)
      return found === undefined || found === "" ? null : found
    }
    const toolDir = value("UV_TOOL_DIR") ??
      (os === "win32"
        ? path.join(value("APPDATA") ?? path.join(env.homedir, "AppData", "Roaming"), "uv", "data", "tools")
        : path.join(value("XDG_DATA_HOME") ?? path.join(env.homedir, ".local", "share"), "uv", "tools"))
    const cacheDir = value("UV_CACHE_DIR") ??
      (os === "win32"
        ? path.join(value("LOCALAPPDATA") ?? path.join(env.homedir, "AppData", "Local"), "uv", "cache")
        : path.join(value("XDG_CACHE_HOME") ?? path.join(env.homedir, ".cache"), "uv"))
    const installed = new Set(
      (yield* Effect.forEach(packages, (pkg) => Effect.map(exists(path.join(toolDir, pkg)), (found) => (found ? [pkg] : [])))).flat()
    )
    if (installed.size === packages.length) return new Map(packages.map((pkg) => [pkg, true] as const))
    const archive = path.join(cacheDir, "archive-v0")
    const unpacked = yield* fs.readDirectory(archive).pipe(
      Effect.flatMap((entries) =>
        Effect.forEach(entries, (entry) => Effect.orElseSucceed(fs.readDirectory(path.join(archive, entry)), () => []), { concurrency: 16 })
      ),
      Effect.map((lists) => {
        const names = new Set<string>()
        for (const list of lists) {
          for (const name of list) {
            const match = /^(.+?)-[^-]+\.dist-info$/.exec(name)
            if (match !== null) names.add(normalizePythonName(match[1]!))
          }
        }
        return names
      }),
      Effect.either
    )
    return new Map(packages.map((pkg) => {
      if (installed.has(pkg)) return [pkg, true] as const
      if (unpacked._tag === "Right") return [pkg, unpacked.right.has(pkg)] as const
      const error = unpacked.left
      return [pkg, error._tag === "SystemError" && error.reason === "NotFound" ? false : null] as const
    }))
  })
