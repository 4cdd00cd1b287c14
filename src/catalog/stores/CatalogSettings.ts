import type { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer, Option, Schema, SynchronizedRef } from "effect"
import { type ToolMeta, ToolMetaSchema } from "../core/model.js"
import { CatalogEvents } from "./CatalogEvents.js"
import { FileLock } from "../../services/FileLock.js"
import { type CatalogFileError, catalogFileLock, type CorruptFile, modifyJsonFile, readJsonFile } from "./jsonFile.js"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"

/** The settings a UI may edit: each key present in the settings file wins over config. */
export const SettingsPatch = Schema.Struct({
  pinned: Schema.optional(Schema.Array(Schema.String)),
  unpin: Schema.optional(Schema.Array(Schema.String)),
  highRisk: Schema.optional(Schema.Array(Schema.String)),
  loadBudget: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

/** The settings a UI may edit; a missing key falls back to config. */
export type SettingsPatch = typeof SettingsPatch.Type

/** The settings in force. */
export interface EffectiveSettings {
  /** Names pinned on top of the defaults. */
  readonly pinned: ReadonlyArray<string>
  /** Names taken out of the defaults. */
  readonly unpin: ReadonlyArray<string>
  /** Names always treated as high risk. */
  readonly highRisk: ReadonlyArray<string>
}

/** Tool name → edited metadata, as stored in the metadata file. */
export const MetadataFile = OwnRecord(ToolMetaSchema)

/** The exemption file: when it exists, its `providers` replace config `exemptProviders`. */
export const ExemptionFile = Schema.Struct({
  providers: Schema.optional(Schema.Array(Schema.String)),
  sessions: Schema.optional(Schema.Array(Schema.String))
})

/** The exemption file's content. */
export type ExemptionFile = typeof ExemptionFile.Type

/** The exemptions in force. */
export interface Exemptions {
  /** Model routes never narrowed. */
  readonly providers: ReadonlyArray<string>
  /** Single sessions never narrowed. */
  readonly sessions: ReadonlyArray<string>
  /** True when the exemption file exists (it then wins over config). */
  readonly fromFile: boolean
}

/** Why an agent is not narrowed, if it is not. */
export type Exemption =
  | { readonly exempt: false }
  | { readonly exempt: true; readonly by: "provider"; readonly provider: string }
  | { readonly exempt: true; readonly by: "session"; readonly sessionId: string }

/** Where the three stores keep their files; `None` keeps them in memory only. */
export interface CatalogSettingsFiles {
  readonly settings: Option.Option<string>
  readonly metadata: Option.Option<string>
  readonly exemptions: Option.Option<string>
}

/** The values declared in config, under the edits. */
export interface CatalogSettingsBase {
  readonly pinned?: ReadonlyArray<string> | undefined
  readonly unpin?: ReadonlyArray<string> | undefined
  readonly highRisk?: ReadonlyArray<string> | undefined
  /** The load budget in tokens (default {@link DEFAULT_LOAD_BUDGET}); the settings file's `loadBudget` wins. */
  readonly loadBudget?: number | undefined
  /** Routes never narrowed (default `["claude-code"]`; `[]` narrows every route). */
  readonly exemptProviders?: ReadonlyArray<string> | undefined
}

/**
 * The load budget when neither config nor the settings file sets one: about a tenth of a
 * 200k-token context, ten times the tools of the three reference servers behind the gateway
 * (~2k tokens), and a fiftieth of what loading 20,000 tools put into a session (~740k).
 */
export const DEFAULT_LOAD_BUDGET = 20_000

/** Routes whose clients receive their tool list once and load schemas themselves. */
export const DEFAULT_EXEMPT_PROVIDERS: ReadonlyArray<string> = ["claude-code"]

interface Stored {
  readonly settings: SettingsPatch
  readonly metadata: Readonly<Record<string, ToolMeta>>
  readonly exemptions: Option.Option<ExemptionFile>
}

/**
 * The three edit stores of the catalog: settings (pinned, unpin, high risk, load budget) where an edit wins
 * over config per key, tool metadata edits (applied as the strongest annotation layer), and
 * exemptions. Each lives in its own JSON file, written atomically; an edit is applied under
 * the file's lock to the file as it is on disk then (`modifyJsonFile`), so edits of several
 * processes are serialized and none is lost, and an edit that changes nothing writes nothing.
 * A corrupt file is kept aside as `<file>.corrupt-<timestamp>` and reported, and the store
 * starts from empty.
 */
export class CatalogSettings extends Context.Tag("tool-map/CatalogSettings")<CatalogSettings, {
  readonly files: CatalogSettingsFiles
  /** The settings in force: each key of the settings file, else config. */
  readonly settings: Effect.Effect<EffectiveSettings>
  /** The settings file's content only. */
  readonly storedSettings: Effect.Effect<SettingsPatch>
  /**
   * The most tokens of tool schemas an agent's loads may bring into its tool list (see
   * `CatalogLoads.load`): the settings file's `loadBudget`, else config's, else {@link DEFAULT_LOAD_BUDGET}.
   */
  readonly loadBudget: Effect.Effect<number>
  /** Stores the given keys (an empty list is an edit too) and returns the settings in force. */
  readonly updateSettings: (patch: SettingsPatch) => Effect.Effect<EffectiveSettings, CatalogFileError>
  /** Re-reads all three files, after an external edit. */
  readonly reload: Effect.Effect<void, CatalogFileError>
  /** Edited metadata per tool. */
  readonly metadata: Effect.Effect<Readonly<Record<string, ToolMeta>>>
  /** Merges `meta` into a tool's edits (an `undefined` field is left as it was). */
  readonly setMeta: (name: string, meta: ToolMeta) => Effect.Effect<ToolMeta, CatalogFileError>
  /** Drops every edit of one tool. */
  readonly clearMeta: (name: string) => Effect.Effect<void, CatalogFileError>
  readonly exemptions: Effect.Effect<Exemptions>
  /** Why an agent on `provider` in session `sessionId` is not narrowed, if it is not. */
  readonly exemptionOf: (provider: string | undefined, sessionId: string | undefined) => Effect.Effect<Exemption>
  /** Exempts one session (or stops exempting it), in the exemption file. */
  readonly setExemptSession: (sessionId: string, exempt: boolean) => Effect.Effect<Exemptions, CatalogFileError>
}>() {
  /** The stores over the given files (each `None` is memory only). */
  static readonly layer = (files: CatalogSettingsFiles, base: CatalogSettingsBase) =>
    Layer.effect(this, make(files, base))
}

const make = Effect.fn("CatalogSettings.make")(function*(files: CatalogSettingsFiles, base: CatalogSettingsBase) {
  const events = yield* CatalogEvents
  // The lock is chosen once: this store is one taker (one simulated process in tests).
  const context = Context.add(yield* Effect.context<FileSystem.FileSystem | Path.Path>(), FileLock, yield* catalogFileLock)
  const configProviders = base.exemptProviders ?? DEFAULT_EXEMPT_PROVIDERS

  const read = <A, I>(schema: Schema.Schema<A, I>, file: Option.Option<string>) =>
    Option.match(file, {
      onNone: () => Effect.succeed(Option.none<A>()),
      onSome: (path) =>
        readJsonFile(schema, path).pipe(
          Effect.flatMap((result) => {
            switch (result._tag) {
              case "Missing":
                return Effect.succeed(Option.none<A>())
              case "Found":
                return Effect.succeed(Option.some(result.value))
              case "Corrupt":
                return warnCorrupt(result.corrupt).pipe(Effect.as(Option.none<A>()))
            }
          }),
          Effect.provide(context)
        )
    })

  const warnCorrupt = (corrupt: CorruptFile) =>
    events.warn({
      kind: "corrupt-file",
      subject: corrupt.path,
      message: `${corrupt.path} is not valid (${corrupt.reason}); it was kept as ${corrupt.keptAt}`
    })

  /**
   * Applies `f` to one file's value: under its lock, as the file holds it now; to `memory`
   * when the store has no file. `f` returns its result and the next value, `None` to leave
   * the file as it is. Answers the result and the value now.
   */
  const changeFile = <A, I, B>(
    schema: Schema.Schema<A, I>,
    file: Option.Option<string>,
    memory: Option.Option<A>,
    f: (current: Option.Option<A>) => readonly [B, Option.Option<A>]
  ): Effect.Effect<{ readonly result: B; readonly value: Option.Option<A> }, CatalogFileError> =>
    Option.match(file, {
      onNone: () =>
        Effect.sync(() => {
          const [result, next] = f(memory)
          return { result, value: Option.orElse(next, () => memory) }
        }),
      onSome: (path) =>
        modifyJsonFile(schema, path, (current) => Effect.succeed(f(current))).pipe(
          Effect.tap((modified) => Option.match(modified.corrupt, { onNone: () => Effect.void, onSome: warnCorrupt })),
          Effect.provide(context)
        )
    })

  /** The next value, or `None` when it is the current one (compared as JSON). */
  const unlessSame = <A>(current: Option.Option<A>, next: A): Option.Option<A> =>
    Option.isSome(current) && JSON.stringify(current.value) === JSON.stringify(next) ? Option.none() : Option.some(next)

  const readAll = Effect.gen(function*() {
    const settings = yield* read(SettingsPatch, files.settings)
    const metadata = yield* read(MetadataFile, files.metadata)
    const exemptions = yield* read(ExemptionFile, files.exemptions)
    return {
      settings: Option.getOrElse(settings, () => ({})),
      metadata: Option.getOrElse(metadata, () => ({})),
      exemptions
    } satisfies Stored
  })

  const stored = yield* SynchronizedRef.make<Stored>(yield* readAll)

  const effective = (current: Stored): EffectiveSettings => ({
    pinned: current.settings.pinned ?? base.pinned ?? [],
    unpin: current.settings.unpin ?? base.unpin ?? [],
    highRisk: current.settings.highRisk ?? base.highRisk ?? []
  })

  const exemptionsOf = (current: Stored): Exemptions =>
    Option.match(current.exemptions, {
      onNone: () => ({ providers: configProviders, sessions: [], fromFile: false }),
      onSome: (file) => ({ providers: file.providers ?? configProviders, sessions: file.sessions ?? [], fromFile: true })
    })

  return CatalogSettings.of({
    files,
    settings: Effect.map(SynchronizedRef.get(stored), effective),
    storedSettings: Effect.map(SynchronizedRef.get(stored), (current) => current.settings),
    loadBudget: Effect.map(SynchronizedRef.get(stored), (current) => current.settings.loadBudget ?? base.loadBudget ?? DEFAULT_LOAD_BUDGET),
    updateSettings: (patch) =>
      SynchronizedRef.modifyEffect(stored, (current) =>
        Effect.map(
          changeFile(SettingsPatch, files.settings, Option.some(current.settings), (onDisk) => {
            const settings: SettingsPatch = { ...Option.getOrElse(onDisk, () => ({})), ...definedKeys(patch) }
            return [undefined, unlessSame(onDisk, settings)] as const
          }),
          ({ value }) => {
            const next: Stored = { ...current, settings: Option.getOrElse(value, () => ({})) }
            return [effective(next), next] as const
          }
        )).pipe(Effect.withSpan("CatalogSettings.updateSettings")),
    reload: SynchronizedRef.updateEffect(stored, () => readAll).pipe(Effect.withSpan("CatalogSettings.reload")),
    metadata: Effect.map(SynchronizedRef.get(stored), (current) => current.metadata),
    setMeta: (name, meta) =>
      SynchronizedRef.modifyEffect(stored, (current) =>
        Effect.map(
          changeFile(MetadataFile, files.metadata, Option.some(current.metadata), (onDisk) => {
            const metadata = Option.getOrElse(onDisk, (): Readonly<Record<string, ToolMeta>> => ({}))
            const merged: ToolMeta = { ...metadata[name], ...definedKeys(meta) }
            return [merged, unlessSame(onDisk, { ...metadata, [name]: merged })] as const
          }),
          ({ result, value }) => [result, { ...current, metadata: Option.getOrElse(value, () => ({})) }] as const
        )).pipe(Effect.withSpan("CatalogSettings.setMeta")),
    clearMeta: (name) =>
      SynchronizedRef.updateEffect(stored, (current) =>
        Effect.map(
          changeFile(MetadataFile, files.metadata, Option.some(current.metadata), (onDisk) => {
            const metadata = Option.getOrElse(onDisk, (): Readonly<Record<string, ToolMeta>> => ({}))
            if (!(name in metadata)) return [undefined, Option.none()] as const
            const { [name]: _dropped, ...rest } = metadata
            return [undefined, Option.some(rest)] as const
          }),
          ({ value }) => ({ ...current, metadata: Option.getOrElse(value, () => ({})) })
        )).pipe(Effect.withSpan("CatalogSettings.clearMeta")),
    exemptions: Effect.map(SynchronizedRef.get(stored), exemptionsOf),
    exemptionOf: (provider, sessionId) =>
      Effect.map(SynchronizedRef.get(stored), (current): Exemption => {
        const exemptions = exemptionsOf(current)
        if (sessionId !== undefined && exemptions.sessions.includes(sessionId)) {
          return { exempt: true, by: "session", sessionId }
        }
        if (provider !== undefined && exemptions.providers.includes(provider)) {
          return { exempt: true, by: "provider", provider }
        }
        return { exempt: false }
      }),
    setExemptSession: (sessionId, exempt) =>
      SynchronizedRef.modifyEffect(stored, (current) =>
        Effect.map(
          changeFile(ExemptionFile, files.exemptions, current.exemptions, (onDisk) => {
            const file: ExemptionFile = Option.getOrElse(onDisk, () => ({}))
            const sessions = (file.sessions ?? []).filter((id) => id !== sessionId)
            return [undefined, unlessSame(onDisk, { ...file, sessions: exempt ? [...sessions, sessionId] : sessions })] as const
          }),
          ({ value }) => {
            const next: Stored = { ...current, exemptions: value }
            return [exemptionsOf(next), next] as const
          }
        )).pipe(Effect.withSpan("CatalogSettings.setExemptSession"))
  })
})

/** The keys of an object whose value is not `undefined`. */
const definedKeys = <A extends object>(value: A): Partial<A> => {
  const out: Partial<A> = {}
  for (const key of Object.keys(value) as Array<keyof A>) {
    if (value[key] !== undefined) out[key] = value[key]
  }
  return out
}
