import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parse as parseJsonc } from "jsonc-parser"
import { parse as parseToml } from "smol-toml"
import { AGENT_HOSTS, type AgentHostName } from "../../../src/inventory/domain/agentHosts.js"
import { hostServerEntry } from "../../../src/mcp/hostConfig.js"
import { hostConfigTarget } from "../../../src/mcp/setup/hostFiles.js"
import { carriedSettings, planEntryRestore, planSetup } from "../../../src/mcp/setup/plan.js"
import { HOST_CONFIGS } from "./fixtures.js"

const HOME = "/home/u"
const targetOf = (host: AgentHostName) => hostConfigTarget(host, "user", { env: {}, homedir: HOME, cwd: "/work" })!
const gateway = (host: AgentHostName) => hostServerEntry(host, { command: "/usr/bin/node", args: ["/opt/tool-map.cjs", "mcp", "--gateway", "--servers", "/d/s.json"] })
const parseAny = (host: AgentHostName, text: string): Record<string, unknown> =>
  (host === "codex" ? parseToml(text) : parseJsonc(text, [], { allowTrailingComma: true })) as Record<string, unknown>

const setupOf = (host: AgentHostName, text = HOST_CONFIGS[host].text, behind: Readonly<Record<string, unknown>> = {}) => {
  const target = targetOf(host)
  return Either.getOrThrow(planSetup({ target, path: target.candidates[0]!, text, behind }, gateway(host)))
}

describe("planSetup", () => {
  it.each(AGENT_HOSTS)("%s: only the tool-map entry is left (and a switched-off one), the rest of the file is unchanged, the raw entries move", (host) => {
    const before = parseAny(host, HOST_CONFIGS[host].text)
    const plan = setupOf(host)
    const after = parseAny(host, plan.text)
    const mapKey = targetOf(host).mapPath[0]!
    const map = before[mapKey] as Record<string, unknown>
    const kept = host === "cursor" ? { old: map["old"] } : {}
    expect(after[mapKey]).toEqual({ ...kept, "tool-map": gateway(host) })
    const { [mapKey]: _a, ...restAfter } = after
    const { [mapKey]: _b, ...restBefore } = before
    expect(restAfter).toEqual(restBefore)
    const moved = Object.fromEntries(Object.entries(map).filter(([name]) => name !== "old"))
    expect(JSON.parse(JSON.stringify(plan.servers))).toEqual(JSON.parse(JSON.stringify(moved)))
    expect(plan.changed).toBe(true)
    expect(plan.gateway).toBe("added")
  })

  it("codex: the tables and sub-tables of the moved servers go, every comment stays", () => {
    expect(setupOf("codex").text).toBe(`# Codex settings
model = "gpt-5" # the default model

# memory keeps notes

[profiles.fast]
model = "gpt-5-mini"

[mcp_servers.tool-map]
command = "/usr/bin/node"
args = [ "/opt/tool-map.cjs", "mcp", "--gateway", "--servers", "/d/s.json" ]
`)
  })

  it("cursor: every comment and the kept entry stay as written (a trailing comma too)", () => {
    expect(setupOf("cursor").text).toBe(`// Cursor's MCP servers
{
  "mcpServers": {
    "tool-map": {
      "command": "/usr/bin/node",
      "args": [
        "/opt/tool-map.cjs",
        "mcp",
        "--gateway",
        "--servers",
        "/d/s.json"
      ]
    },
    // GitHub, with a token
    "old": { "command": "old-server", "disabled": true },
  },
  "other": true
}
`)
  })

  it.each(AGENT_HOSTS)("%s: setup twice changes nothing the second time", (host) => {
    const first = setupOf(host)
    const second = setupOf(host, first.text, first.servers)
    expect({ changed: second.changed, moved: second.moved, gateway: second.gateway, text: second.text }).toEqual({ changed: false, moved: [], gateway: "unchanged", text: first.text })
    expect(second.servers).toEqual(first.servers)
  })

  it("a server added after setup is merged in on the next setup", () => {
    const first = setupOf("gemini")
    const added = first.text.replace(`"mcpServers": {`, `"mcpServers": {\n    "later": { "command": "later-server" },`)
    const second = setupOf("gemini", added, first.servers)
    expect(second.moved.map((server) => server.name)).toEqual(["later"])
    expect(Object.keys(second.servers)).toEqual(["github", "memory", "later"])
    expect(second.changed).toBe(true)
    expect(second.text).toBe(first.text)
  })

  it("a server the host does not load for a reason outside its entry stays where it is", () => {
    const target = targetOf("gemini")
    const plan = Either.getOrThrow(planSetup({ target, path: "/s.json", text: HOST_CONFIGS.gemini.text, behind: {}, notLoaded: new Map([["memory", "excluded by mcp.excluded"]]) }, gateway("gemini")))
    expect({ moved: plan.moved.map((server) => server.name), kept: plan.kept }).toEqual({
      moved: ["github"],
      kept: [{ name: "memory", reason: "the host does not load it: excluded by mcp.excluded" }]
    })
  })

  it("the summary of a moved server holds env and header names and the filters, never a value", () => {
    expect(setupOf("codex").moved).toEqual([
      { name: "github", transport: "stdio", runs: "npx -y @modelcontextprotocol/server-github", envNames: ["GITHUB_TOKEN"], headerNames: [], enabledTools: ["get_issue", "list_issues", "create_issue"], disabledTools: [] },
      { name: "mem ory", transport: "stdio", runs: "npx -y @modelcontextprotocol/server-memory", envNames: [], headerNames: [], enabledTools: null, disabledTools: [] }
    ])
    expect(setupOf("opencode").moved[1]).toEqual(
      { name: "docs", transport: "http", runs: "https://docs.example.com/mcp", envNames: [], headerNames: ["Authorization"], enabledTools: null, disabledTools: [] }
    )
  })

  it("refuses a config with no servers, and one that is only the gateway", () => {
    const target = targetOf("cursor")
    const none = planSetup({ target, path: "/home/u/.cursor/mcp.json", text: `{ "mcpServers": {} }`, behind: {} }, gateway("cursor"))
    expect(Either.isLeft(none) && none.left.message).toBe(
      "cursor loads no MCP server from /home/u/.cursor/mcp.json (user scope): there is nothing to put behind the gateway, and nothing was written."
    )
  })

  it("an entry that runs tool-map (any name) is never moved; one named tool-map is replaced", () => {
    const text = `{ "mcpServers": {
  "tool-map": { "command": "tool-map", "args": ["mcp", "--gateway", "--host", "cursor"] },
  "gw": { "command": "/usr/bin/node", "args": ["/x/dist/tool-map.cjs", "mcp"] },
  "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
} }`
    const plan = setupOf("cursor", text)
    expect(plan.gateway).toBe("replaced")
    expect(plan.kept).toEqual([{ name: "gw", reason: "it runs tool-map: the gateway never fronts itself" }])
    expect(Object.keys(plan.servers)).toEqual(["memory"])
  })

  it("refuses an inline TOML servers table, writing nothing", () => {
    const target = targetOf("codex")
    const result = planSetup({ target, path: "/c.toml", text: `mcp_servers = { a = { command = "x" } }\n`, behind: {} }, gateway("codex"))
    expect(Either.isLeft(result) && result.left.message).toBe(
      "The config of codex at /c.toml cannot be edited safely: line 1: the servers are an inline table (mcp_servers = { … }). Nothing was written; edit the file by hand or use `tool-map mcp --print-config codex --gateway`."
    )
  })
})

