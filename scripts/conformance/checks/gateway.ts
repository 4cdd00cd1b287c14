import * as path from "node:path"
import { GATEWAY_ENTRY_TOOLS } from "../../../src/mcp/gateway/gatewayTools.js"
import { hostConfigSnippet } from "../../../src/mcp/hostConfig.js"
import { type Check, succeeded, withSandbox } from "../check.js"
import { claudeSession } from "./claudeCode.js"

/** A downstream server that needs no network: the reference memory server of the dev dependencies. */
const memoryServer = (root: string) => ({
  command: process.execPath,
  args: [path.join(root, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")]
})

/** A session's view of the gateway, as a line: the server's status and the tools the model gets. */
const describeSession = (status: string, tools: ReadonlyArray<string>) => `server ${status}; tools ${[...tools].sort().join(", ")}`

export const gatewayChecks: ReadonlyArray<Check> = [
  {
    id: "gateway-session-start",
    host: "claude",
    title: "tool-map mcp --gateway --servers FILE (the memory server) added with the claude-code snippet: a claude -p session lists only the entry tools",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        const servers = sandbox.write("servers.json", `${JSON.stringify({ mcpServers: { memory: memoryServer(context.root) } }, null, 2)}\n`)
        const invocation = { command: context.serverInvocation.command, args: [...context.serverInvocation.args, "--gateway", "--servers", servers] }
        succeeded(
          "the claude-code snippet of the gateway in sh",
          sandbox.run("/bin/sh", ["-c", hostConfigSnippet("claude-code", invocation, "linux")], { path: [path.dirname(context.hostBin("claude"))] })
        )
        const { init } = claudeSession(context, sandbox)
        // Claude Code names a user server's tool mcp__<server>__<tool> (2.1.332).
        return {
          toolMap: describeSession("connected", GATEWAY_ENTRY_TOOLS.map((tool) => `mcp__tool-map__${tool.name}`)),
          host: describeSession(
            init.mcp_servers?.find((server) => server.name === "tool-map")?.status ?? "not listed",
            (init.tools ?? []).filter((tool) => tool.startsWith("mcp__tool-map__"))
          )
        }
      })
  }
]
