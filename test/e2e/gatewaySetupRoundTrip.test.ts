/**
 * `tool-map gateway setup HOST`, then the gateway as the host would start it (the command and
 * args setup wrote into the host's config): it fronts exactly the servers the host loaded before,
 * with their env and the host's filters, never itself, and a tool the host would not offer can be
 * neither listed nor called. The downstream server is the reference memory server from npm.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse as parseJsonc } from "jsonc-parser"
import { parse as parseToml } from "smol-toml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AgentHostName } from "../../src/inventory/domain/agentHosts.js"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

beforeAll(() => requireBuiltCli())

const temps: Array<{ readonly remove: () => void }> = []
afterAll(() => temps.forEach((temp) => temp.remove()))

const MEMORY = path.resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-memory/dist/index.js")

const ALL_MEMORY_TOOLS = [
  "add_observations",
  "create_entities",
  "create_relations",
  "delete_entities",
  "delete_observations",
  "delete_relations",
  "open_nodes",
  "read_graph",
  "search_nodes"
]

interface Case {
  readonly file: string
  /** The host's config: the memory server (env MEMORY_FILE_PATH=$MEMORY_AT), and tool-map's own entry from an earlier `--print-config`. */
  readonly text: (memoryFile: string) => string
  /** Other files the host reads (Claude Code's deny rules). */
  readonly extra?: Readonly<Record<string, string>>
  /** The memory tools the host would offer. */
  readonly offered: ReadonlyArray<string>
  /** The settings the gateway's entry takes over from the server's (how the host treats its tools). */
  readonly carried?: Readonly<Record<string, unknown>>
}

const node = JSON.stringify(process.execPath)
const script = JSON.stringify(MEMORY)

const CASES: Readonly<Record<AgentHostName, Case>> = {
  "claude-code": {
    file: ".claude.json",
    text: (memoryFile) =>
      JSON.stringify({ mcpServers: { memory: { type: "stdio", command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } } } }, null, 2),
    // A deny rule of the user's settings: the host never offers that tool.
    extra: { ".claude/settings.json": JSON.stringify({ permissions: { deny: ["mcp__memory__search_nodes"] } }) },
    offered: ALL_MEMORY_TOOLS.filter((tool) => tool !== "search_nodes")
  },
  codex: {
    file: ".codex/config.toml",
    text: (memoryFile) =>
      [
        "# my Codex settings",
        "[mcp_servers.memory]",
        `command = ${node}`,
        `args = [${script}]`,
        "enabled_tools = [\"read_graph\", \"create_entities\", \"search_nodes\"]",
        "disabled_tools = [\"search_nodes\"]",
        "default_tools_approval_mode = \"approve\"",
        "tool_timeout_sec = 90",
        "[mcp_servers.memory.env]",
        `MEMORY_FILE_PATH = ${JSON.stringify(memoryFile)}`,
        ""
      ].join("\n"),
    offered: ["create_entities", "read_graph"],
    carried: { default_tools_approval_mode: "approve", tool_timeout_sec: 90 }
  },
  cursor: {
    file: ".cursor/mcp.json",
    text: (memoryFile) => JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } } } }, null, 2),
    offered: ALL_MEMORY_TOOLS
  },
  gemini: {
    file: ".gemini/settings.json",
    text: (memoryFile) =>
      JSON.stringify(
        {
          mcpServers: {
            memory: {
              command: process.execPath,
              args: [MEMORY],
              env: { MEMORY_FILE_PATH: memoryFile },
              includeTools: ["read_graph", "create_entities", "open_nodes"],
              excludeTools: ["open_nodes"],
              trust: true
            }
          }
        },
        null,
        2
      ),
    offered: ["create_entities", "read_graph"],
    carried: { trust: true }
  },
  opencode: {
    file: ".config/opencode/opencode.json",
    text: (memoryFile) =>
      JSON.stringify({ mcp: { memory: { type: "local", command: [process.execPath, MEMORY], environment: { MEMORY_FILE_PATH: memoryFile }, enabled: true } } }, null, 2),
    offered: ALL_MEMORY_TOOLS
  }
}

