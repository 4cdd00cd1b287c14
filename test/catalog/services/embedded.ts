import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, type Scope } from "effect"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { HostPort } from "../../../src/catalog/services/HostPort.js"
import { HostLayer, type HostLayerOptions } from "../../../src/layers/HostLayer.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { makeMemoryHost, type MemoryHost, type MemoryHostOptions } from "../../../examples/minimal-host/host.js"

/** A tool with a plain description. */
export const tool = (name: string, description = `Does ${name.replace(/_/g, " ")}.`): ToolSchema => ({
  name,
  description,
  inputSchema: { type: "object" }
})

/** Tools of two MCP servers and two plain ones (bash is pinned by default). */
export const TOOLS: ReadonlyArray<ToolSchema> = [
  tool("bash"),
  tool("mcp__github__create_issue"),
  tool("mcp__github__search_code"),
  tool("mcp__github__delete_repository"),
  tool("mcp__slack__list_channels"),
  tool("mcp__slack__post_message"),
  tool("fs_tree")
]

/** Every service of the embedded catalog, as `HostLayer` provides them. */
export type Embedded = Layer.Layer.Success<ReturnType<typeof HostLayer>>

/**
 * Runs `body` with the whole catalog graph embedded over a fresh memory host (nothing
 * persisted unless `layer` says so); its registrations end with it.
 */
export const withEmbedded = <A, E>(
  body: (host: MemoryHost) => Effect.Effect<A, E, Embedded | Scope.Scope>,
  options: {
    readonly host?: Partial<MemoryHostOptions>
    readonly layer?: HostLayerOptions
    /** Changes the memory host's port (a slower `restrict`, say). */
    readonly port?: (port: HostPort["Type"]) => HostPort["Type"]
  } = {}
) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: TOOLS, ...options.host })
    const change = options.port ?? ((port) => port)
    const port = Layer.effect(HostPort, Effect.map(HostPort, change)).pipe(Layer.provide(host.port))
    return yield* body(host).pipe(
      Effect.scoped,
      Effect.provide(HostLayer(options.layer ?? { persist: false }).pipe(Layer.provide(port)))
    )
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))))
