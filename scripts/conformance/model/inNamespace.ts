/**
 * Runs one scripted session inside the network namespace the sandbox made (only a loopback):
 * brings the loopback up, starts the scripted model server on it, runs the host with the
 * arguments after `--`, and exits with the host's status once it ends (the server's log is on
 * disk by then). Started by `runScriptedSession` (session.ts), never by hand.
 *
 *   node --import tsx/esm inNamespace.ts SCRIPT_MODULE SCRIPT_NAME LOG_FILE TIMEOUT_MS -- HOST ARGS…
 */
import { spawn, spawnSync } from "node:child_process"
import { pathToFileURL } from "node:url"
import type { ScriptModule } from "./script.js"
import { startModelServer } from "./server.js"

const main = async (): Promise<number> => {
  const argv = process.argv.slice(2)
  const split = argv.indexOf("--")
  const [scriptModule, scriptName, logFile, timeoutText] = argv.slice(0, split)
  const host = argv.slice(split + 1)
  if (split < 0 || scriptModule === undefined || scriptName === undefined || logFile === undefined || timeoutText === undefined || host.length === 0) {
    throw new Error("usage: inNamespace.ts SCRIPT_MODULE SCRIPT_NAME LOG_FILE TIMEOUT_MS -- HOST ARGS…")
  }
  const lo = spawnSync("ip", ["link", "set", "lo", "up"], { encoding: "utf8" })
  if (lo.status !== 0) throw new Error(`ip link set lo up failed: ${lo.stderr}`)
  const module = (await import(pathToFileURL(scriptModule).href)) as ScriptModule
  const script = module.scripts[scriptName]
  if (script === undefined) throw new Error(`${scriptModule} has no script ${scriptName}`)
  const server = await startModelServer({ script, logFile })
  const child = spawn(host[0]!, host.slice(1), { stdio: ["ignore", "inherit", "inherit"], env: process.env, detached: true })
  const timer = setTimeout(() => {
    process.stderr.write(`inNamespace: ${host[0]} still running after ${timeoutText} ms: killed\n`)
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  }, Number(timeoutText))
  const code = await new Promise<number>((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(`inNamespace: ${error.message}\n`)
      resolve(127)
    })
    child.on("exit", (status, signal) => resolve(status ?? (signal === null ? 1 : 128)))
  })
  clearTimeout(timer)
  await server.close()
  return code
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`inNamespace: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
)
