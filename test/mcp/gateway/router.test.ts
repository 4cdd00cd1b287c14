/**
 * The router's entry tools through the gateway, in front of the reference servers from npm, driven
 * by the SDK's `Client` in process: tools_find ranks the downstream tools, tools_route loads the
 * best of them in one load (the client is told its tool list changed) and they become callable.
 */
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { namesOf, referenceServers, tempDir, textOf, withGateway } from "./harness.js"

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-router-"))
})
afterEach(() => remove())

describe("the router's entry tools through the gateway", () => {
  it("finds downstream tools for a task, then routes: one load, listed to the client, callable", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir }, async ({ client }) => {
      const found = textOf(await client.callTool({ name: "tools_find", arguments: { query: "forget a person stored in the knowledge graph", k: 3 } }))
      // Lexical: "forget" is no word of the catalog; the graph's words carry the ranking, ! marks the high-risk tool.
      expect(found.split("\n")).toEqual([
        "3 tools for \"forget a person stored in the knowledge graph\", best first (load with tools_load, or find and load at once with tools_route):",
        "     5.79  /mcp/memory/read_graph  ~42 tok  Read the entire knowledge graph",
        "        why: name: graph; description: knowledge, graph",
        "   ! 4.22  /mcp/memory/delete_relations  ~145 tok  Delete multiple relations from the knowledge graph",
        "        why: description: knowledge, graph",
        "     4.08  /mcp/memory/create_entities  ~138 tok  Create multiple new entities in the knowledge graph",
        "        why: description: knowledge, graph"
      ])
      let changed = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        await client.listTools()
        changed += 1
      })
      const routed = textOf(await client.callTool({ name: "tools_route", arguments: { query: "store a new entity in the knowledge graph", budget: 400 } }))
      // One load: the high-risk hit goes to the risk gate (MCP elicitation), which this client cannot answer.
      expect(routed.split("\n")).toEqual([
        "Routed \"store a new entity in the knowledge graph\" (budget ~400 tok): chose mcp__memory__create_entities, mcp__memory__add_observations, mcp__memory__delete_entities, mcp__memory__read_graph.",
        "Loaded 3 tool(s), ~308 tok; callable from your next step:",
        "  mcp__memory__create_entities",
        "  mcp__memory__add_observations",
        "  mcp__memory__read_graph",
        "mcp__memory__delete_entities is high risk and the risk gate MCP elicitation did not approve it; not loaded",
        "Left out:",
        "  mcp__memory__create_relations: over the budget (~146 tok, ~134 tok left)",
        "  mcp__memory__delete_observations: over the budget (~124 tok, ~54 tok left)",
        "  mcp__memory__open_nodes: over the budget (~78 tok, ~54 tok left)",
        "  mcp__memory__delete_relations: over the budget (~145 tok, ~54 tok left)",
        "  mcp__memory__search_nodes: a weaker match (score 5.91, under half of the best 11.88)",
        "  mcp__filesystem__write_file: a weaker match (score 2.60, under half of the best 11.88)",
        expect.stringMatching(
          /^mcp__memory__delete_entities was not loaded: this MCP client cannot ask the user to confirm a high-risk tool \(it declared no elicitation capability\)\. Ask the user to run `tool-map catalog approve [A-Z0-9]{4}-[A-Z0-9]{4}` in their terminal \(the code expires in 10 minutes\), then call tools_load again\.$/
        ),
        "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
        ...["create_entities", "add_observations", "read_graph"].map((name) => expect.stringMatching(new RegExp(`^mcp__memory__${name} \\{"type":"object"`)))
      ])
      const listed = namesOf((await client.listTools()).tools)
      expect(listed).toContain("mcp__memory__create_entities")
      expect(listed.slice(0, 8)).toEqual(["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"])
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(changed).toBeGreaterThan(0)
      const created = await client.callTool({
        name: "mcp__memory__create_entities",
        arguments: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] }
      })
      expect(created.isError).not.toBe(true)
    })
  })
})
