import { Effect, Option } from "effect"
import type * as NodePath from "node:path"
import { AgentHostDiagnostic, type AgentHostName, type AgentHostRoot, type AgentHostRootStatus, type AgentItemScope } from "../../domain/agentHosts.js"
import type { ClaudeListingModel } from "../../domain/ledger.js"
import type { MachineEnvironmentShape } from "../../domain/machine.js"
import type { FrontmatterDialect, FrontmatterFields, FrontmatterParser } from "../FrontmatterParser.js"
import type { AgentHostFiles, ConfigRead, DirEntry, FileRead, FileWalk, HostFileLimits, HostFilesScope, MarkdownRead, Probe } from "./AgentHostFiles.js"
import { ConfigObject, decodedOrNull } from "./config/decode.js"
import { type FieldRead, booleanField, integerField, stringField, toolListField } from "./frontmatterFields.js"
import { findingsBuilder, type Found, hasOwnRoot, inSharedDir } from "./findings.js"
import type { ItemDraft } from "./precedence.js"
import type { ScanMemo } from "./scanMemo.js"

/** What every host reader gets: the host files service, the host facts, the frontmatter parser. */
export interface HostReadContext {
  readonly files: AgentHostFiles["Type"]
  readonly env: MachineEnvironmentShape
  readonly parser: FrontmatterParser["Type"]
  readonly limits: HostFileLimits
  /** `node:path` for the OS of `env` (win32 rules when the environment says Windows). */
  readonly path: NodePath.PlatformPath
  /** What this scan has read already (one per scan; without it every reader reads for itself). */
  readonly memo?: ScanMemo
}

/** What one host reader returns. */
export interface HostReadResult {
  readonly host: AgentHostName
  readonly drafts: ReadonlyArray<ItemDraft>
  readonly roots: ReadonlyArray<AgentHostRoot>
  readonly diagnostics: ReadonlyArray<AgentHostDiagnostic>
  readonly watched: ReadonlyArray<string>
  /**
   * False when none of the host's own locations exists (folders it shares with other hosts, such
   * as `~/.claude/skills` for opencode, do not count); absent when the reader leaves it to the scanner.
   */
  readonly detected?: boolean
  /** Claude Code: the model the ledger assumes for the session and its skill-listing budget (issue 28). */
  readonly listing?: ClaudeListingModel
}

/**
 * One host reader's run: it reads through {@link AgentHostFiles} and folds what each read
 * returns (value and findings), with the drafts it makes, into its result. Made by the reader's
 * own function for one run and dropped with it; its state is not reachable from outside.
 */
