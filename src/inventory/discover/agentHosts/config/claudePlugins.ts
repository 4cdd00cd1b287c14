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
  plugins: optional(Schema.Array(orEmptyWhenNot(
    Schema.Struct({
      name: optional(Schema.String),
      /** A folder relative to the marketplace, or an object for a remote source (github, git, url). */
      source: optional(Schema.Union(Schema.String, NamedMap(Schema.Unknown)))
    }),
    isObject,
    {}
  )))
})
export type MarketplaceManifest = typeof MarketplaceManifest.Type

/**
 * Paths a plugin manifest names for a component (`agents`, `skills`, `commands`): one path or a
 * list (non-strings dropped); any other value names none.
 */
const ManifestPaths = orEmptyWhenNot(Schema.Union(Schema.String, Schema.Array(Schema.String)), (value) => typeof value === "string" || isList(value), [])

/** Where a plugin manifest's `mcpServers` are: a file (path) or the servers themselves. */
const ManifestServerSource = Schema.Union(Schema.String, NamedMap(Schema.Unknown))

/** A plugin's `.claude-plugin/plugin.json`: the keys tool-map reads (hooks are read by the hook rule as written). */
export const ClaudePluginManifest = Schema.Struct({
  agents: optional(ManifestPaths),
  skills: optional(ManifestPaths),
  commands: optional(ManifestPaths),
  hooks: optional(Schema.Unknown),
  mcpServers: optional(Schema.Union(Schema.Array(ManifestServerSource), ManifestServerSource))
})
export type ClaudePluginManifest = typeof ClaudePluginManifest.Type

/** A plugin's `.mcp.json` (or a file its manifest names): servers under `mcpServers`, or the servers at the top level. */
export const ClaudePluginMcpFile = NamedMap(Schema.Unknown)

/** A matcher of a hook event: its hooks (a hook that is not an object does nothing and is left out). */
const HookMatcher = Schema.Struct({
  hooks: optional(Schema.Array(Schema.Struct({ type: optional(Schema.String), command: optional(Schema.String) })))
})

/** The hook events tool-map reads. */
const HookEvents = Schema.Struct({ SessionStart: optional(Schema.Array(HookMatcher)) })

/** A hooks configuration (`hooks/hooks.json`, or a plugin manifest's `hooks`): the events under `hooks`, or at the top level. */
export const ClaudeHooksConfig = Schema.Struct({
  hooks: optional(HookEvents),
  SessionStart: optional(Schema.Array(HookMatcher))
})
export type ClaudeHooksConfig = typeof ClaudeHooksConfig.Type
