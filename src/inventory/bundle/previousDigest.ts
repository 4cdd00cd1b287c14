import type { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import { readRegularFile } from "../../services/fileRead.js"
import { digestOfParsed, type GenerationDigest } from "../domain/drift.js"
import type { BundlePaths } from "./location.js"

/** The largest tools.json whose digest a scan reads back: V8's longest string is about 512 MiB. */
const PREVIOUS_JSON_MAX_BYTES = 256 * 1024 * 1024

const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

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
