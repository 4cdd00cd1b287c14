import { Console, Context, Effect, Option } from "effect"
import { Bundle } from "../inventory/bundle/Bundle.js"
import type { BundleWriter } from "../inventory/bundle/BundleWriter.js"
import { generationTime } from "../inventory/bundle/format.js"
import { answerStaleness } from "../inventory/bundle/ifStale.js"
import { type BundlePaths, refreshCommand } from "../inventory/bundle/location.js"
import type { WhichIndex } from "../inventory/bundle/whichIndex.js"
import { cleanText } from "../inventory/domain/untrusted.js"
import { defaultWhichIndex } from "../inventory/query/InventoryReader.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { printJson } from "./output.js"

/*
 * Stale answers say so (issue 29): a query that answers from a bundle whose watched inputs changed
 * since its scan says so in one line on stderr, and its `--json` carries `stale`. The check is the
 * one `scan --if-stale` makes (bundle/ifStale.ts). This module holds neither @effect/cli nor the
 * scan: the everyday commands' entry answers `query which` with it; `--fresh` is freshQueries.ts'.
 */

/** How the answer of a query stands against the machine now. */
export interface Freshness {
  /** The query answering (`tools`, `which`): a list answer goes under this name in `--json`. */
  readonly query: string
  /** Whether a watched input changed since the scan the answer comes from. */
  readonly stale: boolean
  /** What changed (the first change found), or null when nothing did. */
  readonly reason: string | null
  /** The generation the answer comes from, or null when there was no bundle before this query. */
  readonly generation: string | null
  /** The command that refreshes the bundle read (`tool-map scan --if-stale [PATH.md]`). */
  readonly refresh: string
  /** Whether `--fresh` can refresh it: the default bundle only, `--from` only reads. */
  readonly freshApplies: boolean
  /**
   * The default bundle's which index as the check read it (it vouches for tools.json, whose watch
   * set the check compared): `query which` answers from these very bytes, read once.
   */
  readonly index: Option.Option<WhichIndex>
}

/** The freshness of the answer a query is giving, provided to its handler by freshQueries.ts or the everyday entry. */
export class AnswerFreshness extends Context.Tag("tool-map/AnswerFreshness")<AnswerFreshness, Freshness>() {}

/**
 * How the bundle `query` reads (the default one, or the one `from` names) stands now. Never
 * fails: a bundle that cannot be located or read has no freshness to speak of (the query's read
 * reports it), and no bundle at all is not stale (the query's first scan answers).
 */
export const freshnessOf = (query: string, from: Option.Option<string>): Effect.Effect<Freshness, never, Bundle | BundleWriter | MachineEnvironment> =>
  Effect.gen(function* () {
    const bundle = yield* Bundle
    const { os } = yield* MachineEnvironment
    const candidates = Option.isNone(from) ? [yield* bundle.locate(Option.none())] : yield* bundle.locateFrom(from.value)
    for (const paths of candidates) {
      const { found, index } = yield* checked(paths, from)
      if (Option.isNone(found.generation)) continue
      return {
        query,
        stale: Option.isSome(found.reason),
        // Paths of the machine: through the one boundary, for the notice and the JSON alike.
        reason: Option.getOrNull(Option.map(found.reason, cleanText)),
        generation: found.generation.value,
        refresh: refreshCommand(Option.map(from, () => paths.markdown), os),
        freshApplies: Option.isNone(from),
        index
      } satisfies Freshness
    }
    return notStale(query, from)
  }).pipe(Effect.orElseSucceed(() => notStale(query, from)))

/**
 * The check of the bundle at `paths`: for the default bundle, over its which index when that
 * vouches for tools.json (read once for the check and for `query which`), else as `scan
 * --if-stale` reads the bundle; a `--from` bundle is only read.
 */
const checked = (paths: BundlePaths, from: Option.Option<string>) =>
  Effect.gen(function* () {
    const index = Option.isNone(from) ? yield* defaultWhichIndex(paths) : Option.none<WhichIndex>()
    const found = yield* Option.match(index, {
      onNone: () => answerStaleness(paths, Option.isNone(from)),
      // Read after the repair: nothing is left to repair.
      onSome: (vouched) => answerStaleness(paths, false, Option.some(vouched.recorded))
    })
    return { found, index }
  })

const notStale = (query: string, from: Option.Option<string>): Freshness => ({
  query,
  stale: false,
  reason: null,
  generation: null,
  refresh: "tool-map scan --if-stale",
  freshApplies: Option.isNone(from),
  index: Option.none()
})

/** `2026-12-07 08:50:12 UTC`: a scan's time as the notice shows it. */
const scanTime = (time: Date): string => `${time.toISOString().slice(0, 19).replace("T", " ")} UTC`

/**
 * The one line on stderr of a stale answer, or null when the answer is not stale: when the scan
 * was, what changed since, and how to refresh. The reason names paths of the machine (untrusted
 * text): the line passes the one boundary.
 */
export const staleNotice = (freshness: Freshness): string | null => {
  if (!freshness.stale) return null
  const time = freshness.generation === null ? null : generationTime(freshness.generation)
  const scan = time === null ? "an earlier scan" : `the scan of ${scanTime(time)}`
  const how = freshness.freshApplies ? `run \`${freshness.refresh}\`, or add --fresh` : `run \`${freshness.refresh}\``
  return cleanText(`tool-map: this answer is from ${scan}; since then ${freshness.reason ?? "a watched input changed"}. To refresh it, ${how}.`)
}

/** Writes the stale notice of `freshness` on stderr, if there is one. */
export const noteIfStale = (freshness: Freshness): Effect.Effect<void> => {
  const notice = staleNotice(freshness)
  return notice === null ? Effect.void : Console.error(notice)
}

/**
 * The `--json` of a query, the one rule for every query that answers from a bundle: one object,
 * `stale` and `staleReason` first, then the answer's own fields; a list answer goes under the
 * query's name (`{"stale": false, "staleReason": null, "tools": [...]}`).
 */
export const answerJson = (freshness: Freshness, answer: object): Readonly<Record<string, unknown>> => ({
  stale: freshness.stale,
  staleReason: freshness.reason,
  ...(Array.isArray(answer) ? { [freshness.query]: answer } : answer)
})

/** Prints a query's `--json`: {@link answerJson} of `answer` and the freshness of the answer. */
export const printAnswerJson = (answer: object): Effect.Effect<void, never, AnswerFreshness> =>
  Effect.flatMap(AnswerFreshness, (freshness) => printJson(answerJson(freshness, answer)))

/** Prints a query's answer (an object, or a list): {@link printAnswerJson} with `--json`, else the table. */
export const printAnswer = <A extends object>(json: boolean, answer: A, table: (answer: A) => Effect.Effect<void>): Effect.Effect<void, never, AnswerFreshness> =>
  json ? printAnswerJson(answer) : table(answer)
