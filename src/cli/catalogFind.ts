// `tool-map catalog find`: the router's ranking of the catalog for a task, one at a time or a
// batch of queries (for evaluations). Loaded with the catalog handlers (see catalogCommands.ts).
import { Console, Effect, Either, Option, Schema } from "effect"
import { renderToolsFind } from "../catalog/core/router/routerTools.js"
import { CLI_WORDING } from "../catalog/core/wording.js"
import { Router } from "../catalog/services/Router.js"
import { cleanText } from "../inventory/domain/untrusted.js"
import { readRegularFile } from "../services/fileRead.js"
import { CatalogCliSession, CatalogUsageError, type CatalogFlags, printCatalogJson, reportingWarnings } from "./catalogHandlers.js"
import { printFitted } from "./output.js"

/** The `--queries` file cannot be used. */
export class QueriesFileInvalid extends Schema.TaggedError<QueriesFileInvalid>()("QueriesFileInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return cleanText(`The queries file ${this.path} cannot be used: ${this.reason}.`)
  }
}

/** The most a `--queries` file may hold. */
export const QUERIES_FILE_MAX_BYTES = 64 * 1024 * 1024

const QueryLine = Schema.parseJson(Schema.Struct({ qid: Schema.Union(Schema.String, Schema.Number), query: Schema.String }))

/** The `{qid, query}` lines of a queries file (blank lines skipped); the reason names the first bad line. */
export const decodeQueries = (text: string): Either.Either<ReadonlyArray<{ readonly qid: string | number; readonly query: string }>, string> => {
  const out: Array<{ readonly qid: string | number; readonly query: string }> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "") continue
    const decoded = Schema.decodeUnknownEither(QueryLine)(line)
    if (decoded._tag === "Left") return Either.left(`line ${i + 1} is not a JSON object {qid, query}`)
    out.push(decoded.right)
  }
  return Either.right(out)
}

/** `catalog find QUERY` or `catalog find --queries FILE.jsonl`. */
export const find = (flags: CatalogFlags & {
  readonly query: Option.Option<string>
  readonly queries: Option.Option<string>
  readonly k: number
}) =>
  reportingWarnings(Effect.gen(function*() {
    const router = yield* Router
    const { agent } = yield* CatalogCliSession
    if (flags.k < 1) return yield* new CatalogUsageError({ command: "find", reason: `-k must be at least 1 (got ${flags.k})` })
    if (Option.isSome(flags.queries)) {
      if (Option.isSome(flags.query)) {
        return yield* new CatalogUsageError({ command: "find", reason: "give a QUERY or --queries FILE, not both" })
      }
      const path = flags.queries.value
      const bytes = yield* readRegularFile(path, QUERIES_FILE_MAX_BYTES).pipe(
        Effect.mapError((error) => new QueriesFileInvalid({ path, reason: error.message })),
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new QueriesFileInvalid({ path, reason: "it does not exist" })),
          onSome: Effect.succeed
        }))
      )
      const queries = yield* Either.mapLeft(decodeQueries(new TextDecoder().decode(bytes)), (reason) => new QueriesFileInvalid({ path, reason }))
      for (const { qid, query } of queries) {
        const hits = yield* router.findTools({ query, k: flags.k }, agent)
        yield* Console.log(JSON.stringify({ qid, results: hits.map((hit) => hit.name) }))
      }
      return
    }
    if (Option.isNone(flags.query) || flags.query.value.trim() === "") {
      return yield* new CatalogUsageError({ command: "find", reason: "give a QUERY (the task in plain words) or --queries FILE.jsonl" })
    }
    const query = flags.query.value
    const hits = yield* router.findTools({ query, k: flags.k }, agent)
    if (flags.json) yield* printCatalogJson({ query, k: flags.k, tools: hits })
    else yield* printFitted(renderToolsFind(query, hits, CLI_WORDING))
  }))
