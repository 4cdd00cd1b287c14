import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { changesBetween, describeChangeCounts, type DigestItem, digestOfParsed, type GenerationDigest } from "../../../src/inventory/domain/drift.js"

const item = (id: string, fields: Partial<DigestItem> = {}): DigestItem =>
  ({ id, host: "claude-code", kind: "agent", name: id.split("/").pop()!, sha256: "a", loaded: true, ...fields })

const server = (id: string, command: string | null, envVars: ReadonlyArray<string>, url: string | null = null) =>
  item(id, { kind: "mcpServer", name: id.slice(id.indexOf("#") + 1), command, url, envVars })

const digest = (generation: string, parts: Partial<GenerationDigest>): GenerationDigest =>
  ({ generation, generatedAt: `${generation}-at`, tools: [], versions: [], items: [], ...parts })

describe("drift between two generations (issue 14)", () => {
  it("lists MCP servers first, then tools, versions and items, each sorted", () => {
    const before = digest("g1", {
      tools: [{ name: "gh", path: "/usr/bin/gh" }, { name: "node", path: "/usr/bin/node" }, { name: "old", path: "/bin/old" }],
      versions: [{ name: "git", version: "2.39.0" }, { name: "node", version: "20.1.0" }],
      items: [
        server("claude-code:mcpServer:user:/h/.claude.json#notion", "npx notion", ["A"]),
        server("claude-code:mcpServer:user:/h/.claude.json#gone", "gone", []),
        item("claude-code:agent:user:/h/a/kept", { sha256: "x" }),
        item("claude-code:agent:user:/h/a/off"),
        item("claude-code:agent:user:/h/a/on", { loaded: false }),
        item("claude-code:skill:user:/h/s/removed", { kind: "skill" })
      ]
    })
    const after = digest("g2", {
      tools: [{ name: "gh", path: "/usr/bin/gh" }, { name: "new", path: "/bin/new" }, { name: "node", path: "/opt/node/bin/node" }],
      versions: [{ name: "git", version: "2.39.0" }, { name: "node", version: "22.0.0" }, { name: "python3", version: "3.12.1" }],
      items: [
        server("claude-code:mcpServer:user:/h/.claude.json#notion", "npx notion", ["A", "TOKEN"]),
        server("claude-code:mcpServer:project:/p/.mcp.json#evil", "curl", [], null),
        item("claude-code:agent:user:/h/a/kept", { sha256: "y" }),
        item("claude-code:agent:user:/h/a/off", { loaded: false }),
        item("claude-code:agent:user:/h/a/on"),
        item("codex:skill:user:/h/s/added", { kind: "skill", host: "codex" })
      ]
    })
    const changes = changesBetween(before, after)
    expect(changes).toEqual({
      since: { generation: "g1", generatedAt: "g1-at" },
      current: { generation: "g2", generatedAt: "g2-at" },
      mcpServers: {
        added: [{ host: "claude-code", kind: "mcpServer", name: "evil", id: "claude-code:mcpServer:project:/p/.mcp.json#evil", command: "curl", url: null, envVars: [] }],
        changed: [{
          host: "claude-code",
          kind: "mcpServer",
          name: "notion",
          id: "claude-code:mcpServer:user:/h/.claude.json#notion",
          fields: ["env"],
          before: { command: "npx notion", url: null, envVars: ["A"] },
          after: { command: "npx notion", url: null, envVars: ["A", "TOKEN"] }
        }],
        removed: [{ host: "claude-code", kind: "mcpServer", name: "gone", id: "claude-code:mcpServer:user:/h/.claude.json#gone" }]
      },
      tools: {
        added: [{ name: "new", path: "/bin/new" }],
        removed: [{ name: "old", path: "/bin/old" }],
        moved: [{ name: "node", from: "/usr/bin/node", to: "/opt/node/bin/node" }],
        versionChanged: [{ name: "node", from: "20.1.0", to: "22.0.0" }, { name: "python3", from: null, to: "3.12.1" }]
      },
      items: {
        added: [{ host: "codex", kind: "skill", name: "added", id: "codex:skill:user:/h/s/added" }],
        removed: [{ host: "claude-code", kind: "skill", name: "removed", id: "claude-code:skill:user:/h/s/removed" }],
        enabled: [{ host: "claude-code", kind: "agent", name: "on", id: "claude-code:agent:user:/h/a/on" }],
        disabled: [{ host: "claude-code", kind: "agent", name: "off", id: "claude-code:agent:user:/h/a/off" }],
        contentChanged: [{ host: "claude-code", kind: "agent", name: "kept", id: "claude-code:agent:user:/h/a/kept" }]
      },
      count: 13
    })
    expect(describeChangeCounts(changes)).toBe(
      "1 MCP server added, 1 MCP server changed, 1 MCP server removed, 1 tool added, 1 tool removed, 1 tool moved, 2 versions changed, 1 agent-host item added, 1 agent-host item removed, 1 item enabled, 1 item disabled, 1 item's content changed"
    )
  })

  it("a generation compared with itself has no changes", () => {
    const same = digest("g", { tools: [{ name: "a", path: "/a" }], items: [item("x")] })
    expect(changesBetween(same, same).count).toBe(0)
    expect(describeChangeCounts(changesBetween(same, same))).toBeNull()
  })

  it("the digest of a parsed tools.json: the unshadowed copy of each name, PATH first; ok versions only; MCP command lines", () => {
    const parsed = {
      generation: "g",
      generatedAt: "t",
      extra: "ignored",
      tools: [
        { name: "node", path: "/home/u/.local/node", pathIndex: null, shadowedBy: null },
        { name: "node", path: "/usr/bin/node", pathIndex: 1, shadowedBy: null },
        { name: "node", path: "/bin/node", pathIndex: 2, shadowedBy: "/usr/bin/node" },
        { name: "awk", path: "/bin/awk", pathIndex: 2, shadowedBy: null }
      ],
      versions: [{ name: "node", version: "20.0.0", status: "ok" }, { name: "gh", version: null, status: "missing" }],
      agentHosts: {
        items: [
          { id: "i1", host: "codex", kind: "mcpServer", name: "gh", sha256: "s", enabled: true, shadowedBy: null, command: "gh", args: ["mcp"], url: null, envVars: ["GH_TOKEN"] },
          { id: "i2", host: "codex", kind: "agent", name: "a", sha256: null, enabled: true, shadowedBy: "i3" }
        ]
      }
    }
    const found = Option.getOrThrow(digestOfParsed(parsed))
    expect(found.tools).toEqual([{ name: "awk", path: "/bin/awk" }, { name: "node", path: "/usr/bin/node" }])
    expect(found.versions).toEqual([{ name: "node", version: "20.0.0" }])
    expect(found.items).toEqual([
      { id: "i1", host: "codex", kind: "mcpServer", name: "gh", sha256: "s", loaded: true, command: "gh mcp", url: null, envVars: ["GH_TOKEN"] },
      { id: "i2", host: "codex", kind: "agent", name: "a", sha256: null, loaded: false }
    ])
    expect(Option.isNone(digestOfParsed({ generation: "g" }))).toBe(true)
    expect(Option.isNone(digestOfParsed("not json"))).toBe(true)
  })
})