export interface HostReading {
  readonly host: AgentHostName
  readonly ctx: HostReadContext
  readonly env: MachineEnvironmentShape
  readonly path: NodePath.PlatformPath
  readonly probe: (path: string) => Effect.Effect<Probe>
  /** True when `path` exists (any type). */
  readonly exists: (path: string) => Effect.Effect<boolean>
  readonly entryIdentity: (path: string) => Effect.Effect<Option.Option<string>>
  /** True when `path` itself is a symbolic link. */
  readonly isLink: (path: string) => Effect.Effect<boolean>
  readonly listNames: (path: string, role: string | null, assumeDirectory?: boolean) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  readonly listEach: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Option.Option<ReadonlyArray<string>>>>
  readonly listDir: (path: string, role: string | null) => Effect.Effect<Option.Option<ReadonlyArray<DirEntry>>>
  readonly filesWithExtension: (dir: string, role: string | null, recursive: boolean, extension?: string, rules?: FileWalk) => Effect.Effect<ReadonlyArray<string>>
  readonly filesNamed: (dir: string, fileName: string, options: { readonly role: string | null; readonly dot: boolean }) => Effect.Effect<ReadonlyArray<string>>
  readonly readFile: (path: string, role: string | null, maxBytes: number) => Effect.Effect<Option.Option<FileRead>>
  readonly readJson: (path: string, role: string | null, options: { readonly jsonc: boolean; readonly maxBytes?: number }) => Effect.Effect<Option.Option<ConfigRead>>
  readonly readToml: (path: string, role: string | null) => Effect.Effect<Option.Option<ConfigRead>>
  readonly readMarkdown: (path: string, dialect?: FrontmatterDialect) => Effect.Effect<Option.Option<MarkdownRead>>
  readonly readMarkdownEach: (paths: ReadonlyArray<string>, dialect?: FrontmatterDialect) => Effect.Effect<ReadonlyArray<Option.Option<MarkdownRead>>>
  readonly stringField: (fields: FrontmatterFields, key: string, path: string) => string | null
  readonly toolListField: (fields: FrontmatterFields, keys: ReadonlyArray<string>, path: string) => ReadonlyArray<string> | null
  readonly booleanField: (fields: FrontmatterFields, key: string, path: string) => boolean | null
  readonly integerField: (fields: FrontmatterFields, key: string, path: string) => number | null
  readonly add: (draft: ItemDraft) => void
  /** The drafts so far. */
  readonly drafts: () => ReadonlyArray<ItemDraft>
  /** Replaces the drafts so far by `change` of them (a rule over all of them, such as opencode's inherited switches). */
  readonly changeDrafts: (change: (drafts: ReadonlyArray<ItemDraft>) => ReadonlyArray<ItemDraft>) => void
  readonly diagnostic: (path: string | null, line: number | null, message: string) => void
  readonly root: (path: string, role: string, status: AgentHostRootStatus, reason?: string | null) => void
  readonly watch: (path: string) => void
  /** Marks a folder this host reads but shares with other hosts: it alone does not make the host detected. */
  readonly shareDir: (dir: string) => void
  /** True when a root outside the shared folders is there (see {@link hasOwnRoot}). */
  readonly hasOwnRoot: () => boolean
  readonly result: () => HostReadResult
}

/** A new {@link HostReading} of `host`. */
export const hostReading = (host: AgentHostName, ctx: HostReadContext): HostReading => {
  const found = findingsBuilder()
  const drafts: Array<ItemDraft> = []
  const sharedDirs: Array<string> = []
  const on: HostFilesScope = ctx.memo === undefined ? { path: ctx.path, limits: ctx.limits, parser: ctx.parser } : { path: ctx.path, limits: ctx.limits, parser: ctx.parser, memo: ctx.memo }
  const files = ctx.files
  const take = <A>(read: Found<A>): A => {
    found.add(read.findings)
    return read.value
  }
  const field = <A>(read: FieldRead<A>, path: string): A | null => {
    if (read.problem !== null) found.problem(path, null, read.problem)
    return read.value
  }
  const diagnosticOf = (problem: { readonly path: string | null; readonly line: number | null; readonly message: string }) =>
    new AgentHostDiagnostic({ source: `agent-hosts/${host}`, path: problem.path, line: problem.line, message: problem.message }, true)
  const probe = (path: string) => Effect.map(files.probe(on, path), take)
  return {
    host,
    ctx,
    env: ctx.env,
    path: ctx.path,
    probe,
    exists: (path) => Effect.map(probe(path), (probed) => probed._tag !== "missing" && probed._tag !== "unreadable"),
    entryIdentity: (path) => files.entryIdentity(on, path),
    isLink: (path) => files.isLink(path),
    listNames: (path, role, assumeDirectory = false) => Effect.map(files.listNames(on, path, role, assumeDirectory), take),
    listEach: (paths) => Effect.map(files.listEach(on, paths), take),
    listDir: (path, role) => Effect.map(files.listDir(on, path, role), take),
    filesWithExtension: (dir, role, recursive, extension, rules) => Effect.map(files.filesWithExtension(on, dir, role, recursive, extension, rules), take),
    filesNamed: (dir, fileName, options) => Effect.map(files.filesNamed(on, dir, fileName, options), take),
    readFile: (path, role, maxBytes) => Effect.map(files.readFile(on, path, role, maxBytes), take),
    readJson: (path, role, options) => Effect.map(files.readJson(on, path, role, options), take),
    readToml: (path, role) => Effect.map(files.readToml(on, path, role), take),
    readMarkdown: (path, dialect) => Effect.map(files.readMarkdown(on, path, dialect), take),
    readMarkdownEach: (paths, dialect) => Effect.map(files.readMarkdownEach(on, paths, dialect), take),
    stringField: (fields, key, path) => field(stringField(fields, key), path),
    toolListField: (fields, keys, path) => field(toolListField(fields, keys), path),
    booleanField: (fields, key, path) => field(booleanField(fields, key), path),
    integerField: (fields, key, path) => field(integerField(fields, key), path),
    add: (draft) => {
      drafts.push(draft)
    },
    drafts: () => [...drafts],
    changeDrafts: (change) => {
      drafts.splice(0, drafts.length, ...change([...drafts]))
    },
    diagnostic: found.problem,
    root: found.root,
    watch: found.watch,
    shareDir: (dir) => {
      sharedDirs.push(dir)
    },
    hasOwnRoot: () => hasOwnRoot(ctx.path, found.done().roots, sharedDirs),
    result: () => readResult(host, ctx.path, { ...found.done(), drafts }, sharedDirs, diagnosticOf)
  }
}

