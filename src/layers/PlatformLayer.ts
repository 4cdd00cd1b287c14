import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Layer } from "effect"
import { SyncNodeFileSystemLayer } from "./SyncNodeFileSystem.js"

/**
 * The platform services tool-map uses (FileSystem with synchronous calls, see
 * SyncNodeFileSystem; Path; and the Terminal @effect/cli needs),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up.
 */
export const PlatformLayer = Layer.mergeAll(SyncNodeFileSystemLayer, NodePath.layer, NodeTerminal.layer)
