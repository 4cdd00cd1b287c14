import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { TOOL_MAP_VERSION } from "../../src/version.js"
import { BIN, makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

const SECRET = "ntn_SecretValue0123456789abcdefABCDEFghij"
/** A file name with an ANSI colour sequence and a right-to-left override in it. */
const HOSTILE = "evil\u001b[31mred\u202Egnp.exe"
const HOSTILE_SHOWN = "evil\uFFFD[31mred\uFFFDgnp.exe"

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

/** A fake machine: three PATH dirs (a shadowed name, a probe-able git, a hostile name), a Claude Code home. */
const makeMachine = (root: string) => {
  const home = path.join(root, "home")
  const dirs = ["bin-a", "bin-b", "bin-c"].map((name) => path.join(root, name))
  for (const dir of [home, ...dirs]) fs.mkdirSync(dir, { recursive: true })
  const [binA, binB, binC] = dirs as [string, string, string]
  writeExecutable(path.join(binA, "git"), "#!/bin/sh\necho 'git version 2.99.1'\n")
  for (const dir of dirs) writeExecutable(path.join(dir, "shared-name"))
  writeExecutable(path.join(binC, HOSTILE))
  write(path.join(home, ".claude", "agents", "reader.md"), "---\nname: reader\ndescription: Reads code \u001b[2Jfor review\ntools: [Read, Grep]\nmodel: sonnet\n---\n")
  write(path.join(home, ".claude", "agents", "shell-runner.md"), "---\nname: shell-runner\ndescription: Runs shell commands\ntools: Bash, Read\nmodel: sonnet\n---\n")
  // opencode is set up on this machine too: it loads the skills of ~/.claude/skills as well.
  write(path.join(home, ".config", "opencode", "opencode.json"), "{}")
  write(path.join(home, ".claude", "skills", "review-helper", "SKILL.md"), "---\nname: review-helper\ndescription: Helps review\u{E0041}\u{E0042} pull requests\n---\n")
  write(
    path.join(home, ".claude.json"),
    JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["@notionhq/notion-mcp-server", "--api-key", SECRET], env: { NOTION_API_KEY: SECRET } } } })
  )
  const env: Record<string, string> = { HOME: home, PATH: dirs.join(":"), PLUGIN_DATA: path.join(root, "data"), LANG: "C.UTF-8" }
  return { home, binA, binB, binC, env }
}

/** A fake machine in a fresh temp dir, once the built CLI is known to be current. */
const freshMachine = (prefix: string) => {
  requireBuiltCli()
  const temp = makeTempDir(prefix)
  return { temp, machine: makeMachine(temp.dir) }
}

const connectStdio = async (env: Record<string, string>, cwd: string) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env, cwd, stderr: "pipe" })
  const client = new Client({ name: "e2e", version: "1.0.0" })
  await client.connect(transport)
  return client
}

const text = (result: object) => ((result as { content: Array<{ text: string }> }).content).map((part) => part.text).join("\n")

