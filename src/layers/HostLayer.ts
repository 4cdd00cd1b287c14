import { Effect, Layer, Option } from "effect"
import { PlatformLayer } from "./PlatformLayer.js"
import * as NodePath from "node:path"
import { CatalogEvents } from "../catalog/services/CatalogEvents.js"
import { defaultDataDir } from "../inventory/bundle/location.js"
import { Catalog } from "../catalog/services/CatalogBuilder.js"
import { CatalogSettings, type CatalogSettingsBase } from "../catalog/stores/CatalogSettings.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { ToolCatalog } from "../catalog/services/ToolCatalog.js"
import { VisibilityStore } from "../catalog/stores/VisibilityStore.js"

/** Where the catalog keeps its files. */
export interface CatalogFiles {
  /** One JSON file per agent. */
  readonly stateDir: string
  readonly settings: string
  readonly metadata: string
  readonly exemptions: string
  /** The whole index, rewritten after every rebuild. */
  readonly manifest: string
  /** The definition hashes of the last recorded build (`tool-map catalog diff`). */
  readonly definitions: string
}

/** The files of the catalog under `dir` (by default `<data dir>/catalog`). */
export const catalogFilesIn = (dir: string): CatalogFiles => ({
  stateDir: NodePath.join(dir, "state"),
  settings: NodePath.join(dir, "settings.json"),
  metadata: NodePath.join(dir, "metadata.json"),
  exemptions: NodePath.join(dir, "exempt.json"),
  manifest: NodePath.join(dir, "manifest.json"),
  definitions: NodePath.join(dir, "definitions.json")
})

/** The catalog's directory in the data dir: `$PLUGIN_DATA`, `$XDG_DATA_HOME/tool-map` or `~/.local/share/tool-map`, then `catalog/`. */
export const defaultCatalogDir = (env: Readonly<Record<string, string | undefined>>, homedir: string): string =>
  NodePath.join(defaultDataDir(env, homedir), "catalog")

/** How the embedded catalog is configured. */
export interface HostLayerOptions extends CatalogSettingsBase {
  /** Host-reserved names on top of the port's. */
  readonly reserved?: ReadonlyArray<string> | undefined
  /** The catalog's directory (default `defaultCatalogDir`). */
  readonly dir?: string | undefined
  /** False keeps everything in memory: no state, settings or manifest files. */
  readonly persist?: boolean | undefined
  /** Per-file overrides; `null` turns that file off (memory only, or no manifest). */
  readonly files?: { readonly [K in keyof CatalogFiles]?: string | null | undefined } | undefined
}

const fileOption = (
  options: HostLayerOptions,
  defaults: CatalogFiles,
  key: keyof CatalogFiles
): Option.Option<string> => {
  if (options.persist === false) return Option.none()
  const override = options.files?.[key]
  if (override === null) return Option.none()
  return Option.some(override ?? defaults[key])
}

/**
 * The embeddable catalog: `ToolCatalog` (with `VisibilityStore`, `CatalogSettings`,
 * `CatalogEvents` and the `Catalog` builder) over the host's `HostPort`, the platform's
 * FileSystem and Path, and the `MachineEnvironment` (for the default data dir).
 */
export const HostLayer = (options: HostLayerOptions = {}) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const environment = yield* MachineEnvironment
      const dir = options.dir ?? defaultCatalogDir(environment.env, environment.homedir)
      const defaults = catalogFilesIn(dir)
      const file = (key: keyof CatalogFiles) => fileOption(options, defaults, key)
      const stores = Layer.mergeAll(
        VisibilityStore.layer({ stateDir: file("stateDir") }),
        CatalogSettings.layer(
          { settings: file("settings"), metadata: file("metadata"), exemptions: file("exemptions") },
          options
        ),
        Catalog.layer
      ).pipe(Layer.provideMerge(CatalogEvents.layer))
      return ToolCatalog.layer({ reserved: options.reserved, manifestFile: file("manifest") }).pipe(
        Layer.provideMerge(stores)
      )
    })
  )

/** `HostLayer` over Node's file system and the live environment: needs only the `HostPort`. */
export const HostLayerNode = (options: HostLayerOptions = {}) =>
  HostLayer(options).pipe(Layer.provide(Layer.mergeAll(PlatformLayer, MachineEnvironment.layer)))
