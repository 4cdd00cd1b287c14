import { Context, type Effect, type Option } from "effect"
import type { BundleLocked, BundleWriteError } from "../bundle/BundleWriter.js"
import type { RedirectPathInvalid } from "../bundle/errors.js"

/**
 * The scan a reader runs when no bundle exists yet: the reader's one way to the scanner, so
 * that reading never depends on it otherwise. `ScanProgram.layer` provides it.
 */
export class FirstScan extends Context.Tag("tool-map/FirstScan")<FirstScan, {
  /** Scans the machine and commits the bundle at `target` (a redirect `path/inv.md`, or the default data dir). */
  readonly run: (target: Option.Option<string>) => Effect.Effect<void, RedirectPathInvalid | BundleWriteError | BundleLocked>
}>() {}
