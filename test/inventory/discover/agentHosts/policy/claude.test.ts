/**
 * Claude Code's precedence and policy as pure functions of decoded settings: no files.
 */
import * as NodePath from "node:path"
import { Either } from "effect"
import * as fc from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { ClaudeSettings } from "../../../../../src/inventory/discover/agentHosts/config/claudeSettings.js"
import { InstalledPlugins } from "../../../../../src/inventory/discover/agentHosts/config/claudePlugins.js"
import { decodeConfig } from "../../../../../src/inventory/discover/agentHosts/config/decode.js"
import {
  claudeInstalledPlugins,
  claudeMcpServerOff,
  claudeMcpSwitches,
  claudePluginEnabled,
  claudePluginRank,
  claudePluginSwitch,
  claudeSessionListing,
  type ClaudeSettingsSource,
  enabledButNotInstalled
} from "../../../../../src/inventory/discover/agentHosts/policy/claude.js"
import type { AgentItemScope } from "../../../../../src/inventory/domain/agentHosts.js"

const path = NodePath.posix
const source = (file: string, scope: AgentItemScope, raw: unknown): ClaudeSettingsSource => ({
  path: file,
  scope,
  settings: Either.getOrThrow(decodeConfig(ClaudeSettings, file)(raw)).value
})
const managed = source("/etc/claude-code/managed-settings.json", "managed", { enabledPlugins: { "m@x": false }, allowedMcpServers: [{ serverName: "ok" }, { serverCommand: ["npx", "srv"] }] })
const local = source("/p/.claude/settings.local.json", "local", { enabledPlugins: { "a@x": false }, model: "opus", disabledMcpjsonServers: ["proj-off"] })
const project = source("/p/.claude/settings.json", "project", { enabledPlugins: { "a@x": true, "b@x": "yes" }, model: 4, skillListingBudgetFraction: 0.02 })
const user = source("/u/.claude/settings.json", "user", { enabledPlugins: { "b@x": true, "gone@x": true, "m@x": true }, model: "haiku", deniedMcpServers: [{ serverName: "bad" }] })
const all = [managed, local, project, user]

describe("claudePluginSwitch", () => {
  it("takes the highest-precedence file that names the plugin with a boolean", () => {
    expect(claudePluginSwitch(all, "a@x")).toEqual({ on: false, file: "/p/.claude/settings.local.json" })
    // The project's "yes" is ignored: the user's true holds.
    expect(claudePluginSwitch(all, "b@x")).toEqual({ on: true, file: "/u/.claude/settings.json" })
    expect(claudePluginSwitch(all, "m@x")).toEqual({ on: false, file: "/etc/claude-code/managed-settings.json" })
    expect(claudePluginSwitch(all, "none@x")).toBeNull()
  })

  it("is the first file's switch whatever the files below say (property)", () => {
    fc.assert(fc.property(fc.array(fc.option(fc.boolean(), { nil: undefined }), { minLength: 1, maxLength: 6 }), (switches) => {
      const sources = switches.map((on, index) => source(`/f${index}`, "user", on === undefined ? {} : { enabledPlugins: { "p@m": on } }))
      const first = switches.findIndex((on) => on !== undefined)
      expect(claudePluginSwitch(sources, "p@m")).toEqual(first === -1 ? null : { on: switches[first], file: `/f${first}` })
    }))
  })

  it("names the plugins switched on but not installed", () => {
    expect(enabledButNotInstalled(all, new Set(["a@x", "b@x", "m@x"]))).toEqual([["/u/.claude/settings.json", "gone@x"]])
  })
})

describe("claudeInstalledPlugins", () => {
  const decode = (raw: unknown) => Either.getOrThrow(decodeConfig(InstalledPlugins, "/u/.claude/plugins/installed_plugins.json")(raw)).value
  it("reads v1 and v2 entries, resolves folders, and names the entries it skips", () => {
    const read = claudeInstalledPlugins(decode({
      plugins: {
        "kit@market": [{ installPath: "cache/market/kit/1.0.0", version: "1.0.0", scope: "project", projectPath: "/p" }, { scope: "user" }],
        "solo": { installPath: "/opt/solo", scope: "weird" }
      }
    }), "/u/.claude/plugins", path)
    expect(read).toEqual({
      plugins: [
        { id: "kit@market", name: "kit", marketplace: "market", version: "1.0.0", installPath: "/u/.claude/plugins/cache/market/kit/1.0.0", scope: "project", projectPath: "/p" },
        { id: "solo", name: "solo", marketplace: null, version: null, installPath: "/opt/solo", scope: "user", projectPath: null }
      ],
      problems: ["plugin kit@market has no installPath; skipped"]
    })
  })

  it("says nothing is installed without a plugins object", () => {
    expect(claudeInstalledPlugins(decode({ plugins: [] }), "/d", path)).toEqual({ plugins: [], problems: ["no `plugins` object; no plugin is installed"] })
  })
})

