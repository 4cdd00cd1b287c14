import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { AGENT_HOST_TITLES, AGENT_HOSTS } from "../inventory/domain/agentHosts.js"
import { GatewaySetup, type HostGatewayStatus, type RestoreResult, type SetupResult } from "../mcp/setup/GatewaySetup.js"
import { SETUP_SCOPES } from "../mcp/setup/hostFiles.js"
import type { ServerSummary } from "../mcp/setup/plan.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { mcpInvocation } from "./mcpCommand.js"
import { jsonOption } from "./options.js"
import { printJson, printLines } from "./output.js"

const hostArg = Args.choice(AGENT_HOSTS.map((host) => [host, host] as const), { name: "HOST" }).pipe(
  Args.withDescription(`The agent host: ${AGENT_HOSTS.join(", ")}.`)
)

const scopeOption = Options.choice("scope", SETUP_SCOPES).pipe(
  Options.withDescription(
    "Which config to edit: user (default; the host's config for every project: ~/.claude.json, $CODEX_HOME/config.toml, ~/.cursor/mcp.json, ~/.gemini/settings.json, ~/.config/opencode/opencode.json(c)) project (the working directory's .mcp.json, .codex/config.toml, .cursor/mcp.json, .gemini/settings.json or opencode.json(c)), or local (Claude Code only: this project's servers in ~/.claude.json, where `claude mcp add` puts them by default)."
  ),
  Options.withDefault("user" as const)
)

const dryRunOption = Options.boolean("dry-run").pipe(
  Options.withDescription("Print the change (the servers that move behind the gateway, the entry added) and write nothing.")
)

/** The service, with this install's gateway as the command a host runs over a servers file. */
const setupLayer = Effect.map(MachineEnvironment, (machine) =>
  GatewaySetup.layer((serversFile) =>
    mcpInvocation({ gateway: true, host: Option.none(), servers: Option.some(serversFile), agent: Option.none() }, machine.execPath, machine.cwd)
  ))

