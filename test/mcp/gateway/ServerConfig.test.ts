import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { configHash, decodeServersText, describeServer, uniqueSegments } from "../../../src/mcp/gateway/ServerConfig.js"

describe("the servers file", () => {
  it("reads stdio and http entries in the file's order", () => {
    expect(decodeServersText(JSON.stringify({
      mcpServers: {
        local: { command: "node", args: ["server.js"], env: { TOKEN: "t" } },
        remote: { type: "http", url: "http://127.0.0.1:8080/mcp", headers: { Authorization: "Bearer t" } }
      }
    }))).toEqual(Either.right({
      host: null,
      source: null,
      servers: [
        { _tag: "Stdio", name: "local", command: "node", args: ["server.js"], env: { TOKEN: "t" }, cwd: undefined },
        { _tag: "Http", name: "remote", url: "http://127.0.0.1:8080/mcp", headers: { Authorization: "Bearer t" } }
      ],
      skipped: []
    }))
  })

  it("names the first problem and where it is, never quoting the text", () => {
    const reasons = ['{"servers":{}}', '{"mcpServers":{"a":{"args":[]}}}', '{"mcpServers":{"a":{"type":"http","url":"nope"}}}', '{"token": "sk-secret"', '{"mcpServers":{"a":{"command":"x","env":{"K":1}}}}']
      .map((text) => Either.getLeft(decodeServersText(text)))
    expect(reasons.map((reason) => reason._tag === "Some" ? reason.value : null)).toEqual([
      "at mcpServers: is missing",
      "at mcpServers.a.command: is missing",
      "at mcpServers.a.url: not a URL",
      "it is not valid JSON",
      "at mcpServers.a.env.K: Expected string, actual 1"
    ])
  })

  it("leaves out an entry that runs tool-map itself, whatever its name", () => {
    expect(decodeServersText(JSON.stringify({
      mcpServers: {
        innocent: { command: "node", args: ["/opt/tm/dist/tool-map.cjs", "mcp", "--gateway"] },
        npx: { command: "npx", args: ["-y", "tool-map@0.1.0", "mcp"] },
        mine: { command: "node", args: ["./cli.cjs", "mcp"], cwd: "/srv/app" },
        memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
      }
    }), { env: {}, cwd: "/", ownCli: ["/srv/app/cli.cjs"] })).toEqual(Either.right({
      host: null,
      source: null,
      servers: [{ _tag: "Stdio", name: "memory", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: {}, cwd: undefined }],
      skipped: [
        { name: "innocent", reason: "it is tool-map itself" },
        { name: "npx", reason: "it is tool-map itself" },
        { name: "mine", reason: "it is tool-map itself" }
      ]
    }))
  })

  it("reads a host's entries in the host's dialect: Codex's TOML table with its tool filters, ${NAME} from the gateway's environment", () => {
    const text = JSON.stringify({
      host: "codex",
      source: "/home/u/.codex/config.toml",
      mcpServers: {
        github: {
          command: "github-mcp",
          args: ["--token", "${GH_TOKEN}"],
          env_vars: ["GH_HOST"],
          enabled_tools: ["list_issues", "get_issue", "merge_pull_request"],
          disabled_tools: ["merge_pull_request"],
          cwd: "work"
        },
        docs: { url: "http://127.0.0.1:9/mcp", bearer_token_env_var: "DOCS_TOKEN" },
        off: { command: "off-server", enabled: false },
        gateway: { command: "/usr/local/bin/tool-map", args: ["mcp", "--gateway", "--servers", "/home/u/.config/tool-map/codex.json"] }
      }
    })
    expect(decodeServersText(text, { env: { GH_TOKEN: "t-1", GH_HOST: "ghe", DOCS_TOKEN: "d-2" }, cwd: "/home/u/project", ownCli: [] })).toEqual(Either.right({
      host: "codex",
      source: "/home/u/.codex/config.toml",
      servers: [
        {
          _tag: "Stdio",
          name: "github",
          command: "github-mcp",
          args: ["--token", "t-1"],
          env: { GH_HOST: "ghe" },
          cwd: "/home/u/project/work",
          tools: { include: ["list_issues", "get_issue", "merge_pull_request"], exclude: ["merge_pull_request"] }
        },
        { _tag: "Http", name: "docs", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer d-2" } }
      ],
      skipped: [
        { name: "off", reason: "it is switched off in its entry" },
        { name: "gateway", reason: "it is tool-map itself" }
      ]
    }))
  })

  it("reads opencode's local entries and Gemini CLI's include and exclude lists", () => {
    const decode = (value: unknown) => decodeServersText(JSON.stringify(value), { env: { HOME: "/home/u" }, cwd: "/p", ownCli: [] })
    expect(decode({
      host: "opencode",
      source: "/p/opencode.json",
      mcpServers: {
        files: { type: "local", command: ["npx", "-y", "files-mcp", "${HOME}/docs"], environment: { MODE: "ro" } },
        legacy: { type: "remote", url: "http://127.0.0.1:9/mcp", headers: { "X-Key": "k" } }
      }
    })).toEqual(Either.right({
      host: "opencode",
      source: "/p/opencode.json",
      servers: [
        { _tag: "Stdio", name: "files", command: "npx", args: ["-y", "files-mcp", "/home/u/docs"], env: { MODE: "ro" }, cwd: "/p" },
        { _tag: "Http", name: "legacy", url: "http://127.0.0.1:9/mcp", headers: { "X-Key": "k" } }
      ],
      skipped: []
    }))
    expect(decode({
      host: "gemini",
      source: "/home/u/.gemini/settings.json",
      mcpServers: {
        shell: { command: "shell-mcp", includeTools: ["run_shell_command(ls)", "read"], excludeTools: ["read"] },
        sse: { url: "http://127.0.0.1:9/sse" }
      }
    })).toEqual(Either.right({
      host: "gemini",
      source: "/home/u/.gemini/settings.json",
      servers: [
        { _tag: "Stdio", name: "shell", command: "shell-mcp", args: [], env: {}, cwd: "/p", tools: { include: ["run_shell_command(ls)", "run_shell_command", "read"], exclude: ["read"] } }
      ],
      skipped: [{ name: "sse", reason: "the gateway speaks stdio and Streamable HTTP, not sse" }]
    }))
  })

  it("names what is wrong with a host-shaped file", () => {
    const reasons = [
      { host: "vscode", source: "/a", mcpServers: {} },
      { host: "codex", source: "relative/config.toml", mcpServers: {} },
      { host: "codex", mcpServers: {} },
      { host: "codex", source: "/a", mcpServers: { a: ["not", "an", "entry"] } }
    ].map((value) => Either.getLeft(decodeServersText(JSON.stringify(value))))
    expect(reasons.map((reason) => reason._tag === "Some" ? reason.value : null)).toEqual([
      "at host: not one of claude-code, codex, cursor, gemini, opencode",
      "at source: not an absolute path",
      "at source: is missing",
      "at mcpServers.a: not an object"
    ])
  })

  it("keys snapshots by env names, not values, and describes a server without its secrets", () => {
    const base = { _tag: "Stdio" as const, name: "s", command: "node", args: ["x.js", "--api-key", "sk-live-123"], env: { TOKEN: "a" } }
    expect(configHash({ ...base, env: { TOKEN: "b" } })).toBe(configHash(base))
    expect(configHash({ ...base, env: { OTHER: "a" } })).not.toBe(configHash(base))
    expect(describeServer(base)).toBe("node x.js --api-key [redacted]")
  })

  it("gives every server a segment of its own for mcp__<server>__<tool>", () => {
    const stdio = (name: string) => ({ _tag: "Stdio" as const, name, command: "x", args: [], env: {} })
    expect(uniqueSegments([stdio("my server"), stdio("my__server"), stdio("my_server"), stdio("⚙")])).toEqual(["my_server", "my_server-2", "my_server-3", "server"])
  })
})