describe("tool-map mcp driven by the official SDK client", () => {
  let temp: ReturnType<typeof makeTempDir>
  let machine: ReturnType<typeof makeMachine>
  let client: Client

  beforeAll(async () => {
    ;({ temp, machine } = freshMachine("tool-map-mcp-e2e-"))
    client = await connectStdio(machine.env, machine.home)
  })
  afterAll(async () => {
    await client.close()
    temp.remove()
  })

  it("initializes as tool-map with tools and resources that announce their changes", () => {
    expect(client.getServerVersion()).toEqual({ name: "tool-map", version: TOOL_MAP_VERSION })
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } })
  })

  it("lists exactly the three inventory tools, each schema a valid JSON Schema of an object, with true annotations", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(["which", "inventory_query", "inventory_refresh"])
    const validator = new AjvJsonSchemaValidator()
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
      expect(() => validator.getValidator(tool.inputSchema as JsonSchemaType)).not.toThrow()
      expect(() => validator.getValidator(tool.outputSchema as JsonSchemaType)).not.toThrow()
    }
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ["which", { title: "Which copy of a command runs", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ["inventory_query", { title: "Query the tool inventory", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ["inventory_refresh", { title: "Rescan the machine if anything changed", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }]
    ])
    expect(tools[0]?.inputSchema).toEqual({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", description: "The command name as typed in a shell, e.g. git or python3.", title: "nonEmptyString", minLength: 1 } },
      additionalProperties: false
    })
  })

  it("which: every copy in PATH order, the winner, as query which --json says", async () => {
    const result = await client.callTool({ name: "which", arguments: { name: "shared-name" } })
    const copy = (dir: string, index: number) => ({
      path: path.join(dir, "shared-name"),
      linkTarget: null,
      pathIndex: index,
      root: dir,
      sameFileAs: null,
      version: null,
      wins: index === 0
    })
    expect(result.structuredContent).toEqual({
      name: "shared-name",
      winner: path.join(machine.binA, "shared-name"),
      version: null,
      copies: [copy(machine.binA, 0), copy(machine.binB, 1), copy(machine.binC, 2)]
    })
    expect(result.isError).toBeUndefined()
    expect(text(result)).toBe(
      [`shared-name runs ${path.join(machine.binA, "shared-name")}.`, `also ${path.join(machine.binB, "shared-name")} (shadowed)`, `also ${path.join(machine.binC, "shared-name")} (shadowed)`].join("\n")
    )
    const cli = runCli(["query", "which", "shared-name", "--json"], machine.env)
    const { stale, staleReason, ...answer } = JSON.parse(cli.stdout)
    expect([stale, staleReason]).toEqual([false, null])
    expect({ ...answer, version: null }).toEqual(result.structuredContent)
  })

  it("which: the winner's probed version", async () => {
    const result = await client.callTool({ name: "which", arguments: { name: "git" } })
    const content = result.structuredContent as { winner: string; version: string; copies: Array<unknown> }
    expect([content.winner, content.version]).toEqual([path.join(machine.binA, "git"), "2.99.1"])
    expect(content.copies[0]).toEqual({ path: path.join(machine.binA, "git"), linkTarget: null, pathIndex: 0, root: machine.binA, sameFileAs: null, version: "2.99.1", wins: true })
    expect(text(result).split("\n")[0]).toBe(`git runs ${path.join(machine.binA, "git")} (version 2.99.1).`)
  })

  it("which: a hostile name comes out neutralized, in the structured content and the text", async () => {
    // The scan records the name cleaned: asked as it is on disk, nothing matches, as on the CLI.
    const raw = await client.callTool({ name: "which", arguments: { name: HOSTILE } })
    expect(raw.structuredContent).toEqual({ name: HOSTILE_SHOWN, winner: null, version: null, copies: [] })
    expect(JSON.stringify(raw)).not.toMatch(/[\u001b\u202e]/)
    const result = await client.callTool({ name: "which", arguments: { name: HOSTILE_SHOWN } })
    const shown = path.join(machine.binC, HOSTILE_SHOWN)
    expect(result.structuredContent).toEqual({
      name: HOSTILE_SHOWN,
      winner: shown,
      version: null,
      copies: [{ path: shown, linkTarget: null, pathIndex: 2, root: machine.binC, sameFileAs: null, version: null, wins: true }]
    })
    expect(text(result)).toBe(`${HOSTILE_SHOWN} runs ${shown}.`)
    expect(JSON.stringify(result)).not.toMatch(/[\u001b\u202e]/)
  })

  it("which: a name nobody has is an answer with no copies", async () => {
    const result = await client.callTool({ name: "which", arguments: { name: "no-such-tool" } })
    expect(result.structuredContent).toEqual({ name: "no-such-tool", winner: null, version: null, copies: [] })
    expect(text(result)).toBe("No tool named no-such-tool is on PATH or in the scanned roots (run `tool-map scan --force` if it was just installed).")
  })

  it("inventory_query: the tools of query tools --json, and the agents of query agents --read-only --json", async () => {
    const tools = await client.callTool({ name: "inventory_query", arguments: { kind: "tools", name: "shared-name" } })
    const cliTools = JSON.parse(runCli(["query", "tools", "--name", "shared-name", "--json"], machine.env).stdout).tools
    const generation = JSON.parse(fs.readFileSync(path.join(machine.env.PLUGIN_DATA!, "tools.json"), "utf8")).generation
    expect(tools.structuredContent).toEqual({ kind: "tools", generation, count: 3, items: cliTools })
    expect(text(tools)).toBe("3 tools: shared-name, shared-name, shared-name")

    const agents = await client.callTool({ name: "inventory_query", arguments: { kind: "agents", readOnly: true } })
    const cliAgents = (JSON.parse(runCli(["query", "agents", "--read-only", "--json"], machine.env).stdout) as { agents: Array<{ description: string }> }).agents
    expect(cliAgents.map((agent) => agent.description)).toEqual(["Reads code \uFFFD[2Jfor review"])
    expect(agents.structuredContent).toEqual({ kind: "agents", generation, count: 1, items: cliAgents })
    expect(text(agents)).toBe("1 agents: reader")
  })

  it("inventory_query: MCP servers with env var names, never the values", async () => {
    const result = await client.callTool({ name: "inventory_query", arguments: { kind: "mcp", host: "claude-code" } })
    const content = result.structuredContent as { count: number; items: Array<{ name: string; envVars: Array<string>; command: string }> }
    expect(content.items.map((item) => [item.name, item.command, item.envVars])).toEqual([["notion", "npx", ["NOTION_API_KEY"]]])
    expect(JSON.stringify(result)).not.toContain(SECRET)
    // A skill is listed once per host that loads it, exactly as query skills lists it.
    const everyHost = await client.callTool({ name: "inventory_query", arguments: { kind: "skills", keyword: "PULL" } })
    const cliHosts = (JSON.parse(runCli(["query", "skills", "--keyword", "PULL", "--json"], machine.env).stdout) as { skills: Array<{ host: string }> }).skills.map((skill) => skill.host)
    expect(cliHosts).toContain("claude-code")
    expect((everyHost.structuredContent as { items: Array<{ host: string }> }).items.map((skill) => skill.host)).toEqual(cliHosts)
    const skills = await client.callTool({ name: "inventory_query", arguments: { kind: "skills", keyword: "PULL", host: "claude-code" } })
    expect(text(skills)).toBe("1 skills: review-helper")
    // Tag characters (invisible ASCII for a model) are shown, not passed on: the reader's boundary makes each a U+FFFD.
    const cliSkills = (JSON.parse(runCli(["query", "skills", "--host", "claude-code", "--json"], machine.env).stdout) as { skills: Array<{ description: string }> }).skills
    expect(cliSkills.map((skill) => skill.description)).toEqual(["Helps review\uFFFD\uFFFD pull requests"])
    expect((skills.structuredContent as { items: Array<{ description: string }> }).items.map((skill) => skill.description)).toEqual(["Helps review\uFFFD\uFFFD pull requests"])
  })

  it("inventory_query: a filter of another kind is an error the model can read", async () => {
    const result = await client.callTool({ name: "inventory_query", arguments: { kind: "mcp", category: "runtimes" } })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe("tools/call inventory_query failed in inventory: category do not apply to kind mcp (it takes host, scope, all)")
  })

  it("an unknown tool is a JSON-RPC error", async () => {
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow("MCP error -32602: Unknown tool: nope")
  })

  it("resources: the bundle's three files, read as written; tools.json neutralized", async () => {
    const { resources } = await client.listResources()
    expect(resources.map((resource) => [resource.uri, resource.name, resource.mimeType])).toEqual([
      ["tool-map://inventory/summary", "tools.summary.md", "text/markdown"],
      ["tool-map://inventory/tools.md", "tools.md", "text/markdown"],
      ["tool-map://inventory/tools.json", "tools.json", "application/json"]
    ])
    const data = machine.env.PLUGIN_DATA!
    const summary = await client.readResource({ uri: "tool-map://inventory/summary" })
    expect(summary.contents).toEqual([{ uri: "tool-map://inventory/summary", mimeType: "text/markdown", text: fs.readFileSync(path.join(data, "tools.summary.md"), "utf8") }])
    const json = await client.readResource({ uri: "tool-map://inventory/tools.json" })
    const served = (json.contents[0] as { text: string }).text
    expect(served).not.toMatch(/[\u001b\u202e]/)
    expect(served).toContain(JSON.stringify(path.join(machine.binC, HOSTILE_SHOWN)))
    expect(served).not.toContain(SECRET)
    await expect(client.readResource({ uri: "tool-map://nothing" })).rejects.toThrow("MCP error -32002: Resource not found: tool-map://nothing")
  })

  it("inventory_refresh: nothing changed, then a new tool: a new generation, and resources/updated to subscribers only", async () => {
    const data = machine.env.PLUGIN_DATA!
    const before = JSON.parse(fs.readFileSync(path.join(data, "tools.json"), "utf8")).generation
    const unchanged = await client.callTool({ name: "inventory_refresh", arguments: {} })
    expect(unchanged.structuredContent).toMatchObject({ skipped: true, generation: before, reason: "no watched input changed since the last scan" })

    const updated: Array<string> = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri)
    })
    await client.subscribeResource({ uri: "tool-map://inventory/summary" })
    await client.subscribeResource({ uri: "tool-map://inventory/tools.json" })
    writeExecutable(path.join(machine.binB, "new-tool"))
    const rescanned = await client.callTool({ name: "inventory_refresh", arguments: {} })
    const after = JSON.parse(fs.readFileSync(path.join(data, "tools.json"), "utf8")).generation
    expect(after).not.toBe(before)
    expect(rescanned.structuredContent).toMatchObject({
      skipped: false,
      generation: after,
      files: { json: path.join(data, "tools.json"), markdown: path.join(data, "tools.md"), summary: path.join(data, "tools.summary.md") }
    })
    expect((rescanned.structuredContent as { rescanReason: string }).rescanReason).toContain(machine.binB)
    await expect.poll(() => updated).toEqual(["tool-map://inventory/summary", "tool-map://inventory/tools.json"])
    const which = await client.callTool({ name: "which", arguments: { name: "new-tool" } })
    expect((which.structuredContent as { winner: string }).winner).toBe(path.join(machine.binB, "new-tool"))

    await client.unsubscribeResource({ uri: "tool-map://inventory/tools.json" })
    const forced = await client.callTool({ name: "inventory_refresh", arguments: { force: true } })
    expect(forced.structuredContent).toMatchObject({ skipped: false, rescanReason: null })
    await expect.poll(() => updated).toEqual(["tool-map://inventory/summary", "tool-map://inventory/tools.json", "tool-map://inventory/summary"])
  })
})

