import { Effect } from "effect"
import { defaultDataDirProblem } from "../inventory/bundle/location.js"
import { CliLayer } from "../layers/CoreLayer.js"
import { InventoryProvidersLayer, serveMcp } from "../layers/McpLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { runToExitCode } from "./exitReport.js"
import { runCliProgram } from "./runtime.js"

/*
 * The entry of plain `tool-map mcp`, the line an agent host starts (the plugin's .mcp.json): the
 * inventory server over stdio on the CLI's graph, from a bundle of its own (dist/tool-map.mcp.cjs)
 * without @effect/cli's command tree, the catalog or the gateway (issue 10: the host waits for
 * the `initialize` answer). What `mcpCommand` runs for the same line; any other line (options,
 * the gateway, HTTP, a data dir to refuse) is handed over to the whole CLI.
 */

/** Whether `args` (argv without node and the script) is exactly `mcp`. */
export const isPlainMcp = (args: ReadonlyArray<string>): boolean => args.length === 1 && args[0] === "mcp"

/**
 * Runs `argv` (`["node", "tool-map", ...]`): serves plain `mcp`, else calls `runWhole`, which
 * runs the whole CLI on the same argv (the launcher's, see scripts/bundle.mjs).
 */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void => {
  const environment = MachineEnvironment.live
  // A data dir that would be relative is refused by the whole CLI, with its usage error.
  if (!isPlainMcp(argv.slice(2)) || defaultDataDirProblem(environment.env, environment.homedir) !== null) return runWhole()
  runCliProgram(runToExitCode(serveMcp({ _tag: "Stdio" }, InventoryProvidersLayer)).pipe(Effect.provide(CliLayer)))
}