describe("claudePluginEnabled", () => {
  const plugin = { id: "kit@m", name: "kit", marketplace: "m", version: null, installPath: "/i", scope: "project" as const, projectPath: "/p" }
  it("needs the switch on and, for a project plugin, the working directory under its project", () => {
    expect(claudePluginEnabled(plugin, { on: true, file: "/s" }, ["/p/sub", "/p", "/"], path)).toEqual({ enabled: true, disabledReason: null })
    expect(claudePluginEnabled(plugin, { on: true, file: "/s" }, ["/q", "/"], path)).toEqual({ enabled: false, disabledReason: "installed for another project (/p)" })
    expect(claudePluginEnabled(plugin, { on: false, file: "/s" }, ["/p", "/"], path)).toEqual({ enabled: false, disabledReason: "disabled by enabledPlugins in /s" })
    expect(claudePluginEnabled({ ...plugin, scope: "user" }, null, ["/q"], path)).toEqual({ enabled: false, disabledReason: "not enabled in any settings file (enabledPlugins)" })
  })

  it("ranks local over project over user", () => {
    expect((["local", "project", "user", "managed"] as const).map(claudePluginRank)).toEqual([0, 1, 2, 2])
  })
})

describe("claudeMcpServerOff", () => {
  const switches = claudeMcpSwitches(all, { disabledMcpjsonServers: ["entry-off"], disabledMcpServers: ["any-off"] }, false)
  it("applies deny, the managed allow list, and the project switches in order", () => {
    const off = (name: string, scope: AgentItemScope, command: ReadonlyArray<string> = []) => claudeMcpServerOff(switches, { name, scope, command })
    expect([
      off("ok", "user"),
      off("bad", "user"),
      off("other", "user", ["npx", "srv"]),
      off("other", "user", ["npx", "srv", "--x"]),
      off("other", "managed"),
      off("proj-off", "project", ["npx", "srv"]),
      off("entry-off", "project", ["npx", "srv"]),
      off("entry-off", "user", ["npx", "srv"]),
      off("any-off", "local", ["npx", "srv"])
    ]).toEqual([
      null,
      "denied by deniedMcpServers",
      null,
      "not in the managed allowedMcpServers",
      null,
      "disabled by disabledMcpjsonServers",
      "disabled by disabledMcpjsonServers",
      null,
      "disabled for this project in ~/.claude.json"
    ])
  })

  it("lets only managed servers through when managed-mcp.json exists, and allows nothing for an allow list of another shape", () => {
    const exclusive = claudeMcpSwitches(all, null, true)
    expect([claudeMcpServerOff(exclusive, { name: "ok", scope: "user", command: [] }), claudeMcpServerOff(exclusive, { name: "ok", scope: "managed", command: [] })]).toEqual([
      "managed-mcp.json takes exclusive control of MCP servers",
      null
    ])
    const none = claudeMcpSwitches([source("/m", "managed", { allowedMcpServers: "everything" })], null, false)
    expect(none.allowed).toEqual([])
    expect(claudeMcpServerOff(none, { name: "ok", scope: "project", command: [] })).toBe("not in the managed allowedMcpServers")
  })
})

describe("claudeSessionListing", () => {
  it("takes the highest-precedence model and budget fraction of the right type", () => {
    const listing = claudeSessionListing(all, {})
    expect([listing.model, listing.source, listing.setting, listing.contextWindow, listing.budget]).toEqual(["claude-opus-5-5", "/p/.claude/settings.local.json", "opus", 1_000_000, 60_000])
    expect(claudeSessionListing([user], { ANTHROPIC_MODEL: "claude-sonnet-4-5" })).toMatchObject({ model: "claude-sonnet-4-5", source: "ANTHROPIC_MODEL", budget: 8_000 })
  })
})