describe("tool-map mcp's stdout", () => {
  let temp: ReturnType<typeof makeTempDir>
  afterEach(() => temp.remove())

  it("carries only JSON-RPC messages, and the server exits 0 when stdin closes", async () => {
    const fresh = freshMachine("tool-map-mcp-stdout-")
    temp = fresh.temp
    const machine = fresh.machine
    const child = spawn(process.execPath, [BIN, "mcp"], { env: machine.env, cwd: machine.home, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "inventory_refresh", arguments: { force: true } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "which", arguments: { name: "git" } } }
    ]
    child.stdin.write(messages.map((message) => JSON.stringify(message)).join("\n") + "\n")
    await expect.poll(() => stdout.split("\n").filter((line) => line !== "").length, { timeout: 30_000 }).toBe(3)
    child.stdin.end()
    const code = await new Promise((resolve) => child.on("exit", resolve))
    expect(code).toBe(0)
    const lines = stdout.split("\n").filter((line) => line !== "")
    const parsed = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> })
    // Answers may come in any order (JSON-RPC): `which` can answer while the refresh scans.
    expect(parsed.map((message) => [message.jsonrpc, message.id]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([["2.0", 1], ["2.0", 2], ["2.0", 3]])
    expect(parsed[0]?.result).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "tool-map", version: TOOL_MAP_VERSION } })
    expect(stdout.endsWith("\n")).toBe(true)
  }, 60_000)
})

