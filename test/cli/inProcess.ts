import { type Console, Effect, Layer } from "effect"
import { runCli, runToExitCode } from "../../src/cli/main.js"
import { AgentHostScanner } from "../../src/inventory/discover/AgentHostScanner.js"
import { AgentHostFiles } from "../../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { FrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"
import { IdentityReader } from "../../src/inventory/discover/IdentityReader.js"
import type { Walker } from "../../src/inventory/discover/Walker.js"
import { Bundle } from "../../src/inventory/bundle/Bundle.js"
import { BundleWriter } from "../../src/inventory/bundle/BundleWriter.js"
import { VersionProbe } from "../../src/inventory/probe/VersionProbe.js"

/** The scan services of the CLI's inventory graph over `walker`, the rest live (probes, identity, agent hosts, bundle). */
export const scanServicesWith = (walker: Layer.Layer<Walker>) =>
  Layer.mergeAll(
    walker,
    VersionProbe.layer,
    IdentityReader.layer,
    AgentHostScanner.layer.pipe(Layer.provide(FrontmatterParser.layer), Layer.provideMerge(AgentHostFiles.layer)),
    Bundle.layer,
    BundleWriter.layer
  )

/** Runs `effect` with the console captured: its result and what it printed on each stream. */
export const captureConsole = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const base = yield* Effect.console
    const console: Console.Console = {
      ...base,
      log: (...parts) => Effect.sync(() => void out.push(parts.join(" "))),
      error: (...parts) => Effect.sync(() => void err.push(parts.join(" ")))
    }
    const result = yield* Effect.withConsole(effect, console)
    return { result, stdout: out.join("\n"), stderr: err.join("\n") }
  })

/** Runs `tool-map ARGS` in process as bin.ts does, over `layer`: the exit code and what was printed on each stream. */
export const runCliOver = <E>(layer: Layer.Layer<Effect.Effect.Context<ReturnType<typeof runCli>>, E>, args: ReadonlyArray<string>) =>
  Effect.map(
    captureConsole(runToExitCode(runCli(["node", "tool-map", ...args])).pipe(Effect.provide(layer))),
    ({ result, stdout, stderr }) => ({ code: result, stdout, stderr })
  )
