import { FileSystem } from "@effect/platform"
import { Context, Effect, Either, Fiber, Layer, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { type BundlePaths, bundlePathsForDir, bundlePathsForRedirect, defaultDataDir } from "./bundle/location.js"
import { categorize } from "./domain/categories.js"
import {
  Diagnostic,
  HostInfo,
  Inventory,
  RootReport,
  SCHEMA_VERSION,
  Tool,
  type VersionReport,
  WatchedInput,
  WatchSet
} from "./domain/inventory.js"
import { probeNames } from "./domain/probeTable.js"
import { copiesNamed, namedCopies, winningCopy } from "./domain/toolNames.js"
import { computeRoots, envValue, pathExtensions, pathModule, RECURSIVE_DEPTH_CAP } from "./domain/roots.js"
import { redactSecrets } from "./domain/secrets.js"
import { digest, staleReason } from "./bundle/staleness.js"
import { encodeTools, type EncodedTools, renderInventoryJson } from "./render/inventoryJson.js"
import { type PreparedToolRows, prepareToolRows, renderSummary, renderToolsMarkdown } from "./render/inventoryMarkdown.js"
import { TOOL_MAP_VERSION } from "../version.js"
import { AgentHostScanner } from "./discover/AgentHostScanner.js"
import { BundleWriter, type BundleLocked, type BundleWriteError } from "./bundle/BundleWriter.js"
import { readGeneration } from "./bundle/format.js"
import { readUpTo } from "../services/fileRead.js"
import { MachineEnvironment, type MachineEnvironmentShape } from "../services/MachineEnvironment.js"
import { IdentityReader } from "./discover/IdentityReader.js"
import { ScanProgress } from "./ScanProgress.js"
import { type ProbeRequest, VersionProbe } from "./probe/VersionProbe.js"
import { Walker } from "./discover/Walker.js"

/** The redirect path given to `scan` does not name a markdown file. */
export class RedirectPathInvalid extends Schema.TaggedError<RedirectPathInvalid>()("RedirectPathInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The output path ${this.path} is not usable: ${this.reason}. Give a path ending in .md, e.g. out/inventory.md.`
  }
}

/** What `scan` was asked to do. */
export interface ScanOptions {
  /** A redirect `path/inv.md`; none writes `tools.*` to the default data dir. */
  readonly target: Option.Option<string>
  /** Do nothing when no watched input changed since the bundle was written. */
  readonly ifStale: boolean
  /** Run the version probes. */
  readonly probes: boolean
  /** Report steps through {@link ScanProgress} (off for `--json` and `--quiet`). */
  readonly progress: boolean
}

export interface ScanCounts {
  readonly tools: number
  readonly shadowed: number
  readonly pathDirs: number
  readonly roots: number
  readonly versions: number
  readonly agentHostItems: number
  readonly diagnostics: number
}

/** The outcome of `scan`: a new generation written, or a no-op with its reason. */
export type ScanOutcome =
  | {
      readonly _tag: "Written"
      readonly generation: string
      readonly paths: BundlePaths
      readonly counts: ScanCounts
      readonly durationMs: number
      /** Why an `--if-stale` scan went ahead, or null for an unconditional scan. */
      readonly reason: string | null
    }
  | {
      readonly _tag: "Skipped"
      readonly generation: string
      readonly paths: BundlePaths
      readonly durationMs: number
      readonly reason: string
    }

export type ScanError = RedirectPathInvalid | BundleWriteError | BundleLocked

/** The bundle paths of a scan: the redirect when given, else the default data dir. */
export const resolveBundlePaths = (
  host: MachineEnvironmentShape,
  target: Option.Option<string>
): Either.Either<BundlePaths, RedirectPathInvalid> =>
  Option.match(target, {
    onNone: () => Either.right(bundlePathsForDir(defaultDataDir(host.env, host.homedir))),
    onSome: (path) =>
      Either.mapLeft(bundlePathsForRedirect(path), (reason) => new RedirectPathInvalid({ path, reason }))
  })

/** Every value below is built from typed parts: skip the run-time validation of the Schema classes. */
const TYPED = { disableValidation: true } as const

/** A new generation id: sortable by time, unique by its random tail. */
const newGeneration = (now: Date): string =>
  `${now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${randomBytes(4).toString("hex")}`

/** Attaches categories, in walk order. */
const toTools = (walked: ReadonlyArray<Omit<Tool, "category">>): ReadonlyArray<Tool> =>
  walked.map((tool) => new Tool({ ...tool, category: categorize(tool.name) }, TYPED))

/**
 * The probe requests: each allow-listed name with the file the user would run by that name
 * (the PATH winner, aliases included), else the first copy under another root, else none.
 */
