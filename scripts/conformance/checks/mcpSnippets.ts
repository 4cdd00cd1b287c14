import * as path from "node:path"
import { type AgentHostName } from "../../../src/inventory/domain/agentHosts.js"
import { MCP_SERVER_NAME } from "../../../src/mcp/hostConfig.js"
import { type Check, type CheckContext, printConfig, stripAnsi, succeeded, toolMapList, withSandbox } from "../check.js"
import type { Sandbox } from "../sandbox.js"

/** The printed snippet as a user pastes it into the host's file: the comment line kept where the format has comments. */
const fileText = (context: CheckContext, sandbox: Sandbox, host: AgentHostName): string => {
  const snippet = printConfig(context, sandbox, host)
  return host === "codex" ? snippet : snippet.slice(snippet.indexOf("\n") + 1)
}

/** A stdio server as a line, the same for every reader. */
const describeServer = (name: string, command: string | null, args: ReadonlyArray<string>, enabled: boolean) =>
  `${name}: stdio ${JSON.stringify([command, ...args])} ${enabled ? "enabled" : "disabled"}`

interface ToolMapMcpServer {
  readonly host: string
  readonly name: string
  readonly command: string | null
  readonly args: ReadonlyArray<string>
  readonly enabled: boolean
  readonly disabledReason: string | null
}

/** tool-map's `tool-map` server of `host` in the sandbox, disabled ones included. */
const toolMapItem = (context: CheckContext, sandbox: Sandbox, host: AgentHostName): ToolMapMcpServer | undefined =>
  toolMapList<ToolMapMcpServer>(context, sandbox, ["mcp", "--all"]).find((item) => item.host === host && item.name === MCP_SERVER_NAME)

/** tool-map's reading of the sandbox: the `tool-map` server of `host`, as {@link describeServer} puts it. */
const toolMapServer = (context: CheckContext, sandbox: Sandbox, host: AgentHostName): string => {
  const server = toolMapItem(context, sandbox, host)
  return server === undefined ? `${MCP_SERVER_NAME}: not listed` : describeServer(server.name, server.command, server.args, server.enabled)
}

/** `codex mcp list --json` (0.171.0): one object per server, `transport` holding the command. */
interface CodexServer {
  readonly name: string
  readonly enabled: boolean
  readonly transport: { readonly type: string; readonly command?: string; readonly args?: ReadonlyArray<string> }
}

const codexServer = (context: CheckContext, sandbox: Sandbox): string => {
  sandbox.write("home/.codex/config.toml", fileText(context, sandbox, "codex"))
  const listed = JSON.parse(
    succeeded("codex mcp list --json", context.runHost(sandbox, "codex", ["mcp", "list", "--json"])).stdout
  ) as ReadonlyArray<CodexServer>
  const server = listed.find((item) => item.name === MCP_SERVER_NAME)
  if (server === undefined) return `${MCP_SERVER_NAME}: not listed`
  if (server.transport.type !== "stdio") return `${MCP_SERVER_NAME}: ${server.transport.type}`
  return describeServer(server.name, server.transport.command ?? null, server.transport.args ?? [], server.enabled)
}

/** Trusts the sandbox's project for Gemini CLI, which otherwise disables every MCP server there (0.61.0). */
const trustProject = (sandbox: Sandbox) =>
  sandbox.write("home/.gemini/trustedFolders.json", `${JSON.stringify({ [sandbox.project]: "TRUST_FOLDER" }, null, 2)}\n`)

/** The status `gemini mcp list` (0.61.0) prints for a server: `✓ NAME: COMMAND (stdio) - Connected`. */
const geminiStatus = (stdout: string, name: string): string => {
  const line = stripAnsi(stdout).split("\n").map((row) => row.trim()).find((row) => row.replace(/^\S+\s+/, "").startsWith(`${name}: `))
  return line === undefined ? `${name}: not listed` : `${name}: ${line.slice(line.lastIndexOf(" - ") + 3)}`
}

