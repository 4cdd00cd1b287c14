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
    }))).toEqual(Either.right([
      { _tag: "Stdio", name: "local", command: "node", args: ["server.js"], env: { TOKEN: "t" }, cwd: undefined },
      { _tag: "Http", name: "remote", url: "http://127.0.0.1:8080/mcp", headers: { Authorization: "Bearer t" } }
    ]))
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
