// The implementation of `tool-map catalog` (see catalogCommands.ts for the command line). It
// imports the whole catalog stack, so catalogCommands.ts loads it only when a catalog command
// runs: every other command starts without evaluating it.
import { FileSystem, Path } from "@effect/platform"
import { Console, Context, Effect, Either, Exit, Layer, Option, Ref, Schema, Stream } from "effect"
import * as NodeFs from "node:fs"
import { type DefinitionChange, isEmptyDiff, sha256 } from "../catalog/core/definitions.js"
import { renderNote } from "../catalog/core/entryTools.js"
import { CLI_WORDING } from "../catalog/core/wording.js"
import type { Catalog, CatalogNode, ToolEntry, ToolSchema } from "../catalog/core/model.js"
import { displayName, MAX_NAME_WIDTH } from "../catalog/core/sanitize.js"
import type { AgentHostName } from "../inventory/domain/agentHosts.js"
import { cleanText, neutralize, wellFormed } from "../inventory/domain/untrusted.js"
import { factsOf, primeToolSetKey, toolSetKey } from "../catalog/core/catalog.js"
import {
  decodeSchemasJson,
  decodeSchemasText,
  FACTS_HEAD_BYTES,
  FACTS_TEXTS_KEPT,
  type FactsFile,
  factsFileOf,
  factsFileOfParts,
  factsFileParts,
  factsFileText,
  type FactsHead,
  factsHead,
  factsModel,
  KEY_HEAD_BYTES,
  keyInHead,
  leanSchemas,
  parseSchemasText,
  schemasKey,
  snapshotText
} from "../catalog/core/schemasFile.js"
import {
  COMPACT_THRESHOLD,
  type CorruptFile,
  type HashedBytes,
  hashedBytes,
  hashOfFile,
  readHashedJsonFileWith,
  readBounded,
  SCHEMAS_FILE_MAX_BYTES,
  textOf,
  writeFileAtomic
} from "../catalog/stores/jsonFile.js"
import { forEachSliced, yieldIfDue } from "../services/eventLoop.js"
import { readHead } from "../services/fileRead.js"
import { printFitted } from "./output.js"
import { ConflictingFlags } from "./scanCommand.js"
import { type CatalogFiles, catalogFilesIn, CatalogLayer, defaultCatalogDir } from "../layers/HostLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { ManifestWriter } from "../catalog/services/ManifestWriter.js"
import { type BuildRecordFiles, changedSinceRecorded, RecordedBuilds } from "../catalog/services/RecordedBuilds.js"
import { type Agent, HostPort, type LoadResult, ToolCatalog, type UnloadResult } from "../catalog/services/ToolCatalog.js"

/** A tool name, path or target in a line of text: neutralized, and cut when very long. */
const shownName = (name: string) => displayName(name, MAX_NAME_WIDTH)

/** The `--schemas` file (or the snapshot of the last one) cannot be used. */
export class SchemasFileInvalid extends Schema.TaggedError<SchemasFileInvalid>()("SchemasFileInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return neutralize(`The tool schemas file ${this.path} cannot be used: ${this.reason}.`)
  }
}

/** No tool schemas were given and none were recorded by an earlier run. */
export class NoToolSchemas extends Schema.TaggedError<NoToolSchemas>()("NoToolSchemas", {
  snapshot: Schema.String
}) {
  get message() {
    return `No tool schemas to build the catalog from: pass --schemas FILE (a JSON array of tool schemas, or an MCP tools/list result); later runs reuse the last one, kept at ${this.snapshot}.`
  }
}

/** `catalog ls PATH` names nothing in the catalog. */
export class CatalogPathNotFound extends Schema.TaggedError<CatalogPathNotFound>()("CatalogPathNotFound", {
  path: Schema.String,
  suggestions: Schema.Array(Schema.String)
}) {
  get message() {
    return `No catalog path or tool named ${shownName(this.path)}${
      this.suggestions.length > 0 ? ` (did you mean ${this.suggestions.map(shownName).join(", ")}?)` : ""
    }; run \`tool-map catalog ls /\` to browse.`
  }
}

/** Some targets of `catalog load`/`unload` named nothing (the others were applied). */
export class CatalogTargetNotFound extends Schema.TaggedError<CatalogTargetNotFound>()("CatalogTargetNotFound", {
  targets: Schema.Array(Schema.String)
}) {
  get message() {
    return `Not found in the catalog: ${this.targets.map(shownName).join(", ")}; search with \`tool-map catalog ls --query WORDS\`.`
  }
}

