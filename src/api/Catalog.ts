/**
 * The catalog's pure core: the tree `/category/group/tool` and its types, building it from
 * tool schemas, resolving and searching it, the entry tools' definitions, the per-agent
 * visibility state, token estimates, description sanitizing, the manifest's shape, and the
 * router's pure ranking (documents, the BM25F index, ranking and its entry tools' texts).
 */
export type * from "../catalog/core/model.js"
export { MISC_GROUP, OVERRIDE_PRIORITY, ToolSchemaFromJson, UNCATEGORIZED } from "../catalog/core/model.js"
export {
  buildCatalog,
  type BuildOptions,
  DEFAULT_CATEGORIES,
  resolveTarget,
  searchCatalog,
  type SearchOptions,
  type SearchResult,
  shortName,
  structuralGroup,
  summary,
  toolSetKey,
  toolsUnder
} from "../catalog/core/catalog.js"
export { mergeMeta } from "../catalog/core/classify.js"
export { definitionHash, diffDefinitions } from "../catalog/core/definitions.js"
export {
  ENTRY_TOOL_DEFINITIONS,
  type EntryToolDefinition,
  type RescueRefusal,
  TOOLS_LOAD,
  TOOLS_LS,
  TOOLS_UNLOAD
} from "../catalog/core/entryTools.js"
export { Manifest, manifestOf } from "../catalog/core/manifest.js"
export {
  DEFAULT_FIND_K,
  DEFAULT_ROUTE_BUDGET,
  type LeftOut,
  planRoute,
  type RoutePlan,
  ROUTER_TOOL_DEFINITIONS,
  ROUTER_TOOLS,
  type RouterToolDefinition,
  type SkillHit,
  SKILLS_FIND,
  SKILLS_ROUTE,
  type ToolHit,
  TOOLS_FIND,
  TOOLS_ROUTE
} from "../catalog/core/router/routerTools.js"
export { DEFAULT_RANK_PARAMETERS, explainMatch, type MatchedFields, type RankParameters, rankDocuments } from "../catalog/core/router/rank.js"
export { addDocuments, buildIndex, type RouterIndex } from "../catalog/core/router/invertedIndex.js"
export { type RouterDocument, toolDocument } from "../catalog/core/router/document.js"
export { routerDocuments, skillDocument } from "../catalog/core/router/router.js"
export { sanitizeDescription } from "../catalog/core/sanitize.js"
export { estimateTokens } from "../inventory/domain/tokens.js"
export { AGENT_WORDING, CLI_WORDING, type Wording } from "../catalog/core/wording.js"
export { AgentState, DEFAULT_PINNED, emptyAgentState, ENTRY_TOOLS, type VisibilityNote } from "../catalog/core/visibility.js"
