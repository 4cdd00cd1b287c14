import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { Host, Inventory } from "../../src/index.js"

/** A host with two tools and no agents of its own. */
const port = Layer.succeed(Host.HostPort, {
  name: "test-host",
  reserved: [],
  tools: () =>
    Effect.succeed([
      { name: "mcp__github__create_issue", description: "Create an issue.", inputSchema: { type: "object" } },
      { name: "mcp__github__search_code", description: "Search code.", inputSchema: { type: "object" } }
    ]),
  restrict: () => Effect.void,
  view: () => Effect.succeed(Option.none()),
  agents: Effect.succeed([]),
  lifecycle: Stream.empty
})

describe("HostLayer", () => {
  it.live("is one graph: the scanner, the inventory reader and the catalog over the host's port", () =>
    Effect.gen(function*() {
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "tool-map-host-layer-" })
      const bin = NodePath.join(dir, "bin")
      fs.mkdirSync(bin)
      fs.writeFileSync(NodePath.join(bin, "mytool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
      const machine = Inventory.MachineEnvironment.layerTest({
        env: { PATH: bin, PLUGIN_DATA: NodePath.join(dir, "data") },
        homedir: NodePath.join(dir, "home"),
        cwd: dir
      })
      const program = Effect.gen(function*() {
        // The reader runs the first scan through the same graph's scanner.
        const inventory = yield* (yield* Inventory.InventoryReader).load(Option.none())
        const catalog = yield* Host.ToolCatalog
        const agent = { id: "a" }
        yield* catalog.attach(agent)
        const loaded = yield* catalog.load(agent, ["github"])
        return {
          tools: inventory.tools.filter((tool) => tool.pathIndex !== null).map((tool) => tool.name),
          bundle: fs.readdirSync(NodePath.join(dir, "data")).filter((name) => name.startsWith("tools.")).sort(),
          added: loaded.added
        }
      })
      const result = yield* program.pipe(
        Effect.provide(Host.HostLayer({ persist: false }).pipe(Layer.provide(port), Layer.provide(Layer.merge(machine, NodeContext.layer))))
      )
      expect(result).toEqual({
        tools: ["mytool"],
        bundle: ["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"],
        added: ["mcp__github__create_issue", "mcp__github__search_code"]
      })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))
})
