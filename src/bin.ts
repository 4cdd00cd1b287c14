#!/usr/bin/env node
import { runMain } from "@effect/platform-node/NodeRuntime"
import { Effect, Logger } from "effect"
import { runCli, runToExitCode } from "./cli/main.js"
import { CliLayer } from "./layers/CoreLayer.js"

const program = runToExitCode(runCli(process.argv)).pipe(
  Effect.flatMap((code) =>
    Effect.sync(() => {
      process.exitCode = code
    })
  ),
  Effect.provide(CliLayer),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })))
)

runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
