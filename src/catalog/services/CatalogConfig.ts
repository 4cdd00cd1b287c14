import { Context, Effect, Layer, Option } from "effect"
import { mergeMeta } from "../core/classify.js"
import type { ToolMeta } from "../core/model.js"
import { DEFAULT_PINNED, ENTRY_TOOLS } from "../core/visibility.js"
import { CatalogSettings, type SettingsPatch } from "../stores/CatalogSettings.js"
import type { CatalogFileError } from "../stores/jsonFile.js"
import { AgentRestrictions } from "./AgentRestrictions.js"
import { CatalogBuilds } from "./CatalogBuilds.js"
import { CatalogEvents } from "../stores/CatalogEvents.js"
import { annotationsIn, CatalogRegistry } from "./CatalogRegistry.js"

/** The configuration as one object, for UIs. */
export interface ConfigSnapshot {
  /** The always-on set in force: defaults + extra − unpinned, entry tools included. */
  readonly pinned: ReadonlyArray<string>
  readonly entryTools: ReadonlyArray<string>
  readonly defaults: ReadonlyArray<string>
  readonly extraPinned: ReadonlyArray<string>
  readonly unpinned: ReadonlyArray<string>
  readonly highRisk: ReadonlyArray<string>
  readonly reserved: ReadonlyArray<string>
  readonly exemptProviders: ReadonlyArray<string>
  readonly exemptSessions: ReadonlyArray<string>
  /** True when the exemption file exists and wins over config. */
  readonly exemptFromFile: boolean
  /** True when the settings file holds at least one key. */
  readonly hasSettings: boolean
  readonly files: {
    readonly settings: string | null
    readonly metadata: string | null
    readonly exemptions: string | null
    readonly manifest: string | null
  }
}

/** One tool's metadata and the layers behind it, for UIs. */
export interface ToolMetaSnapshot {
  readonly name: string
  /** False when the tool is not in the catalog (not registered, pinned or reserved). */
  readonly found: boolean
  /** What the catalog uses. */
  readonly effective: ToolMeta
  /** The user's edits. */
  readonly edited: ToolMeta
  /** Package declarations and runtime annotations, without the edits. */
  readonly declared: ToolMeta
  readonly path: string
  readonly category: string
  readonly group: string
  readonly summary: string
  readonly highRisk: boolean
}

/** Where the config snapshot says the manifest is. */
export interface CatalogConfigOptions {
  readonly manifestFile: Option.Option<string>
}

/** What the configuration service offers; `ToolCatalog` hands the same members to hosts. */
export interface CatalogConfigShape {
  readonly config: Effect.Effect<ConfigSnapshot>
  /** Stores edited settings (they win over config) and applies them at once. */
  readonly updateConfig: (patch: SettingsPatch) => Effect.Effect<ConfigSnapshot, CatalogFileError>
  /** Re-reads the settings, metadata and exemption files after an external edit. */
  readonly reloadConfig: Effect.Effect<ConfigSnapshot, CatalogFileError>
  readonly setExemptSession: (sessionId: string, exempt: boolean) => Effect.Effect<ConfigSnapshot, CatalogFileError>
  readonly toolMeta: (name: string) => Effect.Effect<ToolMetaSnapshot>
  /** Edits a tool's metadata (wins over every declaration) and moves it at once. */
  readonly updateToolMeta: (name: string, meta: ToolMeta) => Effect.Effect<ToolMetaSnapshot, CatalogFileError>
  readonly clearToolMeta: (name: string) => Effect.Effect<ToolMetaSnapshot, CatalogFileError>
}

/**
 * The settings and metadata as UIs see and edit them: snapshots of the configuration and of
 * one tool's metadata layers, and edits that are stored, announced (`SettingsChanged`,
 * `MetadataChanged`) and applied to every known agent before they return.
 */
export class CatalogConfig extends Context.Tag("tool-map/CatalogConfig")<CatalogConfig, CatalogConfigShape>() {
  static readonly layer = (options: CatalogConfigOptions) => Layer.effect(this, make(options))
}

