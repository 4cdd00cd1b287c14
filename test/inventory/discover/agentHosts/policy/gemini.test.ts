/**
 * Gemini CLI's precedence, folder trust and server filter as pure functions of decoded settings.
 */
import * as NodePath from "node:path"
import { Either } from "effect"
import * as fc from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { decodeConfig } from "../../../../../src/inventory/discover/agentHosts/config/decode.js"
import { GeminiSettings } from "../../../../../src/inventory/discover/agentHosts/config/geminiSettings.js"
import {
  geminiContextFileNames,
  geminiDisabledSkills,
  geminiMergedSettings,
  geminiServerFilter,
  geminiServerOff,
  type GeminiSettingsSource,
  geminiSettingsContextNames,
  geminiTrustByRules,
  geminiTrustWithoutRules
} from "../../../../../src/inventory/discover/agentHosts/policy/gemini.js"
import type { AgentItemScope } from "../../../../../src/inventory/domain/agentHosts.js"

const path = NodePath.posix
const source = (file: string, scope: AgentItemScope, raw: unknown): GeminiSettingsSource => ({
  path: file,
  scope,
  settings: Either.getOrThrow(decodeConfig(GeminiSettings, file)(raw)).value
})
const system = source("/etc/gemini-cli/settings.json", "managed", { mcp: { excluded: ["blocked"] } })
const workspace = source("/w/.gemini/settings.json", "project", { mcp: { allowed: ["a", "blocked"] }, skills: { disabled: ["ws-off"] }, context: { fileName: "AGENTS.md" } })
const user = source("/u/.gemini/settings.json", "user", { allowMCPServers: ["a", "b"], skills: { disabled: ["user-off"] }, contextFileName: ["X.md", "sub/Y.md", 3], security: { folderTrust: { enabled: true } } })
const all = [system, workspace, user]

describe("Gemini CLI's settings precedence", () => {
  it("lets the first file that sets a key win it, the workspace's only in a trusted folder", () => {
    const trusted = geminiMergedSettings(all, { trusted: true })
    const untrusted = geminiMergedSettings(all, { trusted: false, reason: "r" })
    expect(geminiServerFilter(trusted)).toEqual({ excluded: new Set(["blocked"]), allowed: ["a", "blocked"] })
    expect(geminiServerFilter(untrusted)).toEqual({ excluded: new Set(["blocked"]), allowed: ["a", "b"] })
    expect([...geminiDisabledSkills(trusted)]).toEqual(["ws-off"])
    expect([...geminiDisabledSkills(untrusted)]).toEqual(["user-off"])
    expect(geminiSettingsContextNames(trusted)).toEqual(["AGENTS.md"])
    expect(geminiSettingsContextNames(untrusted)).toEqual(["X.md"])
  })

  it("reads a context file name of another type as none, which shadows the files below (GEMINI.md)", () => {
    const odd = source("/w/.gemini/settings.json", "project", { context: { fileName: 7 } })
    const none = source("/w/.gemini/settings.json", "project", { context: { fileName: null } })
    expect(geminiSettingsContextNames([odd, user])).toEqual(["GEMINI.md"])
    expect(geminiSettingsContextNames([none, user])).toEqual(["X.md"])
    expect(geminiContextFileNames(undefined)).toEqual(["GEMINI.md"])
  })

  it("filters servers: untrusted none, then excluded, then the allow list", () => {
    const filter = geminiServerFilter(geminiMergedSettings(all, { trusted: true }))
    expect(["a", "blocked", "c"].map((name) => geminiServerOff({ trusted: true }, filter, name))).toEqual([null, "excluded by mcp.excluded", "not in mcp.allowed"])
    expect(geminiServerOff({ trusted: false, reason: "the folder is not trusted: x" }, filter, "a")).toBe("the folder is not trusted: x")
  })
})

