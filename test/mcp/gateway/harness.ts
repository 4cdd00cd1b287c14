/**
 * Runs the gateway in this process for a test: tool-map's MCP server with the gateway's
 * providers, reached by an SDK `Client` over an in-memory transport, the downstream servers
 * real child processes. Each run gets the data dir it is given, so a second run over the same
 * dir is a restart.
 */
import { NodeContext } from "@effect/platform-node"
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { DownstreamTimings } from "../../../src/mcp/gateway/Downstream.js"
import { GatewayLayer } from "../../../src/layers/GatewayLayer.js"
import { GatewayServers } from "../../../src/mcp/gateway/GatewayServers.js"
import type { ServerConfig, StdioServerConfig } from "../../../src/mcp/gateway/ServerConfig.js"
import { McpServer } from "../../../src/mcp/server/McpServer.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"

const ROOT = path.resolve(import.meta.dirname, "../../..")

/** A server script of node_modules or of test/mcp/fixtures, run by this Node. */
export const nodeServer = (name: string, script: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}): StdioServerConfig => ({
  _tag: "Stdio",
  name,
  command: process.execPath,
  args: [script, ...args],
  env
})

/** The three reference servers of the issue, their state kept under `dir`. */
export const referenceServers = (dir: string): ReadonlyArray<StdioServerConfig> => {
  const files = path.join(dir, "files")
  fs.mkdirSync(files, { recursive: true })
  fs.writeFileSync(path.join(files, "hello.txt"), "hello from the fixture\n")
  const pkg = (name: string) => path.join(ROOT, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
  return [
    nodeServer("everything", pkg("server-everything")),
    nodeServer("memory", pkg("server-memory"), [], { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }),
    nodeServer("filesystem", pkg("server-filesystem"), [files])
  ]
}

/** A fixture script of test/mcp/fixtures. */
export const fixture = (name: string, script: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  nodeServer(name, path.join(ROOT, "test", "mcp", "fixtures", script), args, env)

/** A temp dir, removed by `remove`. */
export const tempDir = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** Fast timings for tests: a hang is found in seconds, a restart waits 200 ms. */
export const TEST_TIMINGS: Partial<DownstreamTimings> = {
  startTimeout: Duration.seconds(5),
  callTimeout: Duration.seconds(5),
  killGrace: Duration.millis(500),
  backoffInitial: Duration.millis(200),
  backoffMax: Duration.seconds(1)
}

/** What a test drives: the client, and how many list-changed notifications it got. */
export interface GatewaySession {
  readonly client: Client
  readonly listChanged: () => number
  /** Resolves at the next list-changed notification after the call. */
  readonly nextListChanged: () => Promise<void>
}

export interface RunOptions {
  readonly servers: ReadonlyArray<ServerConfig>
  readonly dataDir: string
  readonly agent?: string | undefined
  readonly clientName?: string | undefined
  readonly clientOptions?: ClientOptions | undefined
  readonly timings?: Partial<DownstreamTimings> | undefined
  /**
   * Connect the client only once every server without a snapshot was listed (default true), so
   * the session sees no list_changed for that first listing.
   */
  readonly afterListing?: boolean | undefined
  /**
   * The client asks for the tool list again at each list-changed notification, as Claude Code and
   * Gemini CLI do (default true); false is a client like Codex, which never does.
   */
  readonly relists?: boolean | undefined
  /** How long a load waits for the re-list (default 5 s when the client re-lists, else 200 ms). */
  readonly relistHold?: Duration.DurationInput | undefined
}

/** Runs `body` against a gateway over `options.servers`; the gateway (and every child) is stopped after it. */
export const withGateway = <A>(options: RunOptions, body: (session: GatewaySession) => Promise<A>): Promise<A> => {
  const layer = McpServer.layer.pipe(
    Layer.provideMerge(
      GatewayLayer({
        servers: options.servers,
        agent: Option.fromNullable(options.agent),
        dataDir: options.dataDir,
        timings: options.timings ?? TEST_TIMINGS,
        relistHold: options.relistHold ?? (options.relists === false ? Duration.millis(200) : Duration.seconds(5))
      })
    ),
    Layer.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({ homedir: options.dataDir, cwd: options.dataDir })))
  )
  const program = Effect.gen(function*() {
    const server = yield* McpServer
    if (options.afterListing !== false) yield* (yield* GatewayServers).initialized
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* server.connect(serverSide, "test-session")
    const client = new Client({ name: options.clientName ?? "test-client", version: "1.0.0" }, options.clientOptions ?? { capabilities: {} })
    let count = 0
    let waiters: Array<() => void> = []
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (options.relists !== false) await client.listTools()
      count += 1
      const ready = waiters
      waiters = []
      for (const resolve of ready) resolve()
    })
    yield* Effect.promise(() => client.connect(clientSide))
    const session: GatewaySession = {
      client,
      listChanged: () => count,
      nextListChanged: () => new Promise((resolve) => waiters.push(resolve))
    }
    return yield* Effect.promise(() => body(session).finally(() => client.close()))
  })
  return Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(layer)))
}

/** Lists a server's tools and calls one directly with the SDK, as a client without the gateway would. */
export const direct = async <A>(config: StdioServerConfig, body: (client: Client) => Promise<A>): Promise<A> => {
  const client = new Client({ name: "direct", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command: config.command, args: [...config.args], env: { ...config.env }, stderr: "pipe" }))
  try {
    return await body(client)
  } finally {
    await client.close()
  }
}

/** The text of a result's first content block. */
export const textOf = (result: unknown): string => {
  const content = (result as CallToolResult).content
  const first = content[0]
  return first !== undefined && first.type === "text" ? first.text : ""
}

/** The names of a tools/list. */
export const namesOf = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name)
