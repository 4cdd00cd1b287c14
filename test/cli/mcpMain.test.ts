import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { commandTree } from "../../src/cli/main.js"
import { servedMcpLine } from "../../src/cli/gatewayMain.js"
import { interpretArgs } from "../../src/cli/usage.js"
import type { McpGatewayOptions } from "../../src/mcp/server/options.js"

const flags = (given: Partial<McpGatewayOptions>): McpGatewayOptions => ({
  gateway: false,
  host: Option.none(),
  servers: Option.none(),
  agent: Option.none(),
  ...given
})

describe("the mcp lines the MCP entry serves itself", () => {
  const served: ReadonlyArray<readonly [ReadonlyArray<string>, McpGatewayOptions]> = [
    [["mcp"], flags({})],
    [["mcp", "--gateway"], flags({ gateway: true })],
    [["mcp", "--host", "codex"], flags({ host: Option.some("codex") })],
    [["mcp", "--gateway", "--host", "opencode"], flags({ gateway: true, host: Option.some("opencode") })],
    [["mcp", "--servers", "servers.json"], flags({ servers: Option.some("servers.json") })],
    [["mcp", "--servers", "/tmp/x/.mcp.json", "--agent", "bench"], flags({ servers: Option.some("/tmp/x/.mcp.json"), agent: Option.some("bench") })],
    [["mcp", "--agent", "reviewer", "--gateway"], flags({ gateway: true, agent: Option.some("reviewer") })]
  ]

  it.each(served)("%j", (args, options) => {
    expect(servedMcpLine(args)).toEqual(options)
    // The whole CLI runs the same line as a command (no help, no usage error, no completion).
    expect(interpretArgs(commandTree(), args)._tag).toBe("Run")
  })

  const handedOver: ReadonlyArray<ReadonlyArray<string>> = [
    [],
    ["--version"],
    ["scan"],
    ["mcp", "--help"],
    ["mcp", "-h"],
    ["mcp", "--http", "0"],
    ["mcp", "--print-config", "codex"],
    ["mcp", "--gateway", "--print-config", "codex"],
    ["mcp", "--gateway", "--gateway"],
    ["mcp", "--gateway", "true"],
    ["mcp", "--gateway=true"],
    ["mcp", "--host"],
    ["mcp", "--host", "vim"],
    ["mcp", "--host=codex"],
    ["mcp", "--host", "codex", "--host", "cursor"],
    ["mcp", "--servers"],
    ["mcp", "--servers", ""],
    ["mcp", "--servers", "--gateway"],
    ["mcp", "--servers", "a.json", "--host", "codex"],
    ["mcp", "--agent", "-x"],
    ["mcp", "--agent", "a", "--agent", "b"],
    ["mcp", "--gateway", "--log-level", "debug"],
    ["mcp", "--gateway", "--wizard"],
    ["mcp", "extra"]
  ]

  it.each(handedOver)("%j is left to the whole CLI", (...args) => {
    expect(servedMcpLine(args)).toBeNull()
  })
})
