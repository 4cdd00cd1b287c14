import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Context, Effect, Either, Layer, Option, Schema, type Scope } from "effect"
import * as NodePath from "node:path"
import { type BundlePaths, historyPath, previousDigestPath, whichIndexPath } from "./location.js"
import { GENERATION_PATTERN } from "./format.js"
import { readRegularFile } from "../../services/fileRead.js"

/** A commit journal names four files: anything larger is not one of tool-map's. */
const JOURNAL_MAX_BYTES = 64 * 1024
import {
  breakMarkerPath,
  defaultFileLockOptions,
  describePlatformError as describe,
  errnoCode,
  FileLock,
  type FileLockError,
  type FileLocked,
  type FileLockOptions,
  LockOwner,
  NO_HARD_LINKS
} from "../../services/FileLock.js"

/** The steps of a commit and of a recovery, named in `BundleWriteError`. */
export const BundleStep = Schema.Literal(
  "validate",
  "create-dir",
  "lock",
  "recover",
  "stage",
  "backup",
  "journal",
  "swap",
  "sync-dir"
)
export type BundleStep = typeof BundleStep.Type

const STEP_TEXT: Readonly<Record<BundleStep, string>> = {
  validate: "checking the bundle for",
  "create-dir": "creating the output directory",
  lock: "taking the lock file",
  recover: "repairing an interrupted write at",
  stage: "writing the staged file",
  backup: "backing up",
  journal: "recording the commit journal",
  swap: "moving the new file into place at",
  "sync-dir": "flushing the directory"
}

/** A step of writing or repairing the bundle failed; the previous bundle is kept. */
export class BundleWriteError extends Schema.TaggedError<BundleWriteError>()("BundleWriteError", {
  step: BundleStep,
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `Cannot write the tool-map bundle: ${STEP_TEXT[this.step]} ${this.path} failed: ${this.reason}`
  }
}

/** Another live process holds the bundle's lock. */
export class BundleLocked extends Schema.TaggedError<BundleLocked>()("BundleLocked", {
  path: Schema.String,
  /** The holder's pid, or null when the lock file does not (yet) name one. */
  pid: Schema.NullOr(Schema.Number),
  /** When the holder took the lock (ISO 8601), when known. */
  since: Schema.NullOr(Schema.String)
}) {
  get message() {
    const holder = this.pid === null ? "another tool-map process" : `another tool-map process (pid ${this.pid})`
    return `The tool-map bundle is being written by ${holder}: ${this.path} is held. Wait for it to finish and retry; if no such process is running, delete ${this.path}.`
  }
}

/** What `recover` did. */
export const RecoveryAction = Schema.Literal("none", "cleaned", "rolled-forward", "rolled-back", "busy")
export type RecoveryAction = typeof RecoveryAction.Type

/** The outcome of `recover`, serializable into `--json` output. */
export class RecoveryReport extends Schema.Class<RecoveryReport>("RecoveryReport")({
  /**
   * `none`: nothing was pending; `cleaned`: only stray files were removed, the bundle was not
   * touched; `rolled-forward` / `rolled-back`: an interrupted commit was completed / undone;
   * `busy`: a live process holds the lock, nothing was touched.
   */
  action: RecoveryAction,
  /** The generation of the interrupted commit that was completed or undone. */
  interruptedGeneration: Schema.NullOr(Schema.String),
  /** The auxiliary files removed, by name. */
  removed: Schema.Array(Schema.String),
  /** The pid holding the lock when `busy`. */
  lockHolder: Schema.NullOr(Schema.Number)
}) {}

/** An interrupted commit that a reader found and could not repair (it may not write there). */
export class PendingRepair extends Schema.Class<PendingRepair>("PendingRepair")({
  /** The bundle's directory, where the next run that can write repairs it. */
  dir: Schema.String,
  /** The generation of the interrupted commit. */
  interruptedGeneration: Schema.String,
  /** What the repair will do: finish the commit, or undo it. */
  action: Schema.Literal("roll-forward", "roll-back")
}) {
  get message() {
    return `an interrupted write of the tool-map bundle in ${this.dir} (generation ${this.interruptedGeneration}) is not repaired yet; the bundle it will be ${this.action === "roll-forward" ? "rolled forward" : "rolled back"} to is read. The next tool-map run that can write to ${this.dir} repairs it.`
  }
}