/** A `catalog load`/`unload` was applied but its agent's state could not be read or saved: the next run would not see it. */
export class CatalogStateNotSaved extends Schema.TaggedError<CatalogStateNotSaved>()("CatalogStateNotSaved", {
  command: Schema.String,
  agent: Schema.String
}) {
  get message() {
    return neutralize(`tool-map catalog ${this.command}: the state of agent ${this.agent} could not be read or saved (see the warning above), so the next run would not see this ${this.command}; make the catalog's state file readable and writable and run it again.`)
  }
}

/** A command got something it cannot use: an unknown option where a target was expected. */
export class CatalogUsageError extends Schema.TaggedError<CatalogUsageError>()("CatalogUsageError", {
  command: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return neutralize(`tool-map catalog ${this.command}: ${this.reason}.`)
  }
}

/** Fails on a value that looks like an option: the parser takes unknown flags as arguments. */
const rejectFlags = (command: string, values: ReadonlyArray<string>) => {
  const flag = values.find((value) => value.startsWith("-") && value !== "-")
  return flag === undefined
    ? Effect.void
    : Effect.fail(
      new CatalogUsageError({
        command,
        reason: `unknown option ${flag} (targets are paths, group names or tool names; see --help)`
      })
    )
}

/** Decodes the text of a schemas file; the reason names the first problem and where it is. */
export { decodeSchemasText } from "../catalog/core/schemasFile.js"

/** The first `bytes` bytes of a regular file as text; `None` when it cannot be read. */
const headOf = (path: string, bytes: number): Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem> =>
  readHead(path, bytes).pipe(
    Effect.map(Option.map((head) => new TextDecoder().decode(head))),
    // Missing, unreadable or not a regular file: only means that the file is written again.
    Effect.orElseSucceed(() => Option.none<string>())
  )

/** The string member `member` in the first bytes of a file; `None` when the file or the member is not there. */
const keyOfFile = (path: string, member: string) =>
  Effect.map(headOf(path, KEY_HEAD_BYTES), Option.flatMap((head) => keyInHead(head, member)))

/** Where a CLI run keeps the schemas for later runs, besides the catalog's own files. */
interface SchemasFiles {
  readonly schemasSnapshot: string
  /** The definition facts of the snapshot's schemas (see `FactsFile`). */
  readonly schemasFacts: string
  /** The snapshot as of the recorded build (a hard link, see `RecordedBuilds`), for the details of `catalog diff`. */
  readonly recordedSchemas: string
}

/** Schemas as decoded from a text, and the SHA-256 of that text. */
interface DecodedSchemas {
  readonly schemas: ReadonlyArray<ToolSchema>
  readonly textKey: string
}

/** The schemas in a file's bytes, with their SHA-256. */
const decodeHashed = (file: HashedBytes): Either.Either<DecodedSchemas, string> =>
  Either.map(decodeSchemasText(textOf(file.bytes)), (schemas) => ({ schemas, textKey: file.sha256 }))

/**
 * `decodeHashed` as an effect that lets the event loop run between its long steps (hashing the
 * bytes, making them a text, parsing it, decoding the schemas): on a large file each takes a
 * good part of a second, and SIGTERM is seen only between two of them.
 */
const decodeHashedInSteps = (file: HashedBytes) =>
  Effect.gen(function*() {
    yield* yieldIfDue
    const text = textOf(file.bytes)
    yield* yieldIfDue
    const json = parseSchemasText(text)
    yield* yieldIfDue
    return Either.map(Either.flatMap(json, decodeSchemasJson), (schemas): DecodedSchemas => ({ schemas, textKey: file.sha256 }))
  })

/** Schemas of a text the facts file names, and that file. */
interface KnownSchemas {
  readonly decoded: DecodedSchemas
  readonly facts: FactsFile
}

/**
 * The decode of the file `path` whose bytes hash to `textKey`, read again synchronously: the
 * input schemas of `leanSchemas` are read in a getter, which cannot wait. The CLI's commands
 * read none (no classifier runs in them); a snapshot written again does. Bytes other than the
 * ones the run checked (the file replaced meanwhile) are a defect, never other schemas.
 */
const decodeAgain = (path: string, textKey: string) => (): ReadonlyArray<ToolSchema> => {
  const file = hashedBytes(NodeFs.readFileSync(path))
  if (file.sha256 !== textKey) throw new Error(`the schemas file ${path} changed during the run`)
  return Either.getOrThrowWith(decodeSchemasText(textOf(file.bytes)), (reason) => new Error(`${path} does not decode any more: ${reason}`))
}

/**
 * The schemas of the file `path` when the facts file names the SHA-256 of its bytes under this
 * build's model (its very bytes were decoded into these schemas before): taken from the facts
 * file with their facts primed, the file only hashed, a chunk at a time (see `leanSchemas`).
 * `None` when the head does not name the text, or the facts file is not the one its head promised.
 */
