import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { defaultDataDirProblem } from "../inventory/domain/dataDir.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { TOOL_MAP_VERSION } from "../version.js"
import { agentQueryCommands, exportCommand } from "./agentCommands.js"
import { catalogCommand } from "./catalogCommands.js"
import { commandTreeOf, type CommandSpec } from "./commandTree.js"
import { complete, completionScript, renderCandidates } from "./completion.js"
import { helpStyleFor, renderHelp } from "./help.js"
import { gatewayCommand } from "./gatewayCommands.js"
import { mcpCommand } from "./mcpCommand.js"
import { inventoryQueryCommands } from "./queryCommands.js"
import { scanCommand } from "./scanCommand.js"
import { TerminalFacts } from "./terminal.js"
import { type CliRequest, DataDirInvalid, interpretArgs, type Shell, UsageError } from "./usage.js"

export { runToExitCode } from "./exitReport.js"

const queryCommand = Command.make("query").pipe(
  Command.withDescription("Answer questions from the cached bundle (one scan runs first when there is none). Every query takes --json and --from PATH.md; an answer from a bundle whose inputs changed since its scan says so on stderr, and --fresh rescans first."),
  Command.withSubcommands([...inventoryQueryCommands, ...agentQueryCommands])
)

/** The command tree of `tool-map`. */
export const rootCommand = Command.make("tool-map").pipe(
  Command.withDescription(
    "A fast, cached map of every tool an AI coding agent can reach: executables, MCP servers, subagents, skills and commands."
  ),
  Command.withSubcommands([scanCommand, queryCommand, exportCommand, catalogCommand, mcpCommand, gatewayCommand])
)

const tree: CommandSpec = commandTreeOf(rootCommand)

/** The command tree as data (help, usage errors, completion), read from the descriptors once. */
export const commandTree = (): CommandSpec => tree

const parseAndRun = Command.run(rootCommand, { name: "tool-map", version: TOOL_MAP_VERSION })

/**
 * Whether a command line that passed the checks uses the default data dir: every one except a
 * redirected scan, a query or export of a `--from` bundle, and `mcp --print-config`.
 */
const usesDefaultDataDir = (request: Extract<CliRequest, { readonly _tag: "Run" }>): boolean => {
  const path = request.command.path.join(" ")
  if (path === "tool-map scan") return request.positionals === 0
  if (request.optionsGiven.has("--from") || request.optionsGiven.has("--print-config")) return false
  return path !== "tool-map"
}

/** The candidates of a partial command line, printed for the completion scripts. */
const completeLine = (shell: Shell, words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const completion = complete(commandTree(), words)
    switch (completion._tag) {
      case "Words":
        return yield* Console.log(renderCandidates(shell, completion.candidates))
      case "Files":
        return yield* Console.log(renderCandidates(shell, "files"))
      case "Catalog": {
        const environment = yield* MachineEnvironment
        if (defaultDataDirProblem(environment.env, environment.homedir) !== null) return
        const { catalogCandidates } = yield* Effect.promise(() => import("./catalogCompletion.js"))
        const candidates = yield* catalogCandidates(completion.targets, completion.agent, completion.prefix)
        if (candidates.length > 0) yield* Console.log(renderCandidates(shell, candidates))
      }
    }
  })

/**
 * Parses argv (`["node", "tool-map", ...]`) and runs the command. The line is first read against
 * the command tree (usage.ts): help, the version and completion are answered there, and a line
 * that fits nowhere fails with a `UsageError` naming the word at fault, before @effect/cli parses it.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const request = interpretArgs(commandTree(), argv.slice(2))
    switch (request._tag) {
      case "Help": {
        const environment = yield* MachineEnvironment
        return yield* Console.log(renderHelp(request.command, helpStyleFor(yield* TerminalFacts, environment.env), TOOL_MAP_VERSION))
      }
      case "Version":
        return yield* Console.log(TOOL_MAP_VERSION)
      case "Completions":
        return yield* Console.log(completionScript(request.shell))
      case "Complete":
        return yield* completeLine(request.shell, request.words)
      case "Invalid":
        return yield* request.error
      case "Run": {
        if (request.optionsGiven.has("--wizard") && !(yield* TerminalFacts).stdinIsTty) {
          return yield* new UsageError({
            command: request.command.path.join(" "),
            problem: "--wizard asks its questions on a terminal, and stdin is not one: give the command and its options on the line",
            choices: [],
            suggestion: null
          })
        }
        if (usesDefaultDataDir(request)) {
          const environment = yield* MachineEnvironment
          const problem = defaultDataDirProblem(environment.env, environment.homedir)
          if (problem !== null) return yield* new DataDirInvalid({ reason: problem })
        }
        return yield* parseAndRun(argv)
      }
    }
  })
