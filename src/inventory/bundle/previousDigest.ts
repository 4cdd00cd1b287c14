import type { FileSystem } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { readRegularFile } from "../../services/fileRead.js"
import { compileDecoder, type Decoder, fastEncodeSync, UNDECIDED } from "../../platform/schemaFastPath.js"
import { digestOfParsed, GenerationDigest } from "../domain/drift.js"
import { cleanerFor } from "../domain/untrusted.js"
import { BundleReadError } from "./errors.js"
import { parseJson } from "./format.js"
import type { BundlePaths } from "./location.js"

/** The largest tools.json whose digest a scan reads back: V8's longest string is about 512 MiB. */
const PREVIOUS_JSON_MAX_BYTES = 256 * 1024 * 1024

/**
 * The digest of the generation a commit to `paths` replaces (issue 14, drift): read from its
 * tools.json before the commit, so the new bundle carries it atomically with the rest. None when
 * there is no bundle yet, or its tools.json cannot be read or is not a tool-map bundle (the first
 * scan after that has nothing to compare with; nothing fails because of it).
 */
export const previousDigest = (paths: BundlePaths): Effect.Effect<Option.Option<GenerationDigest>, never, FileSystem.FileSystem> =>
  readRegularFile(paths.json, PREVIOUS_JSON_MAX_BYTES).pipe(
    Effect.map(Option.flatMap((bytes) => parseJson(new TextDecoder().decode(bytes)))),
    Effect.map(Option.flatMap(digestOfParsed)),
    Effect.orElseSucceed(() => Option.none<GenerationDigest>()),
    Effect.withSpan("previousDigest")
  )

/**
 * The bundle's digest file (`tools.previous.json`, see previousDigestPath): the digest of the
 * generation `generation` replaced. Tagged with the generation it belongs to, so that a digest
 * file left by an earlier commit (one that had no previous generation to record) is never taken
 * for this bundle's.
 */
export const PreviousDigestFile = Schema.Struct({
  generation: Schema.String,
  previous: GenerationDigest
})
export type PreviousDigestFile = typeof PreviousDigestFile.Type

const encodeFile = fastEncodeSync(PreviousDigestFile)
const cleanDigest = cleanerFor(GenerationDigest)

/** The text of the digest file of the bundle of `generation`, every string through the bundle's one cleaning rule. */
export const renderPreviousDigest = (generation: string, previous: GenerationDigest): string =>
  `${JSON.stringify(encodeFile({ generation, previous: cleanDigest(previous) }), null, 1)}\n`

/** A digest file is small (a name, a path and a version per tool): anything larger is not one of tool-map's. */
const PREVIOUS_DIGEST_MAX_BYTES = 64 * 1024 * 1024

// Built on first use: only `query changes` reads a digest file.
let decodeQuickly: Decoder | undefined
let decodeWithEffect: ((parsed: unknown) => Either.Either<PreviousDigestFile, unknown>) | undefined

/** The digest file a parsed text holds, or none when it is not one (the fast decoder first, Effect's when it cannot vouch). */
const decodeParsed = (parsed: unknown): Option.Option<PreviousDigestFile> => {
  const quick = Option.liftThrowable(() => (decodeQuickly ??= compileDecoder(PreviousDigestFile.ast))(parsed))()
  if (Option.isSome(quick) && quick.value !== UNDECIDED) return Option.some(quick.value as PreviousDigestFile)
  return Either.getRight((decodeWithEffect ??= Schema.decodeUnknownEither(PreviousDigestFile))(parsed))
}

/** The digest file a text holds, or none when it is not one. */
export const decodePreviousDigest = (text: string): Option.Option<PreviousDigestFile> => Option.flatMap(parseJson(text), decodeParsed)

/**
 * The digest of the generation before `generation`, from the first of `files` (the digest file
 * of a bundle, or where a pending repair would put it) that exists. None when none exists or the
 * one found belongs to another generation; a file that is not a digest file is a
 * {@link BundleReadError}.
 */
export const readPreviousDigest = (
  files: ReadonlyArray<string>,
  generation: string
): Effect.Effect<Option.Option<GenerationDigest>, BundleReadError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    for (const file of files) {
      const bytes = yield* readRegularFile(file, PREVIOUS_DIGEST_MAX_BYTES).pipe(
        Effect.mapError((error) => new BundleReadError({ path: file, reason: error._tag === "FileRefused" ? error.reason : error.message }))
      )
      if (Option.isNone(bytes)) continue
      const decoded = decodePreviousDigest(new TextDecoder().decode(bytes.value))
      if (Option.isNone(decoded)) {
        return yield* new BundleReadError({
          path: file,
          reason: "it is not the digest of a tool-map generation (corrupt or from an incompatible version); the next `tool-map scan` replaces it"
        })
      }
      return decoded.value.generation === generation ? Option.some(decoded.value.previous) : Option.none()
    }
    return Option.none<GenerationDigest>()
  }).pipe(Effect.withSpan("readPreviousDigest"))