const knownSchemas = (files: SchemasFiles, head: Option.Option<FactsHead>, path: string) =>
  Effect.gen(function*() {
    const model = factsModel()
    if (Option.isNone(head) || head.value.model !== model) return Option.none<KnownSchemas>()
    const textKey = yield* hashOfFile(path, SCHEMAS_FILE_MAX_BYTES)
    if (Option.isNone(textKey) || !head.value.texts.includes(textKey.value)) return Option.none<KnownSchemas>()
    // Its bytes are decoded as they are read and dropped at once (see `factsFileParts`).
    const parts = yield* readBounded(files.schemasFacts, SCHEMAS_FILE_MAX_BYTES, factsFileParts)
    const facts = Option.filter(
      Option.flatMap(Option.flatten(Option.flatMap(parts, Either.getRight)), factsFileOfParts),
      (facts) => facts.key === head.value.key && facts.model === model && facts.texts.includes(textKey.value)
    )
    return Option.map(facts, (facts): KnownSchemas => ({
      decoded: { schemas: leanSchemas(facts, decodeAgain(path, textKey.value)), textKey: textKey.value },
      facts
    }))
  }).pipe(
    // Unreadable here: the full read that follows says why.
    Effect.orElseSucceed(() => Option.none<KnownSchemas>())
  )

/**
 * Keeps what later runs reuse: the snapshot of the schemas, unless it holds them already, and
 * the facts file, unless it names this text already. A run on an unchanged tool set writes
 * neither. The facts of schemas not primed are computed here (the build needs them anyway).
 */
const keepSchemas = (
  files: SchemasFiles,
  decoded: DecodedSchemas,
  head: Option.Option<FactsHead>,
  primed: Option.Option<FactsFile>,
  snapshot: "check" | "read"
) =>
  Effect.gen(function*() {
    const { schemas, textKey } = decoded
    // Hashing every definition is the long part of a first run: in slices, so SIGTERM is seen.
    if (Option.isNone(primed)) yield* forEachSliced(schemas, factsOf)
    const key = Option.match(primed, { onNone: () => schemasKey(schemas), onSome: (file) => file.key })
    const texts = [textKey]
    if (snapshot === "check" && !Option.contains(yield* keyOfFile(files.schemasSnapshot, "key"), key)) {
      const text = snapshotText(schemas, key, COMPACT_THRESHOLD)
      yield* writeFileAtomic(files.schemasSnapshot, text)
      texts.push(sha256(text))
    }
    const model = factsModel()
    const earlier = Option.isSome(head) && head.value.key === key && head.value.model === model ? head.value.texts : []
    const next = [...new Set([...texts, ...earlier])].slice(0, FACTS_TEXTS_KEPT)
    if (Option.isSome(primed) && next.length === earlier.length && next.every((text, i) => text === earlier[i])) return
    // The build needs the tool-set key anyway: computed once here, kept for later runs.
    const setKey = Option.getOrElse(Option.flatMapNullable(primed, (file) => file.setKey), () => toolSetKey(schemas))
    primeToolSetKey(schemas, setKey)
    yield* writeFileAtomic(files.schemasFacts, factsFileText(factsFileOf({ model, key, texts: next, setKey }, schemas))).pipe(
      // A cache: without it a later run computes the facts again.
      Effect.ignore
    )
  })

/**
 * Something a catalog command did not stop for but the user must hear of: a data file kept
 * aside as not valid (and what was reset with it), a failed write, tool names given twice.
 * Printed on stderr, one line each, and in every `--json` answer as `warnings`.
 */
export interface CliWarning {
  /** `corrupt-file`, `write-failed`, `read-failed`, `state-provider-failed` (the catalog's own kinds), or `duplicate-names`. */
  readonly kind: string
  /** The file concerned, or the state provider's name. */
  readonly subject: string
  readonly message: string
  /** For `duplicate-names`: each name given more than once, and how many later definitions were left out. */
  readonly names?: ReadonlyArray<string>
  readonly dropped?: number
}

/** What one catalog command runs with: its agent, its schemas and the file they came from, where the files are, its warnings. */
export class CatalogCliSession extends Context.Tag("tool-map/CatalogCliSession")<CatalogCliSession, {
  readonly agent: Agent
  readonly schemas: ReadonlyArray<ToolSchema>
  /** The file the schemas were read from: `--schemas FILE`, else the kept snapshot. */
  readonly source: string
  readonly files: CatalogFiles & SchemasFiles
  /** The run's own warnings (the catalog's are `ToolCatalog.diagnostics`). */
  readonly warnings: Ref.Ref<ReadonlyArray<CliWarning>>
}>() {}