/** Where a reader that does not write finds the consistent generation of a bundle. */
export interface ReadView {
  /**
   * The files that hold the bundle's tools.json, first choice first: the next one counts when a
   * concurrent repair moved the first away. Empty: the consistent generation is no bundle.
   */
  readonly json: ReadonlyArray<string>
  /** The same for the digest file of a bundle written before the history (`query changes` reads it). */
  readonly previous: ReadonlyArray<string>
  /** The same for the bundle's history (`query changes` reads it). */
  readonly history: ReadonlyArray<string>
  /** The repair that is pending, when a commit was interrupted. */
  readonly pending: Option.Option<PendingRepair>
}

/**
 * The new content of the bundle's files; each must carry the generation id. `previous` (the
 * digest of the generation this commit replaces, see previousDigest.ts; bundles before the
 * history) is committed with the others when given; a commit without it leaves an earlier digest
 * file, tagged with its own generation, in place. The which index (whichIndex.ts) is derived from
 * `json` and committed with them when `json` is a valid bundle; an earlier one left in place
 * names another tools.json. `history` derives the history file (history.ts) from the one in
 * place, read under the lock, so two commits never lose each other's entry.
 */
export interface BundleFiles {
  readonly json: string
  readonly markdown: string
  readonly summary: string
  readonly previous?: string
  /** The history file (history.ts), derived from the one in place. */
  readonly history?: DerivedFile
  /** The which index of `json` when the caller rendered it (`renderWhichIndexOf`); else derived here from `json`. */
  readonly which?: string
}

/** A file as a commit found it under the lock: its text, none, or why it could not be read. */
export type PriorFile = Either.Either<Option.Option<string>, string>

/**
 * A file a commit derives from the one in place: read under the lock (at most `maxBytes`), so
 * that two commits never lose each other's part, and given the commit's time. None: the commit
 * leaves it as it is.
 */
export interface DerivedFile {
  readonly maxBytes: number
  readonly next: (prior: PriorFile, committedAt: Date) => Effect.Effect<Option.Option<string>>
}

/** The lock's timing (see `FileLockOptions`); its temp files are removed by the recovery, not the lock. */
export type BundleWriterOptions = FileLockOptions

/** The defaults: wait up to 2 s for a live holder. */
export const defaultBundleWriterOptions: BundleWriterOptions = { ...defaultFileLockOptions, removeStaleTemps: false }

type Role = "json" | "markdown" | "summary" | "previous" | "which" | "history"
const ROLES: ReadonlyArray<Role> = ["json", "markdown", "summary", "previous", "which", "history"]

