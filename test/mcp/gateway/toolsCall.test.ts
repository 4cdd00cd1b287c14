/**
 * Loaded tools reach the model in every host: `tools_call` calls a catalog tool by name (Codex
 * never re-lists after list_changed), a load's answer gives each tool's schema and says how to
 * call it — waiting for the client's re-list where the client does re-list — and the entry tools
 * are never deferred by Claude Code's tool search (`anthropic/alwaysLoad`).
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { GATEWAY_ENTRY_TOOLS } from "../../../src/mcp/gateway/gatewayTools.js"
import { namesOf, referenceServers, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

const ECHO_SCHEMA_LINE = "mcp__everything__echo {\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"Message to echo\"}},\"required\":[\"message\"]}"

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-call-"))
})
afterEach(() => remove())

describe("tools_call and the answer of a load", () => {
  it("tells a client that never re-lists to use tools_call, remembers it, and tools_call reaches the loaded tool", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir, relists: false }, async ({ client }) => {
      const started = Date.now()
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__everything__echo"] } }))).toBe([
        "Loaded 1 tool(s), ~59 tok; callable from your next step:",
        "  mcp__everything__echo",
        "Your client does not update its tool list: call them with tools_call {name, arguments}.",
        ECHO_SCHEMA_LINE
      ].join("\n"))
      // The hold (200 ms here) was waited for once; the second load knows the client by now.
      const second = textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__everything__get-sum"] } }))
      expect(second.split("\n").slice(1, 3)).toEqual([
        "  mcp__everything__get-sum",
        "Your client does not update its tool list: call them with tools_call {name, arguments}."
      ])
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
      expect(await client.callTool({ name: "tools_call", arguments: { name: "mcp__everything__echo", arguments: { message: "through" } } })).toEqual({
        content: [{ type: "text", text: "Echo: through" }]
      })
      // The name as a host shows it, with the host's own prefix in front, is found too.
      expect(
        await client.callTool({ name: "tools_call", arguments: { name: "mcp__tool-map__mcp__everything__echo", arguments: { message: "prefixed" } } })
      ).toEqual({ content: [{ type: "text", text: "Echo: prefixed" }] })
    })
  })

  it("holds the answer of a load until a client that re-lists has the tool in its list", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir }, async ({ client, listChanged }) => {
      const answer = textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__everything__echo"] } }))
      // The harness's client re-lists before it counts the notification: by the answer, it has.
      expect(listChanged()).toBe(1)
      expect(answer.split("\n")).toEqual([
        "Loaded 1 tool(s), ~59 tok; callable from your next step:",
        "  mcp__everything__echo",
        "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
        ECHO_SCHEMA_LINE
      ])
      const listed = (await client.listTools()).tools
      expect(namesOf(listed)).toEqual([...ENTRY, "mcp__everything__echo"])
      // Loaded on the agent's request: Claude Code's tool search must not defer it again.
      expect(listed.at(-1)?._meta).toEqual({ "anthropic/alwaysLoad": true })
    })
  })

  it("calls a hidden tool by the rescue rule and refuses a high-risk one, as a direct call does", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir }, async ({ client }) => {
      expect(await client.callTool({ name: "tools_call", arguments: { name: "mcp__everything__echo", arguments: { message: "rescued" } } })).toEqual({
        content: [{ type: "text", text: "Echo: rescued" }]
      })
      const direct = await client.callTool({ name: "mcp__memory__delete_entities", arguments: { entityNames: ["x"] } })
      const through = await client.callTool({ name: "tools_call", arguments: { name: "mcp__memory__delete_entities", arguments: { entityNames: ["x"] } } })
      expect(through).toEqual(direct)
      expect(through).toEqual({
        content: [{
          type: "text",
          text:
            "\"mcp__memory__delete_entities\" is high risk and is not loaded. Load it first with tools_load([\"mcp__memory__delete_entities\"]), which asks for approval."
        }],
        isError: true
      })
    })
  })

  it("refuses an unknown name, an entry tool and arguments of the wrong shape, each with a reason", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir }, async ({ client }) => {
      expect(await client.callTool({ name: "tools_call", arguments: { name: "mcp__nowhere__nothing\u001b[31m" } })).toEqual({
        content: [{ type: "text", text: "\"mcp__nowhere__nothing\uFFFD[31m\" is not a tool of this gateway. Find one with tools_find or tools_ls." }],
        isError: true
      })
      expect(await client.callTool({ name: "tools_call", arguments: { name: "tools_load", arguments: { targets: ["memory"] } } })).toEqual({
        content: [{ type: "text", text: "tools_load is an entry tool: call it directly, not through tools_call." }],
        isError: true
      })
      expect(await client.callTool({ name: "tools_call", arguments: { name: "mcp__everything__echo", arguments: "message" } })).toEqual({
        content: [{ type: "text", text: "Invalid arguments for tools_call: give name (a tool's name) and arguments (an object)." }],
        isError: true
      })
    })
  })
})

describe("the entry tools as the gateway lists them", () => {
  it("carry anthropic/alwaysLoad and a search hint, so Claude Code's tool search never defers them", async () => {
    await withGateway({ servers: referenceServers(dir), dataDir: dir }, async ({ client }) => {
      const tools = (await client.listTools()).tools
      expect(namesOf(tools)).toEqual(ENTRY)
      // Reading tools say so (a host may then run them without asking); tools_call says nothing, being whatever it calls.
      expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint ?? null]))).toEqual({
        tools_ls: true,
        tools_load: false,
        tools_unload: false,
        tools_call: null,
        tools_find: true,
        tools_route: false,
        skills_find: true,
        skills_route: true
      })
      for (const tool of tools) {
        expect(tool._meta).toEqual({
          "anthropic/alwaysLoad": true,
          "anthropic/searchHint": "find, load and call the tools of MCP servers behind the tool-map gateway"
        })
      }
    })
  })

  it("cost at most 520 o200k tokens together as JSON, leaving a host's own wrapping (Claude Code: ~60) within 600", () => {
    // _meta and the annotations are read by the host, not sent to the model.
    const sent = GATEWAY_ENTRY_TOOLS.map(({ _meta: _hostOnly, annotations: _alsoHostOnly, ...tool }) => tool)
    const tokens = sent.reduce((sum, tool) => sum + encode(JSON.stringify(tool)).length, 0)
    expect(tokens).toBeLessThanOrEqual(520)
  })
})
