import { Either, Option } from "effect"
import type { HistoryEntry, HistoryFile } from "../bundle/history.js"
import { changesBetween, type Changes, digestOf } from "../domain/drift.js"
import type { Inventory } from "../domain/inventory.js"
import { parseSince, SINCE_FORMS, type SincePoint } from "./since.js"

/** A generation as `query changes` names it: its number in the history, its id, its scan and commit times. */
export interface GenerationRef {
  readonly number: number
  readonly generation: string
  readonly generatedAt: string
  readonly committedAt: string
}

/** What `--since` asked for, resolved: the typed value and the moment or generation number it names. */
export type SinceAsked =
  | { readonly since: string; readonly at: string }
  | { readonly since: string; readonly generation: number }

/** The answer of `query changes`: what changed from the generation compared with to the bundle's. */
export interface ChangesAnswer extends Omit<Changes, "since" | "current"> {
  /** The kept generation compared with: the newest at or before the point asked, or the last that differs from the bundle's. */
  readonly since: GenerationRef
  readonly current: GenerationRef
  /** The `--since` value and what it named; null without one. */
  readonly asked: SinceAsked | null
}

/** The answer of `query changes` when the history keeps no earlier generation. */
export interface NoEarlierGeneration {
  readonly since: null
  readonly current: GenerationRef
  readonly count: 0
  readonly note: string
}

/** Why there is nothing to compare with. */
export const NO_EARLIER_GENERATION =
  "the history keeps no generation that differs from this one (it is the first scan here, every scan since found the same, or the bundle was written before tool-map kept a history); the next scan that finds a change will be compared with it"

/** Why a `--since` value cannot be answered: what is wrong with it, and the forms it may take when it names nothing. */
export interface SinceProblem {
  readonly problem: string
  readonly choices: ReadonlyArray<string>
}

const refOf = (entry: HistoryEntry): GenerationRef => ({
  number: entry.number,
  generation: entry.digest.generation,
  generatedAt: entry.digest.generatedAt,
  committedAt: entry.committedAt
})

const describeEntry = (entry: HistoryEntry) => `${entry.number} (committed ${entry.committedAt})`

/**
 * The kept entry a point names: the newest committed at or before it (an entry stands for every
 * generation after it that found the same), or a problem naming the oldest kept one.
 */
const pick = (history: HistoryFile, point: SincePoint, typed: string): Either.Either<readonly [HistoryEntry, SinceAsked], SinceProblem> => {
  const oldest = history.entries[history.entries.length - 1]!
  const tooOld = (what: string): SinceProblem => ({
    problem: `--since ${typed}: ${what} is older than the kept history; its oldest generation is ${describeEntry(oldest)}`,
    choices: []
  })
  switch (point._tag) {
    case "Generation": {
      if (point.number > history.number) {
        return Either.left({ problem: `--since ${typed}: there is no generation ${point.number} yet; the bundle's is generation ${history.number}`, choices: [] })
      }
      const entry = history.entries.find((candidate) => candidate.number <= point.number)
      return entry === undefined ? Either.left(tooOld(`generation ${point.number}`)) : Either.right([entry, { since: typed, generation: point.number }])
    }
    case "GenerationId": {
      const entry = point.id === history.generation ? history.entries[0] : history.entries.find((candidate) => candidate.digest.generation === point.id)
      if (entry === undefined) {
        return Either.left({ problem: `--since ${typed}: no kept generation has this id; the oldest kept is generation ${describeEntry(oldest)}`, choices: [] })
      }
      return Either.right([entry, { since: typed, generation: point.id === history.generation ? history.number : entry.number }])
    }
    case "Moment": {
      const at = point.at.getTime()
      const entry = history.entries.find((candidate) => Date.parse(candidate.committedAt) <= at)
      const asked = point.at.toISOString()
      return entry === undefined ? Either.left(tooOld(asked)) : Either.right([entry, { since: typed, at: asked }])
    }
  }
}

/**
 * What changed in the bundle since the point `since` names (see {@link parseSince}; `typed` is
 * how a problem quotes it), or since the last kept generation that differs from the bundle's
 * when none is given. `history` is the bundle's (its first entry holds the bundle's content).
 */
export const changesSince = (
  inventory: Inventory,
  history: HistoryFile,
  since: Option.Option<{ readonly text: string; readonly typed: string }>,
  now: Date
): Either.Either<ChangesAnswer | NoEarlierGeneration, SinceProblem> => {
  const current: GenerationRef = { number: history.number, generation: inventory.generation, generatedAt: inventory.generatedAt, committedAt: history.committedAt }
  const answer = (entry: HistoryEntry, asked: SinceAsked | null): ChangesAnswer => {
    const { since: _since, current: _current, ...changes } = changesBetween(entry.digest, digestOf(inventory))
    return { since: refOf(entry), current, asked, ...changes }
  }
  if (Option.isNone(since)) {
    const before = history.entries[1]
    return Either.right(before === undefined ? { since: null, current, count: 0, note: NO_EARLIER_GENERATION } : answer(before, null))
  }
  const { text, typed } = since.value
  const point = parseSince(text, now)
  if (Either.isLeft(point)) return Either.left({ problem: `--since ${typed}: ${point.left}`, choices: SINCE_FORMS })
  return Either.map(pick(history, point.right, typed), ([entry, asked]) => answer(entry, asked))
}
