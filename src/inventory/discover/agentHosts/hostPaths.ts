import { Effect } from "effect"
import type * as NodePath from "node:path"
import type { MachineEnvironmentShape } from "../../domain/machine.js"
import type { HostReading } from "./hostReading.js"

/** The directory, then its parents up to the root of the file system. */
export const ancestors = (path: NodePath.PlatformPath, dir: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = path.resolve(dir)
  for (;;) {
    out.push(current)
    const parent = path.dirname(current)
    if (parent === current) return out
    current = parent
  }
}

/** The working directory and its parents, without the home directory (that is user scope). */
export const projectDirs = (ctx: { readonly path: NodePath.PlatformPath; readonly env: MachineEnvironmentShape }): ReadonlyArray<string> =>
  ancestors(ctx.path, ctx.env.cwd).filter((dir) => dir !== ctx.path.resolve(ctx.env.homedir))

/**
 * The working directory and its parents up to the nearest git root (a `.git` entry), or only the
 * working directory when it is in no repository; without the home directory.
 */
export const dirsToGitRoot = (c: HostReading): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    const dirs = projectDirs(c)
    for (let index = 0; index < dirs.length; index++) {
      if (yield* c.exists(c.path.join(dirs[index]!, ".git"))) return dirs.slice(0, index + 1)
    }
    return dirs.slice(0, 1)
  })

/**
 * The working directory and its parents up to the nearest git root, or up to the root of the
 * file system when it is in no repository (opencode's worktree is `/` there); without the home
 * directory.
 */
export const dirsToWorktree = (c: HostReading): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    const dirs = projectDirs(c)
    for (let index = 0; index < dirs.length; index++) {
      if (yield* c.exists(c.path.join(dirs[index]!, ".git"))) return dirs.slice(0, index + 1)
    }
    return dirs
  })
