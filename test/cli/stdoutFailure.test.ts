import { describe, expect, it } from "@effect/vitest"
import { ExitCode } from "../../src/cli/exitCodes.js"
import { stdoutWriteFailure } from "../../src/cli/output.js"

describe("stdoutWriteFailure", () => {
  it("a closed pipe ends the run quietly with 0; a full disk or an I/O error is said, with exit 74", () => {
    expect(stdoutWriteFailure({ code: "EPIPE", message: "write EPIPE" })).toEqual({ exitCode: 0, message: null })
    expect(stdoutWriteFailure({ code: "ENOSPC", message: "ENOSPC: no space left on device, write" })).toEqual({
      exitCode: 74,
      message: "tool-map: cannot write to standard output (ENOSPC): ENOSPC: no space left on device, write"
    })
    expect(stdoutWriteFailure({ code: "EIO", message: "EIO: i/o error, write" })).toEqual({
      exitCode: 74,
      message: "tool-map: cannot write to standard output (EIO): EIO: i/o error, write"
    })
    expect(ExitCode.outputFailed).toBe(74)
  })
})
