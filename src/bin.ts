#!/usr/bin/env node
import { Effect } from "effect"
import { runCli, runToExitCode } from "./cli/main.js"
import { runCliProgram } from "./cli/runtime.js"
import { CliLayer } from "./layers/CoreLayer.js"

runCliProgram(runToExitCode(runCli(process.argv)).pipe(Effect.provide(CliLayer)))
