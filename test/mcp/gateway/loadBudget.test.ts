/**
 * The load budget (issue 27, point 18): a load that would take an agent's tool list over the
 * budget of schema tokens is refused with the figures and the narrower targets that fit, in the
 * gateway's `tools_load` and in `tool-map catalog load` alike; the budget is the catalog setting
 * `loadBudget` (default 20,000), or a gateway's own.
 */
import { AgentHostFiles } from "../../../src/inventory/discover/agentHosts/index.js"
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { catalogCommand } from "../../../src/cli/catalogCommands.js"
import { GatewayLayer } from "../../../src/layers/GatewayLayer.js"
import { GatewayServers } from "../../../src/mcp/gateway/GatewayServers.js"
import { McpServer } from "../../../src/mcp/server/McpServer.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { captureConsole } from "../../cli/inProcess.js"
import { fixture, namesOf, TEST_TIMINGS, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-budget-"))
})
afterEach(() => remove())

/** Sets the catalog setting `loadBudget` in the catalog dir the gateway and the CLI share. */
const setBudget = (budget: number) => {
  fs.mkdirSync(path.join(dir, "catalog"), { recursive: true })
  fs.writeFileSync(path.join(dir, "catalog", "settings.json"), JSON.stringify({ loadBudget: budget }))
}

const load = async (client: Client, ...targets: ReadonlyArray<string>) => textOf(await client.callTool({ name: "tools_load", arguments: { targets } }))

describe("the load budget", () => {
  it("refuses to load a group of 10,000 tools with the default budget, naming the tools that fit", async () => {
    await withGateway({ servers: [fixture("many", "many.mjs")], dataDir: dir }, async ({ client }) => {
      expect(await load(client, "many")).toBe(
        "Load refused: it would add ~520.0k tok of tool schemas to the ~0 tok loaded, over the load budget of ~20.0k tok (the catalog setting loadBudget). Narrower targets that fit in the ~20.0k tok left, largest first: mcp__many__tool_00000 (~52 tok), mcp__many__tool_00001 (~52 tok), mcp__many__tool_00002 (~52 tok), mcp__many__tool_00003 (~52 tok), mcp__many__tool_00004 (~52 tok), and 9995 more."
      )
      expect(namesOf((await client.listTools()).tools)).toEqual(ENTRY)
    })
  })

  it("counts what is loaded already, and says when nothing fits in what is left", async () => {
    setBudget(100)
    await withGateway({ servers: [fixture("poisoned", "poisoned.mjs")], dataDir: dir }, async ({ client }) => {
      expect(await load(client, "poisoned")).toBe(
        "Load refused: it would add ~121 tok of tool schemas to the ~0 tok loaded, over the load budget of ~100 tok (the catalog setting loadBudget). Narrower targets that fit in the ~100 tok left, largest first: mcp__poisoned__tagged (~62 tok), mcp__poisoned__bidi (~30 tok), mcp__poisoned__ansi (~29 tok)."
      )
      expect((await load(client, "mcp__poisoned__tagged", "mcp__poisoned__bidi")).split("\n")[0]).toBe("Loaded 2 tool(s), ~92 tok; callable from your next step:")
      expect(await load(client, "/mcp/poisoned")).toBe(
        "Load refused: it would add ~29 tok of tool schemas to the ~92 tok loaded, over the load budget of ~100 tok (the catalog setting loadBudget). Nothing it names fits in the ~8 tok left: unload something first."
      )
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__poisoned__tagged", "mcp__poisoned__bidi"])
    })
  })

  it("applies to tool-map catalog load, which loads through the same service", async () => {
    setBudget(100)
    const schemas = path.join(dir, "tools.json")
    const tool = (name: string, words: number) => ({
      name,
      description: Array.from({ length: words }, (_, i) => `word${i}`).join(" "),
      inputSchema: { type: "object" }
    })
    fs.writeFileSync(schemas, JSON.stringify({ tools: [tool("mcp__big__one", 80), tool("mcp__big__two", 20), tool("mcp__big__three", 5)] }))
    const cli = Command.run(Command.make("tool-map").pipe(Command.withSubcommands([catalogCommand])), { name: "tool-map", version: "test" })
    const run = (...args: ReadonlyArray<string>) =>
      Effect.runPromise(captureConsole(cli(["node", "tool-map", "catalog", ...args]).pipe(
        Effect.provide(Layer.mergeAll(AgentHostFiles.layer.pipe(Layer.provideMerge(NodeContext.layer)), MachineEnvironment.layerTest({ env: { PLUGIN_DATA: dir }, homedir: dir, cwd: dir })))
      )))
    const refused = await run("load", "big", "--schemas", schemas)
    expect(refused.stdout.trim()).toMatch(
      /^Load refused: it would add ~\d+ tok of tool schemas to the ~0 tok loaded, over the load budget of ~100 tok \(the catalog setting loadBudget\)\. Narrower targets that fit in the ~100 tok left, largest first: mcp__big__two \(~\d+ tok\), mcp__big__three \(~\d+ tok\)\.$/
    )
    const json = JSON.parse((await run("load", "--json", "big", "--schemas", schemas)).stdout) as { readonly refused: string | null; readonly added: ReadonlyArray<string> }
    expect([json.added, json.refused?.startsWith("it would add")]).toEqual([[], true])
  })

  it("takes a gateway's own budget when the settings file sets none", async () => {
    const layer = McpServer.layer.pipe(
      Layer.provideMerge(GatewayLayer({ servers: [fixture("poisoned", "poisoned.mjs")], agent: Option.none(), dataDir: dir, timings: TEST_TIMINGS, loadBudget: 50 })),
      Layer.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({ homedir: dir, cwd: dir })))
    )
    const answer = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const server = yield* McpServer
      yield* (yield* GatewayServers).initialized
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide, "test-session")
      const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: {} })
      yield* Effect.promise(() => client.connect(clientSide))
      return yield* Effect.promise(() => load(client, "poisoned").finally(() => client.close()))
    })).pipe(Effect.provide(layer)))
    expect(answer.split(". ")[0]).toBe(
      "Load refused: it would add ~121 tok of tool schemas to the ~0 tok loaded, over the load budget of ~50 tok (the catalog setting loadBudget)"
    )
  })
})