/**
 * A reader's result from what it found. A host that is not there (no root outside the folders it
 * shares) loads nothing, not even what sits in those shared folders.
 */
const readResult = (
  host: AgentHostName,
  path: NodePath.PlatformPath,
  found: {
    readonly drafts: ReadonlyArray<ItemDraft>
    readonly roots: ReadonlyArray<AgentHostRoot>
    readonly problems: ReadonlyArray<{ readonly path: string | null; readonly line: number | null; readonly message: string }>
    readonly watched: ReadonlyArray<string>
  },
  sharedDirs: ReadonlyArray<string>,
  diagnosticOf: (problem: { readonly path: string | null; readonly line: number | null; readonly message: string }) => AgentHostDiagnostic
): HostReadResult => {
  const read = { host, drafts: [...found.drafts], roots: found.roots, diagnostics: found.problems.map(diagnosticOf), watched: found.watched }
  if (sharedDirs.length === 0 || hasOwnRoot(path, found.roots, sharedDirs)) return read
  return {
    ...read,
    drafts: read.drafts.filter((draft) => !inSharedDir(path, sharedDirs, draft.fields.path)),
    diagnostics: read.diagnostics.filter((diagnostic) => !inSharedDir(path, sharedDirs, diagnostic.path)),
    detected: false
  }
}

/** A config file that holds a JSON object, with its scope and precedence rank. */
export interface ConfigFile {
  readonly file: FileRead
  readonly scope: AgentItemScope
  readonly rank: number
  readonly value: Readonly<Record<string, unknown>>
}

/**
 * Reads JSONC config files in order and keeps those that hold an object; any other value is a
 * diagnostic naming the file as `kind`. A file whose absence is not recorded is read only when
 * it exists.
 */
export const readConfigFiles = (
  c: HostReading,
  candidates: ReadonlyArray<readonly [path: string, scope: AgentItemScope, rank: number, role: string, recordMissing: boolean]>,
  kind: string
): Effect.Effect<ReadonlyArray<ConfigFile>> =>
  Effect.gen(function* () {
    const configs: Array<ConfigFile> = []
    for (const [file, scope, rank, role, recordMissing] of candidates) {
      if (!recordMissing && !(yield* c.exists(file))) continue
      const json = yield* c.readJson(file, role, { jsonc: true })
      if (Option.isNone(json)) continue
      const value = decodedOrNull(ConfigObject, file, json.value.value)
      if (value === null) c.diagnostic(file, null, `${kind} is not a JSON object; ignored`)
      else configs.push({ file: json.value.file, scope, rank, value })
    }
    return configs
  })