/** The status `opencode mcp list` (1.18.33) prints for a server: `●  ✓ NAME connected`. */
const opencodeStatus = (stdout: string, name: string): string => {
  for (const row of stripAnsi(stdout).split("\n")) {
    const match = /^\S*\s+\S+\s+(\S+)\s+(.+)$/.exec(row.trim())
    if (match !== null && match[1] === name) return `${name}: ${match[2]!.trim()}`
  }
  return `${name}: not listed`
}

/**
 * Whether Gemini CLI loads the snippet's server in the sandbox's project, by its own listing
 * (0.61.0: `Disabled` when the folder is untrusted, else `Connected` or `Disconnected`), and
 * whether tool-map says it does.
 */
const geminiLoads = (context: CheckContext, sandbox: Sandbox) => {
  sandbox.write("home/.gemini/settings.json", fileText(context, sandbox, "gemini"))
  const list = succeeded("gemini mcp list", context.runHost(sandbox, "gemini", ["mcp", "list"]))
  const status = geminiStatus(`${list.stdout}\n${list.stderr}`, MCP_SERVER_NAME)
  const state = (enabled: boolean) => `${MCP_SERVER_NAME}: ${enabled ? "enabled" : "disabled"}`
  const item = toolMapItem(context, sandbox, "gemini")
  return {
    toolMap: item === undefined ? `${MCP_SERVER_NAME}: not listed` : state(item.enabled),
    host: status.endsWith(": not listed") ? status : state(!status.endsWith(": Disabled"))
  }
}

export const mcpSnippetChecks: ReadonlyArray<Check> = [
  {
    id: "codex-snippet",
    host: "codex",
    title: "--print-config codex in ~/.codex/config.toml: codex mcp list --json reads this install's server",
    run: (context) =>
      withSandbox(context, (sandbox) => ({
        toolMap: describeServer(MCP_SERVER_NAME, context.serverInvocation.command, context.serverInvocation.args, true),
        host: codexServer(context, sandbox)
      }))
  },
  {
    id: "codex-query-mcp",
    host: "codex",
    title: "the same HOME: tool-map query mcp = codex mcp list --json",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        const host = codexServer(context, sandbox)
        return { toolMap: toolMapServer(context, sandbox, "codex"), host }
      })
  },
  {
    id: "gemini-snippet-connected",
    host: "gemini",
    title: "--print-config gemini in ~/.gemini/settings.json, trusted project: gemini mcp list says Connected",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        sandbox.write("home/.gemini/settings.json", fileText(context, sandbox, "gemini"))
        trustProject(sandbox)
        const list = succeeded("gemini mcp list", context.runHost(sandbox, "gemini", ["mcp", "list"]))
        return { toolMap: `${MCP_SERVER_NAME}: Connected`, host: geminiStatus(`${list.stdout}\n${list.stderr}`, MCP_SERVER_NAME) }
      })
  },
  {
    id: "gemini-trusted-enabled",
    host: "gemini",
    title: "a user-level server in a trusted project: gemini mcp list loads it = tool-map query mcp's enabled",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        trustProject(sandbox)
        return geminiLoads(context, sandbox)
      })
  },
  {
    id: "gemini-untrusted-enabled",
    host: "gemini",
    title: "a user-level server in a project never trusted: gemini mcp list loads it = tool-map query mcp's enabled",
    run: (context) => withSandbox(context, (sandbox) => geminiLoads(context, sandbox))
  },
  {
    id: "opencode-snippet-connected",
    host: "opencode",
    title: "--print-config opencode in ~/.config/opencode/opencode.json: opencode mcp list says connected",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        sandbox.write(path.join("home", ".config", "opencode", "opencode.json"), fileText(context, sandbox, "opencode"))
        const list = succeeded("opencode mcp list", context.runHost(sandbox, "opencode", ["mcp", "list"]))
        return { toolMap: `${MCP_SERVER_NAME}: connected`, host: opencodeStatus(`${list.stdout}\n${list.stderr}`, MCP_SERVER_NAME) }
      })
  }
]