/** The names of a bundle's auxiliary files: dotfiles derived from its stem. */
export interface AuxNames {
  readonly lock: string
  readonly journal: string
  readonly journalTmp: string
  readonly breakMarker: (holderId: string) => string
  readonly stage: (target: string, generation: string) => string
  readonly backup: (target: string, generation: string) => string
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The auxiliary file names of a bundle (`.inv.lock`, `.inv.journal`, `.inv.md.<gen>.stage`, …). */
export const auxNames = (paths: BundlePaths): AuxNames => ({
  lock: `.${paths.stem}.lock`,
  journal: `.${paths.stem}.journal`,
  journalTmp: `.${paths.stem}.journal.tmp`,
  breakMarker: (holderId) => breakMarkerPath(`.${paths.stem}.lock`, holderId),
  stage: (target, generation) => `.${target}.${generation}.stage`,
  backup: (target, generation) => `.${target}.${generation}.bak`
})

type AuxKind = "lock" | "break-marker" | "lock-temp" | "journal" | "journal-tmp" | "stage" | "backup"

interface AuxEntry {
  readonly name: string
  readonly kind: AuxKind
}

const targetNames = (paths: BundlePaths): Record<Role, string> => ({
  json: NodePath.basename(paths.json),
  markdown: NodePath.basename(paths.markdown),
  summary: NodePath.basename(paths.summary),
  previous: NodePath.basename(previousDigestPath(paths)),
  which: NodePath.basename(whichIndexPath(paths)),
  history: NodePath.basename(historyPath(paths))
})

const auxClassifier = (paths: BundlePaths) => {
  const names = auxNames(paths)
  const targets = Object.values(targetNames(paths)).map(escapeRegExp).join("|")
  const stagedOrBackup = new RegExp(`^\\.(?:${targets})\\.[A-Za-z0-9_-]{1,128}\\.(stage|bak)$`)
  const marker = new RegExp(`^\\.${escapeRegExp(paths.stem)}\\.lock\\.[A-Za-z0-9_-]{1,128}\\.break$`)
  // The temp file a lock or break marker is written to before it is linked into place.
  const lockTemp = new RegExp(`^\\.${escapeRegExp(paths.stem)}\\.lock(?:\\.[A-Za-z0-9_-]{1,128}\\.break)?\\.[A-Za-z0-9_-]{1,128}\\.tmp$`)
  return (name: string): AuxKind | null => {
    if (name === names.lock) return "lock"
    if (name === names.journal) return "journal"
    if (name === names.journalTmp) return "journal-tmp"
    if (marker.test(name)) return "break-marker"
    if (lockTemp.test(name)) return "lock-temp"
    const match = stagedOrBackup.exec(name)
    if (match !== null) return match[1] === "stage" ? "stage" : "backup"
    return null
  }
}

const JournalEntry = Schema.Struct({
  target: Schema.String,
  stage: Schema.String,
  backup: Schema.NullOr(Schema.String)
})

const Journal = Schema.Struct({
  format: Schema.Literal("tool-map-journal/1"),
  generation: Schema.String,
  state: Schema.Literal("forward", "rollback"),
  files: Schema.Array(JournalEntry)
})
type Journal = typeof Journal.Type
const decodeJournal = Schema.decodeUnknownEither(Schema.parseJson(Journal))

const UNWRITABLE = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EEXIST"])

const dirAdvice = (dir: string) =>
  `Make ${dir} a writable directory, or write the bundle elsewhere with \`tool-map scan <writable dir>/inv.md\`.`

const isNotFound = (error: PlatformError) => error._tag === "SystemError" && error.reason === "NotFound"
/** Platforms that cannot fsync a directory refuse with one of these; nothing is lost by skipping it. */
const DIR_SYNC_REFUSALS = new Set(["EISDIR", "EINVAL", "EPERM", "ENOTSUP", "EBADF"])

const encoder = new TextEncoder()

/** The state of a listing of the output directory, updated as recovery renames and removes. */
interface Listing {
  readonly names: Set<string>
  readonly aux: ReadonlyArray<AuxEntry>
}

interface Transaction {
  journalPublishing: boolean
  committed: boolean
  journal: Journal | null
}

const makeBundleWriter = (options: BundleWriterOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const locks = yield* FileLock.make(options)

    const fail = (step: BundleStep, path: string) => (error: PlatformError) =>
      new BundleWriteError({ step, path, reason: describe(error) })
    const at = (dir: string, name: string) => NodePath.join(dir, name)

    /** Opens the directory and fsyncs it, so that renames and removals in it are durable. */
    const syncDir = (dir: string) =>
      Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (file) => file.sync)).pipe(
        Effect.catchIf(
          (error) => DIR_SYNC_REFUSALS.has(errnoCode(error) ?? ""),
          () => Effect.void
        ),
        Effect.mapError(fail("sync-dir", dir))
      )

    /** Writes a file and fsyncs it before returning. */
    const writeDurable = (path: string, content: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const file = yield* fs.open(path, { flag: "w" })
          yield* file.writeAll(encoder.encode(content))
          yield* file.sync
        })
      )

    const removeIfPresent = (path: string, step: BundleStep) =>
      fs.remove(path, { force: true }).pipe(Effect.mapError(fail(step, path)))

    /** The directory's entries with the bundle's auxiliary files picked out; none when no dir. */
    const list = (paths: BundlePaths, step: BundleStep): Effect.Effect<Option.Option<Listing>, BundleWriteError> => {
      const classify = auxClassifier(paths)
      return fs.readDirectory(paths.dir).pipe(
        Effect.map((names) => {
          const aux: Array<AuxEntry> = []
          for (const name of names) {
            const kind = classify(name)
            if (kind !== null) aux.push({ name, kind })
          }
          return Option.some({ names: new Set(names), aux })
        }),
        Effect.catchIf(
          (error) => isNotFound(error) || errnoCode(error) === "ENOTDIR",
          () => Effect.succeedNone
        ),
        Effect.mapError(fail(step, paths.dir))
      )
    }

    // == the lock

    const lockFailed = (paths: BundlePaths) => (error: FileLockError | FileLocked): BundleWriteError | BundleLocked =>
      error._tag === "FileLocked"
        ? new BundleLocked({ path: error.path, pid: error.pid, since: error.since })
        : new BundleWriteError({
          step: "lock",
          path: error.path,
          reason: error.operation === "create" && error.code !== null && UNWRITABLE.has(error.code)
            ? `cannot create files in ${paths.dir}: ${error.reason}. ${dirAdvice(paths.dir)}`
            : error.reason
        })

    /** The lock as a scoped resource: released when the scope closes, whatever the exit. */
    const lock = (
      paths: BundlePaths
    ): Effect.Effect<{ readonly brokeStale: boolean }, BundleWriteError | BundleLocked, Scope.Scope> =>
      locks.acquire(at(paths.dir, auxNames(paths).lock)).pipe(Effect.mapError(lockFailed(paths)))

    // == recovery

    const readJournal = (paths: BundlePaths): Effect.Effect<Journal, BundleWriteError> => {
      const path = at(paths.dir, auxNames(paths).journal)
      const classify = auxClassifier(paths)
      const targets = new Set(Object.values(targetNames(paths)))
      return Effect.flatMap(
        readRegularFile(path, JOURNAL_MAX_BYTES).pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.mapError((error) => error._tag === "FileRefused" ? new BundleWriteError({ step: "recover", path, reason: error.reason }) : fail("recover", path)(error)),
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new BundleWriteError({ step: "recover", path, reason: "the commit journal disappeared while it was read" })),
            onSome: (bytes) => Effect.succeed(new TextDecoder().decode(bytes))
          }))
        ),
        (content) => {
          const decoded = decodeJournal(content)
          const valid = Either.isRight(decoded) && decoded.right.files.every((entry) =>
            targets.has(entry.target) && classify(entry.stage) === "stage" &&
            (entry.backup === null || classify(entry.backup) === "backup")
          )
          return valid
            ? Effect.succeed(decoded.right)
            : Effect.fail(
              new BundleWriteError({
                step: "recover",
                path,
                reason: `the commit journal is not a valid tool-map journal, so the interrupted write cannot be repaired safely. Check the three bundle files in ${paths.dir}, then delete ${path} and scan again.`
              })
            )
        }
      )
    }

    const renameIn = (dir: string, listing: Listing, from: string, to: string, step: BundleStep) =>
      fs.rename(at(dir, from), at(dir, to)).pipe(
        Effect.mapError(fail(step, at(dir, to))),
        Effect.tap(() => {
          listing.names.delete(from)
          listing.names.add(to)
        })
      )

    const removeIn = (dir: string, listing: Listing, name: string) =>
      removeIfPresent(at(dir, name), "recover").pipe(Effect.tap(() => listing.names.delete(name)))

    /** Completes a journaled commit: every staged file still present is moved into place. */
    const rollForward = (dir: string, listing: Listing, journal: Journal) =>
      Effect.forEach(
        journal.files,
        (entry) => listing.names.has(entry.stage) ? renameIn(dir, listing, entry.stage, entry.target, "recover") : Effect.void,
        { discard: true }
      )

    /**
     * Undoes a journaled commit: each backup goes back onto its target (a backup hard-linked to
     * a target that was never swapped is the same file: the rename is a no-op and the backup is
     * removed below), and a target that had no previous version is removed.
     */
    const rollBack = (dir: string, listing: Listing, journal: Journal) =>
      Effect.forEach(
        journal.files,
        (entry) =>
          // A stage still in place was never swapped in: its target is untouched, and renaming a
          // backup copy over it could fail where the target is not ours (a sticky directory).
          listing.names.has(entry.stage)
            ? entry.backup === null ? Effect.void : removeIn(dir, listing, entry.backup)
            : entry.backup === null
            ? removeIn(dir, listing, entry.target)
            : listing.names.has(entry.backup)
            ? Effect.zipRight(
              renameIn(dir, listing, entry.backup, entry.target, "recover"),
              removeIn(dir, listing, entry.backup)
            )
            : Effect.void,
        { discard: true }
      )

    /**
     * Repairs the bundle under the lock: finishes or undoes a journaled commit, then removes
     * every staging, backup, journal and break-marker file. Idempotent: a crash at any point of
     * it leaves a state it repairs the same way. Returns the directory names as they now are.
     */
    const recoverLocked = Effect.fn("BundleWriter.recoverLocked")(function* (paths: BundlePaths) {
      const found = yield* list(paths, "recover")
      if (Option.isNone(found)) {
        return { report: RecoveryReport.make({ action: "none", interruptedGeneration: null, removed: [], lockHolder: null }), names: new Set<string>() }
      }
      const listing = found.value
      const names = auxNames(paths)
      const hasJournal = listing.names.has(names.journal)
      let action: RecoveryAction = "none"
      let interruptedGeneration: string | null = null
      if (hasJournal) {
        const journal = yield* readJournal(paths)
        const before = new Set(listing.names)
        yield* journal.state === "forward"
          ? rollForward(paths.dir, listing, journal)
          : rollBack(paths.dir, listing, journal)
        const changed = before.size !== listing.names.size || [...before].some((name) => !listing.names.has(name))
        if (changed) yield* syncDir(paths.dir)
        action = journal.state === "forward" ? "rolled-forward" : "rolled-back"
        interruptedGeneration = journal.generation
      }
      const strays = listing.aux.filter((entry) => entry.kind !== "lock" && entry.kind !== "journal" && listing.names.has(entry.name))
      yield* Effect.forEach(strays, (entry) => removeIn(paths.dir, listing, entry.name), { discard: true })
      if (hasJournal) yield* removeIn(paths.dir, listing, names.journal)
      if (hasJournal || strays.length > 0) yield* syncDir(paths.dir)
      if (action === "none" && strays.length > 0) action = "cleaned"
      const removed = [...strays.map((entry) => entry.name), ...(hasJournal ? [names.journal] : [])]
      return {
        report: RecoveryReport.make({ action, interruptedGeneration, removed, lockHolder: null }),
        names: listing.names
      }
    })

    const recover = Effect.fn("BundleWriter.recover")(function* (paths: BundlePaths) {
      const found = yield* list(paths, "recover")
      if (Option.isNone(found) || found.value.aux.length === 0) {
        return RecoveryReport.make({ action: "none", interruptedGeneration: null, removed: [], lockHolder: null })
      }
      return yield* Effect.scoped(
        Effect.gen(function* () {
          const locked = yield* Effect.either(lock(paths))
          if (Either.isLeft(locked)) {
            const error = locked.left
            // Without a journal no swap has begun: the bundle is whole and only strays wait to be
            // removed, which a reader that cannot take the lock (a read-only directory) may skip.
            const journaled = found.value.aux.some((entry) => entry.kind === "journal")
            if (error._tag === "BundleWriteError" && !journaled) {
              return RecoveryReport.make({ action: "none", interruptedGeneration: null, removed: [], lockHolder: null })
            }
            if (error._tag === "BundleWriteError") return yield* error
            return RecoveryReport.make({ action: "busy", interruptedGeneration: null, removed: [], lockHolder: error.pid })
          }
          const { report } = yield* recoverLocked(paths)
          if (!locked.right.brokeStale) return report
          // A stale lock broken on the way is a stray removed.
          return RecoveryReport.make({
            ...report,
            action: report.action === "none" ? "cleaned" : report.action,
            removed: [auxNames(paths).lock, ...report.removed]
          })
        })
      )
    })

    /**
     * The tools.json (and digest file) of the generation a repair would leave, found without
     * writing: after a forward journal the staged file (else the target, already swapped), after
     * a rollback journal the backup (else the target, never swapped), or nothing when the
     * rolled-back commit had no previous version of that file.
     */
    const readView = Effect.fn("BundleWriter.readView")(function* (paths: BundlePaths) {
      const found = yield* list(paths, "recover")
      const names = auxNames(paths)
      const previous = previousDigestPath(paths)
      const history = historyPath(paths)
      if (Option.isNone(found) || !found.value.names.has(names.journal)) {
        return { json: [paths.json], previous: [previous], history: [history], pending: Option.none() } satisfies ReadView
      }
      const journal = yield* readJournal(paths)
      const present = found.value.names
      const forward = journal.state === "forward"
      const view = (role: Role, target: string): ReadonlyArray<string> => {
        const entry = journal.files.find((file) => file.target === targetNames(paths)[role])
        return entry === undefined
          ? [target]
          : forward
          ? present.has(entry.stage) ? [at(paths.dir, entry.stage), target] : [target]
          : present.has(entry.stage)
          ? [target]
          : entry.backup === null
          ? []
          : [at(paths.dir, entry.backup), target]
      }
      const pending = PendingRepair.make({ dir: paths.dir, interruptedGeneration: journal.generation, action: forward ? "roll-forward" : "roll-back" })
      return { json: view("json", paths.json), previous: view("previous", previous), history: view("history", history), pending: Option.some(pending) } satisfies ReadView
    })

    // == commit

    /** Writes the journal durably: to a temp name, fsynced, renamed into place, dir fsynced. */
    const writeJournalTmp = (paths: BundlePaths, journal: Journal) => {
      const tmp = at(paths.dir, auxNames(paths).journalTmp)
      return writeDurable(tmp, `${JSON.stringify(journal)}\n`).pipe(Effect.mapError(fail("journal", tmp)))
    }
    const publishJournal = (paths: BundlePaths) => {
      const names = auxNames(paths)
      return fs.rename(at(paths.dir, names.journalTmp), at(paths.dir, names.journal)).pipe(
        Effect.mapError(fail("journal", at(paths.dir, names.journal))),
        Effect.zipRight(syncDir(paths.dir))
      )
    }

    /**
     * The release of the commit transaction. After the swap: remove backups and journal
     * (a failure here only leaves files the next run removes). Before it: record the rollback
     * decision durably when a journal may be in place, then undo through the recovery itself.
     */
    const finish = (paths: BundlePaths, tx: Transaction) => {
      const undo = tx.journalPublishing && tx.journal !== null
        ? Effect.zipRight(
          Effect.zipRight(writeJournalTmp(paths, { ...tx.journal, state: "rollback" }), publishJournal(paths)),
          recoverLocked(paths)
        )
        : recoverLocked(paths)
      return (tx.committed ? recoverLocked(paths) : undo).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(
            `tool-map could not ${tx.committed ? "clean up after" : "undo"} the write of ${paths.markdown}: ${error.message}. The next tool-map run repairs it.`
          )
        )
      )
    }

    const ensureDir = (dir: string) =>
      fs.makeDirectory(dir, { recursive: true }).pipe(
        Effect.mapError((error) =>
          new BundleWriteError({
            step: "create-dir",
            path: dir,
            reason: `${errnoCode(error) === "EEXIST" ? "it exists and is not a directory (EEXIST)" : describe(error)}. ${dirAdvice(dir)}`
          })
        )
      )

    const backupOf = (source: string, backup: string) =>
      fs.link(source, backup).pipe(
        Effect.catchIf(
          (error) => NO_HARD_LINKS.has(errnoCode(error) ?? ""),
          () =>
            Effect.zipRight(
              fs.copyFile(source, backup),
              Effect.scoped(Effect.flatMap(fs.open(backup, { flag: "r" }), (file) => file.sync))
            )
        ),
        Effect.mapError(fail("backup", source))
      )

    /** A file a commit derives from its content in place: its text, none, or why it could not be read. */
    const readPrior = (path: string, maxBytes: number): Effect.Effect<PriorFile> =>
      readRegularFile(path, maxBytes).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.map((bytes): PriorFile => Either.right(Option.map(bytes, (found) => new TextDecoder().decode(found)))),
        Effect.catchAll((error) => Effect.succeed<PriorFile>(Either.left(error._tag === "FileRefused" ? error.reason : describe(error))))
      )

    const commit = Effect.fn("BundleWriter.commit")(function* (
      paths: BundlePaths,
      generation: string,
      files: BundleFiles
    ) {
      if (!GENERATION_PATTERN.test(generation)) {
        return yield* new BundleWriteError({
          step: "validate",
          path: paths.markdown,
          reason: `the generation id ${JSON.stringify(generation)} is not 1 to 128 letters, digits, "-" or "_"`
        })
      }
      yield* ensureDir(paths.dir)
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* lock(paths)
          const { names: present } = yield* recoverLocked(paths)
          const tx = yield* Effect.acquireRelease(
            Effect.sync((): Transaction => ({ journalPublishing: false, committed: false, journal: null })),
            (tx) => finish(paths, tx)
          )
          const names = auxNames(paths)
          const targets = targetNames(paths)
          // The which index belongs to the very tools.json committed: a scan renders it from the
          // inventory it encoded, any other caller gets it derived here (none for other content).
          const which = files.which ?? Option.getOrUndefined(
            (yield* Effect.promise(() => import("./inventoryDecode.js"))).renderWhichIndex(files.json)
          )
          const derived = files.history
          const history = derived === undefined
            ? undefined
            : Option.getOrUndefined(yield* derived.next(yield* readPrior(historyPath(paths), derived.maxBytes), new Date(yield* Clock.currentTimeMillis)))
          const contents: Readonly<Record<Role, string | undefined>> = {
            json: files.json,
            markdown: files.markdown,
            summary: files.summary,
            previous: files.previous,
            which,
            history
          }
          const entries = ROLES.flatMap((role) => {
            const content = contents[role]
            return content === undefined ? [] : [{
              content,
              target: targets[role],
              stage: names.stage(targets[role], generation),
              backup: present.has(targets[role]) ? names.backup(targets[role], generation) : null
            }]
          })
          for (const entry of entries) {
            const stagePath = at(paths.dir, entry.stage)
            yield* writeDurable(stagePath, entry.content).pipe(Effect.mapError(fail("stage", stagePath)))
          }
          for (const entry of entries) {
            if (entry.backup !== null) yield* backupOf(at(paths.dir, entry.target), at(paths.dir, entry.backup))
          }
          yield* syncDir(paths.dir)
          const journal: Journal = {
            format: "tool-map-journal/1",
            generation,
            state: "forward",
            files: entries.map(({ backup, stage, target }) => ({ target, stage, backup }))
          }
          tx.journal = journal
          yield* writeJournalTmp(paths, journal)
          tx.journalPublishing = true
          yield* publishJournal(paths)
          for (const entry of entries) {
            yield* fs.rename(at(paths.dir, entry.stage), at(paths.dir, entry.target)).pipe(
              Effect.mapError(fail("swap", at(paths.dir, entry.target)))
            )
          }
          yield* syncDir(paths.dir)
          tx.committed = true
        })
      )
    })

    return BundleWriter.of({ commit, recover, readView })
  })

