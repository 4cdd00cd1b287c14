/**
 * The machine's inventory: the scan (discover → probe → classify → render → commit), the
 * bundle it writes, the reader the queries use, the normalized agent-host items and the
 * queries over them.
 */
export { Bundle, type Staleness } from "../inventory/bundle/Bundle.js"
export { BundleWriter, type BundleFiles, RecoveryReport } from "../inventory/bundle/BundleWriter.js"
export { generationMarker, readGeneration } from "../inventory/bundle/format.js"
export { type BundlePaths, bundlePathsForDir, bundlePathsForRedirect } from "../inventory/bundle/location.js"
export { defaultDataDir } from "../inventory/domain/dataDir.js"
export {
  AgentHostsInventory,
  AgentItem,
  CommandItem,
  InstructionsItem,
  isEffective,
  McpServerItem,
  PluginItem,
  SkillItem
} from "../inventory/domain/agentHosts.js"
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
} from "../inventory/domain/inventory.js"
export type { MachineEnvironmentShape, OsFamily } from "../inventory/domain/machine.js"
export { AgentHostScanner } from "../inventory/discover/AgentHostScanner.js"
export { FrontmatterParser } from "../inventory/discover/FrontmatterParser.js"
export {
  effectiveToolNames,
  filterAgents,
  filterCommands,
  filterMcpServers,
  filterPlugins,
  filterSkills,
  isReadOnly
} from "../inventory/query/agentQueries.js"
export { exportClaudeV1 } from "../inventory/query/claudeV1.js"
export { FirstScan } from "../inventory/query/FirstScan.js"
export { InventoryReader } from "../inventory/query/InventoryReader.js"
export { type ScanCounts, type ScanError, type ScanOptions, type ScanOutcome, ScanProgram } from "../inventory/ScanProgram.js"
export { ScanProgress } from "../inventory/ScanProgress.js"
export { InventoryLayer, LazyInventoryLayer } from "../layers/CoreLayer.js"
export { MachineEnvironment } from "../services/MachineEnvironment.js"
export { TOOL_MAP_VERSION } from "../version.js"
