/**
 * `--gateway --host H`: the servers the host would load in the working directory, read by the
 * inventory's reader of that host, with their env values and args read from the entry itself.
 */
import { AgentHostFiles } from "../../../src/inventory/discover/agentHosts/index.js"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { hostServers } from "../../../src/mcp/gateway/hostServers.js"
import { readServersFile, toolAllowed } from "../../../src/mcp/gateway/ServerConfig.js"
import { FrontmatterParser } from "../../../src/inventory/discover/FrontmatterParser.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import type { AgentHostName } from "../../../src/inventory/domain/agentHosts.js"
import { tempDir } from "./harness.js"

let dir: string
let remove: () => void
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-host-"))
})
afterEach(() => remove())

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

const run = (host: AgentHostName, home: string, cwd: string, env: Record<string, string>) =>
  Effect.runPromise(
    hostServers(host).pipe(
      Effect.provide(Layer.mergeAll(AgentHostFiles.layer.pipe(Layer.provideMerge(NodeContext.layer)), FrontmatterParser.layer, MachineEnvironment.layerTest({ homedir: home, cwd, env: { HOME: home, ...env } })))
    )
  )

describe("the servers of an agent host", () => {
  it("takes Claude Code's user, local and project servers with their env values, leaving out what the gateway cannot speak", async () => {
    const home = path.join(dir, "home")
    const project = path.join(dir, "project")
    fs.mkdirSync(path.join(project, ".git"), { recursive: true })
    write(path.join(home, ".claude.json"), JSON.stringify({
      mcpServers: {
        memory: { command: "node", args: ["memory.js", "--token", "${API_TOKEN}"], env: { MEMORY_FILE_PATH: "${MEM:-/tmp/default.jsonl}", SECRET: "s3cret" } },
        shadowed: { command: "user-version" }
      },
      projects: { [project]: { mcpServers: { local: { command: "local-server", args: [] } } } }
    }))
    write(path.join(project, ".mcp.json"), JSON.stringify({
      mcpServers: {
        shadowed: { command: "project-version" },
        remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
        legacy: { type: "sse", url: "http://127.0.0.1:9/sse" }
      }
    }))
    const found = await run("claude-code", home, project, { API_TOKEN: "tok-123" })
    expect(found).toEqual({
      servers: [
        { _tag: "Stdio", name: "memory", command: "node", args: ["memory.js", "--token", "tok-123"], env: { MEMORY_FILE_PATH: "/tmp/default.jsonl", SECRET: "s3cret" }, cwd: project },
        { _tag: "Stdio", name: "local", command: "local-server", args: [], env: {}, cwd: project },
        { _tag: "Stdio", name: "shadowed", command: "project-version", args: [], env: {}, cwd: project },
        { _tag: "Http", name: "remote", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer tok-123" } }
      ],
      skipped: [{ name: "legacy", reason: "the gateway speaks stdio and Streamable HTTP, not sse" }]
    })
  })

  it("takes Codex's enabled servers with the variables env_vars passes on", async () => {
    const home = path.join(dir, "home")
    write(path.join(home, ".codex", "config.toml"), [
      "[mcp_servers.files]",
      "command = \"files-server\"",
      "args = [\"--root\", \"/srv\"]",
      "env_vars = [\"FILES_KEY\"]",
      "env = { MODE = \"ro\" }",
      "",
      "[mcp_servers.off]",
      "command = \"off-server\"",
      "enabled = false",
      ""
    ].join("\n"))
    const found = await run("codex", home, home, { FILES_KEY: "k-9" })
    expect(found).toEqual({
      servers: [{ _tag: "Stdio", name: "files", command: "files-server", args: ["--root", "/srv"], env: { FILES_KEY: "k-9", MODE: "ro" }, cwd: home }],
      skipped: []
    })
  })

  it("never takes an entry that runs tool-map itself, whatever it is named", async () => {
    const home = path.join(dir, "home")
    const project = path.join(dir, "project")
    fs.mkdirSync(path.join(project, ".git"), { recursive: true })
    write(path.join(home, ".claude.json"), JSON.stringify({
      mcpServers: {
        memory: { command: "node", args: ["memory.js"] },
        helper: { command: "node", args: ["/opt/tool-map/dist/tool-map.cjs", "mcp", "--gateway"] },
        "tool-map": { command: "/usr/local/bin/tool-map", args: ["mcp"] },
        launcher: { command: "npx", args: ["-y", "tool-map", "mcp", "--gateway", "--host", "claude-code"] }
      }
    }))
    expect(await run("claude-code", home, project, {})).toEqual({
      servers: [{ _tag: "Stdio", name: "memory", command: "node", args: ["memory.js"], env: {}, cwd: project }],
      skipped: [
        { name: "helper", reason: "it is tool-map itself" },
        { name: "tool-map", reason: "it is tool-map itself" },
        { name: "launcher", reason: "it is tool-map itself" }
      ]
    })
  })

  it("keeps Claude Code's permission deny rules of every settings file as each server's filter, read when asked", async () => {
    const home = path.join(dir, "home")
    const project = path.join(dir, "project")
    fs.mkdirSync(path.join(project, ".git"), { recursive: true })
    write(path.join(home, ".claude.json"), JSON.stringify({
      mcpServers: {
        github: { command: "github-mcp" },
        "my files": { command: "files-mcp" },
        memory: { command: "memory-mcp" },
        everything: { command: "everything-mcp" }
      }
    }))
    write(path.join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["mcp__github__merge_pull_request", "Bash(rm:*)"] } }))
    write(path.join(project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { deny: ["mcp__my_files__write_*", "mcp__memory"] } }))
    const before = await run("claude-code", home, project, {})
    expect(before).toEqual({
      servers: [
        { _tag: "Stdio", name: "github", command: "github-mcp", args: [], env: {}, cwd: project, tools: { claudeDeny: { server: "github", rules: ["mcp__github__merge_pull_request"] } } },
        { _tag: "Stdio", name: "my files", command: "files-mcp", args: [], env: {}, cwd: project, tools: { claudeDeny: { server: "my files", rules: ["mcp__my_files__write_*"] } } },
        { _tag: "Stdio", name: "everything", command: "everything-mcp", args: [], env: {}, cwd: project }
      ],
      skipped: [{ name: "memory", reason: "Claude Code's permission deny rule mcp__memory denies all its tools" }]
    })
    const allowed = (name: string, tools: ReadonlyArray<string>) => {
      const server = before.servers.find((config) => config.name === name)
      return tools.filter((tool) => toolAllowed(server?.tools, tool))
    }
    expect(allowed("github", ["list_issues", "merge_pull_request"])).toEqual(["list_issues"])
    expect(allowed("my files", ["read_file", "write_file", "write.all"])).toEqual(["read_file"])
    expect(allowed("everything", ["echo"])).toEqual(["echo"])
    // A rule added later holds at the next start.
    write(path.join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["mcp__everything__*"] } }))
    expect((await run("claude-code", home, project, {})).skipped).toEqual([
      { name: "memory", reason: "Claude Code's permission deny rule mcp__memory denies all its tools" },
      { name: "everything", reason: "Claude Code's permission deny rule mcp__everything__* denies all its tools" }
    ])
  })

  it("takes Codex's enabled_tools and disabled_tools as the server's filter", async () => {
    const home = path.join(dir, "home")
    write(path.join(home, ".codex", "config.toml"), [
      "[mcp_servers.github]",
      "command = \"github-mcp\"",
      "enabled_tools = [\"list_issues\", \"get_issue\", \"merge_pull_request\"]",
      "disabled_tools = [\"merge_pull_request\"]",
      ""
    ].join("\n"))
    const found = await run("codex", home, home, {})
    expect(found.servers).toEqual([
      { _tag: "Stdio", name: "github", command: "github-mcp", args: [], env: {}, cwd: home, tools: { include: ["list_issues", "get_issue", "merge_pull_request"], exclude: ["merge_pull_request"] } }
    ])
    expect(["list_issues", "get_issue", "merge_pull_request", "create_issue"].filter((tool) => toolAllowed(found.servers[0]?.tools, tool))).toEqual(["list_issues", "get_issue"])
  })

  it("applies Claude Code's deny rules to a servers file of host claude-code, and leaves out tool-map itself", async () => {
    const home = path.join(dir, "home")
    const project = path.join(dir, "project")
    fs.mkdirSync(path.join(project, ".git"), { recursive: true })
    write(path.join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["mcp__github__merge_pull_request", "mcp__memory__*"] } }))
    const file = path.join(dir, "servers.json")
    write(file, JSON.stringify({
      host: "claude-code",
      source: path.join(home, ".claude.json"),
      mcpServers: {
        github: { type: "stdio", command: "github-mcp", args: ["--token", "${GH_TOKEN}"] },
        memory: { command: "memory-mcp" },
        gateway: { command: "node", args: ["/opt/tool-map/dist/tool-map.cjs", "mcp", "--gateway"] }
      }
    }))
    const read = await Effect.runPromise(
      readServersFile(file, { env: { GH_TOKEN: "t-1" }, cwd: project, ownCli: [] }).pipe(
        Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({ homedir: home, cwd: project, env: { HOME: home } })))
      )
    )
    expect(read).toEqual({
      host: "claude-code",
      source: path.join(home, ".claude.json"),
      servers: [
        { _tag: "Stdio", name: "github", command: "github-mcp", args: ["--token", "t-1"], env: {}, cwd: project, tools: { claudeDeny: { server: "github", rules: ["mcp__github__merge_pull_request"] } } }
      ],
      skipped: [
        { name: "gateway", reason: "it is tool-map itself" },
        { name: "memory", reason: "Claude Code's permission deny rule mcp__memory__* denies all its tools" }
      ]
    })
  })
})
