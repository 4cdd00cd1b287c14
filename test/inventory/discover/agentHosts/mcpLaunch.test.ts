/**
 * What an MCP server entry runs and which of its tools its host offers: `runsToolMap` (the
 * gateway never fronts itself) and the tool filters `configOfEntry` reads in each dialect.
 */
import { describe, expect, it } from "vitest"
import { configOfEntry, entryRunsToolMap, runsToolMap, type ServerConfig, toolAllowed } from "../../../../src/inventory/discover/agentHosts/mcpLaunch.js"

const stdio = (command: string, args: ReadonlyArray<string>, cwd?: string): ServerConfig => ({ _tag: "Stdio", name: "x", command, args, env: {}, cwd })

describe("runsToolMap", () => {
  it("knows tool-map by what it runs, in each way it is launched", () => {
    const toolMap = [
      stdio("node", ["/abs/dist/tool-map.cjs", "mcp", "--gateway"]),
      stdio("/usr/bin/node", ["--enable-source-maps", "/home/u/.npm-global/lib/node_modules/tool-map/dist/tool-map.cjs", "mcp"]),
      stdio("tool-map", ["mcp"]),
      stdio("/opt/bin/tool-map", ["mcp", "--host", "codex"]),
      stdio("C:\\Users\\u\\AppData\\Roaming\\npm\\tool-map.cmd", ["mcp"]),
      stdio("npx", ["-y", "tool-map", "mcp", "--gateway"]),
      stdio("npx", ["--yes", "tool-map@0.1.0", "mcp"]),
      stdio("pnpm", ["dlx", "tool-map", "mcp"]),
      stdio("bunx", ["tool-map@latest", "mcp"]),
      stdio("npm", ["exec", "--", "tool-map", "mcp"]),
      stdio("node", ["/src/checkouts/tool-map/dist/bin.js", "mcp"]),
      stdio("cmd", ["/c", "npx", "-y", "tool-map", "mcp"]),
      stdio("sh", ["-c", "npx tool-map mcp --gateway"]),
      stdio("env", ["TOOL_MAP_DATA=/tmp/d", "tool-map", "mcp"]),
      stdio("node", ["./cli.cjs", "mcp"], "/srv/app")
    ]
    expect(toolMap.map((config) => runsToolMap(config, ["/srv/app/cli.cjs"]))).toEqual(toolMap.map(() => true))
  })

  it("takes no other server for tool-map, nor tool-map run for something else than its MCP server", () => {
    const others: ReadonlyArray<ServerConfig> = [
      stdio("npx", ["-y", "@modelcontextprotocol/server-memory"]),
      stdio("node", ["/abs/dist/other.cjs", "mcp"]),
      stdio("npx", ["-y", "tool-mapper", "mcp"]),
      stdio("tool-map", ["scan"]),
      stdio("node", ["./cli.cjs", "mcp"], "/srv/elsewhere"),
      stdio("uvx", ["mcp-server-fetch"]),
      { _tag: "Http", name: "tool-map", url: "http://127.0.0.1:9/mcp", headers: {} }
    ]
    expect(others.map((config) => runsToolMap(config, ["/srv/app/cli.cjs"]))).toEqual(others.map(() => false))
  })
})

describe("entryRunsToolMap", () => {
  it("applies the same rule to an entry as a host's config holds it, in each dialect's shape", () => {
    expect([
      entryRunsToolMap({ command: "node", args: ["/abs/dist/tool-map.cjs", "mcp", "--gateway", "--servers", "/d/s.json"] }, "claude"),
      entryRunsToolMap({ type: "local", command: ["npx", "-y", "tool-map", "mcp"], enabled: true }, "opencode"),
      entryRunsToolMap({ command: "node", args: ["./cli.cjs", "mcp"], cwd: "/srv/app" }, "codex", ["/srv/app/cli.cjs"]),
      entryRunsToolMap({ type: "local", command: ["npx", "-y", "@modelcontextprotocol/server-memory"] }, "opencode"),
      entryRunsToolMap({ command: "tool-map", args: ["scan"] }, "gemini"),
      entryRunsToolMap({ url: "http://127.0.0.1:9/mcp" }, "cursor"),
      entryRunsToolMap("not an entry", "claude")
    ]).toEqual([true, true, true, false, false, false, false])
  })
})

describe("the tool filters of an entry", () => {
  const toolsOf = (raw: unknown, dialect: "codex" | "gemini" | "claude") => {
    const config = configOfEntry("s", raw, dialect, "stdio", {}, "/p")
    return "_tag" in config ? config.tools : "skipped"
  }

  it("reads Codex's enabled_tools and disabled_tools, and applies them as Codex does", () => {
    const tools = toolsOf({ command: "x", enabled_tools: ["a", "b"], disabled_tools: ["b"] }, "codex")
    expect(tools).toEqual({ include: ["a", "b"], exclude: ["b"] })
    expect(["a", "b", "c"].filter((name) => toolAllowed(tools === "skipped" ? undefined : tools, name))).toEqual(["a"])
    const none = toolsOf({ command: "x", enabled_tools: [] }, "codex")
    expect(["a", "b"].filter((name) => toolAllowed(none === "skipped" ? undefined : none, name))).toEqual([])
    expect(toolsOf({ command: "x", disabled_tools: ["c"] }, "codex")).toEqual({ exclude: ["c"] })
  })

  it("reads Gemini CLI's includeTools (an entry `name(args)` includes `name`) and excludeTools, which wins", () => {
    const tools = toolsOf({ command: "x", includeTools: ["run(ls -la)", "b", "c"], excludeTools: ["c"] }, "gemini")
    expect(tools).toEqual({ include: ["run(ls -la)", "run", "b", "c"], exclude: ["c"] })
    expect(["run", "run(ls -la)", "b", "c", "d"].filter((name) => toolAllowed(tools === "skipped" ? undefined : tools, name))).toEqual(["run", "run(ls -la)", "b"])
  })

  it("reads no filter where the dialect has none, and none where the entry sets none", () => {
    expect(toolsOf({ command: "x", enabled_tools: ["a"] }, "claude")).toBe(undefined)
    expect(toolsOf({ command: "x" }, "codex")).toBe(undefined)
    expect(toolAllowed(undefined, "anything")).toBe(true)
  })

  it("leaves out an entry that names no command", () => {
    expect(configOfEntry("s", { args: ["x"] }, "claude", "stdio", {}, "/p")).toEqual({ name: "s", reason: "it names no command" })
  })
})
