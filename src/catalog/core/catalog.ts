/**
 * The catalog tree `/category/group/tool`: building it from tool schemas (`build.ts`),
 * resolving load and listing targets against it (`resolve.ts`), and searching it
 * (`search.ts`). This module is their one entry point.
 */
export { MISC_GROUP, OVERRIDE_PRIORITY, UNCATEGORIZED } from "./model.js"
export {
  buildCatalog,
  type BuildOptions,
  DEFAULT_CATEGORIES,
  factsOf,
  keyOfHashes,
  primeDefinitionFacts,
  primeToolSetKey,
  shortName,
  structuralGroup,
  summary,
  SUMMARY_MAX_LENGTH,
  toolSetKey
} from "./build.js"
export { MAX_SUGGESTIONS, resolveTarget } from "./resolve.js"
export { SEARCH_SCORES, searchCatalog, type SearchOptions, type SearchResult } from "./search.js"
export { toolsUnder } from "./tree.js"
