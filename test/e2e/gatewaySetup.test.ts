import * as fs from "node:fs"
import * as path from "node:path"
import { parse as parseJsonc } from "jsonc-parser"
import { parse as parseToml } from "smol-toml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AGENT_HOSTS, type AgentHostName } from "../../src/inventory/domain/agentHosts.js"
import { HOST_CONFIGS, SECRETS } from "../mcp/setup/fixtures.js"
import { BIN, makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

beforeAll(() => requireBuiltCli())

const temps: Array<{ readonly remove: () => void }> = []
afterAll(() => temps.forEach((temp) => temp.remove()))

const MAP_KEY: Readonly<Record<AgentHostName, string>> = { "claude-code": "mcpServers", codex: "mcp_servers", cursor: "mcpServers", gemini: "mcpServers", opencode: "mcp" }

const parseConfig = (host: AgentHostName, text: string): Record<string, unknown> =>
  JSON.parse(JSON.stringify(host === "codex" ? parseToml(text) : parseJsonc(text, [], { allowTrailingComma: true }))) as Record<string, unknown>

/** A fresh HOME holding the host's config; the CLI runs there with nothing else in its environment. */
const homeWith = (host: AgentHostName) => {
  const temp = makeTempDir("tool-map-gw-")
  temps.push(temp)
  const config = path.join(temp.dir, HOST_CONFIGS[host].file)
  fs.mkdirSync(path.dirname(config), { recursive: true })
  fs.writeFileSync(config, HOST_CONFIGS[host].text, { mode: 0o644 })
  const env = { HOME: temp.dir, PATH: "/usr/bin:/bin", GEMINI_CLI_TRUST_WORKSPACE: "true" }
  const hostsDir = path.join(temp.dir, ".local", "share", "tool-map", "gateway", "hosts")
  const run = (...args: ReadonlyArray<string>) => runCli(["gateway", ...args], env, temp.dir)
  return { home: temp.dir, config, hostsDir, serversFile: path.join(hostsDir, `${host}-user.json`), run }
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8)

describe("tool-map gateway (built CLI)", () => {
  it("setup --dry-run prints the change, no value, and writes nothing", () => {
    const { home, config, run } = homeWith("cursor")
    const result = run("setup", "cursor", "--dry-run")
    const servers = path.join(home, ".local/share/tool-map/gateway/hosts/cursor-user.json")
    expect({ status: result.status, stderr: result.stderr, stdout: result.stdout }).toEqual({
      status: 0,
      stderr: "",
      stdout: [
        `Dry run: nothing was written. Setting up the gateway for cursor (user scope) would change ${config}:`,
        "- github: stdio npx -y @modelcontextprotocol/server-github; env GITHUB_TOKEN",
        "- filesystem: stdio npx -y @modelcontextprotocol/server-filesystem /tmp",
        `+ tool-map: ${process.execPath} ${BIN} mcp --gateway --servers ${servers}`,
        "  left in the config: old: it is switched off in its entry (the host does not load it)",
        "Behind the gateway: github, filesystem",
        `Servers file (mode 0600): ${servers}`,
        ""
      ].join("\n")
    })
    expect(fs.readFileSync(config, "utf8")).toBe(HOST_CONFIGS.cursor.text)
    expect(fs.existsSync(path.join(home, ".local"))).toBe(false)
  })

  it.each(AGENT_HOSTS)("%s: dry run, setup, setup again, status, restore byte for byte", (host) => {
    const { config, hostsDir, serversFile, run } = homeWith(host)
    const dry = run("setup", host, "--dry-run", "--json")
    expect(dry.status).toBe(0)
    expect(fs.existsSync(hostsDir)).toBe(false)
    for (const secret of SECRETS) expect(dry.stdout + dry.stderr).not.toContain(secret)

    const setup = run("setup", host)
    expect({ status: setup.status, stderr: setup.stderr }).toEqual({ status: 0, stderr: "" })
    for (const secret of SECRETS) expect(setup.stdout).not.toContain(secret)
    const before = parseConfig(host, HOST_CONFIGS[host].text)
    const after = parseConfig(host, fs.readFileSync(config, "utf8"))
    const mapKey = MAP_KEY[host]
    const original = before[mapKey] as Record<string, unknown>
    const kept = host === "cursor" ? { old: original["old"] } : {}
    const moved = Object.fromEntries(Object.entries(original).filter(([name]) => !(name in kept)))
    expect(after[mapKey]).toEqual({
      ...kept,
      "tool-map": host === "opencode"
        ? { type: "local", command: [process.execPath, BIN, "mcp", "--gateway", "--servers", serversFile], enabled: true }
        : { ...(host === "claude-code" ? { type: "stdio" } : {}), command: process.execPath, args: [BIN, "mcp", "--gateway", "--servers", serversFile] }
    })
    expect({ ...after, [mapKey]: null }).toEqual({ ...before, [mapKey]: null })
    for (const secret of SECRETS) expect(fs.readFileSync(config, "utf8")).not.toContain(secret)
    expect(JSON.parse(fs.readFileSync(serversFile, "utf8"))).toEqual({ host, source: config, mcpServers: moved })
    expect([modeOf(hostsDir), modeOf(serversFile), modeOf(path.join(hostsDir, `${host}-user.backup`)), modeOf(path.join(hostsDir, `${host}-user.setup.json`)), modeOf(config)])
      .toEqual(["700", "600", "600", "600", "644"])
    expect(fs.readdirSync(hostsDir).sort()).toEqual([`${host}-user.backup`, `${host}-user.json`, `${host}-user.setup.json`])

    const again = run("setup", host)
    expect({ status: again.status, first: again.stdout.split("\n")[0] }).toEqual({
      status: 0,
      first: `The gateway is set up for ${host} (user scope) already, and ${config} loads no server besides it: nothing changed.`
    })

    const status = run("status", host, "--json")
    expect(status.status).toBe(0)
    const statusValue = JSON.parse(status.stdout) as { hosts: ReadonlyArray<{ setups: ReadonlyArray<{ behind: ReadonlyArray<string> }>; direct: ReadonlyArray<unknown> }> }
    expect(statusValue.hosts.map((entry) => ({ behind: entry.setups.map((setup) => setup.behind), direct: entry.direct }))).toEqual([{ behind: [Object.keys(moved)], direct: [] }])

    const restore = run("restore", host)
    expect({ status: restore.status, stderr: restore.stderr }).toEqual({ status: 0, stderr: "" })
    expect(fs.readFileSync(config, "utf8")).toBe(HOST_CONFIGS[host].text)
    expect(fs.readdirSync(hostsDir)).toEqual([])
    const twice = run("restore", host)
    expect({ status: twice.status, stderr: twice.stderr }).toEqual({
      status: 7,
      stderr: `tool-map: The gateway is not set up for ${host} (user scope): there is nothing to restore. \`tool-map gateway status\` shows what is set up.\n`
    })
  })

  it("a server added after setup is loaded directly until setup runs again; restore then keeps it and the later edits", () => {
    const { config, run } = homeWith("gemini")
    expect(run("setup", "gemini").status).toBe(0)
    const setUp = fs.readFileSync(config, "utf8")
    fs.writeFileSync(config, setUp.replace(`"mcpServers": {`, `"mcpServers": {\n    "later": { "command": "later-server" },`))
    const status = run("status", "gemini")
    expect(status.stdout.split("\n").filter((line) => !line.includes(" since "))).toEqual([
      "Gemini CLI (gemini)",
      "    behind the gateway: github, memory",
      `  loaded directly: later (user scope, ${config})`,
      ""
    ])
    const merged = run("setup", "gemini")
    expect(merged.stdout.split("\n").slice(0, 2)).toEqual([
      `The gateway was set up for gemini (user scope) already; servers added to ${config} since were moved behind it:`,
      "- later: stdio later-server"
    ])
    expect(fs.readFileSync(config, "utf8")).toBe(setUp)
    const restore = run("restore", "gemini")
    expect({ status: restore.status, stdout: restore.stdout }).toEqual({
      status: 0,
      stdout: [
        `${config} was edited after setup, so it was not overwritten: the servers were put back into it (github, memory, later) and the gateway's entry removed, keeping every later edit.`,
        `The file as it was before setup is at ${config}.tool-map-original.`,
        ""
      ].join("\n")
    })
    expect(fs.readFileSync(`${config}.tool-map-original`, "utf8")).toBe(HOST_CONFIGS.gemini.text)
    expect(modeOf(`${config}.tool-map-original`)).toBe("600")
    const after = parseConfig("gemini", fs.readFileSync(config, "utf8"))
    expect(Object.keys(after["mcpServers"] as object)).toEqual(["github", "memory", "later"])
  })

  it("a host with no server is refused with exit code 7 and nothing written", () => {
    const { home, run } = homeWith("cursor")
    const result = run("setup", "claude-code")
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 7,
      stderr: `tool-map: claude-code loads no MCP server from ${path.join(home, ".claude.json")} (user scope): there is nothing to put behind the gateway, and nothing was written.\n`
    })
    expect(fs.existsSync(path.join(home, ".local"))).toBe(false)
  })

  it("Claude Code's local scope: the user scope points to it; --scope local moves this project's servers and restores them byte for byte", () => {
    const { home, run } = homeWith("cursor")
    const claudeJson = path.join(home, ".claude.json")
    // `claude mcp add` puts a server in the local scope by default: projects[<dir>].mcpServers of ~/.claude.json.
    const original = `${JSON.stringify({
      numStartups: 3,
      projects: {
        [home]: { allowedTools: [], mcpServers: { mine: { type: "stdio", command: "mine-server", env: { TOKEN: "local-secret-value-0123456789" } } } },
        "/elsewhere": { mcpServers: { theirs: { type: "stdio", command: "their-server" } } }
      }
    }, null, 2)}\n`
    fs.writeFileSync(claudeJson, original)
    const user = run("setup", "claude-code")
    expect({ status: user.status, stderr: user.stderr }).toEqual({
      status: 7,
      stderr: `tool-map: claude-code loads no MCP server from ${claudeJson} (user scope): there is nothing to put behind the gateway, and nothing was written. It loads a server from elsewhere: mine (local scope: --scope local moves it).\n`
    })
    expect(fs.existsSync(path.join(home, ".local"))).toBe(false)

    const local = run("setup", "claude-code", "--scope", "local")
    expect({ status: local.status, stderr: local.stderr }).toEqual({ status: 0, stderr: "" })
    expect(local.stdout).not.toContain("local-secret-value")
    const after = JSON.parse(fs.readFileSync(claudeJson, "utf8")) as { projects: Record<string, { mcpServers: Record<string, { args: Array<string> }> }> }
    expect(Object.keys(after.projects[home]!.mcpServers)).toEqual(["tool-map"])
    expect(after.projects["/elsewhere"]).toEqual({ mcpServers: { theirs: { type: "stdio", command: "their-server" } } })
    const serversFile = after.projects[home]!.mcpServers["tool-map"]!.args.at(-1)!
    expect(path.basename(serversFile)).toMatch(/^claude-code-local-[0-9a-f]{12}\.json$/)
    expect(JSON.parse(fs.readFileSync(serversFile, "utf8"))).toEqual({
      host: "claude-code",
      source: claudeJson,
      mcpServers: { mine: { type: "stdio", command: "mine-server", env: { TOKEN: "local-secret-value-0123456789" } } }
    })
    expect(modeOf(serversFile)).toBe("600")
    const restore = run("restore", "claude-code", "--scope", "local")
    expect({ status: restore.status, stderr: restore.stderr }).toEqual({ status: 0, stderr: "" })
    expect(fs.readFileSync(claudeJson, "utf8")).toBe(original)
  })

  it("--scope local is Claude Code's only: another host's is a usage error", () => {
    const { run } = homeWith("codex")
    expect(run("setup", "codex", "--scope", "local")).toEqual({
      status: 2,
      stdout: "",
      stderr: "tool-map: codex has no local scope: only Claude Code keeps servers per project in its user config (--scope local); use --scope user or --scope project.\n"
    })
  })

  it("gateway --help and setup --help explain the commands", () => {
    const { run } = homeWith("cursor")
    const help = run("--help")
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("setup")
    expect(help.stdout).toContain("restore")
    expect(help.stdout).toContain("status")
    const setupHelp = run("setup", "--help")
    expect(setupHelp.status).toBe(0)
    expect(setupHelp.stdout).toContain("--dry-run")
    expect(setupHelp.stdout).toContain("--scope")
  })
})
