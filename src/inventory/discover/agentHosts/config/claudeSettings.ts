/**
 * A Claude Code settings file (`managed-settings.json` and its `managed-settings.d/` drop-ins,
 * each project's `.claude/settings.local.json` and `.claude/settings.json`, the user's
 * `settings.json`): only the keys tool-map reads. Claude Code ignores a key of the wrong type.
 */
import { Schema } from "effect"
import { isList, isObject, NamedMap, optional, orEmptyWhenNot, StringList } from "./decode.js"

/** An entry of `allowedMcpServers`/`deniedMcpServers`: a server named so, or run by exactly this command line. */
export const ClaudeMcpServerRule = Schema.Struct({
  serverName: optional(Schema.String),
  serverCommand: optional(StringList)
})
export type ClaudeMcpServerRule = typeof ClaudeMcpServerRule.Type

/** A rule list; an element that is not an object names no server and is dropped. */
const RuleList = Schema.Array(ClaudeMcpServerRule)

/** The keys of a Claude Code settings file tool-map reads. */
export const ClaudeSettings = Schema.Struct({
  /** `plugin@marketplace` → on/off; an entry that is not a boolean is ignored. */
  enabledPlugins: optional(NamedMap(Schema.Boolean)),
  /** Not read by the host from settings files; present, it is reported (as empty when it is not an object). */
  mcpServers: optional(orEmptyWhenNot(NamedMap(Schema.Unknown), isObject, {})),
  deniedMcpServers: optional(RuleList),
  /** Managed settings only; present in any shape, it allows only what its list names (nothing, when it is not a list). */
  allowedMcpServers: optional(orEmptyWhenNot(RuleList, isList, [])),
  disabledMcpjsonServers: optional(StringList),
  model: optional(Schema.String),
  skillListingBudgetFraction: optional(Schema.Number),
  permissions: optional(Schema.Struct({ deny: optional(StringList) }))
})
export type ClaudeSettings = typeof ClaudeSettings.Type