const probeRequests = (tools: ReadonlyArray<Tool>, pathRoots: ReadonlyArray<RootReport>, os: MachineEnvironmentShape["os"]) => {
  const copies = namedCopies(tools, pathRoots, os)
  return probeNames().map((name) => ({ name, path: winningCopy(copiesNamed(copies, name, os))?.path ?? null }))
}

/** The parts of the bundle's files rendered ahead, while the last probes run. */
interface PreparedFiles {
  readonly toolsJson: EncodedTools
  readonly toolRows: PreparedToolRows
}

/** Probes started before the walk, by name: the path each ran, and its report to come. */
type EarlyProbes = ReadonlyMap<string, { readonly path: string; readonly fiber: Fiber.Fiber<ReadonlyArray<VersionReport>> }>

/** The refresh command printed in the summary, its path quoted for the host's shell when it needs to be. */
const refreshCommand = (target: Option.Option<string>, os: MachineEnvironmentShape["os"]): string =>
  Option.match(target, {
    onNone: () => "tool-map scan --if-stale",
    onSome: (path) => `tool-map scan --if-stale ${shellQuote(path, os)}`
  })

/** `text` as one shell word: POSIX single quotes, or cmd/PowerShell double quotes on Windows. */
export const shellQuote = (text: string, os: MachineEnvironmentShape["os"]): string => {
  if (os === "win32") return /^[A-Za-z0-9_@%+=:,./\\-]+$/.test(text) ? text : `"${text.replace(/"/g, '""')}"`
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`
}

/** The current stat state of a watched path: changes when the entry's contents or metadata do. */
const inputState = (fs: FileSystem.FileSystem, path: string) =>
  fs.stat(path).pipe(
    Effect.map((info) =>
      `${info.type}:${Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => 0)}:${info.size}:${Option.getOrElse(info.ino, () => 0)}`
    ),
    Effect.catchAll((error) => Effect.succeed(error._tag === "SystemError" && error.reason === "NotFound" ? "missing" : `error:${error._tag === "SystemError" ? error.reason : "bad-argument"}`))
  )

const watchedInputs = (fs: FileSystem.FileSystem, paths: ReadonlyArray<string>) =>
  Effect.forEach([...new Set(paths)], (path) => Effect.map(inputState(fs, path), (state) => new WatchedInput({ path, state }, TYPED)), {
    concurrency: 32
  })

/**
 * The text of a bundle's tools.json, or none when there is no such file. Anything but a regular
 * file there (a FIFO would block the read forever) is refused with a reason, as is a failed read.
 */
export const readBundleJson = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Option.Option<string>, string> =>
  Effect.gen(function* () {
    const info = yield* fs.stat(path).pipe(
      Effect.map(Option.some<FileSystem.File.Info>),
      Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeed(Option.none<FileSystem.File.Info>())),
      Effect.mapError((error) => error.message)
    )
    if (Option.isNone(info)) return Option.none()
    if (info.value.type !== "File") return yield* Effect.fail(`it is not a regular file (${info.value.type.toLowerCase()})`)
    return Option.some(yield* Effect.mapError(fs.readFileString(path), (error) => error.message))
  })

/** The watch set and generation tools.json recorded, or none when it cannot be read. */
const recordedBundle = (fs: FileSystem.FileSystem, paths: BundlePaths) =>
  readBundleJson(fs, paths.json).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("no tools.json"), onSome: Effect.succeed })),
    Effect.flatMap((text) =>
      Effect.try({
        try: () => JSON.parse(text) as { readonly watch?: unknown; readonly generation?: unknown },
        catch: () => "tools.json is not valid JSON"
      })
    ),
    Effect.flatMap((parsed) =>
      Effect.map(Schema.decodeUnknown(WatchSet)(parsed.watch), (watch) => ({
        watch,
        generation: typeof parsed.generation === "string" ? parsed.generation : null
      }))
    ),
    Effect.option
  )

/** The first bytes of a bundle file: enough for its generation marker line. */
const MARKER_BYTES = 256

/**
 * Why the markdown files do not complete the bundle of `generation`, if they do not: one is
 * missing, not a regular file, or of another generation (deleted or edited since the scan).
 */
const incompleteBundle = (fs: FileSystem.FileSystem, paths: BundlePaths, generation: string | null) =>
  Effect.gen(function* () {
    for (const path of [paths.markdown, paths.summary]) {
      const info = yield* Effect.option(fs.stat(path))
      if (Option.isNone(info)) return Option.some(`${path} is missing`)
      if (info.value.type !== "File") return Option.some(`${path} is not a regular file`)
      const head = yield* Effect.scoped(Effect.flatMap(fs.open(path, { flag: "r" }), (file) => readUpTo(file, MARKER_BYTES))).pipe(
        Effect.map((bytes) => new TextDecoder().decode(bytes)),
        Effect.orElseSucceed(() => "")
      )
      const found = readGeneration(head)
      if (generation === null || found !== generation) return Option.some(`${path} is not of the generation ${paths.json} records`)
    }
    return Option.none<string>()
  })

const make = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const host = yield* MachineEnvironment
  const walker = yield* Walker
  const probe = yield* VersionProbe
  const identityReader = yield* IdentityReader
  const agentHosts = yield* AgentHostScanner
  const writer = yield* BundleWriter
  const progress = yield* ScanProgress

  const currentFingerprint = {
    toolMapVersion: TOOL_MAP_VERSION,
    pathVariable: digest(envValue(host, "PATH") ?? ""),
    extraRoots: digest(envValue(host, "TOOL_MAP_ROOTS") ?? "")
  }

  /** Why a bundle recorded with `watch` is out of date, or none when every watched input is as recorded. */
  const checkWatch = Effect.fn("ScanProgram.checkWatch")(function* (watch: WatchSet) {
    const current = yield* watchedInputs(fs, watch.inputs.map((input) => input.path))
    const states = new Map(current.map((input) => [input.path, input.state] as const))
    return staleReason(watch, { ...currentFingerprint, stateOf: (path) => states.get(path) ?? "missing" })
  })

  /**
   * Why the bundle at `paths` must be rebuilt (reading only its watch set and the markdown
   * files' first line), or none; with the generation all three files carry when none.
   */
  const staleness = (paths: BundlePaths) =>
    Effect.gen(function* () {
      const recorded = yield* recordedBundle(fs, paths)
      if (Option.isNone(recorded)) return { reason: Option.some("no readable bundle yet"), generation: null }
      const { generation, watch } = recorded.value
      const incomplete = yield* incompleteBundle(fs, paths, generation)
      if (Option.isSome(incomplete)) return { reason: incomplete, generation }
      return { reason: yield* checkWatch(watch), generation }
    })

  /** Why the bundle at `paths` must be rebuilt, or none. */
  const checkStale = Effect.fn("ScanProgram.checkStale")(function* (paths: BundlePaths) {
    return (yield* staleness(paths)).reason
  })

  /**
   * The version reports of `requests` (what the walk resolved), reusing the probes started
   * before the walk where they ran the very path the walk chose; any other name is probed now,
   * and an early probe of a file the walk did not choose is stopped (its result would not count).
   */
  const settleProbes = (early: EarlyProbes, requests: ReadonlyArray<ProbeRequest>) =>
    Effect.gen(function* () {
      const chosen = new Map(requests.map((request) => [request.name, request.path] as const))
      const ranChosen = ([name, started]: readonly [string, { readonly path: string }]) => chosen.get(name) === started.path
      const kept = [...early].filter(ranChosen)
      const discarded = [...early].filter((entry) => !ranChosen(entry))
      yield* Effect.forEach(discarded, ([, started]) => Fiber.interruptFork(started.fiber), { discard: true })
      const late = requests.filter((request) => early.get(request.name)?.path !== request.path)
      const [earlyReports, lateReports] = yield* Effect.all([
        Effect.forEach(kept, ([, started]) => Fiber.join(started.fiber), { concurrency: "unbounded" }),
        probe.probeAll(late)
      ], { concurrency: "unbounded" })
      const byName = new Map<string, VersionReport>()
      for (const report of [...earlyReports.flat(), ...lateReports]) byName.set(report.name, report)
      return requests.flatMap((request) => byName.get(request.name) ?? [])
    })

  const scanInventory = Effect.fn("ScanProgram.scanInventory")(function* (options: ScanOptions, generation: string, now: Date) {
    const step = (message: string) => (options.progress ? progress.step(message) : Effect.void)
    const roots = computeRoots(host)
    const walkOptions = { os: host.os, pathExt: pathExtensions(host), recursiveDepthCap: RECURSIVE_DEPTH_CAP, cwd: host.cwd }
    // Probes wait on process start-up and the walk on the disk: the probes of the names found
    // on PATH start first and run during the walk, which then decides which results count.
    const early: EarlyProbes = options.probes
      ? new Map(
          yield* Effect.forEach(yield* walker.resolveOnPath(roots, probeNames(), walkOptions), ([name, path]) =>
            Effect.map(Effect.forkScoped(probe.probeAll([{ name, path }])), (fiber) => [name, { path, fiber }] as const))
        )
      : new Map()
    yield* step(`walking ${roots.length} roots, probing versions and reading agent hosts`)
    const [walked, identity, hosts] = yield* Effect.all([walker.walk(roots, walkOptions), identityReader.read, agentHosts.scan], {
      concurrency: "unbounded"
    })
    const tools = toTools(walked.tools)
    yield* step(`found ${tools.length} tools; waiting for the version probes`)
    const requests = options.probes ? probeRequests(tools, walked.roots, host.os) : []
    const identityInputs = [pathModule(host.os).join(host.homedir, ".gitconfig"), pathModule(host.os).join(host.homedir, ".ssh")]
    // While the last probes run, the bulk of the files (the tools' JSON and their markdown
    // rows, which no version changes) is rendered.
    const [versions, prepared] = yield* Effect.all([
      options.probes ? settleProbes(early, requests) : Effect.succeed<ReadonlyArray<VersionReport>>([]),
      Effect.sync((): PreparedFiles => ({ toolsJson: encodeTools(tools), toolRows: prepareToolRows(tools) }))
    ], { concurrency: "unbounded" })
    // Only now, once no probe runs: a program that writes into a watched place as it starts
    // is recorded as it left it, not seen as a change by the next `--if-stale`.
    const inputs = yield* watchedInputs(fs, [
      ...walked.roots.filter((root) => root.path !== "" && (root.status === "ok" || root.status === "missing" || root.status === "not-a-directory")).map((root) => root.path),
      ...walked.directories,
      ...requests.flatMap((request) => (request.path === null ? [] : [request.path])),
      ...identityInputs,
      ...hosts.watched
    ])
    const redactRoot = (root: RootReport): RootReport => new RootReport({ ...root, path: redactSecrets(root.path) }, TYPED)
    const pathReports = walked.roots.filter((root) => root.kind === "path").map(redactRoot)
    const otherRoots = walked.roots.filter((root) => root.kind !== "path").map(redactRoot)
    const watch = new WatchSet({ ...currentFingerprint, inputs }, TYPED)
    const inventory = new Inventory({
      schemaVersion: SCHEMA_VERSION,
      generation,
      generatedAt: now.toISOString(),
      host: new HostInfo({ os: host.os, arch: host.arch, node: host.nodeVersion, toolMap: TOOL_MAP_VERSION }),
      path: pathReports,
      roots: otherRoots,
      tools,
      versions,
      identity: identity.identity,
      agentHosts: hosts.inventory,
      diagnostics: [...walked.diagnostics, ...identity.diagnostics].map((diagnostic) =>
        new Diagnostic({ ...diagnostic, message: redactSecrets(diagnostic.message) })
      ),
      watch
    }, TYPED)
    return { inventory, prepared }
  })

  /** Scans the machine and commits the bundle, or reports why nothing needed doing. */
  const run = Effect.fn("ScanProgram.run")(function* (options: ScanOptions) {
    const started = Date.now()
    const paths = yield* resolveBundlePaths(host, options.target)
    yield* writer.recover(paths)
    let reason: string | null = null
    if (options.ifStale) {
      const stale = yield* staleness(paths)
      if (Option.isNone(stale.reason)) {
        // Up to date means all three files carry the generation tools.json recorded.
        return { _tag: "Skipped", generation: stale.generation ?? "", paths, durationMs: Date.now() - started, reason: "no watched input changed since the last scan" } as const
      }
      reason = stale.reason.value
    }
    const now = new Date()
    const generation = newGeneration(now)
    const { inventory, prepared } = yield* Effect.scoped(scanInventory(options, generation, now))
    if (options.progress) yield* progress.step("writing the bundle")
    yield* writer.commit(paths, generation, {
      json: renderInventoryJson(inventory, prepared.toolsJson),
      markdown: renderToolsMarkdown(inventory, prepared.toolRows),
      summary: renderSummary(inventory, { markdown: paths.markdown, json: paths.json, refreshCommand: refreshCommand(options.target, host.os) })
    })
    if (options.progress) yield* progress.done
    const counts: ScanCounts = {
      tools: inventory.tools.length,
      shadowed: inventory.tools.filter((tool) => tool.shadowedBy !== null).length,
      pathDirs: inventory.path.length,
      roots: inventory.roots.length,
      versions: inventory.versions.filter((report) => report.status === "ok").length,
      agentHostItems: inventory.agentHosts.items.length,
      diagnostics: inventory.diagnostics.length + inventory.agentHosts.diagnostics.length
    }
    return { _tag: "Written", generation, paths, counts, durationMs: Date.now() - started, reason } as const
  })

  return { run, checkStale, checkWatch } as const
})

/** The scan of issue 2: discover → probe → classify → render → commit. The CLI and the library run this. */
export class ScanProgram extends Context.Tag("tool-map/ScanProgram")<ScanProgram, {
  readonly run: (options: ScanOptions) => Effect.Effect<ScanOutcome, ScanError>
  readonly checkStale: (paths: BundlePaths) => Effect.Effect<Option.Option<string>>
  /** The same check against a watch set already in hand (an inventory loaded for a query). */
  readonly checkWatch: (watch: WatchSet) => Effect.Effect<Option.Option<string>>
}>() {
  static readonly layer = Layer.effect(this, make)
}