describe("planEntryRestore", () => {
  it.each(AGENT_HOSTS)("%s: puts every moved server back and removes the gateway, keeping a later edit", (host) => {
    const plan = setupOf(host)
    const target = targetOf(host)
    const edited = host === "codex" ? plan.text.replace(`model = "gpt-5"`, `model = "gpt-6"`) : plan.text.replace(/"theme": "[^"]*"|"other": true/, `"edited": 1`)
    const restored = Either.getOrThrow(planEntryRestore({ target, path: target.candidates[0]!, text: edited, behind: plan.servers }))
    const after = parseAny(host, restored.text)
    const before = parseAny(host, HOST_CONFIGS[host].text)
    expect(JSON.parse(JSON.stringify(after[target.mapPath[0]!]))).toEqual(JSON.parse(JSON.stringify(before[target.mapPath[0]!])))
    expect(restored.text).toContain(host === "codex" ? `model = "gpt-6"` : `"edited": 1`)
    expect(restored.gatewayRemoved).toBe(true)
    expect(restored.conflicts).toEqual([])
  })
})

describe("carriedSettings: what the gateway's entry takes over from the entries it fronts", () => {
  it("Codex: required if any is, the longest tool timeout, an approval mode only when every entry has the same", () => {
    expect(carriedSettings("codex", [
      { command: "a", required: true, tool_timeout_sec: 30, startup_timeout_sec: 20, default_tools_approval_mode: "approve" },
      { command: "b", tool_timeout_sec: 120, default_tools_approval_mode: "approve" }
    ])).toEqual({ required: true, tool_timeout_sec: 120, default_tools_approval_mode: "approve" })
    expect(carriedSettings("codex", [{ command: "a", default_tools_approval_mode: "approve" }, { command: "b" }])).toEqual({})
  })

  it("Gemini CLI: trust only when every server is trusted, the longest timeout; other hosts take nothing", () => {
    expect(carriedSettings("gemini", [{ command: "a", trust: true, timeout: 600_000 }, { command: "b", trust: true }])).toEqual({ trust: true, timeout: 600_000 })
    expect(carriedSettings("gemini", [{ command: "a", trust: true }, { command: "b", trust: false }])).toEqual({})
    expect(carriedSettings("opencode", [{ type: "local", command: ["a"], timeout: 9_000 }])).toEqual({ timeout: 9_000 })
    expect(carriedSettings("claude", [{ command: "a", timeout: 5 }])).toEqual({})
    expect(carriedSettings("cursor", [])).toEqual({})
  })
})
