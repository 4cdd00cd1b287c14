#!/usr/bin/env node
import { runMain } from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Effect, Exit, FiberRef, HashSet, Logger } from "effect"
import { ExitCode } from "./cli/exitCodes.js"
import { runCli, runToExitCode } from "./cli/main.js"
import { stdoutWriteFailure } from "./cli/output.js"
import { CliLayer } from "./layers/CoreLayer.js"

/** Ends the run on a failed write to stdout (see stdoutWriteFailure). */
const exitOnStdoutFailure = (error: NodeJS.ErrnoException): never => {
  const failure = stdoutWriteFailure(error)
  if (failure.message !== null) process.stderr.write(`${failure.message}\n`)
  return process.exit(failure.exitCode)
}

// console.log swallows a failed write: the stream still reports it, here.
process.stdout.on("error", exitOnStdoutFailure)

const program = runToExitCode(runCli(process.argv)).pipe(
  Effect.flatMap((code) =>
    Effect.sync(() => {
      process.exitCode = code
    })
  ),
  Effect.provide(CliLayer),
  // Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })), as a fiber-local
  // change rather than the three layers Logger.replace builds on every start.
  Effect.locallyWith(FiberRef.currentLoggers, (loggers) =>
    HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), Logger.prettyLogger({ stderr: true }))
  )
)

runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  // Once the program and its finalizers are done, exit at once with `process.exitCode` instead
  // of letting Node wind down: a natural exit first finishes whatever garbage collection the
  // run started, tens of milliseconds after a query of a large bundle. Only when stdout and
  // stderr hold no unwritten output (pipes are asynchronous on macOS); else the usual exit.
  teardown: (exit, onExit) => {
    // A run stopped by SIGINT or SIGTERM did not do its job: 130, where the default says 0.
    if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return onExit(ExitCode.interrupted)
    defaultTeardown(exit, (code) => {
      onExit(code)
      // A write to stdout that failed is known at once (its error event waits for the next tick).
      const failed: NodeJS.ErrnoException | null = process.stdout.errored
      if (failed !== null) exitOnStdoutFailure(failed)
      if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit()
    })
  }
})
