import { describe, expect, it } from "@effect/vitest"
import { McpServerItem } from "../../../src/inventory/domain/agentHosts.js"
import { mcpReadiness, npxPackage, type ReadinessLookup } from "../../../src/inventory/domain/mcpReadiness.js"

const server = (fields: Partial<ConstructorParameters<typeof McpServerItem>[0]>) =>
  new McpServerItem({
    kind: "mcpServer",
    host: "claude-code",
    scope: "user",
    name: "s",
    id: "s",
    path: "/h/.claude.json",
    enabled: true,
    disabledReason: null,
    shadowedBy: null,
    sha256: null,
    mtime: null,
    plugin: null,
    transport: "stdio",
    command: null,
    args: [],
    url: null,
    envVars: [],
    headerNames: [],
    enabledTools: null,
    disabledTools: [],
    trust: null,
    ...fields
  })

/** A machine where `node` and `npx` win on PATH (node probed), /opt/srv exists, TOKEN is set and npx has cached `cached-pkg`. */
const lookup: ReadinessLookup = {
  resolve: (name) => (name === "node" ? { path: "/usr/bin/node", version: "22.1.0" } : name === "npx" ? { path: "/usr/bin/npx", version: null } : null),
  exists: (path) => path === "/opt/srv",
  isSet: (name) => name === "TOKEN",
  npxCached: (pkg) => pkg === "cached-pkg"
}

const ready = (fields: Partial<ConstructorParameters<typeof McpServerItem>[0]>) => mcpReadiness(server(fields), lookup)

describe("MCP readiness without connecting (issue 14)", () => {
  it("a stdio server: its command resolves through PATH or as a path, with the probed version", () => {
    expect(ready({ command: "node", args: ["server.js"] })).toEqual({
      ready: "ok", resolvedCommand: "/usr/bin/node", version: "22.1.0", missingEnv: [], npxPackage: null, cached: null
    })
    expect(ready({ command: "/opt/srv" }).ready).toBe("ok")
    expect(ready({ command: "/opt/gone" })).toEqual({ ready: "missing command", resolvedCommand: null, version: null, missingEnv: [], npxPackage: null, cached: null })
    expect(ready({ command: "uvx" }).ready).toBe("missing command")
  })

  it("the variables it needs from the environment: names only, the unset ones named", () => {
    expect(ready({ command: "node", envVars: ["TOKEN", "KEY", "GIVEN"], requiredEnvVars: ["KEY", "TOKEN", "OTHER"] })).toEqual({
      ready: "missing env KEY, OTHER", resolvedCommand: "/usr/bin/node", version: "22.1.0", missingEnv: ["KEY", "OTHER"], npxPackage: null, cached: null
    })
    expect(ready({ command: "node", requiredEnvVars: ["TOKEN"] }).ready).toBe("ok")
    // A missing command is said first.
    expect(ready({ command: "gone", requiredEnvVars: ["KEY"] }).ready).toBe("missing command")
  })

  it("an npx package: in npm's cache or not", () => {
    expect(ready({ command: "npx", args: ["-y", "cached-pkg@1.2.0", "--port", "1"] })).toMatchObject({ ready: "ok", npxPackage: "cached-pkg", cached: true })
    expect(ready({ command: "npx", args: ["-y", "@scope/fresh@latest"] })).toMatchObject({ ready: "not cached", npxPackage: "@scope/fresh", cached: false })
    expect(npxPackage(["--package=@a/b@2", "b"])).toBe("@a/b")
    expect(npxPackage(["-p", "x@1", "x-cli"])).toBe("x")
    expect(npxPackage(["--yes"])).toBeNull()
  })

  it("a remote server: a URL that parses, https unless on this machine", () => {
    expect(ready({ transport: "http", url: "https://mcp.example.com/mcp" }).ready).toBe("ok")
    expect(ready({ transport: "http", url: "http://127.0.0.1:8080/mcp" }).ready).toBe("ok")
    expect(ready({ transport: "http", url: "http://localhost:8080/mcp" }).ready).toBe("ok")
    expect(ready({ transport: "sse", url: "http://mcp.example.com/sse" }).ready).toBe("insecure url")
    expect(ready({ transport: "http", url: "not a url" }).ready).toBe("bad url")
    expect(ready({ transport: "http", url: "https://mcp.example.com/mcp", requiredEnvVars: ["API_KEY"] }).ready).toBe("missing env API_KEY")
  })
})
