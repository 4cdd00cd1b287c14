import { Command, Options } from "@effect/cli"
import { Effect, HashSet, Option } from "effect"
import { ScanProgram } from "../inventory/ScanProgram.js"
import { AnswerFreshness, freshnessOf, noteIfStale } from "./answerFreshness.js"
import { UsageError } from "./usage.js"

/** `--fresh`: rescan first when the bundle is stale (a refresh if needed), then answer. */
export const freshOption = Options.boolean("fresh").pipe(
  Options.withDescription(
    "Refresh the bundle first if it is stale: rescan when a watched input (PATH, TOOL_MAP_ROOTS, a PATH directory, an agent host's file) changed since the last scan, as `scan --if-stale` does, and answer from the new bundle; when nothing changed, answer at once. Without it a stale answer is noted on stderr. Not with --from, which only reads."
  )
)

/** The flags of every query that answers from a bundle. */
export interface BundleQueryFlags {
  readonly json: boolean
  readonly from: Option.Option<string>
  readonly fresh: boolean
}

/**
 * A query that answers from a bundle (issue 29): before its handler runs, `--fresh` refreshes
 * the default bundle if it is stale, then the freshness of the bundle read is checked, noted on
 * stderr when stale, and given to the handler as {@link AnswerFreshness} (for its `--json`, where
 * a list answer goes under the command's name).
 */
export const answersFromBundle = <Name extends string, R, E, A extends BundleQueryFlags>(command: Command.Command<Name, R, E, A>) => {
  const name = HashSet.values(Command.getNames(command)).next().value ?? ""
  const path = `tool-map query ${name}`
  return Command.provideEffect(command, AnswerFreshness, (flags: A) =>
    Effect.gen(function* () {
      if (flags.fresh && Option.isSome(flags.from)) {
        return yield* new UsageError({
          command: path,
          problem: "--fresh refreshes the default bundle, and --from only reads another one: give one of them (a bundle written by `tool-map scan PATH.md` is refreshed by `tool-map scan --if-stale PATH.md`)",
          choices: [],
          suggestion: null
        })
      }
      // The scan's own check decides: nothing is rescanned when no watched input changed.
      if (flags.fresh) yield* (yield* ScanProgram).run({ target: Option.none(), ifStale: true, probes: true, progress: !flags.json })
      const freshness = yield* freshnessOf(name, flags.from)
      yield* noteIfStale(freshness)
      return freshness
    }))
}
