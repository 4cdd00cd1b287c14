import { FileSystem } from "@effect/platform"
import { Context, Effect, Either, Layer, Option } from "effect"
import { isSynchronous } from "../../platform/SyncNodeFileSystem.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { yieldToEventLoop } from "../../services/eventLoop.js"
import { readHead, readRegularFile } from "../../services/fileRead.js"
import { TOOL_MAP_VERSION } from "../../version.js"
import type { Inventory } from "../domain/inventory.js"
import { envValue } from "../domain/machine.js"
import { WatchedInput, WatchSet } from "../domain/watch.js"
import { BundleReadError, RedirectPathInvalid } from "./errors.js"
import { decodeRecordedBundle, MARKER_BYTES, type RecordedBundle, readGeneration } from "./format.js"
import { defaultDataDir } from "../domain/dataDir.js"
import { bundleCandidatesFor, type BundlePaths, bundlePathsForDir, bundlePathsForRedirect, whichIndexPath } from "./location.js"
import { digest, staleReason } from "./staleness.js"
import { jsonDigest, readWhichIndex, type WhichIndex } from "./whichIndex.js"

/** What {@link Bundle} `staleness` found. */
export interface Staleness {
  /** Why the bundle must be rebuilt, or none when it is up to date. */
  readonly reason: Option.Option<string>
  /** The generation tools.json records; when up to date, the generation all three files carry. */
  readonly generation: Option.Option<string>
}

/** Values built from typed parts: the run-time validation of the Schema classes is skipped. */
const TYPED = { disableValidation: true } as const

/**
 * The largest tools.json read back: V8's longest string is 2^29 - 24 characters, and a bundle
 * of 50,000 tools is about 30 MB.
 */
export const BUNDLE_JSON_MAX_BYTES = 256 * 1024 * 1024

const isNotFound = (error: { readonly _tag: string; readonly reason?: unknown }) =>
  error._tag === "SystemError" && error.reason === "NotFound"

