import { FileSystem } from "@effect/platform"
import { Clock, Context, Effect, Either, Fiber, Layer, Option } from "effect"
import { type BundlePaths, refreshCommand } from "./bundle/location.js"
import { newGeneration } from "./bundle/format.js"
import { categorize } from "./domain/categories.js"
import {
  HostInfo,
  Inventory,
  RootReport,
  SCHEMA_VERSION,
  Tool,
  type VersionReport
} from "./domain/inventory.js"
import { isEffective } from "./domain/agentHosts.js"
import { changesBetween, describeChangeCounts, digestOf } from "./domain/drift.js"
import { probeNames } from "./domain/probeTable.js"
import { copiesNamed, namedCopies, winningCopy } from "./domain/toolNames.js"
import { computeRoots, pathExtensions, RECURSIVE_DEPTH_CAP } from "./domain/roots.js"
import { cleanInventory, cleanTools } from "./domain/cleanInventory.js"
import { encodeTools, type EncodedTools, renderInventoryJson } from "./render/inventoryJson.js"
import { renderWhichIndexOf } from "./bundle/whichIndex.js"
import { type PreparedToolRows, prepareToolRows, renderSummary, renderToolsMarkdown } from "./render/inventoryMarkdown.js"
import { TOOL_MAP_VERSION } from "../version.js"
import { AgentHostScanner } from "./discover/AgentHostScanner.js"
import { Bundle } from "./bundle/Bundle.js"
import { historyOfCommit, priorGeneration, removeLegacyDigest } from "./bundle/history.js"
import { BundleWriter, type BundleLocked, type BundleWriteError } from "./bundle/BundleWriter.js"
import { checkIfStale, type ScanSkipped } from "./bundle/ifStale.js"
import type { RedirectPathInvalid } from "./bundle/errors.js"
import type { MachineEnvironmentShape } from "./domain/machine.js"
import { forEachSliced, yieldToEventLoop } from "../services/eventLoop.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { IdentityReader } from "./discover/IdentityReader.js"
import { FirstScan } from "./query/FirstScan.js"
import { readinessOf } from "./query/readiness.js"
import { ScanProgress } from "./ScanProgress.js"
import { type ProbeRequest, VersionProbe } from "./probe/VersionProbe.js"
import { pyenvVersionFiles } from "./probe/pyenvShim.js"
import { Walker } from "./discover/Walker.js"

/** The redirect path given to `scan` does not name a markdown file (defined with the bundle's location). */

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

/** How much a scan found, for its report. */
export interface ScanCounts {
  readonly tools: number
  readonly shadowed: number
  readonly pathDirs: number
  readonly roots: number
  readonly versions: number
  readonly agentHostItems: number
  readonly diagnostics: number
}

/** What changed since the generation a scan replaced (issue 14), for its report. */
export interface ScanChanges {
  /** The generation compared with. */
  readonly since: string
  readonly count: number
  /** The counts in words (`1 MCP server added, 3 tools added`), or null when nothing changed. */
  readonly summary: string | null
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
      /** What changed since the bundle it replaced, or null when there was none (or it was unreadable). */
      readonly changes: ScanChanges | null
    }
  | ScanSkipped

/** Why a scan wrote nothing: an unusable redirect path, a failed commit, or another scan holding the lock. */
export type ScanError = RedirectPathInvalid | BundleWriteError | BundleLocked

/** Every value below is built from typed parts: skip the run-time validation of the Schema classes. */
const TYPED = { disableValidation: true } as const

/** Attaches categories, in walk order, letting the event loop run every 50 ms (a PATH of 150,000 files takes a second). */
const toTools = (walked: ReadonlyArray<Omit<Tool, "category">>): Effect.Effect<ReadonlyArray<Tool>> =>
  Effect.suspend(() => {
    const tools: Array<Tool> = []
    return Effect.as(forEachSliced(walked, (tool) => {
      tools.push(new Tool({ ...tool, category: categorize(tool.name) }, TYPED))
    }), tools)
  })

/**
 * The probe requests: each allow-listed name with the file the user would run by that name
 * (the PATH winner, aliases included), else the first copy under another root, else none.
 */
