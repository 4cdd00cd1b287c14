import { FileSystem } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { fastEncodeSync } from "../../platform/schemaFastPath.js"
import { changesBetween, GenerationDigest } from "../domain/drift.js"
import { cleanerFor } from "../domain/untrusted.js"
import type { DerivedFile, PriorFile } from "./BundleWriter.js"
import { BundleReadError } from "./errors.js"
import { parseJson } from "./format.js"
import { type BundlePaths, historyPath, previousDigestPath } from "./location.js"
import { lazyDecoder, PREVIOUS_DIGEST_MAX_BYTES, previousDigest, readFileOfGeneration, readPreviousDigest } from "./previousDigest.js"

/**
 * The bundle's history (issue 29, point 4): the digests of its last generations, newest first,
 * in `tools.history.json` (see historyPath), so that `query changes --since 1d` can answer.
 * Committed with the bundle's other files, its new content derived under the bundle's lock from
 * the one in place (BundleWriter `history`). A scan that finds what the newest entry holds adds
 * no entry: a no-op `scan --force` pushes nothing useful out, and `query changes` still shows
 * the last change. Bounded by a byte budget and a count, oldest dropped first.
 */

/** One kept generation: its number (the first generation with this content), when it was committed, its digest. */
export const HistoryEntry = Schema.Struct({
  number: Schema.Number,
  committedAt: Schema.String,
  digest: GenerationDigest
})
export type HistoryEntry = typeof HistoryEntry.Type

/** The format tag of a history file. */
export const HISTORY_FORMAT = "tool-map-history/1"

/**
 * A history file: the bundle's generation it belongs to (its id, scan time, number and commit
 * time) and the kept entries, newest first; the first holds the content of that generation.
 * Numbers: 1 for the first generation kept here, one more for each commit, identical or not.
 */
export const HistoryFile = Schema.Struct({
  format: Schema.Literal(HISTORY_FORMAT),
  generation: Schema.String,
  generatedAt: Schema.String,
  number: Schema.Number,
  committedAt: Schema.String,
  entries: Schema.Array(HistoryEntry)
})
export type HistoryFile = typeof HistoryFile.Type

/** How much history a commit keeps. */
export interface HistoryBounds {
  /** The most bytes the entries take in the file (their compact JSON). */
  readonly budgetBytes: number
  /** The most entries. */
  readonly maxEntries: number
}

/**
 * 4 MiB and 64 entries: a digest of this machine's real scan (1,391 tools, 11 versions) is 71 KB,
 * so the budget holds 58 of them; docs/files.md has the measurement and how to repeat it.
 */
export const DEFAULT_HISTORY_BOUNDS: HistoryBounds = { budgetBytes: 4 * 1024 * 1024, maxEntries: 64 }

/** Kept whatever the bounds: the bundle's own content and the one before, what `query changes` compares with by default. */
const ALWAYS_KEPT = 2

/** The largest history file read back: two digests of the largest size read, plus the budget. */
export const HISTORY_MAX_BYTES = 2 * PREVIOUS_DIGEST_MAX_BYTES + DEFAULT_HISTORY_BOUNDS.budgetBytes

/** The bytes an entry takes in the file. */
export const entryBytes = (entry: HistoryEntry): number => Buffer.byteLength(JSON.stringify(entry))

/**
 * The newest entries that fit the bounds (the first {@link ALWAYS_KEPT} whatever their size): the
 * first that does not fit is dropped with every older one, so the kept ones have no gap.
 */
export const boundHistory = (entries: ReadonlyArray<HistoryEntry>, bounds: HistoryBounds): ReadonlyArray<HistoryEntry> => {
  const kept: Array<HistoryEntry> = []
  let bytes = 0
  for (const entry of entries) {
    const size = entryBytes(entry)
    if (kept.length >= ALWAYS_KEPT && (kept.length >= bounds.maxEntries || bytes + size > bounds.budgetBytes)) break
    kept.push(entry)
    bytes += size
  }
  return kept
}

const cleanDigest = cleanerFor(GenerationDigest)

/**
 * The history after committing the generation of `digest` at `committedAt` over `base` (none:
 * the first generation kept here): a new entry unless nothing changed since the newest one, then
 * bounded. The new digest's strings pass the bundle's one cleaning rule; the kept ones did when
 * they entered.
 */
export const extendHistory = (
  base: Option.Option<HistoryFile>,
  digest: GenerationDigest,
  committedAt: string,
  bounds: HistoryBounds = DEFAULT_HISTORY_BOUNDS
): HistoryFile => {
  const before = Option.match(base, { onNone: () => [], onSome: (file) => file.entries })
  const number = Option.match(base, { onNone: () => 1, onSome: (file) => file.number + 1 })
  const newest = before[0]
  const entries = newest !== undefined && changesBetween(newest.digest, digest).count === 0
    ? before
    : [{ number, committedAt, digest: cleanDigest(digest) }, ...before]
  return {
    format: HISTORY_FORMAT,
    generation: digest.generation,
    generatedAt: digest.generatedAt,
    number,
    committedAt,
    entries: boundHistory(entries, bounds)
  }
}

/**
 * The history of a bundle written before tool-map kept one: its own digest and, when its digest
 * file kept it, the one before, numbered 1 and 2, each committed at its scan time (the commit
 * time was not recorded).
 */
