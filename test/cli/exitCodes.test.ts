import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ExitCode, exitCodeOf } from "../../src/cli/exitCodes.js"
import { ConflictingFlags } from "../../src/cli/scanCommand.js"
import { BundleLocked, BundleWriteError } from "../../src/inventory/bundle/BundleWriter.js"
import { BundleReadError, RedirectPathInvalid } from "../../src/inventory/bundle/errors.js"

const locked = new BundleLocked({ path: "/data/.tools.lock", pid: 42, since: "2026-01-01T00:00:00.000Z" })
const unwritable = new BundleWriteError({ step: "lock", path: "/data/.tools.lock", reason: "the disk is full (ENOSPC)" })
const badPath = new RedirectPathInvalid({ path: "inv.txt", reason: "it does not end in .md" })
const readError = (cause?: BundleReadError["cause"]) =>
  new BundleReadError({ path: "/data/tools.json", reason: "no bundle existed and the first scan failed", ...(cause === undefined ? {} : { cause }) })

describe("exitCodeOf", () => {
  it("a read error exits as its typed cause: locked 5, unwritable 3, bad path 2; without one 4", () => {
    expect([readError(locked), readError(unwritable), readError(badPath), readError()].map(exitCodeOf)).toEqual([
      ExitCode.locked,
      ExitCode.cannotWrite,
      ExitCode.usage,
      ExitCode.cannotRead
    ])
    expect([5, 3, 2, 4]).toEqual([ExitCode.locked, ExitCode.cannotWrite, ExitCode.usage, ExitCode.cannotRead])
  })

  it("other errors exit by their own tag, whatever they carry; an unknown one is internal", () => {
    expect(exitCodeOf(locked)).toBe(ExitCode.locked)
    expect(exitCodeOf(new ConflictingFlags({ flags: ["--if-stale", "--force"] }))).toBe(ExitCode.usage)
    expect(exitCodeOf({ _tag: "CatalogFileError", cause: locked })).toBe(ExitCode.cannotWrite)
    expect(exitCodeOf({ _tag: "BundleReadError", cause: { _tag: "SystemError" } })).toBe(ExitCode.cannotRead)
    expect(exitCodeOf(new Error("boom"))).toBe(ExitCode.internal)
    expect(exitCodeOf("boom")).toBe(ExitCode.internal)
  })

  it("the cause survives a round trip through the error's schema (--json, the host boundary)", () => {
    const error = readError(locked)
    const encoded = Schema.encodeSync(BundleReadError)(error)
    expect(encoded).toEqual({
      _tag: "BundleReadError",
      path: "/data/tools.json",
      reason: "no bundle existed and the first scan failed",
      cause: { _tag: "BundleLocked", path: "/data/.tools.lock", pid: 42, since: "2026-01-01T00:00:00.000Z" }
    })
    const decoded = Schema.decodeUnknownSync(BundleReadError)(JSON.parse(JSON.stringify(encoded)))
    expect(decoded.cause).toBeInstanceOf(BundleLocked)
    expect(exitCodeOf(decoded)).toBe(ExitCode.locked)
    // The message a person reads is unchanged by the cause it carries.
    expect(error.message).toBe("Cannot read the tool-map bundle at /data/tools.json: no bundle existed and the first scan failed")
  })
})
