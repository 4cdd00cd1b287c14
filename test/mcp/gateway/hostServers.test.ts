/**
 * `--gateway --host H`: the servers the host would load in the working directory, read by the
 * inventory's reader of that host, with their env values and args read from the entry itself.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { hostServers } from "../../../src/mcp/gateway/hostServers.js"
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
      Effect.provide(Layer.mergeAll(NodeContext.layer, FrontmatterParser.layer, MachineEnvironment.layerTest({ homedir: home, cwd, env: { HOME: home, ...env } })))
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
})
