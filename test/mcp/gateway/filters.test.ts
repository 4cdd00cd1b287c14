/**
 * A host's tool filter holds through the gateway: a downstream server of three tools, of which
 * the filter keeps one (include two, exclude one of them). The SDK client lists, finds, loads
 * and calls through the gateway; the filtered tools are in no listing and no call reaches them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { fixture, namesOf, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-filters-"))
})
afterEach(() => remove())

const filtered = () => ({
  ...fixture("abc", "many.mjs", ["3"]),
  tools: { include: ["tool_00000", "tool_00001"], exclude: ["tool_00001"] }
})

describe("a host's tool filter through the gateway", () => {
  it("lists, loads and calls only the tools the filter lets through", async () => {
    await withGateway({ servers: [filtered()], dataDir: dir }, async ({ client }) => {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe(
        ["/mcp/  Tools of the MCP servers behind the gateway, one group per server", "  abc/  1 tool  0 loaded  ~52 tok"].join("\n")
      )
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp/abc" } }))).toBe(
        ["/mcp/abc/", "      tool_00000  ~52 tok  Generated tool number 0: looks up record 0 in the generated data set."].join("\n")
      )
      const loaded = textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["abc"] } }))
      expect(loaded.split("\n").slice(0, 2)).toEqual(["Loaded 1 tool(s), ~52 tok; callable from your next step:", "  mcp__abc__tool_00000"])
      expect(namesOf((await client.listTools()).tools).filter((name) => !ENTRY.includes(name))).toEqual(["mcp__abc__tool_00000"])
      expect(await client.callTool({ name: "mcp__abc__tool_00000", arguments: { id: "1" } })).toEqual({
        content: [{ type: "text", text: "tool_00000 {\"id\":\"1\"}" }]
      })
    })
  })

  it("refuses to load or call a filtered-out tool, by any route", async () => {
    await withGateway({ servers: [filtered()], dataDir: dir }, async ({ client }) => {
      for (const name of ["mcp__abc__tool_00001", "mcp__abc__tool_00002"]) {
        expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: [name] } }))).toBe(
          `Nothing new loaded.\nskipped ${name}: not found (tools_ls with a query searches everything)`
        )
        await expect(client.callTool({ name, arguments: { id: "1" } })).rejects.toThrow(`MCP error -32602: Unknown tool: ${name}`)
        expect(await client.callTool({ name: "tools_call", arguments: { name, arguments: { id: "1" } } })).toEqual({
          content: [{ type: "text", text: `"${name}" is not a tool of this gateway. Find one with tools_find or tools_ls.` }],
          isError: true
        })
      }
      expect(textOf(await client.callTool({ name: "tools_find", arguments: { query: "looks up record", k: 5 } })).split("\n").slice(0, 2)).toEqual([
        "1 tool for \"looks up record\", best first (load with tools_load, or find and load at once with tools_route):",
        "     0.64  /mcp/abc/tool_00000  ~52 tok  Generated tool number 0: looks up record 0 in the generated data set."
      ])
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
    })
  })
})
