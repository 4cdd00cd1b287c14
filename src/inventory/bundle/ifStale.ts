import { Effect, Either, Option } from "effect"
import { Bundle } from "./Bundle.js"
import { BundleWriter } from "./BundleWriter.js"
import type { RecordedBundle } from "./format.js"
import type { BundlePaths } from "./location.js"

/** The outcome of a `scan --if-stale` that found nothing to do. */
export interface ScanSkipped {
  readonly _tag: "Skipped"
  readonly generation: string
  readonly paths: BundlePaths
  readonly durationMs: number
  readonly reason: string
}

/**
 * The check `scan --if-stale` makes before scanning: an interrupted commit of the bundle at
 * `paths` is finished or undone first, then the watched inputs are compared with the ones the
 * bundle recorded. Left: nothing to do (the outcome, timed from `started`); right: why it must
 * rescan. Shared by the scan and the CLI's entry of the everyday commands, which answers the
 * no-op without loading the scan.
 */
export const checkIfStale = (paths: BundlePaths, started: number) =>
  Effect.gen(function* () {
    const bundle = yield* Bundle
    yield* (yield* BundleWriter).recover(paths)
    const stale = yield* bundle.staleness(paths)
    if (Option.isSome(stale.reason)) return Either.right(stale.reason.value)
    // Up to date means all three files carry the generation tools.json recorded.
    return Either.left<ScanSkipped>({
      _tag: "Skipped",
      generation: Option.getOrElse(stale.generation, () => ""),
      paths,
      durationMs: Date.now() - started,
      reason: "no watched input changed since the last scan"
    })
  })

/** How a query's answer from a bundle stands against the machine now (issue 29). */
export interface AnswerStaleness {
  /** The generation the answer comes from; none when there is no readable bundle (the query's first scan, or its read error, answers). */
  readonly generation: Option.Option<string>
  /** What changed since that generation was scanned, or none when nothing did. */
  readonly reason: Option.Option<string>
}

/**
 * The check of {@link checkIfStale}, for a query about to answer from the bundle at `paths`: the
 * same watched inputs, compared the same way, so that a query calls stale what `scan --if-stale`
 * would rescan. With `repair`, an interrupted commit is finished or undone first, as the query's
 * read will do (a failed repair is the read's to report); without it (`--from`) nothing is written.
 * `recorded` is what tools.json records when the caller has read it already (a which index).
 */
export const answerStaleness = (
  paths: BundlePaths,
  repair: boolean,
  recorded: Option.Option<RecordedBundle> = Option.none()
): Effect.Effect<AnswerStaleness, never, Bundle | BundleWriter> =>
  Effect.gen(function* () {
    if (repair) yield* Effect.ignore((yield* BundleWriter).recover(paths))
    const bundle = yield* Bundle
    const stale = yield* (Option.isSome(recorded) ? bundle.stalenessOf(paths, recorded) : bundle.staleness(paths))
    // No generation recorded: there is no bundle to be stale (see `Bundle.staleness`).
    return Option.isNone(stale.generation) ? { generation: Option.none(), reason: Option.none() } : stale
  })