const probeRequests = (tools: ReadonlyArray<Tool>, pathRoots: ReadonlyArray<RootReport>, os: MachineEnvironmentShape["os"], since: number): Array<ProbeRequest> => {
  const copies = namedCopies(tools, pathRoots, os)
  return probeNames().map((name) => ({ name, path: winningCopy(copiesNamed(copies, name, os))?.path ?? null, since }))
}

/** The parts of the bundle's files rendered ahead, while the last probes run. */
interface PreparedFiles {
  readonly toolsJson: EncodedTools
  readonly toolRows: PreparedToolRows
}

/** Probes started before the walk, by name: the path each ran, and its report to come. */
type EarlyProbes = ReadonlyMap<string, { readonly path: string; readonly fiber: Fiber.Fiber<ReadonlyArray<VersionReport>> }>

const make = Effect.gen(function* () {
  const host = yield* MachineEnvironment
  const bundle = yield* Bundle
  const walker = yield* Walker
  const probe = yield* VersionProbe
  const identityReader = yield* IdentityReader
  const agentHosts = yield* AgentHostScanner
  const writer = yield* BundleWriter
  const progress = yield* ScanProgress
  const fs = yield* FileSystem.FileSystem

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
    // The probes of this scan share one timeout, from now: together they end within about it.
    const since = yield* Clock.currentTimeMillis
    const early: EarlyProbes = options.probes
      ? new Map(
          yield* Effect.forEach(yield* walker.resolveOnPath(roots, probeNames(), walkOptions), ([name, path]) =>
            Effect.map(Effect.forkScoped(probe.probeAll([{ name, path, since }])), (fiber) => [name, { path, fiber }] as const))
        )
      : new Map()
    yield* step(`walking ${roots.length} roots, probing versions and reading agent hosts`)
    const [walked, identity, hosts] = yield* Effect.all([walker.walk(roots, walkOptions), identityReader.read, agentHosts.scan], {
      concurrency: "unbounded"
    })
    // The boundary: from here on, every string read from the machine is cleaned (the tools
    // first, as the bulk of the files is rendered from them ahead).
    // Between the long synchronous steps the event loop runs, so SIGTERM is seen within one.
    const tools = cleanTools(yield* toTools(walked.tools))
    yield* yieldToEventLoop
    yield* step(`found ${tools.length} tools; waiting for the version probes`)
    const requests = options.probes ? probeRequests(tools, walked.roots, host.os, since) : []
    const identityInputs = identity.watched
    // While the last probes run, the bulk of the files (the tools' JSON and their markdown
    // rows, which no version changes) is rendered.
    const [versions, prepared] = yield* Effect.all([
      options.probes ? settleProbes(early, requests) : Effect.succeed<ReadonlyArray<VersionReport>>([]),
      Effect.gen(function* () {
        const toolsJson = encodeTools(tools)
        yield* yieldToEventLoop
        return { toolsJson, toolRows: prepareToolRows(tools) } satisfies PreparedFiles
      })
    ], { concurrency: "unbounded" })
    // What a pyenv shim runs is chosen by pyenv's version files: a change of them is a change.
    const pyenvFiles = yield* Effect.forEach(requests, (request) =>
      request.path === null ? Effect.succeed([]) : pyenvVersionFiles(fs, host, request.path))
    // Only now, once no probe runs: a program that writes into a watched place as it starts
    // is recorded as it left it, not seen as a change by the next `--if-stale`.
    const watch = yield* bundle.snapshot([
      ...walked.roots.filter((root) => root.path !== "" && (root.status === "ok" || root.status === "missing" || root.status === "not-a-directory")).map((root) => root.path),
      ...walked.directories,
      ...requests.flatMap((request) => (request.path === null ? [] : [request.path])),
      ...pyenvFiles.flat(),
      ...identityInputs,
      ...hosts.watched
    ])
    const inventory = cleanInventory(new Inventory({
      schemaVersion: SCHEMA_VERSION,
      generation,
      generatedAt: now.toISOString(),
      host: new HostInfo({ os: host.os, arch: host.arch, node: host.nodeVersion, toolMap: TOOL_MAP_VERSION }),
      path: walked.roots.filter((root) => root.kind === "path"),
      roots: walked.roots.filter((root) => root.kind !== "path"),
      tools,
      versions,
      identity: identity.identity,
      agentHosts: hosts.inventory,
      diagnostics: [...walked.diagnostics, ...identity.diagnostics],
      watch
    }, TYPED))
    return { inventory, prepared }
  })

  /** Scans the machine and commits the bundle, or reports why nothing needed doing. */
  const run = Effect.fn("ScanProgram.run")(function* (options: ScanOptions) {
    const started = Date.now()
    const paths = yield* bundle.locate(options.target)
    let reason: string | null = null
    if (options.ifStale) {
      const checked = yield* checkIfStale(paths, started).pipe(Effect.provideService(Bundle, bundle), Effect.provideService(BundleWriter, writer))
      if (Either.isLeft(checked)) return checked.left
      reason = checked.right
    } else {
      yield* writer.recover(paths)
    }
    const now = new Date()
    const generation = newGeneration(now)
    // The generation being replaced is read while the machine is scanned: the summary's changes are counted from its digest.
    const [scanned, prior] = yield* Effect.all([Effect.scoped(scanInventory(options, generation, now)), priorGeneration(paths)], {
      concurrency: "unbounded"
    }).pipe(Effect.provideService(FileSystem.FileSystem, fs))
    const { prepared } = scanned
    const previous = prior.digest
    const digest = digestOf(scanned.inventory)
    const inventory = Option.match(previous, {
      onNone: () => scanned.inventory,
      onSome: (digest) => new Inventory({ ...scanned.inventory, previous: digest }, TYPED)
    })
    const changes = Option.getOrNull(Option.map(previous, (before): ScanChanges => {
      const found = changesBetween(before, digest)
      return { since: before.generation, count: found.count, summary: describeChangeCounts(found) }
    }))
    if (options.progress) yield* progress.step("writing the bundle")
    yield* yieldToEventLoop
    // The history goes to a file of its own, which only `query changes` and the next scan read.
    const json = renderInventoryJson(scanned.inventory, prepared.toolsJson)
    yield* yieldToEventLoop
    const markdown = renderToolsMarkdown(inventory, prepared.toolRows)
    yield* yieldToEventLoop
    // The summary counts the MCP servers that will not start in the environment of this scan.
    const servers = inventory.agentHosts.items.flatMap((item) => (item.kind === "mcpServer" && isEffective(item) ? [item] : []))
    const readiness = yield* readinessOf(inventory, servers).pipe(
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.provideService(MachineEnvironment, host)
    )
    const summary = renderSummary(
      inventory,
      { markdown: paths.markdown, json: paths.json, refreshCommand: refreshCommand(options.target, host.os) },
      changes === null ? { readiness } : { readiness, changes: changes.summary }
    )
    // tools.json encodes the cleaned scanned inventory: its which index is rendered from it, not parsed back.
    const which = renderWhichIndexOf(json, scanned.inventory)
    // The history is extended under the bundle's lock, from the one in place.
    yield* writer.commit(paths, generation, { json, markdown, summary, which, history: historyOfCommit(paths, prior, digest) })
    yield* removeLegacyDigest(paths).pipe(Effect.provideService(FileSystem.FileSystem, fs))
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
    return { _tag: "Written", generation, paths, counts, durationMs: Date.now() - started, reason, changes } as const
  })

  return { run } as const
})

/**
 * The scan of issue 2: discover → probe → classify → render → commit. The CLI and the library
 * run this; its layer also provides the readers' {@link FirstScan}.
 */
export class ScanProgram extends Context.Tag("tool-map/ScanProgram")<ScanProgram, {
  readonly run: (options: ScanOptions) => Effect.Effect<ScanOutcome, ScanError>
}>() {
  /** The scanner, and the first scan of a reader that finds no bundle (probes on, progress shown). */
  static readonly layer = Layer.effectContext(
    Effect.map(make, (scanner) =>
      Context.make(ScanProgram, scanner).pipe(
        Context.add(FirstScan, FirstScan.of({
          run: (target) => Effect.asVoid(scanner.run({ target, ifStale: false, probes: true, progress: true }))
        }))
      ))
  )
}
