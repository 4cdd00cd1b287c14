import * as NodePath from "@effect/platform-node/NodePath"
import { Layer } from "effect"
import * as LazyNodeTerminal from "../platform/LazyNodeTerminal.js"
import { SyncNodeFileSystemLayer } from "../platform/SyncNodeFileSystem.js"

/**
 * The platform services tool-map uses (FileSystem with synchronous calls, see
 * SyncNodeFileSystem; Path; and the Terminal @effect/cli needs, made on first use),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up.
 */
export const PlatformLayer = Layer.mergeAll(SyncNodeFileSystemLayer, NodePath.layer, LazyNodeTerminal.layer)
