import { serveMcpAsAsked } from "../layers/McpLayer.js"
import { serveMcpLine } from "./mcpMain.js"

/*
 * The entry of the gateway's `tool-map mcp` lines (`--gateway`, `--host H`, `--servers FILE`,
 * `--agent ID`), bundled on its own (dist/tool-map.gateway.cjs, see mcpMain.ts): plain `mcp` does
 * not load the gateway's code, and this one not the inventory server's.
 */

/** The gateway's lines of `mcp` (see {@link serveMcpLine}); any other is handed over to the whole CLI. */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void =>
  serveMcpLine(argv, runWhole, "gateway", (gateway) => serveMcpAsAsked({ transport: { _tag: "Stdio" }, gateway }))
