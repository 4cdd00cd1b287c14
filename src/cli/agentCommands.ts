import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { AGENT_HOSTS, type AgentHostItem, type AgentHostsInventory, type AgentItemScope, type AgentSource } from "../domain/agentHosts.js"
import {
  type CommonFilters,
  effectiveToolNames,
  filterAgents,
  filterCommands,
  filterMcpServers,
  filterPlugins,
  filterSkills
} from "../domain/agentQueries.js"
import { exportClaudeV1 } from "../domain/claudeV1.js"
import type { BundleReadError } from "../domain/errors.js"
import { itemState } from "../render/agentHosts.js"
import { HostEnvironment } from "../services/HostEnvironment.js"
import { InventoryStore } from "../services/InventoryStore.js"
import { fromOption, jsonOption } from "./options.js"
import { printJson, printResult, printTable } from "./output.js"

const SCOPES: ReadonlyArray<AgentItemScope> = ["user", "project", "local", "managed", "plugin"]
const SOURCES: ReadonlyArray<AgentSource> = ["local", "plugin-root", "plugin-nested"]

const hostOption = Options.choice("host", AGENT_HOSTS).pipe(
  Options.withDescription("Only this agent host."),
  Options.optional
)
const scopeOption = Options.choice("scope", SCOPES).pipe(Options.withDescription("Only items of this scope."), Options.optional)
const allOption = Options.boolean("all").pipe(
  Options.withDescription("Also list what the host will not load (disabled, shadowed, ignored).")
)

const common = (flags: { readonly host: Option.Option<AgentHostItem["host"]>; readonly scope: Option.Option<AgentItemScope>; readonly all: boolean }): CommonFilters => ({
  host: Option.getOrUndefined(flags.host),
  scope: Option.getOrUndefined(flags.scope),
  all: flags.all
})

const loadAgentHosts = (from: Option.Option<string>): Effect.Effect<AgentHostsInventory, BundleReadError, InventoryStore> =>
  Effect.flatMap(InventoryStore, (store) => Effect.map(store.load(from), (inventory) => inventory.agentHosts))

/** `byId` for rendering the state column. */
const indexOf = (inventory: AgentHostsInventory) => new Map(inventory.items.map((item) => [item.id, item] as const))

/** `query agents`: subagents by host, tool, model, read-only, background, source, scope. */
export const queryAgentsCommand = Command.make(
  "agents",
  {
    host: hostOption,
    tool: Options.text("tool").pipe(Options.withDescription("Only agents that can use this tool (base name: Bash matches Bash(git diff:*))."), Options.optional),
    model: Options.text("model").pipe(Options.withDescription("Only agents whose `model` is exactly this."), Options.optional),
    readOnly: Options.boolean("read-only").pipe(
      Options.withDescription("Only agents with none of Bash, Write, Edit. An agent without `tools` inherits every tool: not read-only.")
    ),
    background: Options.boolean("background").pipe(Options.withDescription("Only agents with `background: true`.")),
    source: Options.choice("source", SOURCES).pipe(Options.withDescription("Only agents of this source."), Options.optional),
    scope: scopeOption,
    all: allOption,
    json: jsonOption,
    from: fromOption
  },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* loadAgentHosts(flags.from)
      const agents = filterAgents(inventory, {
        ...common(flags),
        tool: Option.getOrUndefined(flags.tool),
        model: Option.getOrUndefined(flags.model),
        readOnly: flags.readOnly,
        background: flags.background,
        source: Option.getOrUndefined(flags.source)
      })
      const byId = indexOf(inventory)
      yield* printResult(flags.json, agents, (list) =>
        printTable(
          ["name", "host", "scope", "model", "tools", "bg", "source", "state"],
          list.map((agent) => [
            agent.name,
            agent.host,
            agent.scope,
            agent.model ?? "",
            agent.tools === null ? "(all)" : effectiveToolNames(agent).join(","),
            agent.background ? "yes" : "",
            agent.source,
            itemState(agent, byId)
          ]),
          "No agents match."
        )
      )
    })
).pipe(Command.withDescription("List the subagents the agent hosts load, with their tools and models."))