/** Adds a warning of the run. */
const warn = (warning: CliWarning) => Effect.flatMap(CatalogCliSession, (session) => Ref.update(session.warnings, (all) => [...all, warning]))

/** The warning of a data file found not valid and kept aside (as the catalog's stores word it). */
const corruptWarning = (corrupt: CorruptFile): CliWarning => ({
  kind: "corrupt-file",
  subject: corrupt.path,
  message: `${corrupt.path} is not valid (${corrupt.reason}); it was kept as ${corrupt.keptAt}`
})

/** A failed read or write of a catalog file, as a warning. */
const fileWarning = (error: { readonly path: string; readonly operation: string; readonly message: string }): CliWarning => ({
  kind: error.operation === "read" ? "read-failed" : "write-failed",
  subject: error.path,
  message: error.message
})

/** How many duplicate names a warning spells out. */
const DUPLICATES_SHOWN = 10

/** The warning of tool names the schemas file gives more than once (the build kept the first of each), if any. */
const duplicatesWarning = (catalog: Catalog, source: string): ReadonlyArray<CliWarning> => {
  const repeated = catalog.diagnostics.filter((diagnostic) => diagnostic.kind === "duplicate-name").map((diagnostic) => diagnostic.name)
  if (repeated.length === 0) return []
  const names = [...new Set(repeated)]
  const shown = names.slice(0, DUPLICATES_SHOWN).map(shownName).join(", ")
  const more = names.length > DUPLICATES_SHOWN ? ` … and ${names.length - DUPLICATES_SHOWN} more` : ""
  return [{
    kind: "duplicate-names",
    subject: source,
    message: `The tool schemas file ${source} gives ${names.length} tool name(s) more than once: ${shown}${more}; the first definition of each is used, ${repeated.length} later one(s) left out`,
    names: names.map(neutralize),
    dropped: repeated.length
  }]
}

/** Every warning of the run so far: its own, the catalog's (files kept aside, failed writes), duplicate tool names. */
const runWarnings = Effect.gen(function*() {
  const session = yield* CatalogCliSession
  const catalog = yield* ToolCatalog
  // The manifest is written in the background: its write, and a failure of it, come first.
  yield* (yield* ManifestWriter).settled
  const own = yield* Ref.get(session.warnings)
  const kept = yield* catalog.diagnostics
  const built = yield* catalog.get()
  const all: ReadonlyArray<CliWarning> = [
    ...own,
    ...kept.map(({ kind, message, subject }): CliWarning => ({ kind, subject, message })),
    ...duplicatesWarning(built, session.source)
  ]
  // Messages and subjects quote files tool-map does not own: through the one rule. A failure
  // met again (every read of the agent's state) is said once.
  const seen = new Set<string>()
  return all.map((warning) => ({ ...warning, subject: cleanText(warning.subject), message: cleanText(warning.message) })).filter((warning) => {
    const key = `${warning.kind}\n${warning.subject}\n${warning.message}`
    return seen.has(key) ? false : (seen.add(key), true)
  })
})

/**
 * Runs a command, then prints every warning of the run on stderr, one line each, whether the
 * command failed or not; not when it was interrupted (SIGTERM): the warnings need the catalog,
 * and a stopped run builds nothing more.
 */
export const reportingWarnings = <A, E, R>(command: Effect.Effect<A, E, R>) =>
  Effect.onExit(command, (exit) =>
    Exit.isInterrupted(exit)
      ? Effect.void
      : Effect.flatMap(runWarnings, (warnings) => Effect.forEach(warnings, (warning) => Console.error(`tool-map: warning: ${warning.message}`), { discard: true })))

/**
 * Prints the JSON answer of a command with the run's warnings last. Strings keep their exact
 * text, except that a lone surrogate becomes U+FFFD: `JSON.stringify` would write it as an
 * escape that JSON readers such as jq reject.
 */
export const printCatalogJson = (value: object) =>
  Effect.flatMap(runWarnings, (warnings) =>
    Console.log(JSON.stringify({ ...value, warnings }, (_key, item: unknown) => (typeof item === "string" ? wellFormed(item) : item), 2)))

/**
 * Reads `--schemas FILE` (and keeps a snapshot for later runs), or the snapshot of an earlier
 * run. A text the facts file names is taken from it, not parsed (see `knownSchemas`).
 */
