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
export { BundleLocked, BundleWriteError, BundleWriter, RecoveryReport } from "./services/BundleWriter.js"

// The catalog (issue 4): the pure core, the cached builder, and the embeddable host layer.
export type * from "./catalog/model.js"
export { MISC_GROUP, OVERRIDE_PRIORITY, UNCATEGORIZED, ToolSchemaFromJson } from "./catalog/model.js"
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
} from "./catalog/catalog.js"
export { mergeMeta } from "./catalog/classify.js"
export { definitionHash, diffDefinitions } from "./catalog/definitions.js"
export { sanitizeDescription } from "./catalog/sanitize.js"
export { estimateTokens } from "./catalog/tokens.js"
export { Catalog } from "./services/Catalog.js"
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
} from "./services/ToolCatalog.js"
export { AgentRecord, agentFileName, AgentStateFile, fileStateProvider, type StateProvider, StateProviderError, VisibilityStore } from "./services/VisibilityStore.js"
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
} from "./services/CatalogSettings.js"
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
} from "./catalog/stores/events.js"
export { CatalogFileError } from "./catalog/stores/jsonFile.js"
export { AgentState, DEFAULT_PINNED, emptyAgentState, ENTRY_TOOLS, type VisibilityNote } from "./catalog/visibility.js"
export { ENTRY_TOOL_DEFINITIONS, type EntryToolDefinition, EntryToolArgumentsError, type RescueRefusal, TOOLS_LOAD, TOOLS_LS, TOOLS_UNLOAD } from "./catalog/entryTools.js"
export { Manifest, manifestOf } from "./catalog/manifest.js"

// Agent hosts (issue 3): the scanner, the normalized items, the queries and the v1 export.
export {
  AgentItem,
  CommandItem,
  InstructionsItem,
  isEffective,
  McpServerItem,
  PluginItem,
  SkillItem
} from "./domain/agentHosts.js"
export { effectiveToolNames, filterAgents, filterCommands, filterMcpServers, filterPlugins, filterSkills, isReadOnly } from "./domain/agentQueries.js"
export { exportClaudeV1 } from "./domain/claudeV1.js"
export { AgentHostScanner } from "./services/AgentHostScanner.js"
export { FrontmatterParser } from "./services/FrontmatterParser.js"