const make = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const host = yield* MachineEnvironment

  const fingerprint = {
    toolMapVersion: TOOL_MAP_VERSION,
    pathVariable: digest(envValue(host, "PATH") ?? ""),
    extraRoots: digest(envValue(host, "TOOL_MAP_ROOTS") ?? "")
  }

  /** The current stat state of a watched path: changes when the entry's contents or metadata do. */
  const inputState = (path: string) =>
    fs.stat(path).pipe(
      Effect.map((info) =>
        `${info.type}:${Option.getOrElse(Option.map(info.mtime, (date) => date.getTime()), () => 0)}:${info.size}:${Option.getOrElse(info.ino, () => 0)}`
      ),
      Effect.catchAll((error) => Effect.succeed(isNotFound(error) ? "missing" : `error:${error._tag === "SystemError" ? error.reason : "bad-argument"}`))
    )

  // Over a synchronous file system each stat is done when it returns: a fiber each only costs.
  const statConcurrency = isSynchronous(fs) ? 1 : 32

  const inputStates = (paths: ReadonlyArray<string>) =>
    Effect.forEach([...new Set(paths)], (path) => Effect.map(inputState(path), (state) => new WatchedInput({ path, state }, TYPED)), {
      concurrency: statConcurrency
    })

  /**
   * The bytes of a bundle's tools.json, or none when there is no such file. Anything but a
   * regular file there (a FIFO would block the read forever) is refused, as is a failed read.
   */
  const readJsonBytes = (paths: BundlePaths): Effect.Effect<Option.Option<Uint8Array>, BundleReadError> => {
    const failed = (reason: string) => new BundleReadError({ path: paths.json, reason })
    return readRegularFile(paths.json, BUNDLE_JSON_MAX_BYTES).pipe(
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.mapError((error) => failed(error._tag === "FileRefused" ? error.reason : error.message))
    )
  }

  /** The text of a bundle's tools.json, or none when there is no such file (see readJsonBytes). */
  const readJson = (paths: BundlePaths): Effect.Effect<Option.Option<string>, BundleReadError> =>
    Effect.map(readJsonBytes(paths), Option.map((bytes) => new TextDecoder().decode(bytes)))

  /**
   * The which index of the bundle when it vouches for the tools.json `json` holds (its bytes, or
   * none when there is none); none when there is no such index, or it is unreadable, old or of
   * another tools.json.
   */
  const indexFor = (paths: BundlePaths, json: Option.Option<Uint8Array>): Effect.Effect<Option.Option<WhichIndex>> =>
    Option.match(json, {
      onNone: () => Effect.succeedNone,
      onSome: (bytes) =>
        readRegularFile(whichIndexPath(paths), BUNDLE_JSON_MAX_BYTES).pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.map(Option.flatMap((index) => readWhichIndex(index, jsonDigest(bytes)))),
          Effect.orElseSucceed(Option.none<WhichIndex>)
        )
    })

  /**
   * The watch set and generation tools.json records, or none when it cannot be read: from the
   * which index when it vouches for tools.json, which then is not parsed.
   */
  const recorded = (paths: BundlePaths) =>
    Effect.gen(function* () {
      const json = yield* readJsonBytes(paths)
      const index = yield* indexFor(paths, json)
      if (Option.isSome(index)) return Option.some(index.value.recorded)
      return Option.flatMap(json, (bytes) => decodeRecordedBundle(new TextDecoder().decode(bytes)))
    }).pipe(Effect.orElseSucceed(Option.none<RecordedBundle>))

  /**
   * Why the markdown files do not complete the bundle of `generation`, if they do not: one is
   * missing, not a regular file, or of another generation (deleted or edited since the scan).
   */
  const incomplete = (paths: BundlePaths, generation: Option.Option<string>) =>
    Effect.gen(function* () {
      for (const path of [paths.markdown, paths.summary]) {
        const read = yield* Effect.either(Effect.provideService(readHead(path, MARKER_BYTES), FileSystem.FileSystem, fs))
        if (read._tag === "Right" && Option.isNone(read.right)) return Option.some(`${path} is missing`)
        if (read._tag === "Left" && read.left._tag === "FileRefused") return Option.some(`${path} is not a regular file`)
        const head = read._tag === "Right" ? new TextDecoder().decode(Option.getOrThrow(read.right)) : ""
        const found = readGeneration(head)
        if (Option.isNone(generation) || found !== generation.value) return Option.some(`${path} is not of the generation ${paths.json} records`)
      }
      return Option.none<string>()
    })

  const locate = Effect.fn("Bundle.locate")(function* (target: Option.Option<string>) {
    return yield* Option.match(target, {
      onNone: () => Either.right(bundlePathsForDir(defaultDataDir(host.env, host.homedir), host.cwd)),
      onSome: (path) =>
        Either.mapLeft(bundlePathsForRedirect(path, host.cwd), (reason) => new RedirectPathInvalid({ path, reason }))
    })
  })

  const locateFrom = Effect.fn("Bundle.locateFrom")(function* (file: string) {
    return yield* Either.mapLeft(bundleCandidatesFor(file, host.cwd), (reason) => new RedirectPathInvalid({ path: file, reason }))
  })

  const read = Effect.fn("Bundle.read")(function* (paths: BundlePaths) {
    const text = yield* readJson(paths)
    if (Option.isNone(text)) return Option.none<Inventory>()
    // The inventory's classes are evaluated when a whole bundle is first read, not at every start.
    const { decodeParsedInventory, parseInventoryJson } = yield* Effect.promise(() => import("./inventoryDecode.js"))
    // Parsing and decoding a large bundle take a second or so each: SIGTERM is seen between them.
    yield* yieldToEventLoop
    const parsed = parseInventoryJson(text.value)
    yield* yieldToEventLoop
    const inventory = Option.flatMap(parsed, decodeParsedInventory)
    if (Option.isNone(inventory)) {
      return yield* new BundleReadError({
        path: paths.json,
        reason: "it is not a valid tool-map bundle (corrupt or from an incompatible version); run `tool-map scan --force` to rebuild it"
      })
    }
    return inventory
  })

  const snapshot = Effect.fn("Bundle.snapshot")(function* (paths: ReadonlyArray<string>) {
    return new WatchSet({ ...fingerprint, inputs: yield* inputStates(paths) }, TYPED)
  })

  const changedSince = Effect.fn("Bundle.changedSince")(function* (watch: WatchSet) {
    const current = yield* inputStates(watch.inputs.map((input) => input.path))
    const states = new Map(current.map((input) => [input.path, input.state] as const))
    return staleReason(watch, { ...fingerprint, stateOf: (path) => states.get(path) ?? "missing" })
  })

  const stalenessOf = Effect.fn("Bundle.stalenessOf")(function* (paths: BundlePaths, found: Option.Option<RecordedBundle>) {
    if (Option.isNone(found)) return { reason: Option.some("no readable bundle yet"), generation: Option.none() } satisfies Staleness
    const { generation, watch } = found.value
    const missing = yield* incomplete(paths, generation)
    if (Option.isSome(missing)) return { reason: missing, generation } satisfies Staleness
    return { reason: yield* changedSince(watch), generation } satisfies Staleness
  })

  const staleness = Effect.fn("Bundle.staleness")(function* (paths: BundlePaths) {
    return yield* stalenessOf(paths, yield* recorded(paths))
  })

  const generation = Effect.fn("Bundle.generation")(function* (paths: BundlePaths) {
    const found = yield* recorded(paths)
    if (Option.isNone(found)) return Option.none<string>()
    return Option.isNone(yield* incomplete(paths, found.value.generation)) ? found.value.generation : Option.none<string>()
  })

  const whichIndex = Effect.fn("Bundle.whichIndex")(function* (paths: BundlePaths) {
    return yield* indexFor(paths, yield* readJsonBytes(paths))
  })

  return Bundle.of({ locate, locateFrom, read, whichIndex, snapshot, changedSince, staleness, stalenessOf, generation })
})

