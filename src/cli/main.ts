import { Command, ValidationError } from "@effect/cli"
import { Cause, Console, Effect, Exit, Option } from "effect"
import { TOOL_MAP_VERSION } from "../version.js"
import { agentQueryCommands, exportCommand } from "./agentCommands.js"
import { catalogCommand } from "./catalogCommands.js"
import { EXIT_CODES_HELP, ExitCode, exitCodeOf } from "./exitCodes.js"
import { mcpCommand } from "./mcpCommand.js"
import { inventoryQueryCommands } from "./queryCommands.js"
import { scanCommand } from "./scanCommand.js"

const queryCommand = Command.make("query").pipe(
  Command.withDescription("Answer questions from the cached bundle (one scan runs first when there is none). Every query takes --json and --from PATH.md."),
  Command.withSubcommands([...inventoryQueryCommands, ...agentQueryCommands])
)

/** The command tree of `tool-map`. */
export const rootCommand = Command.make("tool-map").pipe(
  Command.withDescription(
    `A fast, cached map of every tool an AI coding agent can reach: executables, MCP servers, subagents, skills and commands. ${EXIT_CODES_HELP}`
  ),
  Command.withSubcommands([scanCommand, queryCommand, exportCommand, catalogCommand, mcpCommand])
)

/** Parses argv (`["node", "tool-map", ...]`) and runs the command. */
export const runCli = Command.run(rootCommand, { name: "tool-map", version: TOOL_MAP_VERSION })

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" && error.message !== ""
    ? error.message
    : String(error)

/**
 * Runs argv and turns the result into an exit code, printing one clear sentence on stderr for
 * each expected failure (the CLI parser has already printed its usage errors).
 */
export const runToExitCode = <E, R>(effect: Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) return ExitCode.ok
    const failure = Cause.failureOption(exit.cause)
    if (Option.isNone(failure)) {
      if (Cause.isInterruptedOnly(exit.cause)) return ExitCode.interrupted
      yield* Console.error(`tool-map: internal error (please report it):\n${Cause.pretty(exit.cause)}`)
      return ExitCode.internal
    }
    const error = failure.value
    if (ValidationError.isValidationError(error)) {
      return ValidationError.isHelpRequested(error) ? ExitCode.ok : ExitCode.usage
    }
    yield* Console.error(`tool-map: ${messageOf(error)}`)
    return exitCodeOf(error)
  })