/** Writes the files of a bundle as one atomic commit, and repairs interrupted ones. */
export class BundleWriter extends Context.Tag("tool-map/BundleWriter")<BundleWriter, {
  /**
   * Writes the bundle: under the lock, after repairing any earlier interrupted commit, stages
   * and fsyncs the new files next to their targets, backs up the old ones, journals the intent,
   * swaps the files in and cleans up. A failure at any step restores the previous bundle.
   */
  readonly commit: (
    paths: BundlePaths,
    generation: string,
    files: BundleFiles
  ) => Effect.Effect<void, BundleWriteError | BundleLocked>
  /**
   * Repairs a commit interrupted by a crash (rolls it forward or back to one consistent
   * generation) and removes every auxiliary file. Idempotent; one directory listing when
   * nothing is pending.
   */
  readonly recover: (paths: BundlePaths) => Effect.Effect<RecoveryReport, BundleWriteError>
  /**
   * For a reader that may not or cannot write (a read-only directory, `--from`): where the
   * consistent generation's tools.json is, and the repair that is pending. Takes no lock and
   * touches nothing; an invalid journal is an error, as for `recover`.
   */
  readonly readView: (paths: BundlePaths) => Effect.Effect<ReadView, BundleWriteError>
}>() {
  /** A writer with the given lock timing, for this FileSystem and LockOwner. */
  static readonly make = (options: Partial<BundleWriterOptions> = {}) =>
    makeBundleWriter({ ...defaultBundleWriterOptions, ...options })
  /** A writer over the given FileSystem and this process's lock identity. */
  static readonly layerWith = (options: Partial<BundleWriterOptions> = {}) =>
    Layer.effect(BundleWriter, BundleWriter.make(options))
  /** The live writer: requires the platform FileSystem; the lock names this process's pid. */
  static readonly layer = BundleWriter.layerWith().pipe(Layer.provide(LockOwner.layer))
}
