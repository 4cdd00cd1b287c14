import type { FileSystem } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { AgentHostScanner } from "../inventory/discover/AgentHostScanner.js"
import type { AgentHostFiles } from "../inventory/discover/agentHosts/index.js"
import { FrontmatterParser } from "../inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { IdentityReader } from "../inventory/discover/IdentityReader.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"
import { ScanProgram } from "../inventory/ScanProgram.js"
import { ScanProgress } from "../inventory/ScanProgress.js"
import { VersionProbe } from "../inventory/probe/VersionProbe.js"
import { Walker } from "../inventory/discover/Walker.js"
import { PlatformLayer } from "./PlatformLayer.js"
import { BundleServicesLayer } from "./ReadLayer.js"

/** The services only a scan that actually walks uses (not a query, not a no-op `--if-stale`). */
const WalkServicesLayer = Layer.mergeAll(
  Walker.layer,
  VersionProbe.layer,
  IdentityReader.layer,
  AgentHostScanner.layer.pipe(Layer.provide(FrontmatterParser.layer))
)

/**
 * The services of the scan over their live layers, needing only the platform (FileSystem,
 * Path, CommandExecutor, and the agent-host readers' `AgentHostFiles` chosen with the file
 * system), the MachineEnvironment and the progress sink. Built once per front end.
 */
export const ScanServicesLayer = Layer.merge(WalkServicesLayer, BundleServicesLayer)

/**
 * ScanProgram (with the readers' FirstScan) and InventoryReader over the given scan services
 * (the walk services, Bundle, BundleWriter, ScanProgress), which stay in the output.
 */
export const inventoryLayerOver = <ROut, E, RIn>(services: Layer.Layer<ROut, E, RIn>) =>
  InventoryReader.layer.pipe(Layer.provideMerge(ScanProgram.layer), Layer.provideMerge(services))

/** ScanProgram and InventoryReader over the live services. */
export const InventoryLayer = inventoryLayerOver(ScanServicesLayer)

/**
 * {@link WalkServicesLayer} built the first time one of its services is used, in this layer's
 * scope: a CLI run that never walks (a query of an existing bundle, a no-op `--if-stale`) does
 * not pay for building them.
 */
const LazyWalkServicesLayer = Layer.scopedContext(
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const requirements = yield* Effect.context<MachineEnvironment | FileSystem.FileSystem | AgentHostFiles>()
    const built = yield* Effect.cached(Layer.buildWithScope(WalkServicesLayer, scope).pipe(Effect.provide(requirements)))
    const walker = Effect.map(built, Context.get(Walker))
    const probe = Effect.map(built, Context.get(VersionProbe))
    const identity = Effect.map(built, Context.get(IdentityReader))
    const agentHosts = Effect.map(built, Context.get(AgentHostScanner))
    return Context.make(
      Walker,
      Walker.of({
        walk: (roots, options) => Effect.flatMap(walker, (live) => live.walk(roots, options)),
        resolveOnPath: (roots, names, options) => Effect.flatMap(walker, (live) => live.resolveOnPath(roots, names, options))
      })
    ).pipe(
      Context.add(
        VersionProbe,
        VersionProbe.of({
          probe: (request) => Effect.flatMap(probe, (live) => live.probe(request)),
          probeAll: (requests) => Effect.flatMap(probe, (live) => live.probeAll(requests))
        })
      ),
      Context.add(IdentityReader, IdentityReader.of({ read: Effect.flatMap(identity, (live) => live.read) })),
      Context.add(AgentHostScanner, AgentHostScanner.of({ scan: Effect.flatMap(agentHosts, (live) => live.scan) }))
    )
  })
)

/**
 * ScanProgram and InventoryReader whose walk services are built on the first scan: a run or a
 * host that only reads the bundle never builds them.
 */
export const LazyInventoryLayer = inventoryLayerOver(Layer.merge(LazyWalkServicesLayer, BundleServicesLayer))

/** The whole graph for the CLI: live platform, live environment, progress on a terminal's stderr. */
export const CliLayer = LazyInventoryLayer.pipe(
  Layer.provideMerge(Layer.mergeAll(MachineEnvironment.layer, ScanProgress.layer)),
  Layer.provideMerge(PlatformLayer)
)
