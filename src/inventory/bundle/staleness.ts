import { Option } from "effect"
import { createHash } from "node:crypto"
import type { WatchSet } from "../domain/watch.js"

/** A short digest of a value that must be compared but not stored (PATH may hold anything). */
export const digest = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 32)

/**
 * Why a bundle written with `recorded` is out of date against `current`, or none. Inputs are
 * compared in the recorded order; the first difference is the reason.
 */
export const staleReason = (recorded: WatchSet, current: {
  readonly toolMapVersion: string
  readonly pathVariable: string
  readonly extraRoots: string
  readonly stateOf: (path: string) => string
}): Option.Option<string> => {
  if (recorded.toolMapVersion !== current.toolMapVersion) {
    return Option.some(`tool-map changed from ${recorded.toolMapVersion} to ${current.toolMapVersion}`)
  }
  if (recorded.pathVariable !== current.pathVariable) return Option.some("PATH changed")
  if (recorded.extraRoots !== current.extraRoots) return Option.some("TOOL_MAP_ROOTS changed")
  for (const input of recorded.inputs) {
    const now = current.stateOf(input.path)
    if (now !== input.state) {
      const what = input.state === "missing" ? "appeared" : now === "missing" ? "disappeared" : "changed"
      return Option.some(`${input.path} ${what}`)
    }
  }
  return Option.none()
}