const loadSchemas = (schemasFile: Option.Option<string>, files: SchemasFiles, warnings: Ref.Ref<ReadonlyArray<CliWarning>>) =>
  Effect.gen(function*() {
    const head = Option.flatMap(yield* headOf(files.schemasFacts, FACTS_HEAD_BYTES), factsHead)
    if (Option.isSome(schemasFile)) {
      const path = schemasFile.value
      const known = yield* knownSchemas(files, head, path)
      const decoded = Option.isSome(known) ? known.value.decoded : yield* readBounded(path, SCHEMAS_FILE_MAX_BYTES, hashedBytes).pipe(
        Effect.mapError((error) => new SchemasFileInvalid({ path, reason: `it cannot be read (${error.reason})` })),
        Effect.flatMap((found) =>
          Either.match(Option.getOrElse(found, () => Either.left({ reason: "it does not exist" })), {
            onLeft: (refused) => Effect.fail(new SchemasFileInvalid({ path, reason: refused.reason })),
            onRight: (file) =>
              Effect.flatMap(decodeHashedInSteps(file), Either.match({
                onLeft: (reason) => Effect.fail(new SchemasFileInvalid({ path, reason })),
                onRight: Effect.succeed
              }))
          })
        )
      )
      yield* keepSchemas(files, decoded, head, Option.map(known, (found) => found.facts), "check").pipe(
        Effect.catchAll((error) => Ref.update(warnings, (all) => [...all, fileWarning(error)]))
      )
      return { schemas: decoded.schemas, source: path }
    }
    const snapshot = files.schemasSnapshot
    const known = yield* knownSchemas(files, head, snapshot)
    if (Option.isSome(known)) return { schemas: known.value.decoded.schemas, source: snapshot }
    const found = yield* readHashedJsonFileWith(decodeHashed, snapshot).pipe(
      Effect.mapError((error) => new SchemasFileInvalid({ path: snapshot, reason: error.reason }))
    )
    switch (found._tag) {
      case "Missing":
        return yield* new NoToolSchemas({ snapshot })
      case "Corrupt":
        return yield* new SchemasFileInvalid({
          path: snapshot,
          reason: `it is not valid (${found.corrupt.reason}) and was kept as ${found.corrupt.keptAt}; pass --schemas FILE`
        })
      case "Found":
        yield* keepSchemas(files, found.value, head, Option.none(), "read")
        return { schemas: found.value.schemas, source: snapshot }
    }
  })

/**
 * The schemas of `--host H`: the tools of the MCP servers H loads, from the gateway's snapshots
 * (see catalogHost.ts), kept as the snapshot of the last schemas like a `--schemas` file's, so
 * that a later run without either, the recorded build and `catalog diff` see the same tools.
 */
const hostSchemas = (host: AgentHostName, files: SchemasFiles, warnings: Ref.Ref<ReadonlyArray<CliWarning>>) =>
  Effect.gen(function*() {
    const { hostCatalogSource } = yield* Effect.promise(() => import("./catalogHost.js"))
    const found = yield* hostCatalogSource(host)
    yield* Ref.update(warnings, (all) => [...all, ...found.warnings])
    const head = Option.flatMap(yield* headOf(files.schemasFacts, FACTS_HEAD_BYTES), factsHead)
    const decoded: DecodedSchemas = { schemas: found.schemas, textKey: sha256(JSON.stringify(found.schemas)) }
    yield* keepSchemas(files, decoded, head, Option.none(), "check").pipe(
      Effect.catchAll((error) => Ref.update(warnings, (all) => [...all, fileWarning(error)]))
    )
    return { schemas: found.schemas, source: found.source, category: found.category }
  })

/** The port of the CLI: one agent, the given schemas, nothing else restricting it. */
const cliPort = (schemas: ReadonlyArray<ToolSchema>) =>
  Layer.succeed(HostPort, {
    name: "tool-map",
    reserved: [],
    tools: () => Effect.succeed(schemas),
    restrict: () => Effect.void,
    view: () => Effect.succeed(Option.none()),
    agents: Effect.succeed([]),
    lifecycle: Stream.empty
  })

/**
 * The catalog of one CLI run: the embedding graph's `CatalogLayer` over a port holding the
 * schemas, its files in the data dir (the root of the CLI provides the inventory). The catalog
 * commands provide it with `Command.provide`, so it is built once per run.
 */
