import { Command, Options } from "@effect/cli"
import { Console, Effect, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { AGENT_HOSTS } from "../inventory/domain/agentHosts.js"
import { hostConfigJson, hostConfigSnippet, type McpInvocation } from "../mcp/hostConfig.js"
import type { McpGatewayOptions, McpServeOptions } from "../mcp/server/options.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { printJson } from "./output.js"
import { ConflictingFlags } from "./scanCommand.js"
import { UsageError } from "./usage.js"

const http = Options.integer("http").pipe(
  Options.withDescription(
    "Serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio (0: a free port, printed on stderr). A request whose Origin or Host is not localhost gets 403."
  ),
  Options.withSchema(Schema.Int.pipe(Schema.between(0, 65535, { message: () => "--http needs a port from 0 to 65535" }))),
  Options.optional
)
const sessionIdle = Options.integer("session-idle").pipe(
  Options.withDescription("With --http: close a session unused for MINUTES (default 30)."),
  Options.withSchema(Schema.Int.pipe(Schema.between(1, 10_080, { message: () => "--session-idle needs a number of minutes from 1 to 10080" }))),
  Options.optional
)
const maxSessions = Options.integer("max-sessions").pipe(
  Options.withDescription(
    "With --http: at most N open sessions (default 64); a new one closes the one idle the longest."
  ),
  Options.withSchema(Schema.Int.pipe(Schema.between(1, 10_000, { message: () => "--max-sessions needs a number from 1 to 10000" }))),
  Options.optional
)
const gateway = Options.boolean("gateway").pipe(
  Options.withDescription(
    "Act as a gateway in front of the MCP servers an agent host would load here (--host, default claude-code) or those of --servers FILE: the client sees entry tools (tools_ls, tools_load, tools_call …) and loads the tools it needs. --host, --servers and --agent imply it."
  )
)
const host = Options.choice("host", AGENT_HOSTS).pipe(
  Options.withDescription("The agent host whose enabled MCP servers the gateway fronts, as it would load them in this directory (default claude-code). Implies --gateway."),
  Options.optional
)
const servers = Options.file("servers", { exists: "yes" }).pipe(
  Options.withDescription("Front the servers of this file instead of a host's: the .mcp.json shape, {\"mcpServers\": {NAME: {command, args, env} or {type: \"http\", url, headers}}}. Implies --gateway."),
  Options.optional
)
const agent = Options.text("agent").pipe(
  Options.withDescription("The agent id whose catalog state (the loaded tools) the gateway's sessions use and keep (default: the client's name from initialize). Implies --gateway."),
  Options.optional
)
const printConfig = Options.choice("print-config", AGENT_HOSTS).pipe(
  Options.withDescription(
    "Print the snippet HOST needs to start this install's server over stdio (with the gateway flags given here), and exit."
  ),
  Options.optional
)

const json = Options.boolean("json").pipe(
  Options.withDescription("With --print-config: the entry as one JSON value.")
)

/**
 * How a host starts this install: this Node (`execPath`) and the absolute path of the CLI, then
 * `mcp` and the gateway flags (a relative `--servers` file resolved against `cwd`).
 */
export const mcpInvocation = (options: McpGatewayOptions, execPath: string, cwd: string): McpInvocation => ({
  command: execPath,
  args: [
    NodePath.resolve(process.argv[1] ?? "tool-map"),
    "mcp",
    ...(options.gateway ? ["--gateway"] : []),
    ...Option.match(options.host, { onNone: () => [], onSome: (name) => ["--host", name] }),
    ...Option.match(options.servers, { onNone: () => [], onSome: (file) => ["--servers", NodePath.resolve(cwd, file)] }),
    ...Option.match(options.agent, { onNone: () => [], onSome: (id) => ["--agent", id] })
  ]
})

/**
 * `tool-map mcp`: the MCP server (see serveMcpAsAsked). The launcher sends plain `mcp` and the
 * plain gateway lines to the MCP entry (mcpMain.ts), which serves them the same way.
 */
export const mcpCommand = Command.make(
  "mcp",
  { http, sessionIdle, maxSessions, gateway, host, servers, agent, printConfig, json },
  (flags) =>
    Effect.gen(function* () {
      const options: McpServeOptions = {
        transport: Option.match(flags.http, {
          onNone: () => ({ _tag: "Stdio" }) as const,
          onSome: (port) =>
            ({ _tag: "Http", port, sessions: { idleMinutes: Option.getOrUndefined(flags.sessionIdle), max: Option.getOrUndefined(flags.maxSessions) } }) as const
        }),
        gateway: { gateway: flags.gateway, host: flags.host, servers: flags.servers, agent: flags.agent }
      }
      if (Option.isSome(flags.servers) && Option.isSome(flags.host)) {
        return yield* new ConflictingFlags({ flags: ["--servers", "--host"] })
      }
      const sessionFlag = Option.isSome(flags.sessionIdle) ? "--session-idle" : Option.isSome(flags.maxSessions) ? "--max-sessions" : undefined
      if (sessionFlag !== undefined && Option.isNone(flags.http)) {
        return yield* new UsageError({ command: "tool-map mcp", problem: `${sessionFlag} applies to --http only (over stdio there is one client, no sessions)`, choices: [], suggestion: null })
      }
      if (Option.isSome(flags.printConfig) && Option.isSome(flags.http)) {
        // A host starts the server it is configured with as its child, over stdio.
        return yield* new ConflictingFlags({ flags: ["--print-config", "--http"] })
      }
      if (flags.json && Option.isNone(flags.printConfig)) {
        return yield* new UsageError({ command: "tool-map mcp", problem: "--json applies to --print-config only (the server itself speaks JSON-RPC)", choices: [], suggestion: null })
      }
      if (Option.isSome(flags.printConfig)) {
        const machine = yield* MachineEnvironment
        const invocation = mcpInvocation(options.gateway, machine.execPath, machine.cwd)
        if (flags.json) yield* printJson(hostConfigJson(flags.printConfig.value, invocation, machine.os))
        else yield* Console.log(hostConfigSnippet(flags.printConfig.value, invocation, machine.os).trimEnd())
        // An entry added by hand leaves the host's servers in its config: it would load each twice.
        if (options.gateway.gateway || Option.isSome(options.gateway.host)) {
          yield* Console.error(
            `tool-map: with this entry ${flags.printConfig.value} still loads its own servers directly too; \`tool-map gateway setup ${flags.printConfig.value}\` moves them behind the gateway in one step.`
          )
        }
        return
      }
      // The server's code (and the MCP SDK) is loaded only here: the other commands do not pay for it.
      const mcp = yield* Effect.promise(() => import("../layers/McpLayer.js"))
      yield* mcp.serveMcpAsAsked(options)
    })
).pipe(
  Command.withDescription(
    "Run tool-map as an MCP server (protocol 2025-11-25) for an agent host: over stdio by default (stdout carries only protocol messages, logs go to stderr), or Streamable HTTP with --http PORT. Tools: which, inventory_query, inventory_refresh; resources: the bundle's summary, tools.md and tools.json (subscribable, updated after a refresh). With --gateway it also fronts MCP servers, each started only when needed, behind the entry tools tools_ls, tools_load and tools_unload. --print-config HOST prints the snippet a host needs."
  )
)