describe("tool-map mcp's flags", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-mcp-flags-")
    env = { HOME: temp.dir, PATH: process.env.PATH ?? "/usr/bin:/bin", PLUGIN_DATA: path.join(temp.dir, "data") }
  })
  afterAll(() => temp.remove())

  it("--print-config prints the snippet with this Node, the absolute path of this install and the gateway flags given", () => {
    const run = runCli(["mcp", "--print-config", "codex", "--host", "codex", "--agent", "me"], env)
    expect(run).toEqual({
      status: 0,
      stdout:
        "# Codex: add to ~/.codex/config.toml ($CODEX_HOME/config.toml)\n" +
        "[mcp_servers.tool-map]\n" +
        `command = "${process.execPath}"\n` +
        `args = [ "${BIN}", "mcp", "--host", "codex", "--agent", "me" ]\n`,
      // The snippet alone would leave the host loading each of its servers twice.
      stderr: "tool-map: with this entry codex still loads its own servers directly too; `tool-map gateway setup codex` moves them behind the gateway in one step.\n"
    })
  })

  it("--print-config HOST --json prints the entry as one JSON value jq can read; --json alone is a usage error", () => {
    const run = runCli(["mcp", "--print-config", "gemini", "--json"], env)
    const entry = { command: process.execPath, args: [BIN, "mcp"] }
    expect([run.status, run.stderr]).toEqual([0, ""])
    expect(JSON.parse(run.stdout)).toEqual({
      host: "gemini",
      name: "tool-map",
      entry,
      where: "Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)",
      snippet: `// Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)\n${JSON.stringify({ mcpServers: { "tool-map": entry } }, null, 2)}\n`
    })
    const jq = spawnSync("jq", ["-c", ".entry.args"], { input: run.stdout, encoding: "utf8" })
    expect(jq.stdout).toBe(`${JSON.stringify([BIN, "mcp"])}\n`)
    expect(runCli(["mcp", "--json"], env)).toEqual({
      status: 2,
      stdout: "",
      stderr: "tool-map: --json applies to --print-config only (the server itself speaks JSON-RPC). See `tool-map mcp --help`.\n"
    })
  })

  it("--print-config resolves a relative --servers file against the working directory", () => {
    fs.writeFileSync(path.join(temp.dir, "servers.json"), JSON.stringify({ mcpServers: {} }))
    const run = runCli(["mcp", "--servers", "servers.json", "--print-config", "claude-code"], env, temp.dir)
    const entry = { type: "stdio", command: process.execPath, args: [BIN, "mcp", "--servers", path.join(temp.dir, "servers.json")] }
    expect(run.stdout.split("\n")[1]).toBe(`claude mcp add-json -s user tool-map '${JSON.stringify(entry)}'`)
    expect(run.status).toBe(0)
  })

  it.each([
    [["--servers", "servers.json", "--host", "codex"], "--servers and --host"],
    [["--print-config", "codex", "--http", "0"], "--print-config and --http"]
  ])("refuses %j: exit 2, nothing on stdout", (flags, named) => {
    fs.writeFileSync(path.join(temp.dir, "servers.json"), JSON.stringify({ mcpServers: {} }))
    expect(runCli(["mcp", ...flags], env, temp.dir)).toEqual({
      status: 2,
      stdout: "",
      stderr: `tool-map: The flags ${named} contradict each other: give one of them.\n`
    })
  })
})

