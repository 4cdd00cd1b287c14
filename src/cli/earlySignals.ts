/**
 * SIGINT and SIGTERM before the CLI's runtime is up (while Node evaluates the bundle, between
 * two entries' runtimes): exit 130 at once, as the runtime does once it runs, instead of Node's
 * default death by the signal (exit status 143 or 130 from the shell, no finalizer either way).
 * Nothing has been done yet that a finalizer would undo. Imported first by bin.ts for its side
 * effect, so that it is installed before any other module of the bundle is evaluated.
 */
import { ExitCode } from "./exitCodes.js"

// Shared through the global symbol registry: a launcher or another bundle of tool-map in the
// same process may have installed it already.
const KEY = Symbol.for("tool-map/earlySignals")

type Holder = { [KEY]?: (() => void) | undefined }

/** Exits 130 on SIGINT or SIGTERM until {@link releaseEarlySignals}; installed once. */
export const holdEarlySignals = (): void => {
  const holder = globalThis as Holder
  if (holder[KEY] !== undefined) return
  const exitInterrupted = () => process.exit(ExitCode.interrupted)
  holder[KEY] = exitInterrupted
  process.on("SIGINT", exitInterrupted)
  process.on("SIGTERM", exitInterrupted)
}

/** Removes the handler of {@link holdEarlySignals}: the runtime's own handlers have taken over. */
export const releaseEarlySignals = (): void => {
  const holder = globalThis as Holder
  const exitInterrupted = holder[KEY]
  if (exitInterrupted === undefined) return
  process.removeListener("SIGINT", exitInterrupted)
  process.removeListener("SIGTERM", exitInterrupted)
  holder[KEY] = undefined
}

holdEarlySignals()