describe("Gemini CLI's folder trust", () => {
  it("is decided by the environment first, then security.folderTrust.enabled of the system or user settings", () => {
    expect(geminiTrustWithoutRules({ GEMINI_RESTRICTED_MODE: "true", GEMINI_CLI_TRUST_WORKSPACE: "true" }, all)).toEqual({ trusted: false, reason: "the folder is not trusted: GEMINI_RESTRICTED_MODE=true" })
    expect(geminiTrustWithoutRules({ GEMINI_CLI_TRUST_WORKSPACE: "false" }, all)).toEqual({ trusted: false, reason: "the folder is not trusted: GEMINI_CLI_TRUST_WORKSPACE=false" })
    expect(geminiTrustWithoutRules({ GEMINI_CLI_TRUST_WORKSPACE: "true" }, all)).toEqual({ trusted: true })
    expect(geminiTrustWithoutRules({}, all)).toBeNull()
    expect(geminiTrustWithoutRules({}, [source("/s", "managed", { security: { folderTrust: { enabled: false } } }), user])).toEqual({ trusted: true })
    // The workspace cannot switch folder trust off for itself.
    expect(geminiTrustWithoutRules({}, [source("/w", "project", { security: { folderTrust: { enabled: false } } })])).toBeNull()
  })

  const file = "/u/.gemini/trustedFolders.json"
  it("takes the longest rule holding the working directory; TRUST_PARENT holds the rule's parent", () => {
    const rules = { "/w": "TRUST_FOLDER", "/w/secret": "DO_NOT_TRUST", "/x/child": "TRUST_PARENT" }
    const trust = (cwd: string) => geminiTrustByRules(file, { _tag: "Rules", rules }, cwd, path).trust
    expect([trust("/w/a"), trust("/w/secret/b"), trust("/x/other"), trust("/y")]).toEqual([
      { trusted: true },
      { trusted: false, reason: `the folder is not trusted: ${file} says DO_NOT_TRUST for /w/secret (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)` },
      { trusted: true },
      { trusted: false, reason: `the folder is not trusted: no rule of ${file} covers it (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)` }
    ])
  })

  it("stops the host on a file of unknown levels, naming the first bad rule", () => {
    expect(geminiTrustByRules(file, { _tag: "Rules", rules: { "/w": "TRUST_FOLDER", "/v": "TRUST", "/z": 1 } }, "/w", path)).toEqual({
      trust: { trusted: false, reason: `Gemini CLI does not start: ${file} is invalid` },
      problem: `the trust level of "/v" is not one of TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST: Gemini CLI refuses to start until it is fixed`
    })
    expect(geminiTrustByRules(file, { _tag: "Invalid", why: "not a JSON object" }, "/w", path).problem).toBe("not a JSON object: Gemini CLI refuses to start until it is fixed")
    expect(geminiTrustByRules(file, { _tag: "Missing" }, "/w", path).trust).toEqual({
      trusted: false,
      reason: `the folder is not trusted: no ${file} (Gemini CLI folder trust, on unless security.folderTrust.enabled is false)`
    })
  })

  it("trusts a folder under a TRUST_FOLDER rule unless a longer rule distrusts it (property)", () => {
    const segment = fc.constantFrom("a", "b", "c")
    fc.assert(fc.property(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.array(segment, { maxLength: 3 }), fc.array(segment, { maxLength: 3 }), (base, deeper, rest) => {
      const trusted = `/${base.join("/")}`
      const distrusted = `${trusted}/${[...deeper, "z"].join("/")}`
      const cwd = `${trusted}${rest.length === 0 ? "" : `/${rest.join("/")}`}`
      const trust = geminiTrustByRules(file, { _tag: "Rules", rules: { [trusted]: "TRUST_FOLDER", [distrusted]: "DO_NOT_TRUST" } }, cwd, path).trust
      expect(trust.trusted).toBe(true)
      expect(geminiTrustByRules(file, { _tag: "Rules", rules: { [trusted]: "TRUST_FOLDER", [distrusted]: "DO_NOT_TRUST" } }, `${distrusted}/${rest.join("/")}`, path).trust.trusted).toBe(false)
    }))
  })
})
