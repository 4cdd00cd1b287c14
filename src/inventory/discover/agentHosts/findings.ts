import type * as NodePath from "node:path"
import { AgentHostRoot, type AgentHostRootStatus } from "../../domain/agentHosts.js"

/** A problem met in one file (or folder): its path, its line when known, and what is wrong. */
export interface FileProblem {
  readonly path: string | null
  readonly line: number | null
  readonly message: string
}

/**
 * What reading a place found besides its value: the roots looked at, the problems met, and the
 * paths watched for `--if-stale` (each once). Each read returns its own; a reader combines them in the order
 * it read, so the outcome does not depend on which concurrent read ends first.
 */
export interface HostFindings {
  readonly roots: ReadonlyArray<AgentHostRoot>
  readonly problems: ReadonlyArray<FileProblem>
  readonly watched: ReadonlyArray<string>
}

/** A value read, with what reading it found. */
export interface Found<A> {
  readonly value: A
  readonly findings: HostFindings
}

/** Nothing found. */
export const emptyFindings: HostFindings = { roots: [], problems: [], watched: [] }

/** `first`'s findings, then `second`'s. */
export const combineFindings = (first: HostFindings, second: HostFindings): HostFindings =>
  second === emptyFindings
    ? first
    : first === emptyFindings
    ? second
    : { roots: [...first.roots, ...second.roots], problems: [...first.problems, ...second.problems], watched: [...first.watched, ...second.watched] }

/**
 * Gathers the findings of one read in the order they are met; made and emptied inside one
 * function (a read of the service, a host reader), never kept in shared state.
 */
export interface FindingsBuilder {
  readonly root: (path: string, role: string, status: AgentHostRootStatus, reason?: string | null) => void
  /** Records `path` with `role` anew as `status`: a file read as ok that fails to parse becomes invalid. */
  readonly replaceRoot: (path: string, role: string, status: AgentHostRootStatus, reason: string | null) => void
  readonly problem: (path: string | null, line: number | null, message: string) => void
  readonly watch: (path: string) => void
  readonly add: (findings: HostFindings) => void
  readonly done: () => HostFindings
}

/** A new {@link FindingsBuilder}. */
export const findingsBuilder = (): FindingsBuilder => {
  const roots: Array<AgentHostRoot> = []
  const problems: Array<FileProblem> = []
  // A path is watched once, however often it is looked at (a checked read probes, then reads).
  const watched = new Set<string>()
  const root = (path: string, role: string, status: AgentHostRootStatus, reason: string | null = null) => {
    roots.push(new AgentHostRoot({ path, role, status, reason }, true))
  }
  return {
    root,
    replaceRoot: (path, role, status, reason) => {
      const index = roots.findIndex((known) => known.path === path && known.role === role)
      if (index !== -1) roots.splice(index, 1)
      root(path, role, status, reason)
    },
    problem: (path, line, message) => {
      problems.push({ path, line, message })
    },
    watch: (path) => {
      watched.add(path)
    },
    add: (findings) => {
      if (findings === emptyFindings) return
      for (const known of findings.roots) roots.push(known)
      for (const known of findings.problems) problems.push(known)
      for (const path of findings.watched) watched.add(path)
    },
    done: () => (roots.length === 0 && problems.length === 0 && watched.size === 0 ? emptyFindings : { roots: [...roots], problems: [...problems], watched: [...watched] })
  }
}

/** True when `path` is one of `dirs` or inside one. */
export const inSharedDir = (path: NodePath.PlatformPath, dirs: ReadonlyArray<string>, at: string | null): boolean =>
  at !== null && dirs.some((dir) => at === dir || at.startsWith(`${dir}${path.sep}`))

/**
 * True when a root outside the folders a host shares with other hosts (`~/.agents/skills`,
 * `~/.claude/skills` for opencode) is there: the host is, and what it reads from shared folders counts.
 */
export const hasOwnRoot = (path: NodePath.PlatformPath, roots: ReadonlyArray<AgentHostRoot>, sharedDirs: ReadonlyArray<string>): boolean =>
  roots.some((root) => root.status !== "missing" && !inSharedDir(path, sharedDirs, root.path))
