/**
 * Every test ends with a turn of the event loop. A worker answers the runner's RPC (its 60 s
 * timeout is fixed in Vitest) only when its loop turns, and tests that spawn processes
 * synchronously (npm in the install test, sh in the command-name test) would otherwise run
 * back to back without one: on a loaded machine a file of them passed 60 s, and a run whose
 * every test passed exited 1 with "Timeout calling onTaskUpdate".
 */
import { afterEach } from "vitest"

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)))