export const catalogCliLayer = (agentId: string, schemasFile: Option.Option<string>, host: Option.Option<AgentHostName> = Option.none()) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      if (Option.isSome(host) && Option.isSome(schemasFile)) {
        // One source of tools per run.
        return yield* new ConflictingFlags({ flags: ["--host", "--schemas"] })
      }
      const environment = yield* MachineEnvironment
      const dir = defaultCatalogDir(environment.env, environment.homedir)
      const path = yield* Path.Path
      const files = {
        ...catalogFilesIn(dir),
        schemasSnapshot: path.join(dir, "schemas.json"),
        schemasFacts: path.join(dir, "schemas.facts.json"),
        recordedSchemas: path.join(dir, "schemas.recorded.json")
      }
      const warnings = yield* Ref.make<ReadonlyArray<CliWarning>>([])
      const fromHost = Option.isSome(host) ? Option.some(yield* hostSchemas(host.value, files, warnings)) : Option.none()
      const { schemas, source } = Option.isSome(fromHost) ? fromHost.value : yield* loadSchemas(schemasFile, files, warnings)
      const session = Layer.succeed(CatalogCliSession, { agent: { id: agentId, provider: "cli" }, schemas, source, files, warnings })
      // The servers' tools sit in the gateway's category, one group per server, as the gateway shows them.
      const category = Option.match(fromHost, {
        onNone: () => Layer.empty,
        onSome: (found) => Layer.scopedDiscard(Effect.flatMap(ToolCatalog, (catalog) => catalog.defineCategory(found.category)))
      })
      // A person typing `catalog load NAME` confirms that single load: the command line is the
      // risk gate. Group loads still leave high-risk tools out.
      const gate = Layer.scopedDiscard(
        Effect.flatMap(ToolCatalog, (catalog) => catalog.registerRiskGate({ name: "command line" }))
      )
      return Layer.mergeAll(Layer.merge(gate, category).pipe(Layer.provideMerge(CatalogLayer({ dir }).pipe(Layer.provide(cliPort(schemas))))), session, RecordedBuilds.layer)
    })
  )

/** Where the session's catalog build is recorded. */
const recordFiles = (files: CatalogCliSession["Type"]["files"]): BuildRecordFiles => ({
  record: files.definitions,
  schemas: files.schemasSnapshot,
  recordedSchemas: files.recordedSchemas
})

/**
 * Records this run's build as the last one, warning on stderr about what changed since the
 * previous record (`catalog diff` shows it before a run records). A tool set already recorded
 * is left as it is: the run reads the head of the record and writes nothing.
 */
const recordBuild = Effect.gen(function*() {
  const session = yield* CatalogCliSession
  const builds = yield* RecordedBuilds
  const catalog = yield* (yield* ToolCatalog).get()
  const files = recordFiles(session.files)
  if (yield* builds.isRecorded(files, catalog.toolSetKey)) return
  const previous = yield* readRecordedBuild(files)
  if (Option.isSome(previous)) {
    const diff = changedSinceRecorded(previous, catalog)
    if (!isEmptyDiff(diff)) {
      const parts = [
        ...(diff.changed.length > 0 ? [`changed: ${namesLine(diff.changed)}`] : []),
        ...(diff.added.length > 0 ? [`added: ${namesLine(diff.added)}`] : []),
        ...(diff.removed.length > 0 ? [`removed: ${namesLine(diff.removed)}`] : [])
      ]
      yield* Console.error(`tool-map: tool definitions differ from the last recorded build (${parts.join("; ")})`)
    }
  }
  yield* builds.record(files, catalog).pipe(Effect.catchAll((error) => warn(fileWarning(error))))
})

/**
 * The recorded build, `None` when there is none: one not valid (kept aside) or that cannot be
 * read is a warning of the run, and counts as none.
 */
const readRecordedBuild = (files: BuildRecordFiles) =>
  Effect.flatMap(RecordedBuilds, (builds) => builds.read(files)).pipe(
    Effect.tap((found) => (found._tag === "Corrupt" ? warn(corruptWarning(found.corrupt)) : Effect.void)),
    Effect.map((found) => (found._tag === "Found" ? Option.some(found.value) : Option.none())),
    Effect.catchAll((error) => Effect.as(warn(fileWarning(error)), Option.none()))
  )

/** How many names a one-line list spells out. */
const NAMES_IN_A_LINE = 20

/** Tool names in one line of text: each neutralized and cut, at most {@link NAMES_IN_A_LINE}, then how many more. */
const namesLine = (names: ReadonlyArray<string>): string =>
  `${names.slice(0, NAMES_IN_A_LINE).map(shownName).join(", ")}${names.length > NAMES_IN_A_LINE ? ` … and ${names.length - NAMES_IN_A_LINE} more` : ""}`

const toolJson = (tool: ToolEntry, loaded: boolean) => ({
  name: tool.name,
  path: tool.path,
  summary: tool.summary,
  tokens: tool.tokens,
  highRisk: tool.highRisk,
  loaded,
  flags: tool.flags
})

