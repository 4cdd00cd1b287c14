import { Effect, Option } from "effect"
import type { ScanSkipped } from "../inventory/bundle/ifStale.js"
import { InventoryReader, whichFromIndex } from "../inventory/query/InventoryReader.js"
import { describeOutcome, outcomeJson } from "../inventory/scanReport.js"
import { type WhichAnswer, whichTool } from "../inventory/domain/which.js"
import { ToolNotFound } from "../inventory/query/toolQueries.js"
import type { ScanOutcome } from "../inventory/ScanProgram.js"
import { AnswerFreshness, printAnswer } from "./answerFreshness.js"
import { printJson, printLines, printTable } from "./output.js"

/*
 * The handlers of the everyday commands, shared by the command tree (queryCommands.ts,
 * scanCommand.ts) and the entry that answers them without loading it (everydayMain.ts): they
 * import neither @effect/cli nor the scan.
 */

/** `query which NAME`: every copy of NAME in PATH order, the winner and its version. */
export const answerWhich = (flags: { readonly name: string; readonly json: boolean; readonly from: Option.Option<string> }) =>
  Effect.gen(function* () {
    // The which index the stale check read: the answer and its `stale` are of the same bytes.
    const indexed = Option.isNone(flags.from) ? whichFromIndex((yield* AnswerFreshness).index, flags.name) : Option.none<WhichAnswer>()
    const answer = Option.isSome(indexed) ? indexed.value : whichTool(yield* (yield* InventoryReader).load(flags.from), flags.name)
    if (answer.copies.length === 0) return yield* new ToolNotFound({ name: flags.name })
    yield* printAnswer(flags.json, answer, (value) =>
      printTable(
        ["", "path", "version", "PATH #", "note"],
        value.copies.map((copy) => [
          copy.wins ? "*" : "",
          copy.linkTarget === null ? copy.path : `${copy.path} -> ${copy.linkTarget}`,
          copy.version ?? "",
          copy.pathIndex === null ? "" : String(copy.pathIndex),
          [copy.wins ? "wins" : copy.pathIndex === null ? `not on PATH (${copy.root})` : `shadowed by ${value.winner}`, copy.sameFileAs === null ? "" : `same file as ${copy.sameFileAs}`].filter((note) => note !== "").join("; ")
        ]),
        "No copies."
      )
    )
  })

/** What `scan` prints of its outcome: the JSON object with --json, nothing with --quiet, else a few lines. */
export const printScanOutcome = (outcome: ScanOutcome | ScanSkipped, flags: { readonly json: boolean; readonly quiet: boolean }) =>
  Effect.gen(function* () {
    if (flags.json) return yield* printJson(outcomeJson(outcome))
    // Paths and reasons name directories of PATH: untrusted text, printed to a terminal.
    if (!flags.quiet) yield* printLines(describeOutcome(outcome))
  })
