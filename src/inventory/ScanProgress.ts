import { Context, Effect, Layer } from "effect"

/** Reports the steps of a long scan to a human; silent when nobody watches. */
export class ScanProgress extends Context.Tag("tool-map/ScanProgress")<ScanProgress, {
  readonly step: (message: string) => Effect.Effect<void>
  readonly done: Effect.Effect<void>
}>() {
  /** Prints nothing (library use, `--quiet`, `--json`, stderr not a terminal). */
  static readonly silent = Layer.succeed(this, { step: () => Effect.void, done: Effect.void })
  /** Rewrites one status line on stderr. */
  static readonly stderr = Layer.succeed(this, {
    step: (message: string) => Effect.sync(() => process.stderr.write(`\r\x1b[2Ktool-map: ${message}`)),
    done: Effect.sync(() => process.stderr.write("\r\x1b[2K"))
  })
  /** The stderr reporter when stderr is a terminal, else silent. */
  static readonly layer = Layer.suspend(() => (process.stderr.isTTY === true ? ScanProgress.stderr : ScanProgress.silent))
}