/** The JSON of `catalog ls` for a node. */
export const listingJson = (catalog: Catalog, node: CatalogNode, loaded: (name: string) => boolean) => {
  const counts = (tools: ReadonlyArray<ToolEntry>) => ({
    tools: tools.length,
    loaded: tools.filter((tool) => loaded(tool.name)).length,
    tokens: tools.reduce((sum, tool) => sum + tool.tokens, 0)
  })
  switch (node.kind) {
    case "root":
      return {
        kind: "root" as const,
        path: "/",
        categories: [...catalog.categories.values()].filter((category) => category.toolCount > 0).map((category) => ({
          name: category.name,
          path: category.path,
          description: category.description,
          ...counts(category.children.flatMap((group) => group.children))
        })),
        aliases: [...catalog.aliases.values()].map((alias) => ({
          name: alias.name,
          path: alias.path,
          description: alias.description,
          ...counts(alias.children)
        }))
      }
    case "category":
      return {
        kind: "category" as const,
        path: node.path,
        description: node.description,
        groups: node.children.map((group) => ({ name: group.name, path: group.path, ...counts(group.children) }))
      }
    case "group":
    case "alias":
      return { kind: node.kind, path: node.path, tools: node.children.map((tool) => toolJson(tool, loaded(tool.name))) }
    case "tool":
      return {
        kind: "tool" as const,
        path: node.path,
        tool: { ...toolJson(node, loaded(node.name)), description: node.description, riskEvidence: node.riskEvidence }
      }
  }
}

const notFoundTargets = (notes: ReadonlyArray<{ readonly _tag: string; readonly target?: string }>) =>
  notes.flatMap((note) => (note._tag === "NotFound" && note.target !== undefined ? [note.target] : []))

/**
 * Runs `catalog load` or `unload` for the session's agent: prints what `change` did (its text,
 * or JSON with `fields` after the agent), then fails on the targets that named nothing.
 */
const changeLoaded = <R extends LoadResult | UnloadResult>(
  command: "load" | "unload",
  flags: { readonly targets: ReadonlyArray<string>; readonly json: boolean },
  change: (catalog: ToolCatalog["Type"], agent: Agent) => Effect.Effect<R>,
  fields: (result: R) => Readonly<Record<string, ReadonlyArray<string>>>
) =>
  reportingWarnings(Effect.gen(function*() {
    yield* rejectFlags(command, flags.targets)
    const catalog = yield* ToolCatalog
    const { agent } = yield* CatalogCliSession
    yield* recordBuild
    const result = yield* change(catalog, agent)
    // Kept only in this process's memory, the change is lost when it exits: no "Loaded" then.
    const notSaved = (yield* catalog.diagnostics).some((warning) => warning.kind === "state-provider-failed")
    if (notSaved && !flags.json) return yield* new CatalogStateNotSaved({ command, agent: agent.id })
    if (flags.json) {
      yield* printCatalogJson({
        agent: agent.id,
        ...fields(result),
        notes: result.notes.map((note) => renderNote(note, command, CLI_WORDING)),
        refused: Option.getOrNull(result.refused),
        allow: Option.getOrNull(yield* catalog.allowFor(agent))
      })
    } else {
      yield* Console.log(result.text)
    }
    if (notSaved) return yield* new CatalogStateNotSaved({ command, agent: agent.id })
    const missing = notFoundTargets(result.notes)
    if (missing.length > 0) return yield* new CatalogTargetNotFound({ targets: missing })
  }))

/** What changed in one definition, as the end of its line: the parts, or that it changed when the record kept none. */
export const changeText = (change: DefinitionChange): string => {
  if (!change.known) return "definition changed (its recorded definition is not at hand to compare)"
  const list = (label: string, fields: ReadonlyArray<string>) => (fields.length === 0 ? [] : [`${label}: ${fields.join(", ")}`])
  const parts = [
    ...(change.title ? ["title changed"] : []),
    ...(change.description ? ["description changed"] : []),
    ...list("fields added", change.fieldsAdded),
    ...list("fields removed", change.fieldsRemoved),
    ...list("fields changed", change.fieldsChanged),
    ...(change.schema ? ["schema changed outside its fields"] : []),
    ...(change.outputSchema ? ["output schema changed"] : []),
    ...(change.annotations ? ["annotations changed"] : [])
  ]
  return parts.length === 0 ? "definition changed" : parts.join("; ")
}

