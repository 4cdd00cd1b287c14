import { Option } from "effect"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"

/** How the server is reached: stdio (one client), or Streamable HTTP on 127.0.0.1:port. */
export type McpTransportChoice =
  | { readonly _tag: "Stdio" }
  | { readonly _tag: "Http"; readonly port: number }

/** The gateway's flags of `tool-map mcp`, parsed by the CLI (their behaviour: src/mcp/gateway). */
export interface McpGatewayOptions {
  /** `--gateway`: front the MCP servers the host would load in the working directory. */
  readonly gateway: boolean
  /** `--host`: whose servers (default: Claude Code's). */
  readonly host: Option.Option<AgentHostName>
  /** `--servers FILE`: the downstream servers of an `.mcp.json`-shaped file instead. */
  readonly servers: Option.Option<string>
  /** `--agent ID`: the agent state to use (default: from the client's name). */
  readonly agent: Option.Option<string>
}

/** Everything `tool-map mcp` was asked for. */
export interface McpServeOptions {
  readonly transport: McpTransportChoice
  readonly gateway: McpGatewayOptions
}

/** Whether the flags ask for the gateway: `--gateway`, or any flag only the gateway takes (`--host`, `--servers`, `--agent`). */
export const gatewayRequested = (options: McpGatewayOptions): boolean =>
  options.gateway || Option.isSome(options.host) || Option.isSome(options.servers) || Option.isSome(options.agent)
