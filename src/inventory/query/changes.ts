import { Either } from "effect"
import { changesBetween, type Changes, digestOf } from "../domain/drift.js"
import type { Inventory } from "../domain/inventory.js"

/** The answer of `query changes` when the bundle keeps no earlier generation. */
export interface NoEarlierGeneration {
  readonly since: null
  readonly current: { readonly generation: string; readonly generatedAt: string }
  readonly count: 0
  readonly note: string
}

/** Why there is nothing to compare with. */
export const NO_EARLIER_GENERATION =
  "this bundle keeps no earlier generation (it is the first scan here, or it was written before tool-map kept one); the next scan will be compared with it"

/**
 * What changed since `since` (the generation the bundle keeps the digest of, or the bundle's own,
 * which nothing changed since), since the previous generation when none is given; Left with the
 * generations that can be named when `since` is another one.
 */
export const changesSince = (
  inventory: Inventory,
  since: string | undefined
): Either.Either<Changes | NoEarlierGeneration, ReadonlyArray<string>> => {
  const current = digestOf(inventory)
  const previous = inventory.previous
  const kept = [...(previous === undefined ? [] : [previous.generation]), inventory.generation]
  if (since === inventory.generation) return Either.right(changesBetween(current, current))
  if (since !== undefined && since !== previous?.generation) return Either.left(kept)
  if (previous === undefined) {
    return Either.right({ since: null, current: { generation: inventory.generation, generatedAt: inventory.generatedAt }, count: 0, note: NO_EARLIER_GENERATION })
  }
  return Either.right(changesBetween(previous, current))
}
