import * as fs from "node:fs"
import * as path from "node:path"
import { INVENTORY_TOOL_NAMES } from "../../../src/mcp/server/inventory/InventoryTools.js"
import { type Check, type CheckContext, HostCommandFailed, printConfig, stripAnsi, succeeded, toolMapList, withSandbox } from "../check.js"
import type { Sandbox } from "../sandbox.js"

/** The plugin directory, relative to the repository root. */
export const PLUGIN_DIR = "plugins/claude-code"

interface Finding {
  readonly message?: string
  readonly path?: string
}
interface ValidationPart {
  readonly errors?: ReadonlyArray<Finding>
  readonly warnings?: ReadonlyArray<Finding>
}
/** The parts of `claude plugin validate --json` a verdict rests on (2.1.332). */
interface ValidationReport {
  readonly success: boolean
  readonly manifest: ValidationPart | null
  readonly contents: ReadonlyArray<ValidationPart & { readonly file?: string }>
}

const findingText = (finding: Finding) => [finding.path, finding.message].filter((part) => part !== undefined).join(": ")

/** A validation report as a line: the verdict, the counts, and every finding's text. */
const describeValidation = (report: ValidationReport): string => {
  const parts = [report.manifest, ...report.contents].filter((part): part is ValidationPart => part !== null)
  const errors = parts.flatMap((part) => part.errors ?? [])
  const warnings = parts.flatMap((part) => part.warnings ?? [])
  const findings = [...errors, ...warnings].map(findingText)
  return `${report.success ? "passes" : "fails"} --strict: ${errors.length} errors, ${warnings.length} warnings${
    findings.length > 0 ? `: ${findings.join("; ")}` : ""
  }`
}

const PASSES = "passes --strict: 0 errors, 0 warnings"

const validate = (context: CheckContext, target: string) =>
  withSandbox(context, (sandbox) => {
    // Exit 1 is the validator's "fails" answer, not a failure of the command: the JSON says which.
    const result = context.runHost(sandbox, "claude", ["plugin", "validate", "--strict", "--json", path.join(context.root, target)])
    if (result.status !== 0 && result.status !== 1) succeeded("claude plugin validate", result)
    return { toolMap: PASSES, host: describeValidation(JSON.parse(result.stdout) as ValidationReport) }
  })

interface ListedPlugin {
  readonly id: string
  readonly version: string
  readonly enabled: boolean
  readonly mcpServers?: Readonly<Record<string, { readonly command?: string; readonly args?: ReadonlyArray<string> }>>
}
interface ToolMapPlugin {
  readonly host: string
  readonly name: string
  readonly marketplace: string | null
  readonly version: string | null
  readonly enabled: boolean
}
interface ToolMapMcpServer {
  readonly host: string
  readonly name: string
  readonly plugin: string | null
  readonly command: string | null
  readonly args: ReadonlyArray<string>
  readonly enabled: boolean
}

/** One installed plugin as a line: id, version, state, and its MCP servers' command lines. */
const describePlugin = (id: string, version: string | null, enabled: boolean, servers: ReadonlyArray<string>) =>
  `${id} ${version ?? "(no version)"} ${enabled ? "enabled" : "disabled"}; mcp: ${servers.length === 0 ? "(none)" : servers.join(", ")}`

/** Installs the plugin from the repository's marketplace (a local path: no network) into the sandbox's HOME. */
const installPlugin = (context: CheckContext, sandbox: Sandbox) =>
  succeeded(
    "claude plugin install tool-map --marketplace <repo>",
    context.runHost(sandbox, "claude", ["plugin", "install", "tool-map", "--marketplace", context.root, "--json"])
  )

/** Runs `body` in a fresh sandbox whose HOME has the plugin installed. */
const withInstalledPlugin = <A>(context: CheckContext, body: (sandbox: Sandbox) => A): A =>
  withSandbox(context, (sandbox) => {
    installPlugin(context, sandbox)
    return body(sandbox)
  })

