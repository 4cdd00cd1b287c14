/**
 * The configuration snippet each agent host needs to start tool-map's MCP server, as
 * `tool-map mcp --print-config HOST` prints it: the first line a comment saying where the
 * snippet goes, then the snippet. Pure: the caller gives the invocation of this install.
 * Each shape was checked against the host's own CLI (`npm run conformance`): Claude Code
 * 2.1.332 (`claude mcp add-json`), Codex 0.171.0 (`codex mcp add` writes this table),
 * Gemini CLI 0.61.0 (`gemini mcp add -s user` writes this entry), opencode 1.18.33
 * (`opencode mcp add` writes this entry).
 */
import { stringify as stringifyToml } from "smol-toml"
import type { AgentHostName } from "../inventory/domain/agentHosts.js"
import type { OsFamily } from "../inventory/domain/machine.js"
import { shellQuote } from "../inventory/domain/shellQuote.js"

/** How a host starts this install's server: an executable and its arguments, absolute paths. */
export interface McpInvocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** The name the server is registered under in every host. */
export const MCP_SERVER_NAME = "tool-map"

const json = (value: unknown): string => JSON.stringify(value, null, 2)

const stdioEntry = (invocation: McpInvocation) => ({ command: invocation.command, args: [...invocation.args] })

/**
 * The entry `host` keeps under the server's name to start `invocation` over stdio, in the
 * host's own dialect: the one shape rule of the snippets below and of `tool-map gateway setup`.
 */
export const hostServerEntry = (host: AgentHostName, invocation: McpInvocation): Readonly<Record<string, unknown>> =>
  host === "claude-code"
    ? { type: "stdio", ...stdioEntry(invocation) }
    : host === "opencode"
    ? { type: "local", command: [invocation.command, ...invocation.args], enabled: true }
    : stdioEntry(invocation)

type Snippet = (invocation: McpInvocation, os: OsFamily) => readonly [comment: string, body: string]

const snippets: Readonly<Record<AgentHostName, Snippet>> = {
  "claude-code": (invocation, os) => [
    "# Claude Code: run in a shell (-s user: every project; -s project writes the project's .mcp.json instead)",
    ["claude", "mcp", "add-json", "-s", "user", MCP_SERVER_NAME, JSON.stringify(hostServerEntry("claude-code", invocation))]
      .map((word) => shellQuote(word, os))
      .join(" ")
  ],
  codex: (invocation) => [
    "# Codex: add to ~/.codex/config.toml ($CODEX_HOME/config.toml)",
    stringifyToml({ mcp_servers: { [MCP_SERVER_NAME]: hostServerEntry("codex", invocation) } }).trimEnd()
  ],
  cursor: (invocation) => [
    "// Cursor: merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
    json({ mcpServers: { [MCP_SERVER_NAME]: hostServerEntry("cursor", invocation) } })
  ],
  gemini: (invocation) => [
    "// Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)",
    json({ mcpServers: { [MCP_SERVER_NAME]: hostServerEntry("gemini", invocation) } })
  ],
  opencode: (invocation) => [
    "// opencode: merge into ~/.config/opencode/opencode.json (or opencode.json in a project)",
    json({
      $schema: "https://opencode.ai/config.json",
      mcp: { [MCP_SERVER_NAME]: hostServerEntry("opencode", invocation) }
    })
  ]
}

/**
 * The snippet `host` needs to start `invocation` as its `tool-map` MCP server, ending in a
 * newline; a command line is quoted for the shell of `os`.
 */
export const hostConfigSnippet = (host: AgentHostName, invocation: McpInvocation, os: OsFamily): string => {
  const [comment, body] = snippets[host](invocation, os)
  return `${comment}\n${body}\n`
}


/** What `tool-map mcp --print-config HOST --json` prints: the same entry as data. */
export interface HostConfigJson {
  readonly host: AgentHostName
  /** The name the entry is registered under. */
  readonly name: string
  /** The entry in the host's own dialect (what `tool-map gateway setup` writes too). */
  readonly entry: Readonly<Record<string, unknown>>
  /** Where the snippet goes, in words. */
  readonly where: string
  /** The snippet as `--print-config` prints it without `--json`, its first line the comment. */
  readonly snippet: string
}

/** The `--print-config --json` value of `host` (see {@link HostConfigJson}). */
export const hostConfigJson = (host: AgentHostName, invocation: McpInvocation, os: OsFamily): HostConfigJson => {
  const [comment] = snippets[host](invocation, os)
  return {
    host,
    name: MCP_SERVER_NAME,
    entry: hostServerEntry(host, invocation),
    where: comment.replace(/^(?:#|\/\/) /, ""),
    snippet: hostConfigSnippet(host, invocation, os)
  }
}
