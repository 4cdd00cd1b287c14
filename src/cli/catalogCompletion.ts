// The catalog's words for shell completion (`catalog ls PATH`, `catalog load/unload TARGET`): read
// from the catalog the last `--schemas` run kept, as `catalog ls` reads it. Loaded, like the catalog
// handlers, only when such a word is completed.
import { Effect, Option } from "effect"
import { ToolCatalog } from "../catalog/services/ToolCatalog.js"
import { cleanText } from "../inventory/domain/untrusted.js"
import { CatalogCliSession, catalogCliLayer } from "./catalogHandlers.js"
import type { Candidate } from "./completion.js"

/**
 * The paths of the catalog (`paths`), or what `load` takes (`targets`: paths, group names and
 * tool names; `unloadTargets` also `all`) that start with `prefix`. No catalog kept yet, or one
 * that cannot be read: no candidates (completion must never print an error into the line).
 */
export const catalogCandidates = (targets: "paths" | "targets" | "unloadTargets", agentId: string, prefix: string) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    const { agent } = yield* CatalogCliSession
    const built = yield* catalog.get(agent)
    const paths = [...built.byPath.keys()]
    const names = targets === "paths" || prefix.startsWith("/") ? [] : [...built.groups.keys(), ...built.byName.keys()]
    const words = [...(targets === "unloadTargets" ? ["all"] : []), ...paths, ...names]
    // Names come from tool schemas: untrusted, so they pass the one boundary (neutralized, secrets redacted).
    return [...new Set(words)].filter((word) => word.startsWith(prefix)).map((word): Candidate => ({ value: cleanText(word), description: "" }))
  }).pipe(
    Effect.provide(catalogCliLayer(agentId, Option.none())),
    Effect.orElseSucceed((): ReadonlyArray<Candidate> => [])
  )