/**
 * The one owner of the bundle on disk, for reading: where it is, what it holds, whether it is
 * up to date. Writing it (commit, recovery, lock) is `BundleWriter`'s.
 */
export class Bundle extends Context.Tag("tool-map/Bundle")<Bundle, {
  /**
   * The bundle's paths: the redirect `path/inv.md` (resolved against the environment's working
   * directory), else `tools.*` in the default data directory of the environment.
   */
  readonly locate: (target: Option.Option<string>) => Effect.Effect<BundlePaths, RedirectPathInvalid>
  /**
   * The bundles a query's `--from FILE` may name, most likely first (`inv.md`, `inv.json` and
   * `inv.summary.md` all name the bundle `inv`), resolved against the environment's working
   * directory; whether one exists is the reader's to find.
   */
  readonly locateFrom: (file: string) => Effect.Effect<ReadonlyArray<BundlePaths>, RedirectPathInvalid>
  /**
   * The inventory in tools.json, or none when there is no tools.json. Anything but a regular
   * file is refused, and an unreadable, corrupt or incompatible one is a {@link BundleReadError}.
   */
  readonly read: (paths: BundlePaths) => Effect.Effect<Option.Option<Inventory>, BundleReadError>
  /**
   * The bundle's which index when it vouches for the tools.json beside it (derived from its very
   * bytes by this tool-map), else none: answers `query which` as a read of tools.json would.
   */
  readonly whichIndex: (paths: BundlePaths) => Effect.Effect<Option.Option<WhichIndex>, BundleReadError>
  /** The watch set a scan records: this environment's fingerprint and the state of `paths` now. */
  readonly snapshot: (paths: ReadonlyArray<string>) => Effect.Effect<WatchSet>
  /** The first change since `watch` was recorded (tool-map, PATH, TOOL_MAP_ROOTS, an input), or none. */
  readonly changedSince: (watch: WatchSet) => Effect.Effect<Option.Option<string>>
  /**
   * Why the bundle at `paths` must be rebuilt, reading only tools.json's watch set and the
   * markdown files' first line: none readable, a markdown file missing or of another
   * generation, or a watched input changed.
   */
  readonly staleness: (paths: BundlePaths) => Effect.Effect<Staleness>
  /**
   * {@link staleness} against what tools.json records as already read (a which index's
   * `recorded`, which vouches for tools.json): `query which` checks and answers from one read.
   */
  readonly stalenessOf: (paths: BundlePaths, recorded: Option.Option<RecordedBundle>) => Effect.Effect<Staleness>
  /** The generation all three files of the bundle carry, or none (no bundle, or a torn one). */
  readonly generation: (paths: BundlePaths) => Effect.Effect<Option.Option<string>>
}>() {
  /** Over the platform FileSystem and the injected {@link MachineEnvironment}. */
  static readonly layer = Layer.effect(this, make)
}
