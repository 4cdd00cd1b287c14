import * as Terminal from "@effect/platform/Terminal"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer, Scope } from "effect"

/**
 * Node's Terminal, made the first time one of its members runs. Making it reads
 * `process.stdin`, whose first read opens the stream (about 6 ms of every start), and only
 * @effect/cli's interactive modes read input: the commands tool-map runs never do.
 */
export const layer: Layer.Layer<Terminal.Terminal> = Layer.scoped(
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
