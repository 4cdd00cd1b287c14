/**
 * Codex's and opencode's policy as pure functions of decoded config, and the MCP entry shapes of
 * every dialect.
 */
import * as NodePath from "node:path"
import { Either } from "effect"
import * as fc from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { CodexConfig } from "../../../../../src/inventory/discover/agentHosts/config/codexConfig.js"
import { decodeConfig } from "../../../../../src/inventory/discover/agentHosts/config/decode.js"
import { decodeMcpEntry, stringEntries, stringValues } from "../../../../../src/inventory/discover/agentHosts/config/mcpEntry.js"
import { OpencodeConfig } from "../../../../../src/inventory/discover/agentHosts/config/opencodeConfig.js"
import { codexToolFilter, codexTrusts } from "../../../../../src/inventory/discover/agentHosts/policy/codex.js"
import {
  opencodeConfigDir,
  opencodeInheritedSwitches,
  opencodeSkillPaths,
  opencodeSwitches,
  opencodeToolsOff
} from "../../../../../src/inventory/discover/agentHosts/policy/opencode.js"

const path = NodePath.posix

describe("Codex", () => {
  const config = Either.getOrThrow(decodeConfig(CodexConfig, "/u/.codex/config.toml")({
    projects: { "/w": { trust_level: "trusted" }, "/w/x": { trust_level: "untrusted" }, "/v": { trust_level: 1 }, "/z": "trusted" }
  }))
  it("trusts a project whose folder or a parent has trust_level trusted", () => {
    expect([["/w/x", "/w", "/"], ["/v/a", "/v", "/"], ["/z", "/"], ["/q", "/"]].map((folders) => codexTrusts(config.value, folders))).toEqual([true, false, false, false])
    expect(codexTrusts(null, ["/w"])).toBe(false)
    expect(config.ignored.map((issue) => [issue.key, issue.reason])).toEqual([
      ["projects./v.trust_level", "is not a string: ignored"],
      ["projects./z", "is not an object: ignored"]
    ])
  })

  it("filters tools by enabled_tools and disabled_tools as written", () => {
    const filter = (raw: unknown) => {
      const decoded = decodeMcpEntry(raw, "codex")
      return decoded.dialect === "codex" ? codexToolFilter(decoded.entry) : "other"
    }
    expect([filter({}), filter({ enabled_tools: [] }), filter({ enabled_tools: ["a", 2], disabled_tools: ["b"] }), filter({ disabled_tools: "b" })]).toEqual([
      undefined,
      { include: [] },
      { include: ["a"], exclude: ["b"] },
      undefined
    ])
  })
})

describe("MCP entry shapes", () => {
  it("read each dialect's keys, leave out those of the wrong type and read a non-object as no keys", () => {
    expect(decodeMcpEntry({ command: "npx", args: ["-y", 3, "srv"], env: { TOKEN: "x", N: 1 }, disabled: "no", type: "stdio" }, "claude")).toEqual({
      dialect: "claude",
      entry: { command: "npx", args: ["-y", "srv"], env: { TOKEN: "x", N: 1 }, type: "stdio" }
    })
    expect(decodeMcpEntry({ type: "local", command: ["bun", "x"], environment: { A: "1" }, enabled: false }, "opencode")).toEqual({
      dialect: "opencode",
      entry: { type: "local", command: ["bun", "x"], environment: { A: "1" }, enabled: false }
    })
    expect(decodeMcpEntry({ command: "one-word" }, "opencode").entry).toEqual({ command: "one-word" })
    expect(decodeMcpEntry({ httpUrl: "https://h", includeTools: ["run(ls)"], trust: true }, "gemini").entry).toEqual({ httpUrl: "https://h", includeTools: ["run(ls)"], trust: true })
    expect(decodeMcpEntry("text", "cursor")).toEqual({ dialect: "cursor", entry: {} })
  })

  it("give the string values and entries of a map, nothing else", () => {
    expect(stringValues({ A: "1", B: 2, C: "3" })).toEqual(["1", "3"])
    expect(stringEntries({ A: "1", B: null })).toEqual([["A", "1"]])
    expect(stringValues(undefined)).toEqual([])
  })
})

describe("opencode", () => {
  it("reads its environment switches in its two ways", () => {
    expect(opencodeSwitches({})).toEqual({ projectConfig: true, externalSkills: true, claudeSkills: true })
    expect(opencodeSwitches({ OPENCODE_DISABLE_PROJECT_CONFIG: "yes", OPENCODE_DISABLE_EXTERNAL_SKILLS: "YES", OPENCODE_DISABLE_CLAUDE_CODE_SKILLS: "1" })).toEqual({
      projectConfig: true,
      externalSkills: false,
      claudeSkills: false
    })
    expect(opencodeSwitches({ OPENCODE_DISABLE_PROJECT_CONFIG: "TRUE", OPENCODE_DISABLE_CLAUDE_CODE: "on" })).toEqual({ projectConfig: false, externalSkills: true, claudeSkills: false })
  })

  it("finds its config folder and the folders skills.paths names", () => {
    expect(opencodeConfigDir({}, "/h", "/w", path)).toEqual({ configDir: "/h/.config/opencode", customDir: null })
    expect(opencodeConfigDir({ XDG_CONFIG_HOME: "/x", OPENCODE_CONFIG_DIR: "cfg" }, "/h", "/w", path)).toEqual({ configDir: "/w/cfg", customDir: "/w/cfg" })
    const config = Either.getOrThrow(decodeConfig(OpencodeConfig, "/w/opencode.json")({ skills: { paths: ["~/s", "rel", "/abs", 4] } })).value
    expect(opencodeSkillPaths(config, "/h", "/w", path)).toEqual(["/h/s", "/w/rel", "/abs"])
  })

  it("switches off an agent's tools set to false only", () => {
    expect(opencodeToolsOff({ tools: { bash: false, edit: true, write: "false" } })).toEqual(["bash"])
  })

  it("lets the winning entry's enabled: false switch off every entry of its name", () => {
    expect(opencodeInheritedSwitches([
      { namespace: "mcp:a", rank: 5, enabled: true, path: "/g/opencode.json" },
      { namespace: "mcp:a", rank: 1, enabled: false, path: "/w/opencode.json" },
      { namespace: "mcp:b", rank: 5, enabled: true, path: "/g/opencode.json" },
      { namespace: null, rank: 0, enabled: false, path: null }
    ])).toEqual(["switched off by enabled: false in /w/opencode.json", null, null, null])
  })

  it("never switches on what is off, and switches off only an entry an off one of its name wins over (rank as low, met first) (property)", () => {
    const server = fc.record({ namespace: fc.constantFrom("mcp:a", "mcp:b", null), rank: fc.integer({ min: 0, max: 5 }), enabled: fc.boolean(), path: fc.constant("/f") })
    fc.assert(fc.property(fc.array(server, { maxLength: 8 }), (servers) => {
      const reasons = opencodeInheritedSwitches(servers)
      servers.forEach((entry, index) => {
        if (reasons[index] !== null) {
          expect(entry.enabled).toBe(true)
          expect(servers.some((other, at) => other.namespace === entry.namespace && !other.enabled && (other.rank < entry.rank || (other.rank === entry.rank && at < index)))).toBe(true)
        }
      })
    }))
  })
})
