/**
 * Every typed error tool-map fails with, each a `Schema.TaggedError` carrying the facts a user
 * needs (a path, a reason, a holder's pid), so it serializes into `--json` output and across
 * the host boundary.
 */
export { BundleLocked, BundleWriteError } from "../inventory/bundle/BundleWriter.js"
export { BundleReadCause, BundleReadError, RedirectPathInvalid } from "../inventory/bundle/errors.js"
export { EntryToolArgumentsError } from "../catalog/core/entryTools.js"
export { LoadVetoed } from "../catalog/services/CatalogRegistry.js"
export { UnknownEntryTool } from "../catalog/services/EntryTools.js"
export { EmbedderError } from "../catalog/services/Embedder.js"
export { SkillsUnavailable } from "../catalog/services/Router.js"
export { CatalogFileError } from "../catalog/stores/jsonFile.js"
export { StateProviderError } from "../catalog/stores/VisibilityStore.js"
export { FileLocked, FileLockError } from "../services/FileLock.js"
