import { Effect, Layer } from "effect"
import { defaultDataDirProblem } from "../inventory/domain/dataDir.js"
import { InventoryProvidersLayer, serveMcp } from "../layers/McpLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { runToExitCode } from "./exitReport.js"
import { runCliProgram } from "./runtime.js"

/*
 * The entries of the `tool-map mcp` lines an agent host starts, served over stdio on the CLI's
 * graph without @effect/cli's command tree (issue 10: the host waits for the `initialize` answer):
 * plain `mcp` (the plugin's .mcp.json) from this module's bundle (dist/tool-map.mcp.cjs), which
 * holds the inventory server only, and the gateway's `mcp --gateway`, `--host H`, `--servers FILE`,
 * `--agent ID` from gatewayMain.ts's (dist/tool-map.gateway.cjs). What `mcpCommand` runs for the
 * same lines; any other line is handed over to the whole CLI, which answers it or says what is
 * wrong with it.
 */

/**
 * Runs `program` (a served line's exit code, or null to hand it over) as the process's main
 * program, unless the data dir would be relative: the whole CLI refuses that with its usage error.
 * `runWhole` runs the whole CLI on the same argv (the launcher's, see scripts/bundle.mjs).
 */
export const runServed = (program: Effect.Effect<number | null>, runWhole: () => void): void => {
  const environment = MachineEnvironment.live
  if (defaultDataDirProblem(environment.env, environment.homedir) !== null) return runWhole()
  runCliProgram(program, runWhole)
}

/**
 * Plain `tool-map mcp` (`argv` is `["node", "tool-map", "mcp"]`): the inventory server, else
 * `runWhole`. The CLI's graph and the inventory's modules are loaded with the providers, after the
 * `initialize` answer (see McpLayer.serveMcp): the entry evaluates the MCP server's code only
 * before it.
 */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void => {
  if (argv.length !== 3 || argv[2] !== "mcp") return runWhole()
  const providers = Layer.unwrapEffect(
    Effect.map(Effect.promise(() => import("../layers/CoreLayer.js")), ({ CliLayer }) => Layer.provide(InventoryProvidersLayer, CliLayer))
  )
  runServed(runToExitCode(serveMcp({ _tag: "Stdio" }, providers)), runWhole)
}
