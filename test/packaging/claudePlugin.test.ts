import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse as parseYaml } from "yaml"
import { ENTRY_TOOL_DEFINITIONS } from "../../src/catalog/core/entryTools.js"
import { INVENTORY_RESOURCE_URIS } from "../../src/mcp/server/inventory/InventoryResources.js"
import { INVENTORY_TOOLS } from "../../src/mcp/server/inventory/InventoryTools.js"
import { QueryKind } from "../../src/mcp/server/inventory/schemas.js"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
/** The plugin directory: Claude Code copies it whole into its plugin cache, so nothing in it may point outside. */
const PLUGIN = path.join(ROOT, "plugins", "claude-code")

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"))
const pkg = readJson(path.join(ROOT, "package.json")) as { version: string; license: string }

/** Every file under the plugin directory, relative, sorted. */
const pluginFiles = (): ReadonlyArray<string> =>
  fs.readdirSync(PLUGIN, { recursive: true, encoding: "utf8" })
    .filter((name) => !fs.lstatSync(path.join(PLUGIN, name)).isDirectory())
    .sort()

const HOOK_COMMAND = "tool-map scan --if-stale --quiet"

/** The skill's frontmatter (between the first two `---` lines) and its body. */
const readSkill = (file: string) => {
  const text = fs.readFileSync(file, "utf8")
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)
  if (match === null) throw new Error(`${file} has no frontmatter`)
  return { frontmatter: parseYaml(match[1]!) as Record<string, unknown>, body: match[2]! }
}

describe("the Claude Code plugin directory", () => {
  it("holds exactly the manifest, the MCP config, the hook, the skill and its README, all regular files", () => {
    expect(pluginFiles()).toEqual([
      ".claude-plugin/plugin.json",
      ".mcp.json",
      "README.md",
      "hooks/hooks.json",
      "skills/tool-map/SKILL.md"
    ])
    for (const file of pluginFiles()) expect(fs.lstatSync(path.join(PLUGIN, file)).isFile()).toBe(true)
  })

  it("has a manifest named tool-map with the package's version and license, reaching no network host", () => {
    expect(readJson(path.join(PLUGIN, ".claude-plugin", "plugin.json"))).toEqual({
      $schema: "https://anthropic.com/claude-code/plugin.schema.json",
      name: "tool-map",
      version: pkg.version,
      description:
        "A cached map of every tool the agent can reach (executables on PATH, MCP servers, subagents, skills, commands and plugins of each agent host), served by tool-map's MCP server, refreshed at session start when stale.",
      author: { name: "tool-map contributors" },
      license: pkg.license,
      keywords: ["inventory", "tools", "mcp", "path", "skills", "agents"],
      network: { hosts: [] }
    })
  })

  it("starts the MCP server as `tool-map mcp` from PATH", () => {
    expect(readJson(path.join(PLUGIN, ".mcp.json"))).toEqual({
      mcpServers: { "tool-map": { command: "tool-map", args: ["mcp"] } }
    })
  })

  it("rescans at session start with `tool-map scan --if-stale --quiet`", () => {
    expect(readJson(path.join(PLUGIN, "hooks", "hooks.json"))).toEqual({
      description:
        "Rescan the tool map when a watched input (PATH dirs, an agent host's configuration) changed since the last scan; prints nothing on success.",
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: HOOK_COMMAND, timeout: 120 }] }]
      }
    })
  })

  it("has a skill named after its directory whose text names every tool of the server and the gateway, and its arguments", () => {
    const { frontmatter, body } = readSkill(path.join(PLUGIN, "skills", "tool-map", "SKILL.md"))
    expect(Object.keys(frontmatter)).toEqual(["name", "description"])
    expect(frontmatter["name"]).toBe("tool-map")
    const description = frontmatter["description"]
    expect(typeof description).toBe("string")
    expect((description as string).length).toBeLessThanOrEqual(1024)
    for (const tool of [...INVENTORY_TOOLS, ...ENTRY_TOOL_DEFINITIONS]) {
      expect(body).toContain(`\`${tool.name}\``)
      for (const argument of Object.keys(tool.inputSchema.properties ?? {})) expect(body).toContain(`\`${argument}\``)
    }
    for (const kind of QueryKind.literals) expect(body).toContain(`\`${kind}\``)
    for (const uri of Object.values(INVENTORY_RESOURCE_URIS)) expect(body).toContain(`\`${uri}\``)
    expect(body).toContain(`\`${HOOK_COMMAND}\``)
  })

  it("is listed by the repository's marketplace under its own name and directory", () => {
    const marketplace = readJson(path.join(ROOT, ".claude-plugin", "marketplace.json")) as {
      name: string
      plugins: ReadonlyArray<{ name: string; source: string }>
    }
    expect(marketplace.name).toBe("tool-map")
    expect(marketplace.plugins.map((plugin) => [plugin.name, path.resolve(ROOT, plugin.source)])).toEqual([["tool-map", PLUGIN]])
  })
})

describe("the SessionStart hook's command, run by the built CLI", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  const hookArgs = HOOK_COMMAND.split(" ").slice(1)

  beforeAll(() => {
    temp = makeTempDir("tool-map-plugin-hook-")
    requireBuiltCli()
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(path.join(temp.dir, "bin"), { recursive: true })
    fs.mkdirSync(home)
    env = { HOME: home, PATH: path.join(temp.dir, "bin"), PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
  })
  afterAll(() => temp.remove())

  it("writes the bundle on the first session and prints nothing", () => {
    expect(runCli(hookArgs, env)).toEqual({ status: 0, stdout: "", stderr: "" })
    expect(fs.readdirSync(env["PLUGIN_DATA"]!).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
  })

  it("leaves a current bundle as it is on the next session, silently", () => {
    const before = fs.readFileSync(path.join(env["PLUGIN_DATA"]!, "tools.json"), "utf8")
    expect(runCli(hookArgs, env)).toEqual({ status: 0, stdout: "", stderr: "" })
    expect(fs.readFileSync(path.join(env["PLUGIN_DATA"]!, "tools.json"), "utf8")).toBe(before)
  })
})
