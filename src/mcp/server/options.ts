import { Option } from "effect"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"

/** How long an HTTP session may stay idle, and how many may be open (defaults: 30 minutes, 64). */
export interface McpHttpSessionOptions {
  readonly idleMinutes?: number | undefined
  readonly max?: number | undefined
}

/** How the server is reached: stdio (one client), or Streamable HTTP on 127.0.0.1:port. */
export type McpTransportChoice =
  | { readonly _tag: "Stdio" }
  | { readonly _tag: "Http"; readonly port: number; readonly sessions?: McpHttpSessionOptions | undefined }

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
