import type { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Exit, Layer, Option, Ref, Stream, SynchronizedRef } from "effect"
import { buildKeyInHead, Manifest, MANIFEST_HEAD_BYTES, manifestOf } from "../core/manifest.js"
import { jsonFileText, writeFileAtomic } from "../stores/jsonFile.js"
import { readHead } from "../../services/fileRead.js"
import { AgentSessions } from "./AgentSessions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogEvents } from "../stores/CatalogEvents.js"

/** The build key in the head of the manifest file; `None` when there is no file or no key in it. */
const writtenBuildKey = (path: string) =>
  readHead(path, MANIFEST_HEAD_BYTES).pipe(
    Effect.map(Option.flatMap((head) => buildKeyInHead(new TextDecoder().decode(head)))),
    // A missing or unreadable file (a FIFO or a device is not read) only means the next build is written.
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.withSpan("ManifestWriter.writtenBuildKey")
  )

const make = (path: string) =>
  Effect.gen(function*() {
    const builds = yield* CatalogBuilds
    const sessions = yield* AgentSessions
    const events = yield* CatalogEvents
    const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    // The build key the writer is done with: the one the file holds, or one whose write failed
    // (tried once a process: one warning, not one per revision; the next process tries again).
    const written = yield* SynchronizedRef.make(yield* writtenBuildKey(path))
    // The builds' revision the file was last brought up to, so the finalizer knows what is left.
    const handled = yield* Ref.make(0)

    const write = Effect.fn("ManifestWriter.write")(function*(last: Option.Option<string>) {
      // Under the sessions' lock the host's build is not raced by a refresh building it too.
      const build = yield* sessions.exclusive(builds.get(Option.none()))
      if (Option.contains(last, build.buildKey)) return last
      const now = new Date(yield* Clock.currentTimeMillis).toISOString()
      // Every field is a plain JSON value: the manifest is its own encoding, no Schema pass needed.
      const encoded: typeof Manifest.Encoded = manifestOf(build.catalog, now, build.buildKey)
      return yield* writeFileAtomic(path, jsonFileText(encoded)).pipe(
        Effect.as(Option.some(build.buildKey)),
        Effect.catchAll((error) =>
          Effect.as(events.warn({ kind: "write-failed", subject: path, message: error.message }), Option.some(build.buildKey))
        ),
        Effect.provide(platform)
      )
    })

    // Interruptible (SIGTERM must not wait for a build): an interrupted write leaves the old file
    // and no temp file (writeFileAtomic), and the finalizer below settles what is left.
    const settle = (revision: number) =>
      SynchronizedRef.updateEffect(written, write).pipe(Effect.zipRight(Ref.set(handled, revision)))

    yield* builds.revisions.pipe(
      Stream.filter((revision) => revision > 0),
      Stream.runForEach(settle),
      Effect.forkScoped
    )
    const settled = Effect.gen(function*() {
      const revision = yield* builds.revision
      if (revision > (yield* Ref.get(handled))) yield* settle(revision)
    })
    // A build made just before the scope closes is written before it does, unless the run was
    // interrupted: a stopped run neither builds nor writes any more.
    yield* Effect.addFinalizer((exit) => Exit.isInterrupted(exit) ? Effect.void : settled)
    return { settled }
  }).pipe(Effect.withSpan("ManifestWriter.make"))

/**
 * Keeps the manifest file in step with the whole host's catalog: follows the builds' revision
 * (bumped when any scope's build changes, which is when `CatalogRebuilt` or `DefinitionsChanged`
 * may have been published) and rewrites the file only when the host's build key differs from
 * the one the file holds, read once from its head. A failed write is a warning, never a failure.
 */
export class ManifestWriter extends Context.Tag("tool-map/ManifestWriter")<ManifestWriter, {
  /**
   * Brings the file up to the builds' revision now, instead of in the background or when the
   * scope closes: a command that reports its warnings (a failed write among them) settles first.
   */
  readonly settled: Effect.Effect<void>
}>() {
  /** The writer for `file`; `None` writes no manifest. */
  static readonly layer = (file: Option.Option<string>): Layer.Layer<
    ManifestWriter,
    never,
    CatalogBuilds | AgentSessions | CatalogEvents | FileSystem.FileSystem | Path.Path
  > =>
    Option.match(file, {
      onNone: () => Layer.succeed(this, { settled: Effect.void }),
      onSome: (path) => Layer.scoped(this, make(path))
    })
}
