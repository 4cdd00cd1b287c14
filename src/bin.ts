#!/usr/bin/env node
// First: SIGTERM while the rest of the CLI loads exits 130 (see earlySignals.ts).
import "./cli/earlySignals.js"
import { Effect } from "effect"
import { runCli, runToExitCode } from "./cli/main.js"
import { runCliProgram } from "./cli/runtime.js"
import { CliLayer } from "./layers/CoreLayer.js"

runCliProgram(runToExitCode(runCli(process.argv)).pipe(Effect.provide(CliLayer)))
