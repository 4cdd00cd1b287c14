import { spawnSync } from "node:child_process"
import { parse as parseToml } from "smol-toml"
import { describe, expect, it } from "vitest"
import { hostConfigSnippet, type McpInvocation } from "../../src/mcp/hostConfig.js"

const plain: McpInvocation = { command: "/usr/bin/node", args: ["/opt/tool-map/dist/tool-map.cjs", "mcp"] }
/** A path a shell would split at the space and end a quoted word at the quote. */
const awkward: McpInvocation = { command: "/usr/bin/node", args: ["/home/me/it's a \"dir\"/dist/tool-map.cjs", "mcp"] }

/** The `mcpServers` file entry Cursor and Gemini CLI share, for {@link plain}. */
const MCP_SERVERS_JSON = `{
  "mcpServers": {
    "tool-map": {
      "command": "/usr/bin/node",
      "args": [
        "/opt/tool-map/dist/tool-map.cjs",
        "mcp"
      ]
    }
  }
}
`

/** The snippet without its comment line. */
const body = (snippet: string): string => snippet.slice(snippet.indexOf("\n") + 1)

describe("hostConfigSnippet", () => {
  it("claude-code: a claude mcp add-json command line", () => {
    expect(hostConfigSnippet("claude-code", plain, "linux")).toBe(
      "# Claude Code: run in a shell (-s user: every project; -s project writes the project's .mcp.json instead)\n" +
        `claude mcp add-json -s user tool-map '{"type":"stdio","command":"/usr/bin/node","args":["/opt/tool-map/dist/tool-map.cjs","mcp"]}'\n`
    )
  })

  it("claude-code: a path with a space and quotes reaches claude as one JSON argument", () => {
    const snippet = hostConfigSnippet("claude-code", awkward, "linux")
    expect(body(snippet)).toBe(
      `claude mcp add-json -s user tool-map '{"type":"stdio","command":"/usr/bin/node","args":["/home/me/it'\\''s a \\"dir\\"/dist/tool-map.cjs","mcp"]}'\n`
    )
    // The shell runs the snippet with `claude` standing for a function that prints its argv.
    const shell = spawnSync("/bin/sh", ["-c", `claude() { printf '%s\\n' "$@"; }\n${snippet}`], { encoding: "utf8" })
    expect(shell.status).toBe(0)
    const argv = shell.stdout.split("\n").slice(0, -1)
    expect(argv.slice(0, 5)).toEqual(["mcp", "add-json", "-s", "user", "tool-map"])
    expect(argv).toHaveLength(6)
    expect(JSON.parse(argv[5]!)).toEqual({ type: "stdio", ...awkward })
  })

  it("claude-code on Windows: the JSON in double quotes, each of its quotes doubled", () => {
    const windows: McpInvocation = { command: "C:\\Program Files\\nodejs\\node.exe", args: ["C:\\tool-map\\dist\\tool-map.cjs", "mcp"] }
    expect(body(hostConfigSnippet("claude-code", windows, "win32"))).toBe(
      `claude mcp add-json -s user tool-map "{""type"":""stdio"",""command"":""C:\\\\Program Files\\\\nodejs\\\\node.exe"",""args"":[""C:\\\\tool-map\\\\dist\\\\tool-map.cjs"",""mcp""]}"\n`
    )
  })

  it("codex: a [mcp_servers.tool-map] table of config.toml", () => {
    expect(hostConfigSnippet("codex", plain, "linux")).toBe(
      "# Codex: add to ~/.codex/config.toml ($CODEX_HOME/config.toml)\n" +
        "[mcp_servers.tool-map]\n" +
        'command = "/usr/bin/node"\n' +
        'args = [ "/opt/tool-map/dist/tool-map.cjs", "mcp" ]\n'
    )
  })

  it("codex: the whole snippet, comment included, is TOML holding the exact invocation", () => {
    const snippet = hostConfigSnippet("codex", awkward, "linux")
    expect(body(snippet)).toBe(
      "[mcp_servers.tool-map]\n" +
        'command = "/usr/bin/node"\n' +
        'args = [ "/home/me/it\'s a \\"dir\\"/dist/tool-map.cjs", "mcp" ]\n'
    )
    expect(parseToml(snippet)).toEqual({ mcp_servers: { "tool-map": awkward } })
  })

  it("cursor: an mcpServers entry of ~/.cursor/mcp.json", () => {
    expect(hostConfigSnippet("cursor", plain, "linux")).toBe(
      "// Cursor: merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)\n" + MCP_SERVERS_JSON
    )
  })

  it("gemini: an mcpServers entry of ~/.gemini/settings.json", () => {
    expect(hostConfigSnippet("gemini", plain, "linux")).toBe(
      "// Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)\n" + MCP_SERVERS_JSON
    )
  })

  it("opencode: a local mcp entry of opencode.json, the command one array", () => {
    expect(hostConfigSnippet("opencode", plain, "linux")).toBe(
      "// opencode: merge into ~/.config/opencode/opencode.json (or opencode.json in a project)\n" +
        "{\n" +
        '  "$schema": "https://opencode.ai/config.json",\n' +
        '  "mcp": {\n' +
        '    "tool-map": {\n' +
        '      "type": "local",\n' +
        '      "command": [\n' +
        '        "/usr/bin/node",\n' +
        '        "/opt/tool-map/dist/tool-map.cjs",\n' +
        '        "mcp"\n' +
        "      ],\n" +
        '      "enabled": true\n' +
        "    }\n" +
        "  }\n" +
        "}\n"
    )
  })

  it("the JSON snippets carry the exact invocation of an awkward path", () => {
    expect(JSON.parse(body(hostConfigSnippet("cursor", awkward, "linux")))).toEqual({ mcpServers: { "tool-map": awkward } })
    expect(JSON.parse(body(hostConfigSnippet("gemini", awkward, "linux")))).toEqual({ mcpServers: { "tool-map": awkward } })
    expect(JSON.parse(body(hostConfigSnippet("opencode", awkward, "linux")))).toEqual({
      $schema: "https://opencode.ai/config.json",
      mcp: { "tool-map": { type: "local", command: [awkward.command, ...awkward.args], enabled: true } }
    })
  })
})