/** The text of `catalog diff`. */
export const renderDiff = (
  recordedAt: string | null,
  diff: { readonly added: ReadonlyArray<string>; readonly removed: ReadonlyArray<string>; readonly changes: ReadonlyArray<DefinitionChange> }
): string => {
  const section = (label: string, lines: ReadonlyArray<string>) =>
    lines.length === 0 ? [] : [`${label} (${lines.length}):`, ...lines.map((line) => `  ${line}`)]
  const header = recordedAt === null
    ? "No build recorded yet: every tool counts as added."
    : diff.added.length === 0 && diff.removed.length === 0 && diff.changes.length === 0
    ? `No definition changed since the build recorded at ${recordedAt}.`
    : `Changes since the build recorded at ${recordedAt}:`
  // One tool a line, neutralized (not cut: the line is its own).
  return [
    header,
    ...section("changed", diff.changes.map((change) => `${change.name}: ${changeText(change)}`)),
    ...section("added", diff.added),
    ...section("removed", diff.removed)
  ]
    .map(neutralize)
    .join("\n")
}

/** The options every catalog command takes. */
export interface CatalogFlags {
  readonly agent: string
  readonly schemas: Option.Option<string>
  readonly json: boolean
}

/** `catalog ls`. */
export const ls = (flags: CatalogFlags & { readonly path: string; readonly query: Option.Option<string> }) =>
  reportingWarnings(Effect.gen(function*() {
    yield* rejectFlags("ls", [flags.path])
    const catalog = yield* ToolCatalog
    const { agent } = yield* CatalogCliSession
    const resolution = yield* catalog.resolve(flags.path, agent)
    if (resolution.kind === "unknown") {
      return yield* new CatalogPathNotFound({ path: resolution.target, suggestions: resolution.suggestions })
    }
    yield* recordBuild
    if (!flags.json) {
      // On a terminal each line fits its width (the summaries are cut with `…`); a pipe gets them whole.
      yield* printFitted(yield* catalog.list(agent, { path: flags.path, query: Option.getOrUndefined(flags.query), wording: CLI_WORDING }))
      return
    }
    const built = yield* catalog.get(agent)
    const allow = new Set(Option.getOrElse(yield* catalog.allowFor(agent), () => built.tools.map((tool) => tool.name)))
    const loaded = (name: string) => allow.has(name)
    if (Option.isSome(flags.query)) {
      const hits = yield* catalog.find(flags.query.value, flags.path, agent)
      yield* printCatalogJson({
        query: flags.query.value,
        path: flags.path,
        total: hits.length,
        tools: hits.map((hit) => ({ ...hit, loaded: loaded(hit.name) }))
      })
      return
    }
    if (resolution.kind === "resolver") {
      yield* printCatalogJson({ kind: "resolver", path: flags.path, tools: resolution.tools.map((tool) => toolJson(tool, loaded(tool.name))) })
      return
    }
    const listing = listingJson(built, resolution.node, loaded)
    if (listing.kind !== "root") return yield* printCatalogJson(listing)
    // The root names the pinned tools (always loaded, so not in the tree), as its text does.
    const config = yield* catalog.config
    const inForce = new Set(config.pinned.filter((name) => !config.entryTools.includes(name)))
    const { schemas } = yield* CatalogCliSession
    yield* printCatalogJson({ ...listing, pinned: [...new Set(schemas.map((schema) => schema.name))].filter((name) => inForce.has(name)) })
  }))

/** `catalog load`. */
export const load = (flags: CatalogFlags & { readonly targets: ReadonlyArray<string>; readonly forSubagents: boolean }) =>
  changeLoaded(
    "load",
    flags,
    // The command line is the user's own request: risk gates need not ask again.
    (catalog, agent) => catalog.load(agent, flags.targets, { forSubagents: flags.forSubagents, consented: true, wording: CLI_WORDING }),
    (result) => ({ added: result.added, denied: result.denied })
  )

/** `catalog unload`. */
export const unload = (flags: CatalogFlags & { readonly targets: ReadonlyArray<string> }) =>
  changeLoaded(
    "unload",
    flags,
    (catalog, agent) => catalog.unload(agent, flags.targets, { wording: CLI_WORDING }),
    (result) => ({ removed: result.removed })
  )

/** `catalog diff`. */
export const diff = (flags: CatalogFlags) =>
  reportingWarnings(Effect.gen(function*() {
    const session = yield* CatalogCliSession
    const catalog = yield* (yield* ToolCatalog).get()
    const files = recordFiles(session.files)
    const recorded = yield* readRecordedBuild(files)
    const { changes, ...diff } = yield* (yield* RecordedBuilds).changes(files, recorded, catalog, session.schemas)
    const recordedAt = Option.getOrNull(Option.map(recorded, (build) => build.recordedAt))
    if (flags.json) yield* printCatalogJson({ recordedAt, ...diff, changes })
    else yield* Console.log(renderDiff(recordedAt, { added: diff.added, removed: diff.removed, changes }))
  }))
