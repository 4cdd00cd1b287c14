import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import type { McpServerItem } from "../domain/agentHosts.js"
import type { Inventory } from "../domain/inventory.js"
import { toOsFamily } from "../domain/machine.js"
import { mcpReadiness, type McpReadiness, npxPackage } from "../domain/mcpReadiness.js"
import { envValue, pathModule } from "../domain/roots.js"
import { copiesNamed, namedCopies, pathWinner } from "../domain/toolNames.js"

/**
 * The readiness of `servers` (see `domain/mcpReadiness.ts`), by id: commands resolved against the
 * inventory's PATH (the rule of `query which`), absolute and relative paths (relative to the
 * working directory, where hosts start their servers) and npm's npx cache looked up on the file
 * system, variables in this environment. Never fails: what cannot be looked at counts as absent,
 * and an unreadable npx cache as unknown.
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

    const paths = [...new Set(servers.flatMap((server) => (server.command !== null && /[/\\]/.test(server.command) ? [server.command] : [])))]
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

    const lookup = {
      resolve,
      exists: (file: string) => existing.has(file),
      isSet: (name: string) => (envValue(env, name) ?? "") !== "",
      npxCached: (pkg: string) => cache.get(pkg) ?? null
    }
    return new Map(servers.map((server) => [server.id, mcpReadiness(server, lookup)] as const))
  })
