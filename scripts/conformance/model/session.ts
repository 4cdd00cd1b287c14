/**
 * A scripted session of a real host: the host runs in a sandbox (throwaway HOME, no network
 * but a loopback) against the scripted model server, and the check gets the host's output and
 * every request it sent to the model.
 */
import * as path from "node:path"
import type { CheckContext } from "../check.js"
import type { HostName } from "../hosts.js"
import type { CommandResult, Sandbox } from "../sandbox.js"
import type { LoggedRequest } from "./script.js"
import { MODEL_PORT, readModelLog } from "./server.js"

export { MODEL_PORT }

/** The base URL hosts are pointed at. */
export const MODEL_BASE_URL = `http://127.0.0.1:${MODEL_PORT}`

export interface SessionOptions {
  readonly host: HostName
  /** The host's arguments (`-p PROMPT …`). */
  readonly args: ReadonlyArray<string>
  /** The absolute path of the module exporting `scripts`, and the name of the one to run. */
  readonly scriptModule: string
  readonly script: string
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  /** The session's log file name (under the sandbox's root); several sessions in one sandbox need their own. */
  readonly logName?: string
}

export interface SessionResult {
  readonly result: CommandResult
  /** The requests the model server answered, in order. */
  readonly requests: ReadonlyArray<LoggedRequest>
  /** Requests no adapter answered (`METHOD /path`), which a check may want to see. */
  readonly unmatched: ReadonlyArray<string>
  readonly logFile: string
}

/**
 * Runs the session. Sessions need the network namespace (the model server listens inside it):
 * without one, this throws instead of letting a host reach the network.
 */
export const runScriptedSession = (context: CheckContext, sandbox: Sandbox, options: SessionOptions): SessionResult => {
  if (context.isolation._tag !== "NetNamespace") throw new Error(`scripted sessions need a network namespace: ${context.isolation.reason}`)
  const logFile = path.join(sandbox.root, options.logName ?? "model-requests.jsonl")
  const timeoutMs = options.timeoutMs ?? 120_000
  const tsx = import.meta.resolve("tsx/esm")
  const runner = path.join(import.meta.dirname, "inNamespace.ts")
  const hostBin = context.hostBin(options.host)
  const result = sandbox.run(
    process.execPath,
    ["--import", tsx, runner, options.scriptModule, options.script, logFile, String(timeoutMs), "--", hostBin, ...options.args],
    { env: { ...options.env }, path: [path.dirname(hostBin)], timeoutMs: timeoutMs + 15_000 }
  )
  const lines = readModelLog(logFile)
  return {
    result,
    requests: lines.filter((line): line is LoggedRequest => "request" in line),
    unmatched: lines.flatMap((line) => ("unmatched" in line ? [`${line.path}`] : [])),
    logFile
  }
}