/** A `tool-map` on PATH that runs this checkout's build, as `npm install -g` of it would. */
const toolMapOnPath = (context: CheckContext, sandbox: Sandbox): string => {
  const file = sandbox.write(
    "bin/tool-map",
    `#!/bin/sh\nexec ${[context.serverInvocation.command, ...context.serverInvocation.args.slice(0, -1)].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")} "$@"\n`
  )
  fs.chmodSync(file, 0o755)
  return path.dirname(file)
}

/**
 * The status `claude mcp list` gives a server (2.1.332 prints `NAME: COMMAND - ✔ Connected`
 * after starting each server for a health check), or why it is missing.
 */
const claudeMcpStatus = (stdout: string, name: string): string => {
  const line = stripAnsi(stdout).split("\n").find((row) => row.startsWith(`${name}: `))
  if (line === undefined) return `${name}: not listed`
  return `${name}: ${line.slice(line.lastIndexOf(" - ") + 3).replace(/^[^\p{L}]+/u, "")}`
}

interface ToolMapItem {
  readonly host: string
  readonly name: string
  readonly plugin: string | null
}

/** tool-map's items of one kind that a plugin brings, by name. */
const pluginItems = (context: CheckContext, sandbox: Sandbox, kind: string, plugin: string): ReadonlyArray<string> =>
  toolMapList<ToolMapItem>(context, sandbox, [kind])
    .filter((item) => item.host === "claude-code" && item.plugin === plugin)
    .map((item) => item.name)

const describeInventory = (skills: ReadonlyArray<string>, agents: ReadonlyArray<string>, servers: ReadonlyArray<string>) =>
  [["skills", skills], ["agents", agents], ["mcp", servers]]
    .map(([label, names]) => `${label}: ${names.length === 0 ? "-" : [...names].sort().join(", ")}`)
    .join("; ")

/**
 * The names under a heading of `claude plugin details` (2.1.332): `  Skills (1)  tool-map`, the
 * names after the count (comma-separated when several), none when the count is 0.
 */
export const detailsNames = (stdout: string, heading: string): ReadonlyArray<string> => {
  const line = stripAnsi(stdout).split("\n").find((row) => row.trimStart().startsWith(`${heading} (`))
  if (line === undefined) return [`(no ${heading} line)`]
  const names = line.trim().replace(/^[^)]*\)\s*/, "").replace(/\s{2,}\(.*$/, "")
  return names === "" ? [] : names.split(/,\s*/)
}

interface ToolMapMcpItem extends ToolMapMcpServer {
  readonly scope: string
  readonly transport: string
}

/** A server as `claude mcp get` shows it: scope, transport, and the command line (the host joins args with spaces). */
const describeClaudeServer = (scope: string, transport: string, commandLine: string) => `${scope} ${transport}: ${commandLine}`

/** `claude mcp get NAME` (2.1.332): `Scope: User config (…)`, `Type: stdio`, `Command: …`, `Args: …` lines. */
const claudeGet = (stdout: string): string => {
  const field = (label: string) =>
    stripAnsi(stdout).split("\n").map((row) => row.trim()).find((row) => row.startsWith(`${label}: `))?.slice(label.length + 2) ?? ""
  const scope = /^(User|Local|Project) config/.exec(field("Scope"))?.[1]?.toLowerCase() ?? `(scope ${field("Scope")})`
  return describeClaudeServer(scope, field("Type"), [field("Command"), field("Args")].filter((part) => part !== "").join(" "))
}

/** Runs the printed claude-code snippet in sh, `claude` on PATH, in the sandbox. */
const addWithSnippet = (context: CheckContext, sandbox: Sandbox) =>
  succeeded(
    "the claude-code snippet in sh",
    sandbox.run("/bin/sh", ["-c", printConfig(context, sandbox, "claude-code")], { path: [path.dirname(context.hostBin("claude"))] })
  )

/** The events of `claude -p --output-format stream-json --verbose --include-hook-events` (2.1.332) a session-start check reads. */
interface StreamEvent {
  readonly type: string
  readonly subtype?: string
  readonly hook_name?: string
  readonly exit_code?: number
  readonly output?: string
  readonly mcp_servers?: ReadonlyArray<{ readonly name: string; readonly status: string }>
  readonly tools?: ReadonlyArray<string>
  readonly skills?: ReadonlyArray<string>
  /** The agents the session can start, built-in ones included (`<plugin>:<name>` for a plugin's). */
  readonly agents?: ReadonlyArray<string>
}

