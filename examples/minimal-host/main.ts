/**
 * A session on the minimal host with tool-map embedded: the model browses the catalog, loads
 * a group, calls a hidden tool directly, loads a high-risk tool through the risk gate, and
 * unloads everything. Prints the transcript.
 *
 *   npx tsx examples/minimal-host/main.ts
 *
 * State lives in a temp dir that is removed at the end.
 */
import { FileSystem } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { type Host, Inventory } from "../../src/index.js"
import { makeMemoryHost } from "./host.js"
import { allowLine, dispatch, EXAMPLE_TOOLS, pluginLayer, registerPlacements, startAgent } from "./plugin.js"

/** The session, as a program over a catalog dir. */
export const session = (dir: string) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: EXAMPLE_TOOLS })
    const agent: Host.Agent = { id: "main", sessionId: "s-1", provider: "example" }
    const transcript: Array<string> = []
    const step = (label: string, name: string, args: unknown) =>
      Effect.gen(function*() {
        const text = yield* dispatch(host, agent, name, args)
        transcript.push(`> ${label}`, text, "")
      })
    yield* Effect.gen(function*() {
      yield* registerPlacements
      yield* startAgent(host, agent)
      transcript.push(`allow: ${yield* allowLine(agent)}`, "")
      yield* step("tools_ls /", "tools_ls", { path: "/" })
      yield* step("tools_ls /code/github", "tools_ls", { path: "/code/github" })
      yield* step("tools_load /code/github", "tools_load", { targets: ["/code/github"] })
      yield* step("fs_tree (hidden, called directly)", "fs_tree", { path: "." })
      yield* step("mcp__github__delete_repository (high risk, called directly)", "mcp__github__delete_repository", {
        repo: "x"
      })
      yield* step("tools_load mcp__github__delete_repository (through the risk gate)", "tools_load", {
        targets: ["mcp__github__delete_repository"]
      })
      transcript.push(`allow: ${yield* allowLine(agent)}`, "")
      yield* step("tools_unload all", "tools_unload", { targets: ["all"] })
      transcript.push(`allow: ${yield* allowLine(agent)}`)
    }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { dir })))
    return transcript.join("\n")
  })

const main = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "tool-map-example-" })
  yield* Console.log(yield* session(dir))
}).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeContext.layer, Inventory.MachineEnvironment.layer)))

if (import.meta.url === `file://${process.argv[1]}`) NodeRuntime.runMain(main)
