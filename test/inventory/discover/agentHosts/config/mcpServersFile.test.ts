/**
 * Where an MCP server entry of a given name may sit in any host's config file (the gateway finds
 * the entry an inventory item names there, by its hash).
 */
import { describe, expect, it } from "vitest"
import { mcpEntriesNamed } from "../../../../../src/inventory/discover/agentHosts/config/mcpServersFile.js"

describe("mcpEntriesNamed", () => {
  it("finds the name under every host's key, at the top level and in each project, own keys only", () => {
    const root = JSON.parse(`{
      "mcpServers": {"db": {"command": "a"}, "other": {}},
      "mcp_servers": {"db": {"command": "b"}},
      "mcp": {"db": {"command": ["c"]}},
      "db": {"command": "d"},
      "projects": {"/p": {"mcpServers": {"db": {"command": "e"}}}, "/q": 3, "/r": {"mcpServers": []}}
    }`) as unknown
    expect(mcpEntriesNamed("/f.json", root, "db")).toEqual([{ command: "a" }, { command: "b" }, { command: ["c"] }, { command: "d" }, { command: "e" }])
    expect(mcpEntriesNamed("/f.json", root, "constructor")).toEqual([])
    expect(mcpEntriesNamed("/f.json", JSON.parse(`{"mcpServers": {"__proto__": {"command": "p"}}}`), "__proto__")).toEqual([{ command: "p" }])
    expect(mcpEntriesNamed("/f.json", ["db"], "db")).toEqual([])
  })
})
