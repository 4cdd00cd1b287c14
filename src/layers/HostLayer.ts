import { Effect, Layer, Option } from "effect"
import * as NodePath from "node:path"
import { AgentRestrictions } from "../catalog/services/AgentRestrictions.js"
import { AgentSessions } from "../catalog/services/AgentSessions.js"
import { CatalogBuilder } from "../catalog/services/CatalogBuilder.js"
import { CatalogBuilds } from "../catalog/services/CatalogBuilds.js"
import { CatalogConfig } from "../catalog/services/CatalogConfig.js"
import { CatalogEvents } from "../catalog/stores/CatalogEvents.js"
import { CatalogLoads } from "../catalog/services/CatalogLoads.js"
import { CatalogRegistry } from "../catalog/services/CatalogRegistry.js"
import { CatalogViews } from "../catalog/services/CatalogViews.js"
import { EntryTools } from "../catalog/services/EntryTools.js"
import { ManifestWriter } from "../catalog/services/ManifestWriter.js"
import { Router } from "../catalog/services/Router.js"
import { RouterIndexStore } from "../catalog/stores/RouterIndexStore.js"
import { WORD_VECTORS_FILE, wordVectorsLayer } from "../catalog/services/WordVectorEmbedder.js"
import { ToolCatalog } from "../catalog/services/ToolCatalog.js"
import { CatalogSettings, type CatalogSettingsBase } from "../catalog/stores/CatalogSettings.js"
import { catalogFileLock } from "../catalog/stores/jsonFile.js"
import { VisibilityStore } from "../catalog/stores/VisibilityStore.js"
import { defaultDataDir } from "../inventory/domain/dataDir.js"
import { FileLock } from "../services/FileLock.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { ScanProgress } from "../inventory/ScanProgress.js"
import { AgentHostFiles } from "../inventory/discover/agentHosts/index.js"
import { LazyInventoryLayer } from "./CoreLayer.js"
import { PlatformLayer } from "./PlatformLayer.js"

/** Where the catalog keeps its files. */
export interface CatalogFiles {
  /** One JSON file per agent. */
  readonly stateDir: string
  readonly settings: string
  readonly metadata: string
  readonly exemptions: string
  /** The whole index, rewritten when the host's build changes (`ManifestWriter`). */
  readonly manifest: string
  /** The definition hashes of the last recorded build (`tool-map catalog diff`). */
  readonly definitions: string
  /** The router's index of the tools, rewritten when the tool set changes (`RouterIndexStore`). */
  readonly routerIndex: string
  /** The router's optional word-vector table (`tool-map catalog vectors install`); read only when present. */
  readonly wordVectors: string
}

/** The files of the catalog under `dir` (by default `<data dir>/catalog`). */
export const catalogFilesIn = (dir: string): CatalogFiles => ({
  stateDir: NodePath.join(dir, "state"),
  settings: NodePath.join(dir, "settings.json"),
  metadata: NodePath.join(dir, "metadata.json"),
  exemptions: NodePath.join(dir, "exempt.json"),
  manifest: NodePath.join(dir, "manifest.json"),
  definitions: NodePath.join(dir, "definitions.json"),
  routerIndex: NodePath.join(dir, "router.index"),
  wordVectors: NodePath.join(dir, WORD_VECTORS_FILE)
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
 * The one lock service of the catalog's files (agent state, settings, metadata, exemptions),
 * built once for both stores: the `FileLock` given to the layer if any, else one with
 * `CATALOG_LOCK_OPTIONS` for the given `LockOwner` (tests simulate processes with it) or this process.
 */
const catalogLock = Layer.effect(FileLock, catalogFileLock)

/**
 * The catalog alone over the host's `HostPort`, the platform's FileSystem and Path, and
 * the `MachineEnvironment` (for the default data dir): `ToolCatalog` and the services behind it
 * (each provided too, for hosts and tests that need one directly), from the stores and the
 * event hub up — sessions and registry, builds, restrictions, loads, the router, views, entry
 * tools, config — with the manifest writer and the follower of the host's agent lifecycle running for
 * as long as the layer lives. The agents alive when it starts are attached before it is ready.
 */
export const CatalogLayer = (options: HostLayerOptions = {}) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const environment = yield* MachineEnvironment
      const dir = options.dir ?? defaultCatalogDir(environment.env, environment.homedir)
      const defaults = catalogFilesIn(dir)
      const file = (key: keyof CatalogFiles) => fileOption(options, defaults, key)
      const manifestFile = file("manifest")
      const state = Layer.mergeAll(
        VisibilityStore.layer({ stateDir: file("stateDir") }),
        CatalogSettings.layer(
          { settings: file("settings"), metadata: file("metadata"), exemptions: file("exemptions") },
          options
        ),
        CatalogBuilder.layer,
        CatalogRegistry.layer,
        AgentSessions.layer
      ).pipe(Layer.provideMerge(CatalogEvents.layer), Layer.provide(catalogLock))
      const restrictions = AgentRestrictions.layer.pipe(
        Layer.provideMerge(CatalogBuilds.layer({ reserved: options.reserved })),
        Layer.provideMerge(state)
      )
      const features = Layer.mergeAll(CatalogLoads.layer, CatalogConfig.layer({ manifestFile })).pipe(
        Layer.provideMerge(restrictions)
      )
      // The router loads through CatalogLoads; tools_ls with a query ranks through the router.
      const router = Router.layer.pipe(
        Layer.provide(RouterIndexStore.layer(file("routerIndex"))),
        // The word-vector embedder when its table is installed (an optional extra).
        Layer.provide(wordVectorsLayer(file("wordVectors"))),
        Layer.provideMerge(features)
      )
      const views = CatalogViews.layer.pipe(Layer.provideMerge(router))
      const entry = EntryTools.layer.pipe(Layer.provideMerge(views))
      return Layer.mergeAll(ToolCatalog.layer, ManifestWriter.layer(manifestFile), AgentRestrictions.followHost).pipe(
        Layer.provideMerge(entry)
      )
    })
  )

/**
 * The one embedding graph: {@link CatalogLayer} (`ToolCatalog` over the host's `HostPort`) and
 * the inventory (`ScanProgram`, `InventoryReader`, `Bundle`, `BundleWriter`; the walk services
 * are built on the first scan), over the platform's FileSystem and Path and the
 * `MachineEnvironment`. Scans report no progress. The catalog's router reads the skills and
 * subagents from that inventory; an `Embedder` the host provides is fused into its rankings.
 */
export const HostLayer = (options: HostLayerOptions = {}) =>
  CatalogLayer(options).pipe(Layer.provideMerge(LazyInventoryLayer.pipe(Layer.provideMerge(ScanProgress.silent), Layer.provide(AgentHostFiles.layer))))

/** `HostLayer` over Node's file system and the live environment: needs only the `HostPort`. */
export const HostLayerNode = (options: HostLayerOptions = {}) =>
  HostLayer(options).pipe(Layer.provide(Layer.mergeAll(PlatformLayer, MachineEnvironment.layer)))
