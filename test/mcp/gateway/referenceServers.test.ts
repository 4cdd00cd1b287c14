/**
 * The gateway in front of the three reference servers from npm (`server-everything`,
 * `server-memory`, `server-filesystem`) run as real child processes, driven by the SDK's
 * `Client` as a user's MCP client would.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { direct, namesOf, referenceServers, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

const MEMORY_LOADED = [
  "mcp__memory__add_observations",
  "mcp__memory__create_entities",
  "mcp__memory__create_relations",
  "mcp__memory__open_nodes",
  "mcp__memory__read_graph",
  "mcp__memory__search_nodes"
]

/** How many times the gateway started a server, from the start lines of its log. */
const starts = (dir: string, server: string): number => {
  const log = path.join(dir, "gateway", "logs", `${server}.log`)
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((line) => / started, pid \d+$/.test(line)).length : 0
}

/** The tool names of a group listing of `tools_ls`, in the order listed. */
const listedNames = (listing: string) =>
  listing.split("\n").slice(1).map((line) => line.trim().replace(/^[*!]\s*[!]?\s*/, "").split(/\s+/)[0])

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-"))
})
afterEach(() => remove())

describe("the gateway in front of the reference servers", () => {
  it("starts a session with the entry tools only, and tools_ls shows every downstream tool under its server", async () => {
    const servers = referenceServers(dir)
    const expected = await Promise.all(servers.map((server) => direct(server, async (client) => namesOf((await client.listTools()).tools))))
    await withGateway({ servers, dataDir: dir }, async ({ client }) => {
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toBe([
        "/mcp/  Tools of the MCP servers behind the gateway, one group per server",
        `  everything/  ${expected[0]!.length} tools  0 loaded  ~1.1k tok`,
        `  filesystem/  ${expected[2]!.length} tools  0 loaded  ~1.8k tok`,
        `  memory/      ${expected[1]!.length} tools   0 loaded  ~960 tok`
      ].join("\n"))
      for (const [index, server] of ["everything", "memory", "filesystem"].entries()) {
        const listing = textOf(await client.callTool({ name: "tools_ls", arguments: { path: `/mcp/${server}` } }))
        expect(listing.split("\n")[0]).toBe(`/mcp/${server}/`)
        expect(listedNames(listing)).toEqual([...expected[index]!].sort())
      }
    })
  })

  it("appends exactly the loaded group's tools, sends list_changed per load, and unloads them again", async () => {
    const servers = referenceServers(dir)
    await withGateway({ servers, dataDir: dir }, async ({ client, listChanged, nextListChanged }) => {
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
      let changed = nextListChanged()
      const loaded = textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["memory"] } }))
      await changed
      const schemas = await direct(servers[1]!, async (direct) => new Map((await direct.listTools()).tools.map((tool) => [`mcp__memory__${tool.name}`, tool.inputSchema])))
      expect(loaded).toBe([
        "Loaded 6 tool(s), ~611 tok; callable from your next step:",
        ...MEMORY_LOADED.map((name) => `  ${name}`),
        "/mcp/memory: high-risk tools left out (delete_entities, delete_observations, delete_relations); load them one by one",
        "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
        // Each schema as the server wrote it, as one line without its $schema.
        ...MEMORY_LOADED.map((name) => {
          const { $schema: _dialect, ...schema } = schemas.get(name) as Record<string, unknown>
          return `${name} ${JSON.stringify(schema)}`
        })
      ].join("\n"))
      expect(listChanged()).toBe(1)
      const afterMemory = namesOf((await client.listTools()).tools)
      expect(afterMemory).toEqual([...ENTRY, ...MEMORY_LOADED])

      changed = nextListChanged()
      await client.callTool({ name: "tools_load", arguments: { targets: ["/mcp/everything"] } })
      await changed
      expect(listChanged()).toBe(2)
      const afterEverything = namesOf((await client.listTools()).tools)
      expect(afterEverything.slice(0, afterMemory.length)).toEqual(afterMemory)
      expect(afterEverything.slice(afterMemory.length)).toEqual([
        "mcp__everything__echo",
        "mcp__everything__get-annotated-message",
        "mcp__everything__get-env",
        "mcp__everything__get-resource-links",
        "mcp__everything__get-resource-reference",
        "mcp__everything__get-structured-content",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
        "mcp__everything__gzip-file-as-resource",
        "mcp__everything__simulate-research-query",
        "mcp__everything__toggle-simulated-logging",
        "mcp__everything__toggle-subscriber-updates",
        "mcp__everything__trigger-long-running-operation"
      ])

      changed = nextListChanged()
      expect(textOf(await client.callTool({ name: "tools_unload", arguments: { targets: ["memory"] } }))).toBe(
        ["Unloaded 6 tool(s):", ...MEMORY_LOADED.map((name) => `  ${name}`)].join("\n")
      )
      await changed
      expect(listChanged()).toBe(3)
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, ...afterEverything.slice(afterMemory.length)])
    })
  })

  it("proxies a call and returns exactly what the server returns", async () => {
    const servers = referenceServers(dir)
    const [everything, memory, filesystem] = servers
    const file = path.join(dir, "files", "hello.txt")
    const calls = [
      { server: everything!, name: "echo", arguments: { message: "hello gateway" } },
      { server: everything!, name: "get-sum", arguments: { a: 2, b: 40 } },
      { server: everything!, name: "get-structured-content", arguments: { location: "New York" } },
      { server: everything!, name: "get-tiny-image", arguments: {} },
      { server: memory!, name: "read_graph", arguments: {} },
      { server: filesystem!, name: "read_text_file", arguments: { path: file } },
      { server: filesystem!, name: "read_text_file", arguments: { path: "/etc/passwd" } }
    ]
    const expected: Array<Awaited<ReturnType<Client["callTool"]>>> = []
    for (const call of calls) expected.push(await direct(call.server, (client) => client.callTool({ name: call.name, arguments: call.arguments })))
    await withGateway({ servers, dataDir: dir }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["everything", "memory", "filesystem"] } })
      for (const [index, call] of calls.entries()) {
        const result = await client.callTool({ name: `mcp__${call.server.name}__${call.name}`, arguments: call.arguments })
        expect(result).toEqual(expected[index])
      }
    })
    // The denied read is the server's own isError answer, passed through.
    expect(expected[6]!.isError).toBe(true)
  })

  it("loads a hidden tool called directly, and refuses a high-risk one with the load instruction", async () => {
    const servers = referenceServers(dir)
    await withGateway({ servers, dataDir: dir }, async ({ client, nextListChanged }) => {
      const changed = nextListChanged()
      const echo = await client.callTool({ name: "mcp__everything__echo", arguments: { message: "rescued" } })
      await changed
      expect(echo).toEqual({ content: [{ type: "text", text: "Echo: rescued" }] })
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__everything__echo"])
      expect(await client.callTool({ name: "mcp__memory__delete_entities", arguments: { entityNames: ["x"] } })).toEqual({
        content: [{
          type: "text",
          text:
            "\"mcp__memory__delete_entities\" is high risk and is not loaded. Load it first with tools_load([\"mcp__memory__delete_entities\"]), which asks for approval."
        }],
        isError: true
      })
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__memory__delete_entities"] } })).split("\n")).toEqual([
        "Nothing new loaded.",
        "mcp__memory__delete_entities is high risk and the risk gate MCP elicitation did not approve it; not loaded",
        expect.stringMatching(
          /^mcp__memory__delete_entities was not loaded: this MCP client cannot ask the user to confirm a high-risk tool \(it declared no elicitation capability\)\. Ask the user to run `tool-map catalog approve [A-Z0-9]{4}-[A-Z0-9]{4}` in their terminal \(the code expires in 10 minutes\), then call tools_load again\.$/
        )
      ])
    })
  })

  it("asks the user through elicitation before a high-risk load, and loads only on a yes", async () => {
    const servers = referenceServers(dir)
    const asked: Array<string> = []
    let answer = false
    await withGateway({ servers, dataDir: dir, clientOptions: { capabilities: { elicitation: { form: {} } } } }, async ({ client }) => {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message)
        return { action: "accept", content: { confirm: answer } }
      })
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__memory__delete_entities"] } }))).toBe([
        "Nothing new loaded.",
        "mcp__memory__delete_entities is high risk and the risk gate MCP elicitation did not approve it; not loaded",
        "mcp__memory__delete_entities was not loaded: the user answered no"
      ].join("\n"))
      answer = true
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__memory__delete_entities"] } }))).toBe(
        [
          "Loaded 1 tool(s), ~80 tok; callable from your next step:",
          "  mcp__memory__delete_entities",
          "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
          "mcp__memory__delete_entities {\"type\":\"object\",\"properties\":{\"entityNames\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"An array of entity names to delete\"}},\"required\":[\"entityNames\"]}"
        ].join("\n")
      )
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__memory__delete_entities"])
    })
    const question = "Let the agent use the high-risk tool mcp__memory__delete_entities?\nDelete multiple entities and their associated relations from the knowledge graph\nWhy it is high risk: MCP destructiveHint=true (untrusted hint); name has the verb \"delete\""
    expect(asked).toEqual([question, question])
  })

  it("keeps the state across a restart, which starts no downstream server while the snapshots are fresh", async () => {
    const servers = referenceServers(dir)
    await withGateway({ servers, dataDir: dir, agent: "claude-code" }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["memory", "mcp__filesystem__list_allowed_directories"] } })
    })
    const before = ["everything", "memory", "filesystem"].map((server) => starts(dir, server))
    expect(before).toEqual([1, 1, 1])
    await withGateway({ servers, dataDir: dir, agent: "claude-code" }, async ({ client }) => {
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__filesystem__list_allowed_directories", ...MEMORY_LOADED])
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } }))).toContain("memory/      9 tools   6 loaded")
    })
    expect(["everything", "memory", "filesystem"].map((server) => starts(dir, server))).toEqual(before)
    // The state is the catalog's, where the CLI keeps it.
    const state = JSON.parse(fs.readFileSync(path.join(dir, "catalog", "state", "claude-code.json"), "utf8"))
    expect(state.state.groups).toEqual(["/mcp/memory"])
    expect(state.state.loaded).toEqual(["mcp__filesystem__list_allowed_directories"])
  })
})
