import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { AGENT_HOSTS, type AgentHostItem, type AgentHostsInventory, type AgentItemScope, type AgentSource, loadedBy } from "../inventory/domain/agentHosts.js"
import {
  type CommonFilters,
  filterAgents,
  filterCommands,
  filterMcpServers,
  filterPlugins,
  filterSkills
} from "../inventory/query/agentQueries.js"
import { exportClaudeV1 } from "../inventory/query/claudeV1.js"
import { AGENT_QUERY_COLUMNS, agentQueryCells, itemState } from "../inventory/render/agentHosts.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"
import { readinessOf } from "../inventory/query/readiness.js"
import { printAnswer } from "./answerFreshness.js"
import { answersFromBundle, freshOption } from "./freshQueries.js"
import { fromOption, jsonOption } from "./options.js"
import { type Column, printJson, printTable } from "./output.js"

const SCOPES: ReadonlyArray<AgentItemScope> = ["user", "project", "local", "managed", "plugin", "builtin"]
const SOURCES: ReadonlyArray<AgentSource> = ["local", "plugin-root", "plugin-nested"]

const hostOption = Options.choice("host", AGENT_HOSTS).pipe(
  Options.withDescription("Only this agent host."),
  Options.optional
)
const scopeOption = Options.choice("scope", SCOPES).pipe(Options.withDescription("Only items of this scope."), Options.optional)
const allOption = Options.boolean("all").pipe(
  Options.withDescription("Also list what the host will not load (disabled, shadowed, ignored).")
)

/**
 * The columns of a listing: the first is the key (what the row is about), those named in `text`
 * (descriptions, paths, commands, lists) give way first on a narrow terminal, the rest after them.
 */
const columnsOf = (titles: ReadonlyArray<string>, text: ReadonlyArray<string>): ReadonlyArray<Column> =>
  titles.map((title, index) => ({ title, shrink: index === 0 ? "key" : text.includes(title) ? "text" : "normal" }))

const common = (flags: { readonly host: Option.Option<AgentHostItem["host"]>; readonly scope: Option.Option<AgentItemScope>; readonly all: boolean }): CommonFilters => ({
  host: Option.getOrUndefined(flags.host),
  scope: Option.getOrUndefined(flags.scope),
  all: flags.all
})

/**
 * Loads the cached agent-host inventory, keeps the items `select` picks, and prints them as
 * JSON or as a table whose `row` gets each item's state column.
 */
const printItems = <A extends AgentHostItem>(
  flags: { readonly from: Option.Option<string>; readonly json: boolean },
  select: (inventory: AgentHostsInventory) => ReadonlyArray<A>,
  headers: ReadonlyArray<Column>,
  row: (item: A, state: string, byId: ReadonlyMap<string, AgentHostItem>) => ReadonlyArray<string>,
  emptyNote: string
) =>
  Effect.gen(function* () {
    const inventory = (yield* (yield* InventoryReader).load(flags.from)).agentHosts
    const byId = new Map(inventory.items.map((item) => [item.id, item] as const))
    yield* printAnswer(flags.json, select(inventory), (list) =>
      printTable(headers, list.map((item) => row(item, itemState(item, byId), byId)), emptyNote)
    )
  })

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
    from: fromOption,
    fresh: freshOption
  },
  (flags) =>
    printItems(
      flags,
      (inventory) =>
        filterAgents(inventory, {
          ...common(flags),
          tool: Option.getOrUndefined(flags.tool),
          model: Option.getOrUndefined(flags.model),
          readOnly: flags.readOnly,
          background: flags.background,
          source: Option.getOrUndefined(flags.source)
        }),
      columnsOf(AGENT_QUERY_COLUMNS, ["tools"]),
      agentQueryCells,
      "No agents match."
    )
).pipe(Command.withDescription("List the subagents the agent hosts load, with their tools and models."), answersFromBundle)

