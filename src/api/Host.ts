/**
 * Embedding tool-map in an agent host: the `HostPort` the host implements, the one
 * `HostLayer` that provides the scanner, the inventory reader and `ToolCatalog` over it, the
 * catalog's options, results and events, the state and settings stores behind it, and the
 * `Router` (tools and skills for a task in plain words) with its `Embedder` port.
 */
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
} from "../catalog/stores/CatalogEvents.js"
export { CatalogBuilder } from "../catalog/services/CatalogBuilder.js"
export type { ConfigSnapshot, ToolMetaSnapshot } from "../catalog/services/CatalogConfig.js"
export type { CallDecision, LoadOptions, LoadResult, UnloadOptions, UnloadResult } from "../catalog/services/CatalogLoads.js"
export type {
  BeforeLoadHook,
  BeforeUnloadHook,
  Extensions,
  LoadRequest,
  RiskGate,
  VisibilityFilter
} from "../catalog/services/CatalogRegistry.js"
export type { FindHit, ListRequest } from "../catalog/services/CatalogViews.js"
export { type Agent, type AgentLifecycle, HostPort } from "../catalog/services/HostPort.js"
export { ToolCatalog } from "../catalog/services/ToolCatalog.js"
export { Embedder, EmbedderError } from "../catalog/services/Embedder.js"
export {
  type FindSkillsRequest,
  type FindToolsRequest,
  type RouteResult,
  Router,
  SKILL_BODY_CAP,
  type SkillRoute,
  SkillsUnavailable
} from "../catalog/services/Router.js"
export {
  type CatalogSettingsBase,
  DEFAULT_EXEMPT_PROVIDERS,
  type EffectiveSettings,
  type Exemption,
  ExemptionFile,
  type Exemptions,
  MetadataFile,
  SettingsPatch
} from "../catalog/stores/CatalogSettings.js"
export { AgentRecord, agentFileName, AgentStateFile, fileStateProvider, type StateProvider } from "../catalog/stores/VisibilityStore.js"
export {
  type CatalogFiles,
  catalogFilesIn,
  CatalogLayer,
  defaultCatalogDir,
  HostLayer,
  type HostLayerOptions,
  HostLayerNode
} from "../layers/HostLayer.js"
