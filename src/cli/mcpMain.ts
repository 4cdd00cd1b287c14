import { FileSystem } from "@effect/platform"
import { Effect, type Layer, Option } from "effect"
import { defaultDataDirProblem } from "../inventory/bundle/location.js"
import { AGENT_HOSTS, type AgentHostName } from "../inventory/domain/agentHosts.js"
import { CliLayer } from "../layers/CoreLayer.js"
import { InventoryProvidersLayer, type McpGatewayOptions, serveMcp } from "../layers/McpLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { runToExitCode } from "./exitReport.js"
import { runCliProgram } from "./runtime.js"

/*
 * The entries of the `tool-map mcp` lines an agent host starts, served over stdio on the CLI's
 * graph without @effect/cli's command tree (issue 10: the host waits for the `initialize` answer):
 * plain `mcp` (the plugin's .mcp.json) from this module's bundle (dist/tool-map.mcp.cjs), which
 * holds the inventory server only, and the gateway's `mcp --gateway`, `--host H`, `--servers FILE`,
 * `--agent ID` from gatewayMain.ts's (dist/tool-map.gateway.cjs): the gateway's code (the catalog)
 * is a third of a plain start's to load otherwise. What `mcpCommand` runs for the same lines; any
 * other line (help, HTTP, --print-config, a flag given twice or as --flag=value, --servers with
 * --host, a servers file that is not a regular file, a data dir to refuse) is handed over to the
 * whole CLI, which answers it or says what is wrong with it.
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

/** Which of the lines of {@link servedMcpLine} an entry serves: plain `mcp` (no flag: any served flag asks for the gateway), or the others. */
export type ServedLines = "plain" | "gateway"

/**
 * Runs `argv` (`["node", "tool-map", ...]`): serves with `serve` the lines of {@link servedMcpLine}
 * that are `lines`, else calls `runWhole`, which runs the whole CLI on the same argv (the
 * launcher's, see scripts/bundle.mjs).
 */
export const serveMcpLine = <E>(
  argv: ReadonlyArray<string>,
  runWhole: () => void,
  lines: ServedLines,
  serve: (gateway: McpGatewayOptions) => Effect.Effect<void, E, Layer.Layer.Success<typeof CliLayer>>
): void => {
  const environment = MachineEnvironment.live
  const args = argv.slice(2)
  const gateway = servedMcpLine(args)
  if (gateway === null || (args.length === 1) !== (lines === "plain")) return runWhole()
  // A data dir that would be relative is refused by the whole CLI, with its usage error.
  if (defaultDataDirProblem(environment.env, environment.homedir) !== null) return runWhole()
  const program = Effect.gen(function* () {
    if (Option.isSome(gateway.servers) && !(yield* isRegularFile(gateway.servers.value))) return null
    return yield* runToExitCode(serve(gateway))
  })
  runCliProgram(program.pipe(Effect.provide(CliLayer)), runWhole)
}

/** Plain `tool-map mcp`: the inventory server (see {@link serveMcpLine}). */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void =>
  serveMcpLine(argv, runWhole, "plain", () => serveMcp({ _tag: "Stdio" }, InventoryProvidersLayer))