export const historyFromLegacy = (current: GenerationDigest, previous: Option.Option<GenerationDigest>): HistoryFile =>
  extendHistory(Option.map(previous, (digest) => extendHistory(Option.none(), digest, digest.generatedAt)), current, current.generatedAt)

const encodeFile = fastEncodeSync(HistoryFile)

/** The text of a history file (compact JSON: it is read by `query changes` and the next scan only). */
export const renderHistory = (file: HistoryFile): string => `${JSON.stringify(encodeFile(file))}\n`

const decodeParsed = lazyDecoder(HistoryFile)

/** Numbers the way commits make them: whole, from 1, the entries' decreasing and none above the file's. */
const consistent = (file: HistoryFile): boolean =>
  Number.isSafeInteger(file.number) && file.entries.length > 0 &&
  file.entries.every((entry, index) =>
    Number.isSafeInteger(entry.number) && entry.number >= 1 &&
    entry.number <= (index === 0 ? file.number : file.entries[index - 1]!.number - 1)
  )

/** The history file a text holds, or none when it is not one. */
export const decodeHistory = (text: string): Option.Option<HistoryFile> =>
  Option.filter(Option.flatMap(parseJson(text), decodeParsed), consistent)

/** Why a history file is refused, as a reader and a scan say it. */
export const NOT_A_HISTORY = "it is not the history of a tool-map bundle (corrupt or from an incompatible version)"

/**
 * The history of the bundle of `generation`, from the first of `files` (the history file of a
 * bundle, or where a pending repair would put it) that exists. None when none exists or the one
 * found belongs to another generation (an older tool-map wrote the bundle since); a file that
 * is not a history is a {@link BundleReadError}.
 */
export const readHistory = (
  files: ReadonlyArray<string>,
  generation: string
): Effect.Effect<Option.Option<HistoryFile>, BundleReadError, FileSystem.FileSystem> =>
  readFileOfGeneration(files, generation, HISTORY_MAX_BYTES, decodeHistory, `${NOT_A_HISTORY}; the next \`tool-map scan\` starts a new one`).pipe(
    Effect.withSpan("readHistory")
  )

/**
 * The new history file's text, for BundleWriter `history`: `prior` extended with `digest`; when
 * there is no history yet, `legacy` (the history of the bundle the commit replaces, see
 * {@link priorGeneration}) is extended, and when there is no bundle either (a first scan), none
 * is written. A history that cannot be read or is not one is replaced, with a warning on stderr:
 * it never stops a scan.
 */
export const nextHistoryText = (
  path: string,
  prior: PriorFile,
  legacy: Option.Option<HistoryFile>,
  digest: GenerationDigest,
  committedAt: string
): Effect.Effect<Option.Option<string>> =>
  Effect.gen(function* () {
    let base = legacy
    if (Either.isLeft(prior)) {
      yield* Effect.logWarning(`tool-map: the history ${path} could not be read (${prior.left}); it is replaced by a new one`)
    } else if (Option.isSome(prior.right)) {
      const found = decodeHistory(prior.right.value)
      if (Option.isSome(found)) base = found
      else yield* Effect.logWarning(`tool-map: the history ${path} was not kept: ${NOT_A_HISTORY}; it is replaced by a new one`)
    }
    const first = Either.isRight(prior) && Option.isNone(prior.right) && Option.isNone(base)
    return first ? Option.none() : Option.some(renderHistory(extendHistory(base, digest, committedAt)))
  })

/** What a scan reads of the bundle it replaces, while it scans. */
export interface PriorGeneration {
  /** The digest of the generation in place (from its tools.json), for the summary's changes. */
  readonly digest: Option.Option<GenerationDigest>
  /** The history to extend when the bundle has none yet: one written before tool-map kept a history. */
  readonly legacy: Option.Option<HistoryFile>
}

/**
 * The generation a commit to `paths` replaces: its digest, and the history it would have had
 * (its digest and its digest file's, see {@link historyFromLegacy}). Nothing fails because of it.
 */
export const priorGeneration = (paths: BundlePaths): Effect.Effect<PriorGeneration, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const digest = yield* previousDigest(paths)
    if (Option.isNone(digest)) return { digest, legacy: Option.none() }
    const before = yield* readPreviousDigest([previousDigestPath(paths)], digest.value.generation).pipe(Effect.orElseSucceed(() => Option.none<GenerationDigest>()))
    return { digest, legacy: Option.some(historyFromLegacy(digest.value, before)) }
  })

/** The BundleWriter `history` of a commit of the generation of `digest` to `paths`, over `prior`'s legacy history when there is no history file. */
export const historyOfCommit = (paths: BundlePaths, prior: PriorGeneration, digest: GenerationDigest): DerivedFile => ({
  maxBytes: HISTORY_MAX_BYTES,
  next: (current, committedAt) => nextHistoryText(historyPath(paths), current, prior.legacy, digest, committedAt.toISOString())
})

/** Removes the digest file of a bundle written before the history, once the history replaced it (a failure only leaves it: no reader takes it over the history). */
export const removeLegacyDigest = (paths: BundlePaths): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(previousDigestPath(paths), { force: true })).pipe(Effect.ignore)