/**
 * A Claude Code session start in the sandbox: `claude -p` with stream-json events. Without a
 * login the prompt fails after the session started, so its hooks, servers and skills are up and
 * reported (the `init` event) by then.
 */
export const claudeSession = (context: CheckContext, sandbox: Sandbox, pathDirs: ReadonlyArray<string> = []) => {
  const session = context.runHost(
    sandbox,
    "claude",
    ["-p", "hello", "--output-format", "stream-json", "--verbose", "--include-hook-events"],
    { path: pathDirs }
  )
  const events = session.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as StreamEvent)
  const init = events.find((event) => event.type === "system" && event.subtype === "init")
  if (init === undefined) throw new HostCommandFailed("claude -p (no init event)", session)
  return { events, init }
}

/** The plugin's part of a session start, as a line: its hook's run, its server's status and tools, its skills. */
const describeSessionStart = (hook: string, server: string, tools: ReadonlyArray<string>, skills: ReadonlyArray<string>) =>
  `hook ${hook}; server ${server}; tools ${[...tools].sort().join(", ")}; skills ${[...skills].sort().join(", ")}`

/** What Claude Code names a plugin server's tool: `mcp__plugin_<plugin>_<server>__<tool>`. */
const PLUGIN_TOOL_PREFIX = "mcp__plugin_tool-map_tool-map__"

