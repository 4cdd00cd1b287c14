import { runMain } from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Effect, Exit, FiberRef, HashSet, Logger } from "effect"
import { holdEarlySignals, releaseEarlySignals } from "./earlySignals.js"
import { ExitCode } from "./exitCodes.js"
import { stdoutWriteFailure } from "./output.js"

/** Ends the run on a failed write to stdout (see stdoutWriteFailure). */
const exitOnStdoutFailure = (error: NodeJS.ErrnoException): never => {
  const failure = stdoutWriteFailure(error)
  if (failure.message !== null) process.stderr.write(`${failure.message}\n`)
  return process.exit(failure.exitCode)
}

/**
 * Runs a CLI program that yields its exit code as the process's main program: logs on stderr,
 * a failed write to stdout ends the run with its own exit code, SIGINT/SIGTERM exit 130, and
 * the process exits as soon as the program and its finalizers are done. Both entries of the CLI
 * (bin.ts and the everyday commands' entry) run through here.
 *
 * A program that yields null did not answer (the everyday entry met a line it leaves to the whole
 * CLI): once its runtime is gone (signal handlers, the stdout listener), `handOver` runs.
 */
export const runCliProgram = (program: Effect.Effect<number | null>, handOver: () => void = () => {}): void => {
  // console.log swallows a failed write: the stream still reports it, here.
  process.stdout.on("error", exitOnStdoutFailure)
  // The runtime stops the program at the first SIGINT/SIGTERM and then stops listening: a
  // second one while the finalizers run would kill the process with Node's default (143).
  let signals = 0
  const onSecondSignal = () => {
    if (++signals > 1) process.exit(ExitCode.interrupted)
  }
  const stopListening = () => {
    process.removeListener("SIGINT", onSecondSignal)
    process.removeListener("SIGTERM", onSecondSignal)
  }
  const main = program.pipe(
    Effect.flatMap((code) =>
      Effect.sync(() => {
        if (code !== null) process.exitCode = code
        return code
      })
    ),
    // Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })), as a fiber-local
    // change rather than the three layers Logger.replace builds on every start.
    Effect.locallyWith(FiberRef.currentLoggers, (loggers) =>
      HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), Logger.prettyLogger({ stderr: true }))
    )
  )
  // Signals are only delivered between turns of the event loop: within this synchronous block the
  // early handler hands over to runMain's (and this second-signal one) with no gap. Before runMain,
  // which may run a synchronous program to its end and tear down at once.
  // Added before the early handler is removed: a signal's listeners dropping to none closes its
  // handle, and a signal already caught but not yet dispatched would be lost with it.
  process.on("SIGINT", onSecondSignal)
  process.on("SIGTERM", onSecondSignal)
  releaseEarlySignals()
  runMain(main, {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    // Once the program and its finalizers are done, exit at once with `process.exitCode` instead
    // of letting Node wind down: a natural exit first finishes whatever garbage collection the
    // run started, tens of milliseconds after a query of a large bundle. Only when stdout and
    // stderr hold no unwritten output (pipes are asynchronous on macOS); else the usual exit.
    teardown: (exit, onExit) => {
      // From here to the exit or the next program's runtime, a signal exits 130 (held first, as above).
      holdEarlySignals()
      stopListening()
      // A run stopped by SIGINT or SIGTERM did not do its job: 130, where the default says 0.
      if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return onExit(ExitCode.interrupted)
      if (Exit.isSuccess(exit) && exit.value === null) {
        process.stdout.off("error", exitOnStdoutFailure)
        // Outside this fiber's observer: the next program starts a runtime of its own.
        return void setImmediate(handOver)
      }
      defaultTeardown(exit, (code) => {
        onExit(code)
        // A write to stdout that failed is known at once (its error event waits for the next tick).
        const failed: NodeJS.ErrnoException | null = process.stdout.errored
        if (failed !== null) exitOnStdoutFailure(failed)
        if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit()
      })
    }
  })
}