/** The tool-map entry setup wrote, as the host would start it (command and args), and its other settings. */
const gatewayEntryOf = (host: AgentHostName, text: string): { command: string; args: ReadonlyArray<string>; rest: Record<string, unknown> } => {
  type Entry = { command: string | Array<string>; args?: Array<string> } & Record<string, unknown>
  const root = (host === "codex" ? JSON.parse(JSON.stringify(parseToml(text))) : parseJsonc(text)) as Record<string, Record<string, Entry>>
  const { command, args, type: _type, enabled: _enabled, ...rest } = (host === "codex" ? root["mcp_servers"] : host === "opencode" ? root["mcp"] : root["mcpServers"])!["tool-map"]!
  return Array.isArray(command) ? { command: command[0]!, args: command.slice(1), rest } : { command, args: args ?? [], rest }
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text

describe("gateway setup, then the gateway the host starts (built CLI, reference memory server)", () => {
  it.each(Object.keys(CASES) as Array<AgentHostName>)("%s: fronts the host's servers with their env and filters, never itself", async (host) => {
    const temp = makeTempDir("tool-map-gw-trip-")
    temps.push(temp)
    const home = temp.dir
    const memoryFile = path.join(home, "memory.jsonl")
    const config = path.join(home, CASES[host].file)
    fs.mkdirSync(path.dirname(config), { recursive: true })
    fs.writeFileSync(config, CASES[host].text(memoryFile))
    for (const [file, text] of Object.entries(CASES[host].extra ?? {})) {
      fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true })
      fs.writeFileSync(path.join(home, file), text)
    }
    const env = { HOME: home, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, GEMINI_CLI_TRUST_WORKSPACE: "true" }
    const setup = runCli(["gateway", "setup", host], env, home)
    expect({ status: setup.status, stderr: setup.stderr }).toEqual({ status: 0, stderr: "" })
    const entry = gatewayEntryOf(host, fs.readFileSync(config, "utf8"))
    expect(entry.args.slice(1, 4)).toEqual(["mcp", "--gateway", "--servers"])
    expect(entry.rest).toEqual(CASES[host].carried ?? {})

    const client = new Client({ name: `${host}-like`, version: "1.0.0" })
    await client.connect(new StdioClientTransport({ command: entry.command, args: [...entry.args], env, cwd: home, stderr: "pipe" }))
    try {
      // One group, the memory server: tool-map's own entry is not fronted.
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp" } })).split("\n").slice(1).map((line) => line.trim().split(/\s+/)[0]))
        .toEqual(["memory/"])
      const listing = textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp/memory" } }))
      const listed = listing.split("\n").slice(1).map((line) => line.trim().replace(/^[*!]\s*/, "").split(/\s+/)[0])
      expect(listed).toEqual([...CASES[host].offered])
      // A tool the host would not offer: not loadable, not callable, through any door.
      const hidden = ALL_MEMORY_TOOLS.find((tool) => !CASES[host].offered.includes(tool))
      if (hidden !== undefined) {
        const name = `mcp__memory__${hidden}`
        expect(textOf(await client.callTool({ name: "tools_call", arguments: { name, arguments: {} } }))).toBe(
          `"${name}" is not a tool of this gateway. Find one with tools_find or tools_ls.`
        )
        await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(`Unknown tool: ${name}`)
      }
      // The server runs with the env of its entry: the entity lands in the file the host's config names.
      const created = await client.callTool({
        name: "tools_call",
        arguments: { name: "mcp__memory__create_entities", arguments: { entities: [{ name: "trip", entityType: "test", observations: ["round"] }] } }
      })
      expect(created.isError).toBeUndefined()
      expect(fs.readFileSync(memoryFile, "utf8")).toContain("\"name\":\"trip\"")
    } finally {
      await client.close()
    }
  })
})