/** `query skills`: skills, optionally those whose description holds a keyword. */
export const querySkillsCommand = Command.make(
  "skills",
  {
    host: hostOption,
    keyword: Options.text("keyword").pipe(Options.withDescription("Only skills whose description contains this text (any case)."), Options.optional),
    scope: scopeOption,
    all: allOption,
    json: jsonOption,
    from: fromOption
  },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* loadAgentHosts(flags.from)
      const skills = filterSkills(inventory, { ...common(flags), keyword: Option.getOrUndefined(flags.keyword) })
      const byId = indexOf(inventory)
      yield* printResult(flags.json, skills, (list) =>
        printTable(
          ["name", "host", "scope", "plugin", "scripts", "state", "description"],
          list.map((skill) => [skill.name, skill.host, skill.scope, skill.plugin ?? "", skill.hasScripts ? "yes" : "", itemState(skill, byId), oneLine(skill.description)]),
          "No skills match."
        )
      )
    })
).pipe(Command.withDescription("List the skills the agent hosts load."))

/** `query commands`: slash commands and custom prompts. */
export const queryCommandsCommand = Command.make(
  "commands",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* loadAgentHosts(flags.from)
      const commands = filterCommands(inventory, common(flags))
      const byId = indexOf(inventory)
      yield* printResult(flags.json, commands, (list) =>
        printTable(
          ["name", "host", "scope", "plugin", "arguments", "state", "description"],
          list.map((command) => [command.name, command.host, command.scope, command.plugin ?? "", command.argumentHint ?? "", itemState(command, byId), oneLine(command.description)]),
          "No commands match."
        )
      )
    })
).pipe(Command.withDescription("List the slash commands and custom prompts the agent hosts load."))

/** `query mcp`: MCP servers and where each is configured. */
export const queryMcpCommand = Command.make(
  "mcp",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* loadAgentHosts(flags.from)
      const servers = filterMcpServers(inventory, common(flags))
      const byId = indexOf(inventory)
      yield* printResult(flags.json, servers, (list) =>
        printTable(
          ["name", "host", "scope", "transport", "command / url", "env vars", "state", "file"],
          list.map((server) => [
            server.name,
            server.host,
            server.scope,
            server.transport,
            server.command === null ? server.url ?? "" : [server.command, ...server.args].join(" "),
            server.envVars.join(","),
            itemState(server, byId),
            server.path
          ]),
          "No MCP servers match."
        )
      )
    })
).pipe(Command.withDescription("List the MCP servers the agent hosts configure, and where (env var names only, never values)."))

/** `query plugins`: installed plugins and extensions. */
export const queryPluginsCommand = Command.make(
  "plugins",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* loadAgentHosts(flags.from)
      const plugins = filterPlugins(inventory, common(flags))
      const byId = indexOf(inventory)
      yield* printResult(flags.json, plugins, (list) =>
        printTable(
          ["plugin", "host", "version", "scope", "state", "path"],
          list.map((plugin) => [plugin.plugin ?? plugin.name, plugin.host, plugin.version ?? "", plugin.scope, itemState(plugin, byId), plugin.path]),
          "No plugins match."
        )
      )
    })
).pipe(Command.withDescription("List the installed plugins (Claude Code) and extensions (Gemini CLI)."))

const oneLine = (text: string | null): string => {
  const line = (text ?? "").replace(/\s+/g, " ").trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** The agent-host subcommands of `tool-map query`. */
export const agentQueryCommands = [
  queryAgentsCommand,
  querySkillsCommand,
  queryCommandsCommand,
  queryMcpCommand,
  queryPluginsCommand
] as const

/** `tool-map export claude-v1`: the seed's v1 tools-inventory.json, from the cached bundle. */
export const exportClaudeV1Command = Command.make("claude-v1", { from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryStore).load(flags.from)
    const env = yield* HostEnvironment
    yield* printJson(exportClaudeV1(inventory.agentHosts, { generatedAt: inventory.generatedAt, homedir: env.homedir }))
  })
).pipe(Command.withDescription("Print the Claude Code inventory in the v1 tools-inventory.json schema (what Claude Code really loads)."))

/** `tool-map export`: compatibility exports of the cached bundle. */
export const exportCommand = Command.make("export").pipe(
  Command.withDescription("Print the cached inventory in another tool's format."),
  Command.withSubcommands([exportClaudeV1Command])
)
