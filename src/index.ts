/**
 * tool-map as a library: the same program graph as the CLI, for agent hosts and their plugins.
 *
 * - `Inventory`: the scan of the machine and of every agent host, the bundle, its reader and queries.
 * - `Catalog`: the catalog tree's types and pure functions.
 * - `Host`: what a host implements (`HostPort`) and the one layer it embeds (`HostLayer`), with `ToolCatalog`.
 * - `Errors`: the typed errors.
 * - `Testing`: layers for a host's own tests.
 */

/** The scan of the machine and of every agent host, the bundle it writes, and the queries over it. */
export * as Inventory from "./api/Inventory.js"
/** The catalog tree `/category/group/tool`: its types and pure functions. */
export * as Catalog from "./api/Catalog.js"
/** Embedding: `HostPort`, `HostLayer`, `ToolCatalog`, its events and stores. */
export * as Host from "./api/Host.js"
/** The typed errors, serializable across the host boundary. */
export * as Errors from "./api/Errors.js"
/** Test layers: a faulty file system, an in-memory walker file system, an injected lock owner. */
export * as Testing from "./api/Testing.js"
