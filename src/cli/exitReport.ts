import { ValidationError } from "@effect/cli"
import { Cause, Console, Effect, Exit, Option } from "effect"
import { ExitCode, exitCodeOf } from "./exitCodes.js"

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