const make = Effect.fn("CatalogConfig.make")(function*(options: CatalogConfigOptions) {
  const settings = yield* CatalogSettings
  const builds = yield* CatalogBuilds
  const registry = yield* CatalogRegistry
  const restrictions = yield* AgentRestrictions
  const events = yield* CatalogEvents

  const config = Effect.gen(function*() {
    const current = yield* settings.settings
    const stored = yield* settings.storedSettings
    const exemptions = yield* settings.exemptions
    return {
      pinned: [...(yield* builds.pinned)],
      entryTools: [...ENTRY_TOOLS],
      defaults: [...DEFAULT_PINNED],
      extraPinned: [...current.pinned],
      unpinned: [...current.unpin],
      highRisk: [...current.highRisk],
      reserved: [...builds.reserved],
      exemptProviders: [...exemptions.providers],
      exemptSessions: [...exemptions.sessions],
      exemptFromFile: exemptions.fromFile,
      hasSettings: Object.values(stored).some((value) => value !== undefined),
      files: {
        settings: Option.getOrNull(settings.files.settings),
        metadata: Option.getOrNull(settings.files.metadata),
        exemptions: Option.getOrNull(settings.files.exemptions),
        manifest: Option.getOrNull(options.manifestFile)
      }
    } satisfies ConfigSnapshot
  }).pipe(Effect.withSpan("CatalogConfig.config"))

  const toolMeta = Effect.fn("CatalogConfig.toolMeta")(function*(name: string) {
    const { catalog } = yield* builds.get(Option.none())
    const registries = yield* registry.current
    const declared = mergeMeta({ package: annotationsIn(registries, "package"), runtime: annotationsIn(registries, "runtime") }, name)
    const edited = (yield* settings.metadata)[name] ?? {}
    const entry = catalog.byName.get(name)
    return {
      name,
      found: entry !== undefined,
      effective: entry?.meta ?? { ...declared, ...edited },
      edited,
      declared,
      path: entry?.path ?? "",
      category: entry?.category ?? "",
      group: entry?.group ?? "",
      summary: entry?.summary ?? "",
      highRisk: entry?.highRisk ?? false
    } satisfies ToolMetaSnapshot
  })

  const settingsChanged = (keys: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      yield* restrictions.refreshAll
      yield* events.publish({ _tag: "SettingsChanged", keys: [...keys] })
      return yield* config
    })

  const metadataChanged = (name: string) =>
    Effect.gen(function*() {
      yield* restrictions.refreshAll
      yield* events.publish({ _tag: "MetadataChanged", name })
      return yield* toolMeta(name)
    })

  const updateConfig = Effect.fn("CatalogConfig.updateConfig")(function*(patch: SettingsPatch) {
    yield* settings.updateSettings(patch)
    return yield* settingsChanged(Object.keys(patch).filter((key) => patch[key as keyof SettingsPatch] !== undefined))
  })

  const setExemptSession = Effect.fn("CatalogConfig.setExemptSession")(function*(sessionId: string, exempt: boolean) {
    yield* settings.setExemptSession(sessionId, exempt)
    return yield* settingsChanged(["exemptSessions"])
  })

  const updateToolMeta = Effect.fn("CatalogConfig.updateToolMeta")(function*(name: string, meta: ToolMeta) {
    yield* settings.setMeta(name, meta)
    return yield* metadataChanged(name)
  })

  const clearToolMeta = Effect.fn("CatalogConfig.clearToolMeta")(function*(name: string) {
    yield* settings.clearMeta(name)
    return yield* metadataChanged(name)
  })

  return CatalogConfig.of({
    config,
    updateConfig,
    reloadConfig: Effect.zipRight(settings.reload, settingsChanged(["pinned", "unpin", "highRisk", "exemptions"])).pipe(
      Effect.withSpan("CatalogConfig.reloadConfig")
    ),
    setExemptSession,
    toolMeta,
    updateToolMeta,
    clearToolMeta
  })
})
