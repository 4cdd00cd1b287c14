import { Layer } from "effect"
import { AgentHostScanner } from "../services/AgentHostScanner.js"
import { BundleWriter } from "../services/BundleWriter.js"
import { FrontmatterParser } from "../services/FrontmatterParser.js"
import { HostEnvironment } from "../services/HostEnvironment.js"
import { IdentityReader } from "../services/IdentityReader.js"
import { InventoryStore } from "../services/InventoryStore.js"
import { ScanProgram } from "../services/ScanProgram.js"
import { ScanProgress } from "../services/ScanProgress.js"
import { VersionProbe } from "../services/VersionProbe.js"
import { Walker } from "../services/Walker.js"
import { PlatformLayer } from "./PlatformLayer.js"

/**
 * The services of the scan over their live layers, needing only the platform (FileSystem,
 * Path, CommandExecutor), the HostEnvironment and the progress sink. Built once per front end.
 */
export const ScanServicesLayer = Layer.mergeAll(
  Walker.layer,
  VersionProbe.layer,
  IdentityReader.layer,
  AgentHostScanner.layer.pipe(Layer.provide(FrontmatterParser.layer)),
  BundleWriter.layer
)

/** ScanProgram and InventoryStore over the live services. */
export const InventoryLayer = InventoryStore.layer.pipe(
  Layer.provideMerge(ScanProgram.layer),
  Layer.provideMerge(ScanServicesLayer)
)

/** The whole graph for the CLI: live platform, live environment, progress on a terminal's stderr. */
export const CliLayer = InventoryLayer.pipe(
  Layer.provideMerge(Layer.mergeAll(HostEnvironment.layer, ScanProgress.layer)),
  Layer.provideMerge(PlatformLayer)
)

/** The inventory graph for embedding: live platform and environment, no progress output. */
export const EmbeddedInventoryLayer = InventoryLayer.pipe(
  Layer.provideMerge(Layer.mergeAll(HostEnvironment.layer, ScanProgress.silent)),
  Layer.provideMerge(PlatformLayer)
)
