/**
 * Claude Code's plugin files under `<config dir>/plugins/`: `installed_plugins.json` (v1: an
 * entry per id; v2: a list per id), `known_marketplaces.json`, and a directory marketplace's
 * `.claude-plugin/marketplace.json`. Only the keys tool-map reads.
 */
import { Schema } from "effect"
import { isList, isObject, NamedMap, optional, orEmptyWhenNot } from "./decode.js"

/** One installation of a plugin; one without `installPath` is skipped with a diagnostic (not a decode failure). */
export const InstalledPluginEntry = Schema.Struct({
  installPath: optional(Schema.String),
  scope: optional(Schema.String),
  version: optional(Schema.String),
  projectPath: optional(Schema.String)
})
export type InstalledPluginEntry = typeof InstalledPluginEntry.Type

/** An installation that is not an object is read as one with no keys (so: no installPath). */
const Installation = orEmptyWhenNot(InstalledPluginEntry, isObject, {})

/** `installed_plugins.json`: plugin id (`name@marketplace`) → its installations (v2: a list; v1: one). */
export const InstalledPlugins = Schema.Struct({
  plugins: optional(NamedMap(Schema.Union(Schema.Array(Installation), orEmptyWhenNot(InstalledPluginEntry, (value) => isObject(value) || isList(value), {}))))
})
export type InstalledPlugins = typeof InstalledPlugins.Type

/** A marketplace of `known_marketplaces.json`. */
export const KnownMarketplace = Schema.Struct({
  installLocation: optional(Schema.String),
  source: optional(Schema.Struct({ source: optional(Schema.String), path: optional(Schema.String) }))
})
export type KnownMarketplace = typeof KnownMarketplace.Type

/** `known_marketplaces.json`: marketplace name → where it is (an entry that is not an object still names a marketplace). */
export const KnownMarketplaces = NamedMap(orEmptyWhenNot(KnownMarketplace, isObject, {}))
export type KnownMarketplaces = typeof KnownMarketplaces.Type

/** A directory marketplace's `.claude-plugin/marketplace.json`: each plugin's name and its folder relative to the marketplace. */
export const MarketplaceManifest = Schema.Struct({
  plugins: optional(Schema.Array(orEmptyWhenNot(Schema.Struct({ name: optional(Schema.String), source: optional(Schema.String) }), isObject, {})))
})
export type MarketplaceManifest = typeof MarketplaceManifest.Type
