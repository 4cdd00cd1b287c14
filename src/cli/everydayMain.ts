import { Cause, Effect, Either, Layer, Option, Ref } from "effect"
import { Bundle } from "../inventory/bundle/Bundle.js"
import { checkIfStale } from "../inventory/bundle/ifStale.js"
import { defaultDataDirProblem } from "../inventory/domain/dataDir.js"
import { FirstScan } from "../inventory/query/FirstScan.js"
import { ReadLayer } from "../layers/ReadLayer.js"
import { SyncNodeFileSystemLayer } from "../platform/SyncNodeFileSystem.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { AnswerFreshness, freshnessOf, noteIfStale } from "./answerFreshness.js"
import { answerWhich, printScanOutcome } from "./everydayHandlers.js"
import { runToExitCode } from "./exitReport.js"
import { runCliProgram } from "./runtime.js"

/*
 * The entry of the everyday commands (issue 15): `query which NAME` and a no-op `scan --if-stale`
 * are answered here, from a bundle of their own (dist/tool-map.everyday.cjs) that holds neither
 * @effect/cli's command tree nor the scan, the catalog or the MCP server. Any other line, and these
 * lines whenever they need more (a scan to run, a data dir to refuse), are handed over to the
 * whole CLI (bin.ts), which answers them as if this entry did not exist.
 */

/** A command line this entry answers itself. */
export type EverydayRequest =
  | { readonly _tag: "Which"; readonly name: string; readonly json: boolean }
  | { readonly _tag: "IfStale"; readonly json: boolean; readonly quiet: boolean }

/** The flags of a `scan --if-stale` this entry answers; `--no-probes` changes only a rescan, which it hands over. */
const SCAN_FLAGS: ReadonlySet<string> = new Set(["--if-stale", "--quiet", "-q", "--json", "--no-probes"])

/**
 * The request of `args` (argv without node and the script) when it is one of the exact shapes
 * this entry answers: `query which NAME [--json]` (NAME not a flag) and `scan --if-stale` with
 * any of `--quiet`/`-q`, `--json` and `--no-probes`, each at most once. Null for every other line.
 */
export const everydayRequest = (args: ReadonlyArray<string>): EverydayRequest | null => {
  if (args[0] === "query" && args[1] === "which" && (args.length === 3 || (args.length === 4 && args[3] === "--json"))) {
    const name = args[2]!
    return name !== "" && !name.startsWith("-") ? { _tag: "Which", name, json: args.length === 4 } : null
  }
  if (args[0] === "scan") {
    const flags = args.slice(1)
    const quiet = flags.filter((flag) => flag === "--quiet" || flag === "-q").length
    const known = flags.every((flag) => SCAN_FLAGS.has(flag)) && new Set(flags).size === flags.length && quiet <= 1
    if (known && flags.includes("--if-stale")) return { _tag: "IfStale", json: flags.includes("--json"), quiet: quiet === 1 }
  }
  return null
}

/** The defect that ends a run this entry leaves to the whole CLI (caught below, never reported). */
const HAND_OVER = Symbol.for("tool-map/HandOverToTheWholeCli")

const handOver = Effect.die(HAND_OVER)

/** A reader that finds no bundle leaves the first scan to the whole CLI. */
const FirstScanHandedOver = Layer.succeed(FirstScan, FirstScan.of({ run: () => handOver }))

/** The graph of this entry: the bundle's reader over the live platform, no scan. */
const EverydayLayer = ReadLayer.pipe(
  Layer.provide(FirstScanHandedOver),
  Layer.provideMerge(Layer.merge(MachineEnvironment.layer, SyncNodeFileSystemLayer))
)

/** The no-op of `scan --if-stale`, or the hand-over when the bundle is stale. */
const skipIfUpToDate = (flags: { readonly json: boolean; readonly quiet: boolean }) =>
  Effect.gen(function* () {
    const started = Date.now()
    const paths = yield* (yield* Bundle).locate(Option.none())
    const checked = yield* checkIfStale(paths, started)
    if (Either.isRight(checked)) return yield* handOver
    yield* printScanOutcome(checked.left, flags)
  })

/** `query which NAME [--json]` as the whole CLI answers it (freshQueries.ts), `--fresh` aside: a stale answer says so. */
const which = (request: Extract<EverydayRequest, { readonly _tag: "Which" }>) =>
  Effect.gen(function* () {
    const freshness = yield* freshnessOf("which", Option.none())
    yield* noteIfStale(freshness)
    yield* answerWhich({ name: request.name, json: request.json, from: Option.none() }).pipe(Effect.provideService(AnswerFreshness, freshness))
  })

type Answer = ReturnType<typeof skipIfUpToDate> | ReturnType<typeof which>

const answer = (request: EverydayRequest): Effect.Effect<void, Effect.Effect.Error<Answer>, Effect.Effect.Context<Answer>> =>
  request._tag === "Which" ? which(request) : skipIfUpToDate(request)

/** The exit code of the answer, or null when the line was handed over. */
const program = (request: EverydayRequest) =>
  Effect.gen(function* () {
    const handedOver = yield* Ref.make(false)
    const code = yield* runToExitCode(
      answer(request).pipe(Effect.catchAllDefect((defect) => (defect === HAND_OVER ? Ref.set(handedOver, true) : Effect.failCause(Cause.die(defect)))))
    )
    return (yield* Ref.get(handedOver)) ? null : code
  }).pipe(Effect.provide(EverydayLayer))

/**
 * Runs `argv` (`["node", "tool-map", ...]`): answers an everyday line, else calls `runWhole`,
 * which runs the whole CLI on the same argv (the launcher's, see scripts/bundle.mjs).
 */
export const main = (argv: ReadonlyArray<string>, runWhole: () => void): void => {
  const request = everydayRequest(argv.slice(2))
  const environment = MachineEnvironment.live
  // A data dir that would be relative is refused by the whole CLI, with its usage error.
  if (request === null || defaultDataDirProblem(environment.env, environment.homedir) !== null) return runWhole()
  runCliProgram(program(request), runWhole)
}