const withSetup = <A, E, R>(use: (service: GatewaySetup["Type"]) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(setupLayer, (layer) => Effect.provide(Effect.flatMap(GatewaySetup, use), layer))

const list = (names: ReadonlyArray<string>): string => (names.length === 0 ? "none" : names.join(", "))

/** One moved server in words: what it runs, the names of its env variables and headers, the host's filters. Never a value. */
const describeMove = (server: ServerSummary): string =>
  [
    `${server.name}: ${server.transport} ${server.runs}`,
    ...(server.envNames.length > 0 ? [`env ${server.envNames.join(", ")}`] : []),
    ...(server.headerNames.length > 0 ? [`headers ${server.headerNames.join(", ")}`] : []),
    ...(server.enabledTools !== null ? [`only tools ${list(server.enabledTools)}`] : []),
    ...(server.disabledTools.length > 0 ? [`not tools ${server.disabledTools.join(", ")}`] : [])
  ].join("; ")

const entryWords = (entry: Readonly<Record<string, unknown>>): string => {
  const command = entry["command"]
  const words = Array.isArray(command) ? command : [command, ...(Array.isArray(entry["args"]) ? entry["args"] : [])]
  return words.map(String).join(" ")
}

const HEADLINE: Readonly<Record<SetupResult["outcome"], (result: SetupResult) => string>> = {
  "dry-run": (r) => `Dry run: nothing was written. Setting up the gateway for ${r.host} (${r.scope} scope) would change ${r.config}:`,
  "set-up": (r) => `The gateway is set up for ${r.host} (${r.scope} scope) in ${r.config}:`,
  merged: (r) => `The gateway was set up for ${r.host} (${r.scope} scope) already; servers added to ${r.config} since were moved behind it:`,
  unchanged: (r) => `The gateway is set up for ${r.host} (${r.scope} scope) already, and ${r.config} loads no server besides it: nothing changed.`
}

const setupLines = (result: SetupResult): ReadonlyArray<string> => [
  HEADLINE[result.outcome](result),
  ...(result.outcome === "unchanged"
    ? []
    : [
      ...result.moved.map((server) => `- ${describeMove(server)}`),
      ...(result.gateway === "unchanged" ? [] : [`+ tool-map: ${entryWords(result.gatewayEntry)}${result.gateway === "replaced" ? " (replaces the tool-map entry there)" : ""}`])
    ]),
  ...result.kept.map((server) => `  left in the config: ${server.name}: ${server.reason}`),
  `Behind the gateway: ${list(result.behind)}`,
  `Servers file (mode 0600): ${result.serversFile}`,
  ...(result.outcome === "dry-run" || result.outcome === "unchanged" ? [] : [`Backup until \`tool-map gateway restore ${result.host}${result.scope === "user" ? "" : ` --scope ${result.scope}`}\`: ${result.backup}`])
]

const restoreLines = (result: RestoreResult): ReadonlyArray<string> =>
  result.outcome === "restored"
    ? [`Restored ${result.config} byte for byte as it was before setup (servers back in it: ${list(result.restored)}).`]
    : [
      `${result.config} was edited after setup, so it was not overwritten: the servers were put back into it (${list(result.restored)}) and the gateway's entry removed, keeping every later edit.`,
      ...(result.conflicts.length > 0 ? [`The config holds its own entry again for: ${list(result.conflicts)} (kept; the entries from before setup are in the saved file).`] : []),
      `The file as it was before setup is at ${result.original ?? ""}.`
    ]

const statusLines = (statuses: ReadonlyArray<HostGatewayStatus>): ReadonlyArray<string> =>
  statuses.flatMap((status) => [
    `${AGENT_HOST_TITLES[status.host]} (${status.host})`,
    ...(status.setups.length === 0
      ? ["  gateway not set up"]
      : status.setups.flatMap((setup) => [
        `  gateway set up (${setup.scope} scope) in ${setup.config} since ${setup.setUpAt}`,
        `    behind the gateway: ${list(setup.behind)}`
      ])),
    ...(status.direct.length === 0
      ? ["  loaded directly: none"]
      : status.direct.map((server) =>
        `  loaded directly: ${server.name} (${
          server.plugin !== null
            ? `from plugin ${server.plugin}; cannot be moved`
            : `${server.scope} scope, ${server.path}${server.movable ? "" : "; cannot be moved"}`
        })`
      ))
  ])

const setupCommand = Command.make("setup", { host: hostArg, scope: scopeOption, dryRun: dryRunOption, json: jsonOption }, (flags) =>
  withSetup((service) => service.setup(flags.host, flags.scope, { dryRun: flags.dryRun })).pipe(
    Effect.flatMap((result) => (flags.json ? printJson(result) : printLines(setupLines(result))))
  )).pipe(
    Command.withDescription(
      "Put every MCP server HOST loads from its config behind tool-map's gateway: the servers' entries (command, args, cwd, env, url, headers and the host's tool filters, as written) move to a servers file only you can read (mode 0600, in the data dir's gateway/hosts), and the config gets one `tool-map` entry that starts the gateway over that file. The rest of the config stays as it was, comments included; a backup is kept until restore. Run it again after adding a server to move the new one too. An entry that runs tool-map, or one the host does not load, stays. Env and header values are never printed."
    )
  )

const restoreCommand = Command.make("restore", { host: hostArg, scope: scopeOption, json: jsonOption }, (flags) =>
  withSetup((service) => service.restore(flags.host, flags.scope)).pipe(
    Effect.flatMap((result) => (flags.json ? printJson(result) : printLines(restoreLines(result))))
  )).pipe(
    Command.withDescription(
      "Undo `gateway setup`: give HOST's config back byte for byte from the backup. If the config was edited after setup, it is not overwritten: the servers are put back into it, the gateway's entry removed and every later edit kept, and the file as it was before setup is saved beside it."
    )
  )

const statusCommand = Command.make(
  "status",
  {
    host: Args.choice(AGENT_HOSTS.map((host) => [host, host] as const), { name: "HOST" }).pipe(
      Args.withDescription("Only this agent host (default: all)."),
      Args.optional
    ),
    json: jsonOption
  },
  (flags) =>
    withSetup((service) => service.status(Option.match(flags.host, { onNone: () => AGENT_HOSTS, onSome: (host) => [host] }))).pipe(
      Effect.flatMap((statuses) => (flags.json ? printJson({ hosts: statuses }) : printLines(statusLines(statuses))))
    )
).pipe(
  Command.withDescription(
    "Say, per agent host, which MCP servers are behind the gateway and which the host still loads directly in this directory (a server added after setup, a local or managed one, a plugin's, which cannot be moved)."
  )
)

/** `tool-map gateway setup | restore | status`. */
export const gatewayCommand = Command.make("gateway").pipe(
  Command.withDescription(
    "Set up tool-map's gateway in an agent host in one step: `tool-map gateway setup HOST` moves the host's MCP servers behind the gateway, so that the host loads only the gateway and the gateway fronts exactly those servers; `restore HOST` undoes it; `status` says what is behind the gateway and what is still loaded directly. Try `setup HOST --dry-run` first."
  ),
  Command.withSubcommands([setupCommand, restoreCommand, statusCommand])
)
