import type { FileSystem } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { readRegularFile } from "../../services/fileRead.js"
import { compileDecoder, type Decoder, UNDECIDED } from "../../platform/schemaFastPath.js"
import { digestOfParsed, GenerationDigest } from "../domain/drift.js"
import { BundleReadError } from "./errors.js"
import { parseJson } from "./format.js"
import type { BundlePaths } from "./location.js"

/** The largest tools.json whose digest a scan reads back: V8's longest string is about 512 MiB. */
const PREVIOUS_JSON_MAX_BYTES = 256 * 1024 * 1024

/**
 * The digest of the generation a commit to `paths` replaces (issue 14, drift): read from its
 * tools.json while the scan runs, for the summary's changes and to start the history of a bundle
 * written before tool-map kept one (history.ts). None when there is no bundle yet, or its
 * tools.json cannot be read or is not a tool-map bundle (nothing fails because of it).
 */
export const previousDigest = (paths: BundlePaths): Effect.Effect<Option.Option<GenerationDigest>, never, FileSystem.FileSystem> =>
  readRegularFile(paths.json, PREVIOUS_JSON_MAX_BYTES).pipe(
    Effect.map(Option.flatMap((bytes) => parseJson(new TextDecoder().decode(bytes)))),
    Effect.map(Option.flatMap(digestOfParsed)),
    Effect.orElseSucceed(() => Option.none<GenerationDigest>()),
    Effect.withSpan("previousDigest")
  )

/**
 * The digest file of a bundle written before the history (`tools.previous.json`, see
 * previousDigestPath): the digest of the generation `generation` replaced. Tagged with the
 * generation it belongs to, so that a digest file left by an earlier commit is never taken for
 * this bundle's. Read only: the history (history.ts) replaced it.
 */
export const PreviousDigestFile = Schema.Struct({
  generation: Schema.String,
  previous: GenerationDigest
})
export type PreviousDigestFile = typeof PreviousDigestFile.Type

/** A digest file is small (a name, a path and a version per tool): anything larger is not one of tool-map's. */
export const PREVIOUS_DIGEST_MAX_BYTES = 64 * 1024 * 1024

/**
 * The decoder of a bundle file's parsed JSON: the fast decoder first, Effect's when it cannot
 * vouch; none when the value is not one. Built on first use: only `query changes` and a commit
 * read these files.
 */
export const lazyDecoder = <A, I>(schema: Schema.Schema<A, I>): ((parsed: unknown) => Option.Option<A>) => {
  let decodeQuickly: Decoder | undefined
  let decodeWithEffect: ((parsed: unknown) => Either.Either<A, unknown>) | undefined
  return (parsed) => {
    const quick = Option.liftThrowable(() => (decodeQuickly ??= compileDecoder(schema.ast))(parsed))()
    if (Option.isSome(quick) && quick.value !== UNDECIDED) return Option.some(quick.value as A)
    return Either.getRight((decodeWithEffect ??= Schema.decodeUnknownEither(schema))(parsed))
  }
}

const decodeParsed = lazyDecoder(PreviousDigestFile)

/** The digest file a text holds, or none when it is not one. */
export const decodePreviousDigest = (text: string): Option.Option<PreviousDigestFile> => Option.flatMap(parseJson(text), decodeParsed)

/**
 * The file of the bundle of `generation` that the first of `files` to exist holds (the bundle's
 * own, or where a pending repair would put it), decoded by `decode` (a reader's capped read of
 * at most `maxBytes`). None when none exists or the one found belongs to another generation (its
 * `generation` field); one that `decode` refuses is a {@link BundleReadError} saying `notOne`.
 */
export const readFileOfGeneration = <A extends { readonly generation: string }>(
  files: ReadonlyArray<string>,
  generation: string,
  maxBytes: number,
  decode: (text: string) => Option.Option<A>,
  notOne: string
): Effect.Effect<Option.Option<A>, BundleReadError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    for (const file of files) {
      const bytes = yield* readRegularFile(file, maxBytes).pipe(
        Effect.mapError((error) => new BundleReadError({ path: file, reason: error._tag === "FileRefused" ? error.reason : error.message }))
      )
      if (Option.isNone(bytes)) continue
      const decoded = decode(new TextDecoder().decode(bytes.value))
      if (Option.isNone(decoded)) return yield* new BundleReadError({ path: file, reason: notOne })
      return decoded.value.generation === generation ? decoded : Option.none()
    }
    return Option.none<A>()
  })

/**
 * The digest of the generation before `generation`, from the digest file of a bundle written
 * before the history (see {@link readFileOfGeneration}).
 */
export const readPreviousDigest = (
  files: ReadonlyArray<string>,
  generation: string
): Effect.Effect<Option.Option<GenerationDigest>, BundleReadError, FileSystem.FileSystem> =>
  readFileOfGeneration(
    files,
    generation,
    PREVIOUS_DIGEST_MAX_BYTES,
    decodePreviousDigest,
    "it is not the digest of a tool-map generation (corrupt or from an incompatible version); the next `tool-map scan` replaces it"
  ).pipe(Effect.map(Option.map((file) => file.previous)), Effect.withSpan("readPreviousDigest"))