/** `query skills`: skills, optionally those whose description holds a keyword. */
export const querySkillsCommand = Command.make(
  "skills",
  {
    host: hostOption,
    keyword: Options.text("keyword").pipe(Options.withDescription("Only skills whose description contains this text (any case)."), Options.optional),
    scope: scopeOption,
    all: allOption,
    json: jsonOption,
    from: fromOption,
    fresh: freshOption
  },
  (flags) =>
    printItems(
      flags,
      (inventory) => filterSkills(inventory, { ...common(flags), keyword: Option.getOrUndefined(flags.keyword) }),
      columnsOf(["name", "host", "scope", "plugin", "scripts", "state", "also loaded by", "description"], ["plugin", "also loaded by", "description"]),
      (skill, state, byId) => [
        skill.name,
        skill.host,
        skill.scope,
        skill.plugin ?? "",
        skill.hasScripts ? "yes" : "",
        state,
        loadedBy(skill, byId).filter((host) => host !== skill.host).join(","),
        oneLine(skill.description)
      ],
      "No skills match."
    )
).pipe(Command.withDescription("List the skills the agent hosts load: one row per host, and the other hosts that load the same file (the JSON's sameFileAs ids)."), answersFromBundle)

/** `query commands`: slash commands and custom prompts. */
export const queryCommandsCommand = Command.make(
  "commands",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption, fresh: freshOption },
  (flags) =>
    printItems(
      flags,
      (inventory) => filterCommands(inventory, common(flags)),
      columnsOf(["name", "host", "scope", "plugin", "arguments", "state", "description"], ["plugin", "arguments", "description"]),
      (command, state) => [command.name, command.host, command.scope, command.plugin ?? "", command.argumentHint ?? "", state, oneLine(command.description)],
      "No commands match."
    )
).pipe(Command.withDescription("List the slash commands and custom prompts the agent hosts load."), answersFromBundle)

/** `query mcp`: MCP servers, where each is configured, and whether it can start (issue 14). */
export const queryMcpCommand = Command.make(
  "mcp",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption, fresh: freshOption },
  (flags) =>
    Effect.gen(function* () {
      const loaded = yield* (yield* InventoryReader).load(flags.from)
      const inventory = loaded.agentHosts
      const byId = new Map(inventory.items.map((item) => [item.id, item] as const))
      const servers = filterMcpServers(inventory, common(flags))
      const readiness = yield* readinessOf(loaded, servers)
      const rows = servers.map((server) => ({ ...server, readiness: readiness.get(server.id) ?? null }))
      yield* printAnswer(flags.json, rows, (list) =>
        printTable(
          columnsOf(["name", "host", "scope", "transport", "command / url", "env vars", "ready", "state", "file"], ["command / url", "env vars", "file"]),
          list.map((server) => [
            server.name,
            server.host,
            server.scope,
            server.transport,
            server.command === null ? server.url ?? "" : [server.command, ...server.args].join(" "),
            server.envVars.join(","),
            server.readiness?.ready ?? "",
            itemState(server, byId),
            server.path
          ]),
          "No MCP servers match."
        ))
    })
).pipe(
  Command.withDescription(
    "List the MCP servers the agent hosts configure, and where (env var names only, never values), with whether each can start without connecting to it: ready is ok, first start downloads PACKAGE (an npx or uvx package the host downloads on its first start), missing command, missing env NAME, bad url or insecure url."
  ),
  answersFromBundle
)

/** `query plugins`: installed plugins and extensions. */
export const queryPluginsCommand = Command.make(
  "plugins",
  { host: hostOption, scope: scopeOption, all: allOption, json: jsonOption, from: fromOption, fresh: freshOption },
  (flags) =>
    printItems(
      flags,
      (inventory) => filterPlugins(inventory, common(flags)),
      columnsOf(["plugin", "host", "version", "scope", "state", "path"], ["path"]),
      (plugin, state) => [plugin.plugin ?? plugin.name, plugin.host, plugin.version ?? "", plugin.scope, state, plugin.path],
      "No plugins match."
    )
).pipe(Command.withDescription("List the installed plugins (Claude Code) and extensions (Gemini CLI)."), answersFromBundle)

/** A description as one line of words: a terminal's table cuts it to fit, a pipe gets it whole. */
const oneLine = (text: string | null): string => (text ?? "").replace(/\s+/g, " ").trim()

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
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const env = yield* MachineEnvironment
    yield* printJson(exportClaudeV1(inventory.agentHosts, { generatedAt: inventory.generatedAt, homedir: env.homedir }))
  })
).pipe(Command.withDescription("Print the Claude Code inventory in the v1 tools-inventory.json schema (what Claude Code really loads)."))

/** `tool-map export`: compatibility exports of the cached bundle. */
export const exportCommand = Command.make("export").pipe(
  Command.withDescription("Print the cached inventory in another tool's format."),
  Command.withSubcommands([exportClaudeV1Command])
)
