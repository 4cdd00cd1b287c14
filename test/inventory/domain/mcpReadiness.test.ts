import { describe, expect, it } from "@effect/vitest"
import { McpServerItem } from "../../../src/inventory/domain/agentHosts.js"
import { mcpReadiness, npxPackage, type ReadinessLookup, scriptArgument, uvxPackage } from "../../../src/inventory/domain/mcpReadiness.js"

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

/**
 * A machine where `node`, `npx`, `uvx` and `uv` win on PATH (node probed), /opt/srv (probed,
 * 2.0.1) and ./srv/main.js exist, TOKEN is set, npx has cached `cached-pkg` and uv has
 * `mcp-server-git`.
 */
const ON_PATH: Readonly<Record<string, { readonly path: string; readonly version: string | null }>> = {
  node: { path: "/usr/bin/node", version: "22.1.0" },
  npx: { path: "/usr/bin/npx", version: null },
  uvx: { path: "/usr/bin/uvx", version: null },
  uv: { path: "/usr/bin/uv", version: null },
  python3: { path: "/usr/bin/python3", version: "3.12.1" }
}
const lookup: ReadinessLookup = {
  resolve: (name) => ON_PATH[name] ?? null,
  exists: (path) => path === "/opt/srv" || path === "./srv/main.js",
  isSet: (name) => name === "TOKEN",
  npxCached: (pkg) => pkg === "cached-pkg",
  uvxCached: (pkg) => pkg === "mcp-server-git",
  versionAt: (path) => (path === "/opt/srv" ? "2.0.1" : null)
}

const ready = (fields: Partial<ConstructorParameters<typeof McpServerItem>[0]>) => mcpReadiness(server(fields), lookup)

describe("MCP readiness without connecting (issue 14)", () => {
  it("a stdio server: its command resolves through PATH or as a path, with the probed version", () => {
    expect(ready({ command: "node", args: ["server.js"] })).toEqual({
      ready: "ok", resolvedCommand: "/usr/bin/node", version: "22.1.0", missingEnv: [], npxPackage: null, uvxPackage: null, cached: null
    })
    expect(ready({ command: "/opt/srv" })).toEqual({
      ready: "ok", resolvedCommand: "/opt/srv", version: "2.0.1", missingEnv: [], npxPackage: null, uvxPackage: null, cached: null
    })
    expect(ready({ command: "/opt/gone" })).toEqual({
      ready: "missing command", resolvedCommand: null, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null
    })
    expect(ready({ command: "docker" }).ready).toBe("missing command")
  })

  it("the variables it needs from the environment: names only, the unset ones named", () => {
    expect(ready({ command: "node", envVars: ["TOKEN", "KEY", "GIVEN"], requiredEnvVars: ["KEY", "TOKEN", "OTHER"] })).toEqual({
      ready: "missing env KEY, OTHER", resolvedCommand: "/usr/bin/node", version: "22.1.0", missingEnv: ["KEY", "OTHER"], npxPackage: null, uvxPackage: null, cached: null
    })
    expect(ready({ command: "node", requiredEnvVars: ["TOKEN"] }).ready).toBe("ok")
    // A missing command is said first.
    expect(ready({ command: "gone", requiredEnvVars: ["KEY"] }).ready).toBe("missing command")
  })

  it("an npx package: in npm's cache or not", () => {
    expect(ready({ command: "npx", args: ["-y", "cached-pkg@1.2.0", "--port", "1"] })).toMatchObject({ ready: "ok", npxPackage: "cached-pkg", cached: true })
    expect(ready({ command: "npx", args: ["-y", "@scope/fresh@latest"] })).toMatchObject({ ready: "first start downloads @scope/fresh", npxPackage: "@scope/fresh", cached: false })
    expect(npxPackage(["--package=@a/b@2", "b"])).toBe("@a/b")
    expect(npxPackage(["-p", "x@1", "x-cli"])).toBe("x")
    expect(npxPackage(["--yes"])).toBeNull()
  })

  it("a uvx package: installed as a uv tool or in uv's cache, or not; `uv tool run` is uvx", () => {
    expect(ready({ command: "uvx", args: ["mcp-server-git", "--repository", "."] })).toEqual({
      ready: "ok", resolvedCommand: "/usr/bin/uvx", version: null, missingEnv: [], npxPackage: null, uvxPackage: "mcp-server-git", cached: true
    })
    expect(ready({ command: "uvx", args: ["--from", "mcp_server.Git[cli]==0.6", "git-mcp"] })).toMatchObject({ ready: "ok", uvxPackage: "mcp-server-git", cached: true })
    expect(ready({ command: "uv", args: ["tool", "run", "--python", "3.12", "mcp-server-fetch@latest"] })).toMatchObject({
      ready: "first start downloads mcp-server-fetch", uvxPackage: "mcp-server-fetch", cached: false
    })
    expect(ready({ command: "uv", args: ["run", "server.py"] })).toMatchObject({ ready: "ok", uvxPackage: null, cached: null })
    expect(uvxPackage(["-w", "extra", "--from=Some_Pkg>=1", "cmd"])).toBe("some-pkg")
    expect(uvxPackage(["--offline"])).toBeNull()
  })

  it("a script given to a runtime by path must exist; modules, inline code and subcommands are not judged", () => {
    expect(ready({ command: "node", args: ["./srv/main.js"] }).ready).toBe("ok")
    expect(ready({ command: "node", args: ["--enable-source-maps", "./srv/gone.mjs"] })).toEqual({
      ready: "missing script ./srv/gone.mjs", resolvedCommand: "/usr/bin/node", version: "22.1.0", missingEnv: [], npxPackage: null, uvxPackage: null, cached: null
    })
    expect(ready({ command: "python3", args: ["/srv/mcp.py"] }).ready).toBe("missing script /srv/mcp.py")
    expect(scriptArgument("python3", ["-m", "pkg/mod.py"])).toBeNull()
    expect(scriptArgument("node", ["-e", "require('./x.js')"])).toBeNull()
    expect(scriptArgument("deno", ["run", "./x.ts"])).toBeNull()
    expect(scriptArgument("/usr/bin/python3.12", ["srv/a.py"])).toBe("srv/a.py")
    expect(scriptArgument("node", ["server.js"])).toBeNull()
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