export const claudeCodeChecks: ReadonlyArray<Check> = [
  {
    id: "plugin-validate",
    host: "claude",
    title: `claude plugin validate --strict ${PLUGIN_DIR}`,
    run: (context) => validate(context, PLUGIN_DIR)
  },
  {
    id: "marketplace-validate",
    host: "claude",
    title: "claude plugin validate --strict . (the repository's marketplace.json)",
    run: (context) => validate(context, ".")
  },
  {
    id: "plugin-install-list",
    host: "claude",
    title: "claude plugin install from the repo's marketplace, then claude plugin list --json = tool-map query plugins + mcp",
    run: (context) =>
      withInstalledPlugin(context, (sandbox) => {
        const listed = JSON.parse(
          succeeded("claude plugin list --json", context.runHost(sandbox, "claude", ["plugin", "list", "--json"])).stdout
        ) as ReadonlyArray<ListedPlugin>
        const ours = listed.find((plugin) => plugin.id === "tool-map@tool-map")
        const host =
          ours === undefined
            ? `not listed (listed: ${listed.map((plugin) => plugin.id).join(", ")})`
            : describePlugin(
              ours.id,
              ours.version,
              ours.enabled,
              Object.entries(ours.mcpServers ?? {}).map(([name, server]) => `${name}=${[server.command, ...(server.args ?? [])].join(" ")}`)
            )
        const plugins = toolMapList<ToolMapPlugin>(context, sandbox, ["plugins"])
        const servers = toolMapList<ToolMapMcpServer>(context, sandbox, ["mcp"])
        const mine = plugins.find((plugin) => plugin.host === "claude-code" && plugin.name === "tool-map")
        const toolMap =
          mine === undefined
            ? "not listed"
            : describePlugin(
              `${mine.name}@${mine.marketplace ?? "(none)"}`,
              mine.version,
              mine.enabled,
              servers
                .filter((server) => server.host === "claude-code" && server.plugin !== null && server.plugin.startsWith("tool-map@"))
                .map((server) => `${server.name}=${[server.command, ...server.args].join(" ")}`)
            )
        return { toolMap, host }
      })
  },
  {
    id: "plugin-details",
    host: "claude",
    title: "claude plugin details tool-map@tool-map: its skills, agents and MCP servers = tool-map's items of the plugin",
    run: (context) =>
      withInstalledPlugin(context, (sandbox) => {
        const details = succeeded("claude plugin details", context.runHost(sandbox, "claude", ["plugin", "details", "tool-map@tool-map"]))
        const plugin = "tool-map@tool-map"
        return {
          // Claude Code counts a plugin's commands among its skills (issue 12; 2.1.332).
          toolMap: describeInventory(
            [...pluginItems(context, sandbox, "skills", plugin), ...pluginItems(context, sandbox, "commands", plugin)],
            pluginItems(context, sandbox, "agents", plugin),
            pluginItems(context, sandbox, "mcp", plugin)
          ),
          host: describeInventory(
            detailsNames(details.stdout, "Skills"),
            detailsNames(details.stdout, "Agents"),
            detailsNames(details.stdout, "MCP servers")
          )
        }
      })
  },
  {
    id: "plugin-mcp-connected",
    host: "claude",
    title: "the installed plugin's server (tool-map mcp from PATH): claude mcp list says Connected",
    run: (context) =>
      withInstalledPlugin(context, (sandbox) => {
        const list = succeeded("claude mcp list", context.runHost(sandbox, "claude", ["mcp", "list"], { path: [toolMapOnPath(context, sandbox)] }))
        return { toolMap: "plugin:tool-map:tool-map: Connected", host: claudeMcpStatus(list.stdout, "plugin:tool-map:tool-map") }
      })
  },
  {
    id: "mcp-add-json-connected",
    host: "claude",
    title: "tool-map mcp --print-config claude-code run in sh, then claude mcp list says Connected",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        addWithSnippet(context, sandbox)
        const list = succeeded("claude mcp list", context.runHost(sandbox, "claude", ["mcp", "list"]))
        return { toolMap: "tool-map: Connected", host: claudeMcpStatus(list.stdout, "tool-map") }
      })
  },
  {
    id: "claude-query-mcp",
    host: "claude",
    title: "after the claude-code snippet: claude mcp get tool-map = tool-map query mcp (scope, transport, command line)",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        addWithSnippet(context, sandbox)
        const get = succeeded("claude mcp get tool-map", context.runHost(sandbox, "claude", ["mcp", "get", "tool-map"]))
        const items = toolMapList<ToolMapMcpItem>(context, sandbox, ["mcp"])
        const item = items.find((server) => server.host === "claude-code" && server.name === "tool-map")
        return {
          toolMap: item === undefined ? "not listed" : describeClaudeServer(item.scope, item.transport, [item.command, ...item.args].join(" ")),
          host: claudeGet(get.stdout)
        }
      })
  },
  {
    id: "plugin-session-start",
    host: "claude",
    title: "a claude -p session (no login, no network) with the plugin: the SessionStart hook writes the bundle silently, the server connects with its tools, the skill loads",
    run: (context) =>
      withInstalledPlugin(context, (sandbox) => {
        const { events, init } = claudeSession(context, sandbox, [toolMapOnPath(context, sandbox)])
        const hook = events.find((event) => event.subtype === "hook_response" && event.hook_name === "SessionStart:startup")
        const bundle = fs.existsSync(path.join(sandbox.home, ".local", "share", "tool-map", "tools.json"))
        return {
          toolMap: describeSessionStart(
            "exit 0, no output, bundle written",
            "connected",
            INVENTORY_TOOL_NAMES.map((name) => `${PLUGIN_TOOL_PREFIX}${name}`),
            fs.readdirSync(path.join(context.root, PLUGIN_DIR, "skills")).map((name) => `tool-map:${name}`)
          ),
          host: describeSessionStart(
            hook === undefined
              ? "did not run"
              : `exit ${hook.exit_code}, ${hook.output === "" ? "no output" : `output ${JSON.stringify(hook.output)}`}, ${bundle ? "bundle written" : "no bundle"}`,
            init.mcp_servers?.find((server) => server.name === "plugin:tool-map:tool-map")?.status ?? "not listed",
            (init.tools ?? []).filter((tool) => tool.startsWith(PLUGIN_TOOL_PREFIX)),
            (init.skills ?? []).filter((skill) => skill.startsWith("tool-map:"))
          )
        }
      })
  }
]
