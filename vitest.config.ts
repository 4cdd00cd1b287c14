import { defineConfig } from "vitest/config"

/**
 * Tests that measure time (SIGTERM honoured within a second, probe timeouts, bounded runs) or
 * kill processes at calibrated moments: they run alone, after the others, so that no other
 * test's load moves their clocks.
 */
const TIMED = [
  "test/e2e/kill.test.ts",
  "test/e2e/hardening.test.ts",
  "test/e2e/catalogHardening.test.ts",
  "test/e2e/catalogHostSignals.test.ts",
  "test/hostile/signals.test.ts",
  "test/cli/signals.test.ts",
  "test/inventory/probe/VersionProbe.test.ts"
]

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ["test/support/yieldBetweenTests.ts"],
    pool: "forks",
    // Most tests wait on child processes and files: two at a time fill a 2-core machine (Vitest's
    // default there is one). The timed project runs its files one by one in a single fork.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      // Not isolated: a worker imports Effect and the sources once for all its files, not once a
      // file (collecting took 266 s of a 503 s run). The timed project keeps isolation.
      { extends: true, test: { name: "parallel", include: ["test/**/*.test.ts"], exclude: TIMED, isolate: false } },
      { extends: true, test: { name: "timed", include: TIMED, poolOptions: { forks: { singleFork: true } } } }
    ]
  }
})
