/** tool-map as a library: the same program graph as the CLI, for host plugins. */
export { AgentHostsInventory } from "./domain/agentHosts.js"
export { type BundlePaths, bundlePathsForDir, bundlePathsForRedirect, defaultDataDir } from "./domain/bundlePaths.js"
export { BundleReadError } from "./domain/errors.js"
export {
  Diagnostic,
  HostInfo,
  Identity,
  Inventory,
  InventoryFromJson,
  Root,
  RootReport,
  SCHEMA_VERSION,
  Tool,
  VersionReport,
  WatchSet
} from "./domain/inventory.js"
export { CliLayer, EmbeddedInventoryLayer, InventoryLayer, ScanServicesLayer } from "./layers/CoreLayer.js"
export { HostEnvironment, type HostEnvironmentShape, type OsFamily } from "./services/HostEnvironment.js"
export { InventoryStore } from "./services/InventoryStore.js"
export {
  RedirectPathInvalid,
  type ScanCounts,
  type ScanError,
  type ScanOptions,
  type ScanOutcome,
  ScanProgram
} from "./services/ScanProgram.js"
export { ScanProgress } from "./services/ScanProgress.js"
export { TOOL_MAP_VERSION } from "./version.js"
