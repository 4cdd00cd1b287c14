import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Layer } from "effect"

/**
 * The platform services tool-map uses (FileSystem, Path, and the Terminal @effect/cli needs),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up.
 */
export const PlatformLayer = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)
