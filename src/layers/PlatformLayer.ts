import * as Terminal from "@effect/platform/Terminal"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer, Scope } from "effect"
import { SyncNodeFileSystemLayer } from "../platform/SyncNodeFileSystem.js"

/**
 * Node's Terminal, made the first time one of its members runs. Making it reads
 * `process.stdin`, whose first read opens the stream (about 6 ms of every start), and only
 * @effect/cli's interactive modes read input: the commands tool-map runs never do.
 */
export const LazyNodeTerminalLayer = Layer.scoped(
  Terminal.Terminal,
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const terminal = yield* Effect.cached(Scope.extend(NodeTerminal.make(), scope))
    const use = <A, E, R>(f: (live: Terminal.Terminal) => Effect.Effect<A, E, R>) => Effect.flatMap(terminal, f)
    return Terminal.Terminal.of({
      columns: use((live) => live.columns),
      rows: use((live) => live.rows),
      isTTY: use((live) => live.isTTY),
      readInput: use((live) => live.readInput),
      readLine: use((live) => live.readLine),
      display: (text) => use((live) => live.display(text))
    })
  })
)

/**
 * The platform services tool-map uses (FileSystem with synchronous calls, see
 * SyncNodeFileSystem; Path; and the Terminal @effect/cli needs),
 * imported one by one: the `@effect/platform-node` barrel drags an HTTP client into the
 * bundle and doubles the CLI's start-up.
 */
export const PlatformLayer = Layer.mergeAll(SyncNodeFileSystemLayer, NodePath.layer, LazyNodeTerminalLayer)
