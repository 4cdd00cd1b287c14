import { Schema } from "effect"
import { AgentHostsInventory } from "./agentHosts.js"
import { GenerationDigest } from "./drift.js"
import { WatchSet } from "./watch.js"

// The watch set lives in watch.ts: `--if-stale` reads it without building the classes below.
export { WatchedInput, WatchSet } from "./watch.js"

/** Bumped whenever the shape of `tools.json` changes incompatibly. */
export const SCHEMA_VERSION = 1 as const

/** Where a root came from: a `$PATH` entry, a well-known location, or `TOOL_MAP_ROOTS`. */
export const RootKind = Schema.Literal("path", "well-known", "extra")
export type RootKind = typeof RootKind.Type

/** What the walk found at a root. */
export const RootStatus = Schema.Literal(
  "ok",
  "missing",
  "unreadable",
  "not-a-directory",
  "duplicate",
  "empty",
  "relative"
)
export type RootStatus = typeof RootStatus.Type

/** How deep a root is read: bin-style dirs one level, agent homes recursively with a cap. */
export const RootDepth = Schema.Literal("one-level", "recursive")
export type RootDepth = typeof RootDepth.Type

/** A directory the walker was asked to read, in walk order. */
export class Root extends Schema.Class<Root>("Root")({
  /** The path as given (a PATH entry may be relative or empty: kept verbatim). */
  path: Schema.String,
  kind: RootKind,
  depth: RootDepth,
  /** Index in `$PATH` for `kind: "path"`, else null. */
  pathIndex: Schema.NullOr(Schema.Number)
}) {}

/** A root with the outcome of reading it. */
export class RootReport extends Schema.Class<RootReport>("RootReport")({
  path: Schema.String,
  kind: RootKind,
  depth: RootDepth,
  pathIndex: Schema.NullOr(Schema.Number),
  status: RootStatus,
  /** Why the status is not ok (an errno code such as EACCES, or a short sentence). */
  reason: Schema.NullOr(Schema.String),
  /** How many tools this root contributed (after dedupe). */
  toolCount: Schema.Number
}) {}

/**
 * A command name found by the walk and the file it runs: every name the shell can call is a
 * record of its own, even when several names are links to, or hard links of, one file.
 */
export class Tool extends Schema.Class<Tool>("Tool")({
  name: Schema.String,
  /** Absolute path where it was found (the link itself when it is a link). */
  path: Schema.String,
  /** The resolved real path when `path` is or goes through a symlink, else null. */
  linkTarget: Schema.NullOr(Schema.String),
  size: Schema.Number,
  /** Modification time, ISO 8601 UTC. */
  mtime: Schema.String,
  /** The root (as listed in `roots`) it was found under. */
  root: Schema.String,
  rootKind: RootKind,
  /** Index of its dir in `$PATH`, or null when it came from another root. */
  pathIndex: Schema.NullOr(Schema.Number),
  /** Path of the earlier PATH entry with the same name that wins over this one, or null. */
  shadowedBy: Schema.NullOr(Schema.String),
  /**
   * Other paths at which the same name reaches the very same file (device + inode): a later
   * PATH dir holding it too, a dir alias (`/bin` -> `usr/bin`). (Bundles written before names
   * had records of their own also list other names of the file here.)
   */
  alsoAt: Schema.Array(Schema.String),
  /**
   * The `path`s of the other records of the very same file (device + inode): its other names
   * (`rustc` and `rustup`, `python3` and `python3.12`). Absent in bundles written before it was
   * recorded, which stay readable: the field is an addition, not a change of `schemaVersion`.
   */
  sameFileAs: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  category: Schema.String
}) {}

/** The outcome of a version probe. */
export const ProbeStatus = Schema.Literal("ok", "missing", "timeout", "error", "refused")
export type ProbeStatus = typeof ProbeStatus.Type

/** One version probe of the scan: the name, the file run (or read), what it said and how it ended. */
export class VersionReport extends Schema.Class<VersionReport>("VersionReport")({
  name: Schema.String,
  version: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  status: ProbeStatus,
  durationMs: Schema.Number,
  /** A short reason for a status other than ok (never output of the probe beyond the cap). */
  detail: Schema.NullOr(Schema.String)
}) {}

/** Identity facts: git user name and email, and the file NAMES in `~/.ssh` (never contents). */
export class Identity extends Schema.Class<Identity>("Identity")({
  gitUserName: Schema.NullOr(Schema.String),
  gitUserEmail: Schema.NullOr(Schema.String),
  sshFiles: Schema.Array(Schema.String)
}) {}

/** A problem met during the scan that did not stop it. */
export class Diagnostic extends Schema.Class<Diagnostic>("Diagnostic")({
  source: Schema.String,
  path: Schema.NullOr(Schema.String),
  line: Schema.NullOr(Schema.Number),
  message: Schema.String
}) {}

/** The machine the bundle was written on: OS, architecture, Node and tool-map versions. */
export class HostInfo extends Schema.Class<HostInfo>("HostInfo")({
  os: Schema.String,
  arch: Schema.String,
  node: Schema.String,
  toolMap: Schema.String
}) {}

/** The whole of `tools.json`. */
export class Inventory extends Schema.Class<Inventory>("Inventory")({
  schemaVersion: Schema.Literal(SCHEMA_VERSION),
  generation: Schema.String,
  generatedAt: Schema.String,
  host: HostInfo,
  path: Schema.Array(RootReport),
  roots: Schema.Array(RootReport),
  tools: Schema.Array(Tool),
  versions: Schema.Array(VersionReport),
  identity: Identity,
  agentHosts: AgentHostsInventory,
  diagnostics: Schema.Array(Diagnostic),
  watch: WatchSet,
  /**
   * The digest of the generation this one replaced (issue 14): a scan sets it on the inventory it
   * renders (the summary's `Changed since last scan`), not in tools.json; `query changes` reads the
   * bundle's history (`tools.history.json`). tools.json of the oldest bundles carries it here.
   * Absent after a first scan.
   */
  previous: Schema.optionalWith(GenerationDigest, { exact: true })
}) {}

/** Parse `tools.json` text into an Inventory (the same Schema that wrote it). */
export const InventoryFromJson = Schema.parseJson(Inventory)
