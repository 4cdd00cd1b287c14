/**
 * The first session of a gateway whose server has no snapshot yet: it is answered before that
 * server lists its tools, unless its agent has tools loaded or pinned; the entry tools wait for
 * the listing. The fixture server lists only once the test opens its gate (a file), so every
 * order asserted here is made by the test, not by timing.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { fixture, namesOf, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]
const GATED = ["mcp__gated__fetch_page", "mcp__gated__page_title"]

let dir: string
let remove: () => void
let gate: string

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-first-session-"))
  gate = path.join(dir, "gate")
})
afterEach(() => remove())

const gated = () => fixture("gated", "gated.mjs", [gate])

/**
 * Sends `request`, then makes sure the gateway has it before the caller goes on: the answer to a
 * ping sent after it comes once the gateway has read both (the transport keeps their order).
 */
const sent = async <A>(client: Client, request: Promise<A>) => {
  let answered = false
  const tracked = request.finally(() => {
    answered = true
  })
  await client.ping()
  return { answered: () => answered, result: tracked }
}

describe("the gateway's first session while a server is still being listed", () => {
  it("answers the first tools/list with the entry tools, then sends list_changed once the server listed", async () => {
    await withGateway({ servers: [gated()], dataDir: dir, afterListing: false }, async ({ client, listChanged, nextListChanged }) => {
      const changed = nextListChanged()
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
      expect(listChanged()).toBe(0)
      fs.writeFileSync(gate, "")
      await changed
      expect(listChanged()).toBe(1)
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
      const loaded = nextListChanged()
      expect(textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["gated"] } }))).toBe([
        "Loaded 2 tool(s), ~74 tok; callable from your next step:",
        "  mcp__gated__fetch_page",
        "  mcp__gated__page_title",
        "Your tool list now has them: call each by its name (tools_call {name, arguments} works too).",
        "mcp__gated__fetch_page {\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}}}",
        "mcp__gated__page_title {\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}}}"
      ].join("\n"))
      await loaded
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, ...GATED])
    })
  })

  it("answers tools_ls and tools_find only once the server listed, with its tools", async () => {
    await withGateway({ servers: [gated()], dataDir: dir, afterListing: false }, async ({ client }) => {
      const ls = await sent(client, client.callTool({ name: "tools_ls", arguments: { path: "/mcp/gated" } }))
      const find = await sent(client, client.callTool({ name: "tools_find", arguments: { query: "web page title" } }))
      expect([ls.answered(), find.answered()]).toEqual([false, false])
      fs.writeFileSync(gate, "")
      expect(textOf(await ls.result)).toBe([
        "/mcp/gated/",
        "      fetch_page  ~38 tok  Fetches a web page and returns its text.",
        "      page_title  ~36 tok  Returns the title of a web page."
      ].join("\n"))
      expect(textOf(await find.result)).toBe([
        "2 tools for \"web page title\", best first (load with tools_load, or find and load at once with tools_route):",
        "     1.68  /mcp/gated/page_title  ~36 tok  Returns the title of a web page.",
        "        why: name: page, title; description: web, page, title",
        "     0.64  /mcp/gated/fetch_page  ~38 tok  Fetches a web page and returns its text.",
        "        why: name: page; description: web, page"
      ].join("\n"))
    })
  })

  it("waits for the server before the first tools/list of an agent with a pinned tool of it", async () => {
    fs.mkdirSync(path.join(dir, "catalog"), { recursive: true })
    fs.writeFileSync(path.join(dir, "catalog", "settings.json"), JSON.stringify({ pinned: ["mcp__gated__page_title"] }))
    await withGateway({ servers: [gated()], dataDir: dir, afterListing: false }, async ({ client, listChanged }) => {
      const list = await sent(client, client.listTools())
      expect(list.answered()).toBe(false)
      fs.writeFileSync(gate, "")
      expect(namesOf((await list.result).tools)).toEqual([...ENTRY, "mcp__gated__page_title"])
      expect(listChanged()).toBe(0)
    })
  })

  it("waits for the server before the first tools/list of an agent with tools of it loaded", async () => {
    fs.writeFileSync(gate, "")
    await withGateway({ servers: [gated()], dataDir: dir }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["gated"] } })
    })
    // The next gateway has no snapshot of the server, which lists only once the gate opens again.
    fs.rmSync(path.join(dir, "gateway", "snapshots"), { recursive: true })
    fs.rmSync(gate)
    await withGateway({ servers: [gated()], dataDir: dir, afterListing: false }, async ({ client, listChanged }) => {
      const list = await sent(client, client.listTools())
      expect(list.answered()).toBe(false)
      fs.writeFileSync(gate, "")
      expect(namesOf((await list.result).tools)).toEqual([...ENTRY, ...GATED])
      expect(listChanged()).toBe(0)
    })
  })
})

describe("an exempt agent's tools/list", () => {
  it("holds every tool: the entry tools, the pinned ones (which the catalog keeps out of its build), then the rest", async () => {
    fs.writeFileSync(gate, "")
    fs.mkdirSync(path.join(dir, "catalog"), { recursive: true })
    fs.writeFileSync(path.join(dir, "catalog", "settings.json"), JSON.stringify({ pinned: ["mcp__gated__page_title"] }))
    // The harness's session id: exempt by session.
    fs.writeFileSync(path.join(dir, "catalog", "exempt.json"), JSON.stringify({ sessions: ["test-session"] }))
    await withGateway({ servers: [gated()], dataDir: dir }, async ({ client }) => {
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__gated__page_title", "mcp__gated__fetch_page"])
    })
  })
})