describe("tool-map mcp --http", () => {
  let temp: ReturnType<typeof makeTempDir>
  let server: ReturnType<typeof spawn>
  let url: URL

  beforeAll(async () => {
    const fresh = freshMachine("tool-map-mcp-http-")
    temp = fresh.temp
    const machine = fresh.machine
    server = spawn(process.execPath, [BIN, "mcp", "--http", "0"], { env: machine.env, cwd: machine.home, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    server.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    const address = await new Promise<string>((resolve, reject) => {
      let stderr = ""
      server.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
        const match = /^tool-map mcp: Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)
        if (match !== null) resolve(match[1]!)
      })
      server.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    url = new URL(address)
    expect(stdout).toBe("")
  })
  afterAll(async () => {
    const exited = new Promise((resolve) => server.on("exit", resolve))
    server.kill("SIGTERM")
    expect(await exited).toBe(130)
    temp.remove()
  })

  it("serves the SDK's Streamable HTTP client on 127.0.0.1", async () => {
    const client = new Client({ name: "http-e2e", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(url)
    await client.connect(transport)
    expect(client.getServerVersion()).toEqual({ name: "tool-map", version: TOOL_MAP_VERSION })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["which", "inventory_query", "inventory_refresh"])
    const which = await client.callTool({ name: "which", arguments: { name: "shared-name" } })
    expect((which.structuredContent as { copies: Array<unknown> }).copies).toHaveLength(3)
    await transport.terminateSession()
    await client.close()
  })

  it("refuses a request from another origin with 403", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "evil", version: "1" } } })
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Forbidden: the Origin http://evil.example is not a localhost origin" }, id: null })
  })

  it("takes a localhost origin, and answers 404 for an unknown session", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { origin: `http://localhost:${url.port}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "not-a-session" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(response.status).toBe(404)
  })
})
