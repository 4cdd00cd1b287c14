/**
 * The gateway's parts as `catalog --host` and `catalog snapshot` use them (issue 29, point 5):
 * `hostTools` reads the snapshots and starts no server; `listHostServers` lists each server
 * once, keeps its snapshot in the gateway's store and reports each one, a failure included;
 * a list that did not change is not written again.
 */
import { AgentHostFiles } from "../../../src/inventory/discover/agentHosts/index.js"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { hostTools, listHostServers, type ListingProgress } from "../../../src/mcp/gateway/hostSnapshots.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { tempDir } from "./harness.js"

const NOTES = path.resolve(import.meta.dirname, "../fixtures/notes.mjs")

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-host-snapshots-"))
})
afterEach(() => remove())

/** A home whose Claude Code config names the notes fixture and a server that exits at once. */
const setup = () => {
  const home = path.join(dir, "home")
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(home, ".claude.json"), JSON.stringify({
    mcpServers: {
      notes: { command: process.execPath, args: [NOTES] },
      broken: { command: process.execPath, args: ["-e", "process.exit(3)"] }
    }
  }))
  const data = path.join(dir, "data")
  const platform = Layer.mergeAll(AgentHostFiles.layer.pipe(Layer.provideMerge(NodeContext.layer)), MachineEnvironment.layerTest({ homedir: home, cwd: home, env: { HOME: home, PLUGIN_DATA: data } }))
  return { data, run: <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext | MachineEnvironment | AgentHostFiles>) => Effect.runPromise(Effect.provide(effect, platform)) }
}

describe("a host's servers through the gateway's snapshots", () => {
  it("reads the snapshots only: before any, no tool and no server started", async () => {
    const { data, run } = setup()
    const tools = await run(hostTools("claude-code", []))
    expect(tools.schemas).toEqual([])
    expect(tools.servers).toEqual([
      { name: "notes", segment: "notes", tools: Option.none() },
      { name: "broken", segment: "broken", tools: Option.none() }
    ])
    expect(tools.category).toEqual({ name: "mcp", description: "Tools of the MCP servers behind the gateway, one group per server", groups: ["notes", "broken"] })
    expect(tools.snapshotsDir).toBe(path.join(data, "gateway", "snapshots"))
    // A started server would have its stderr log.
    expect(fs.existsSync(path.join(data, "gateway", "logs"))).toBe(false)
  })

  it("lists each server once, keeps the snapshot, reports the failure; then the tools are read under the gateway's names", async () => {
    const { data, run } = setup()
    const events: Array<ListingProgress> = []
    const listed = await run(listHostServers("claude-code", [], (event) => Effect.sync(() => void events.push(event))))
    const logs = path.join(data, "gateway", "logs")
    expect(listed.servers.map(({ takenAt, ...rest }) => ({ ...rest, taken: takenAt !== null }))).toEqual([
      { name: "notes", segment: "notes", outcome: "listed", tools: 3, tokens: 113, reason: null, log: path.join(logs, "notes.log"), taken: true },
      { name: "broken", segment: "broken", outcome: "failed", tools: null, tokens: null, reason: "exited before it answered initialize", log: path.join(logs, "broken.log"), taken: false }
    ])
    expect(events[0]).toEqual({ _tag: "Starting", servers: 2 })
    expect(events.slice(1).map((event) => (event._tag === "Done" ? event.server.name : "")).sort()).toEqual(["broken", "notes"])
    const tools = await run(hostTools("claude-code", []))
    expect(tools.schemas.map((schema) => schema.name)).toEqual(["mcp__notes__add_note", "mcp__notes__search_notes", "mcp__notes__list_notes"])
    expect(tools.servers.map((server) => [server.name, server.tools])).toEqual([["notes", Option.some(3)], ["broken", Option.none()]])
  })

  it("does not write a snapshot again when the server lists the same tools", async () => {
    const { data, run } = setup()
    const first = await run(listHostServers("claude-code", [], () => Effect.void))
    const snapshots = path.join(data, "gateway", "snapshots")
    const [file] = fs.readdirSync(snapshots)
    const before = fs.readFileSync(path.join(snapshots, file!), "utf8")
    const second = await run(listHostServers("claude-code", [], () => Effect.void))
    expect(fs.readFileSync(path.join(snapshots, file!), "utf8")).toBe(before)
    expect(second.servers[0]!.takenAt).toBe(first.servers[0]!.takenAt)
  })
})
