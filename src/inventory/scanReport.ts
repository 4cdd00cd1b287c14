import type { ScanOutcome } from "./ScanProgram.js"

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

/** The few lines a person reads after a scan. */
export const describeOutcome = (outcome: ScanOutcome): ReadonlyArray<string> => {
  if (outcome._tag === "Skipped") {
    return [
      `Up to date: ${outcome.reason} (generation ${outcome.generation}, checked in ${seconds(outcome.durationMs)}).`,
      `Summary: ${outcome.paths.summary}. Use --force to rescan anyway.`
    ]
  }
  const { counts } = outcome
  return [
    ...(outcome.reason === null ? [] : [`Rescanned because ${outcome.reason}.`]),
    `Found ${counts.tools} tools (${counts.shadowed} shadowed) in ${counts.pathDirs} PATH dirs and ${counts.roots} other roots; ${counts.versions} versions; ${counts.agentHostItems} agent-host items; ${counts.diagnostics} diagnostics. Took ${seconds(outcome.durationMs)}.`,
    outcome.changes === null
      ? "No earlier scan to compare with."
      : outcome.changes.summary === null
        ? `No changes since generation ${outcome.changes.since}.`
        : `${outcome.changes.count} ${outcome.changes.count === 1 ? "change" : "changes"} since generation ${outcome.changes.since}: ${outcome.changes.summary} (see \`tool-map query changes\`).`,
    `Wrote ${outcome.paths.summary}`,
    `  and ${outcome.paths.markdown}, ${outcome.paths.json}`
  ]
}

/** The JSON object `scan --json` prints. */
export const outcomeJson = (outcome: ScanOutcome) => {
  const files = { json: outcome.paths.json, markdown: outcome.paths.markdown, summary: outcome.paths.summary }
  return outcome._tag === "Skipped"
    ? { skipped: true, reason: outcome.reason, generation: outcome.generation, files, durationMs: outcome.durationMs }
    : { skipped: false, generation: outcome.generation, files, counts: outcome.counts, changes: outcome.changes, durationMs: outcome.durationMs, rescanReason: outcome.reason }
}
