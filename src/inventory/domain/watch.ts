import { Schema } from "effect"

// What `--if-stale` compares, apart from the rest of tools.json (inventory.ts): the everyday
// commands' entry reads a bundle's watch set without evaluating the inventory's classes.

/** A watched input of `--if-stale`: a path and the stat facts that change when it does. */
export class WatchedInput extends Schema.Class<WatchedInput>("WatchedInput")({
  path: Schema.String,
  /** "missing" when it did not exist at scan time (its appearance is a change). */
  state: Schema.String
}) {}

/** What `--if-stale` compares: the tool-map version, digests of PATH and TOOL_MAP_ROOTS, and the watched inputs. */
export class WatchSet extends Schema.Class<WatchSet>("WatchSet")({
  toolMapVersion: Schema.String,
  pathVariable: Schema.String,
  extraRoots: Schema.String,
  inputs: Schema.Array(WatchedInput)
}) {}
