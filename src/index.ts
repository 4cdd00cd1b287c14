/** tool-map as a library: the same program graph as the CLI, for host plugins. */
export { AgentHostsInventory } from "./inventory/domain/agentHosts.js"
export { type BundlePaths, bundlePathsForDir, bundlePathsForRedirect, defaultDataDir } from "./inventory/bundle/location.js"
export { BundleReadError } from "./inventory/bundle/errors.js"
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
} from "./inventory/domain/inventory.js"
export { CliLayer, EmbeddedInventoryLayer, InventoryLayer, ScanServicesLayer } from "./layers/CoreLayer.js"
export { MachineEnvironment, type MachineEnvironmentShape, type OsFamily } from "./services/MachineEnvironment.js"
export { InventoryStore } from "./inventory/query/InventoryStore.js"
export {
  RedirectPathInvalid,
  type ScanCounts,
  type ScanError,
  type ScanOptions,
  type ScanOutcome,
  ScanProgram
} from "./inventory/ScanProgram.js"
export { ScanProgress } from "./inventory/ScanProgress.js"
export { TOOL_MAP_VERSION } from "./version.js"
export { BundleLocked, BundleWriteError, BundleWriter, RecoveryReport } from "./inventory/bundle/BundleWriter.js"

// The catalog (issue 4): the pure core, the cached builder, and the embeddable host layer.
export type * from "./catalog/core/model.js"
export { MISC_GROUP, OVERRIDE_PRIORITY, UNCATEGORIZED, ToolSchemaFromJson } from "./catalog/core/model.js"
export {
  buildCatalog,
  type BuildOptions,
  DEFAULT_CATEGORIES,
  resolveTarget,
  searchCatalog,
  shortName,
  structuralGroup,
  summary,
  toolsUnder
} from "./catalog/core/catalog.js"
export { mergeMeta } from "./catalog/core/classify.js"
export { definitionHash, diffDefinitions } from "./catalog/core/definitions.js"
export { sanitizeDescription } from "./catalog/core/sanitize.js"
export { estimateTokens } from "./catalog/core/tokens.js"
export { Catalog } from "./catalog/services/CatalogBuilder.js"
export { catalogFilesIn, type CatalogFiles, defaultCatalogDir, HostLayer, type HostLayerOptions, HostLayerNode } from "./layers/HostLayer.js"
export {
  type Agent,
  type AgentLifecycle,
  type BeforeLoadHook,
  type BeforeUnloadHook,
  type CallDecision,
  type ConfigSnapshot,
  type Disposer,
  type Extensions,
  type FindHit,
  HostPort,
  type LoadOptions,
  type LoadRequest,
  type LoadResult,
  LoadVetoed,
  registerScoped,
  type RiskGate,
  ToolCatalog,
  type ToolCatalogOptions,
  type ToolMetaSnapshot,
  type UnloadResult,
  UnknownEntryTool,
  type VisibilityFilter
} from "./catalog/services/ToolCatalog.js"
export { AgentRecord, agentFileName, AgentStateFile, fileStateProvider, type StateProvider, StateProviderError, VisibilityStore } from "./catalog/stores/VisibilityStore.js"
export {
  CatalogSettings,
  type CatalogSettingsBase,
  type CatalogSettingsFiles,
  DEFAULT_EXEMPT_PROVIDERS,
  type EffectiveSettings,
  type Exemption,
  ExemptionFile,
  type Exemptions,
  MetadataFile,
  SettingsPatch
} from "./catalog/stores/CatalogSettings.js"
export {
  AgentStateChanged,
  CatalogEvent,
  CatalogEvents,
  CatalogRebuilt,
  CatalogWarning,
  DefinitionsChanged,
  MetadataChanged,
  SettingsChanged,
  ToolAutoLoaded,
  ToolsLoaded,
  ToolsUnloaded
} from "./catalog/services/CatalogEvents.js"
export { CatalogFileError } from "./catalog/stores/jsonFile.js"
export { AgentState, DEFAULT_PINNED, emptyAgentState, ENTRY_TOOLS, type VisibilityNote } from "./catalog/core/visibility.js"
export { ENTRY_TOOL_DEFINITIONS, type EntryToolDefinition, EntryToolArgumentsError, type RescueRefusal, TOOLS_LOAD, TOOLS_LS, TOOLS_UNLOAD } from "./catalog/core/entryTools.js"
export { Manifest, manifestOf } from "./catalog/core/manifest.js"

// Agent hosts (issue 3): the scanner, the normalized items, the queries and the v1 export.
export {
  AgentItem,
  CommandItem,
  InstructionsItem,
  isEffective,
  McpServerItem,
  PluginItem,
  SkillItem
} from "./inventory/domain/agentHosts.js"
export { effectiveToolNames, filterAgents, filterCommands, filterMcpServers, filterPlugins, filterSkills, isReadOnly } from "./inventory/query/agentQueries.js"
export { exportClaudeV1 } from "./inventory/query/claudeV1.js"
export { AgentHostScanner } from "./inventory/discover/AgentHostScanner.js"
export { FrontmatterParser } from "./inventory/discover/FrontmatterParser.js"
