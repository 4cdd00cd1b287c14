import * as NodePath from "@effect/platform-node/NodePath"
import { Layer } from "effect"
import { AgentHostFiles } from "../inventory/discover/agentHosts/index.js"
import * as LazyNodeTerminal from "../platform/LazyNodeTerminal.js"
import { SyncNodeFileSystemLayer } from "../platform/SyncNodeFileSystem.js"

/**
 * The platform services tool-map uses (FileSystem with synchronous calls, see
 * SyncNodeFileSystem; Path; and the Terminal @effect/cli needs, made on first use),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up. The agent-host readers' file access is chosen here,
 * with the file system: `AgentHostFiles.layerSync` reads it one file at a time, as plain calls.
 */
export const PlatformLayer = Layer.mergeAll(
  SyncNodeFileSystemLayer,
  NodePath.layer,
  LazyNodeTerminal.layer,
  AgentHostFiles.layerSync.pipe(Layer.provide(SyncNodeFileSystemLayer))
)
