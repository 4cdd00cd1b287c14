import { FileSystem } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { AGENT_HOSTS, type AgentHostName } from "../inventory/domain/agentHosts.js"
import { type McpGatewayOptions, type McpTransportChoice, serveGateway } from "../layers/McpLayer.js"
import { PlatformLayer } from "../layers/PlatformLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { runToExitCode } from "./exitReport.js"
import { runServed } from "./mcpMain.js"

/*
 * The entry of the gateway's `tool-map mcp` lines (`--gateway`, `--host H`, `--servers FILE`,
 * `--agent ID`), bundled on its own (dist/tool-map.gateway.cjs; plain `mcp` is mcpMain.ts's):
 * plain `mcp` does not load the gateway's code (the catalog). Any other line (help, HTTP,
 * --print-config, a flag given twice or as --flag=value, --servers with --host, a servers file
 * that is not a regular file, a data dir to refuse) is handed over to the whole CLI, which answers
 * it or says what is wrong with it.
 */

/** The flags of a gateway line the entry serves itself, with whether they take a value. */
const SERVED_FLAGS: ReadonlyMap<string, boolean> = new Map([["--gateway", false], ["--host", true], ["--servers", true], ["--agent", true]])

const isAgentHost = (word: string): word is AgentHostName => (AGENT_HOSTS as ReadonlyArray<string>).includes(word)

/**
 * The gateway flags of `args` (argv without node and the script) when it is `mcp` followed by
 * served flags only, each at most once, each value a plain word (`--host` one of the agent
 * hosts), and not both `--servers` and `--host`; else null (the whole CLI parses the line).
 * Plain `mcp` gives no flag set: the inventory server.
 */
export const servedMcpLine = (args: ReadonlyArray<string>): McpGatewayOptions | null => {
  if (args[0] !== "mcp") return null
  const values = new Map<string, string>()
  for (let at = 1; at < args.length; at++) {
    const flag = args[at]!
    const takesValue = SERVED_FLAGS.get(flag)
    if (takesValue === undefined || values.has(flag)) return null
    if (!takesValue) {
      values.set(flag, "")
      continue
    }
    const value = args[++at]
    if (value === undefined || value === "" || value.startsWith("-")) return null
    values.set(flag, value)
  }
  const host = values.get("--host")
  if (host !== undefined && !isAgentHost(host)) return null
  if (host !== undefined && values.has("--servers")) return null
  return {
    gateway: values.has("--gateway"),
    host: Option.fromNullable(host),
    servers: Option.fromNullable(values.get("--servers")),
    agent: Option.fromNullable(values.get("--agent"))
  }
}

/** Whether `path` is a regular file (after links), as the whole CLI's `--servers` requires. */
const isRegularFile = (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(path)).pipe(
    Effect.map((info) => info.type === "File"),
    Effect.orElseSucceed(() => false)
  )

/**
 * The inventory `skills_find` and `skills_route` search: the CLI's reader of the bundle (a first
 * scan when there is none), on the platform and environment of the entry. Its code is loaded with
 * the gateway's, after the `initialize` answer (see McpLayer.serveMcp).
 */
export const GatewayInventoryLayer = Layer.unwrapEffect(
  Effect.map(
    Effect.promise(() => Promise.all([import("../layers/CoreLayer.js"), import("../inventory/ScanProgress.js")])),
    ([{ LazyInventoryLayer }, { ScanProgress }]) => LazyInventoryLayer.pipe(Layer.provide(ScanProgress.layer))
  )
)

/** The gateway of `gateway` over `transport`, as the entry serves it: with {@link GatewayInventoryLayer}. */
export const serveGatewayLine = (transport: McpTransportChoice, gateway: McpGatewayOptions) =>
  serveGateway(transport, gateway, GatewayInventoryLayer)

/** Runs `argv` (`["node", "tool-map", "mcp", ...]`): serves the gateway's lines of {@link servedMcpLine}, else calls `runWhole`. */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void => {
  const args = argv.slice(2)
  const gateway = servedMcpLine(args)
  // Plain `mcp` is the inventory server's line (mcpMain.ts).
  if (gateway === null || args.length === 1) return runWhole()
  const program = Effect.gen(function* () {
    if (Option.isSome(gateway.servers) && !(yield* isRegularFile(gateway.servers.value))) return null
    return yield* runToExitCode(serveGatewayLine({ _tag: "Stdio" }, gateway))
  })
  // The gateway needs the platform and the environment: the CLI's graph is not built, and the
  // inventory's reader is loaded with the gateway's code, after the initialize answer.
  runServed(program.pipe(Effect.provide(Layer.merge(PlatformLayer, MachineEnvironment.layer))), runWhole)
}
