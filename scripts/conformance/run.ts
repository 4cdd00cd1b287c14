/**
 * `npm run conformance`: runs the real agent-host CLIs (pinned in hosts.ts, installed into a
 * cache outside the repo) on throwaway HOMEs without network, asks them and tool-map the same
 * questions, and prints one line per check (agree, disagree, or could not be made) with the host
 * version, both answers under each disagreement, and a total. Exits 1 unless every check agrees.
 *
 *   tsx scripts/conformance/run.ts [--only ID,ID…] [--list] [--verbose]
 *
 * --verbose shows both answers under every check, not only under disagreements.
 *
 * The checks live in checks/*.ts, one module per subject, each exporting an array of {@link Check};
 * a new module is added to CHECKS below.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Check, type CheckContext, type CheckOutcome, renderTable } from "./check.js"
import { claudeCodeChecks } from "./checks/claudeCode.js"
import { claudeCodeAgentChecks } from "./checks/claudeCodeAgents.js"
import { claudeLedgerChecks } from "./checks/claudeLedger.js"
import { gatewayChecks } from "./checks/gateway.js"
import { mcpSnippetChecks } from "./checks/mcpSnippets.js"
import { sessionsGeminiChecks } from "./checks/sessionsGemini.js"
import { sessionsHighRiskChecks } from "./checks/sessionsHighRisk.js"
import { sessionsSetupChecks } from "./checks/sessionsSetup.js"
import { sessionsClaudeCodeChecks } from "./checks/sessionsClaudeCode.js"
import { sessionsCodexChecks } from "./checks/sessionsCodex.js"
import { sessionsOpencodeChecks } from "./checks/sessionsOpencode.js"
import { sharedDirChecks } from "./checks/sharedDirs.js"
import { HOSTS, type HostName } from "./hosts.js"
import { ensureInstalled } from "./install.js"
import { createSandbox, describeIsolation, detectIsolation } from "./sandbox.js"

const CHECKS: ReadonlyArray<Check> = [...claudeCodeChecks, ...claudeCodeAgentChecks, ...mcpSnippetChecks, ...gatewayChecks, ...sharedDirChecks, ...sessionsCodexChecks, ...sessionsOpencodeChecks, ...sessionsGeminiChecks, ...sessionsClaudeCodeChecks, ...sessionsHighRiskChecks, ...sessionsSetupChecks, ...claudeLedgerChecks]

const ROOT = path.resolve(import.meta.dirname, "../..")

/** The file package.json installs as `tool-map`. */
const builtBin = (): string => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
  return path.resolve(ROOT, pkg.bin["tool-map"]!)
}

const parseArgs = (argv: ReadonlyArray<string>) => {
  const only = new Set<string>()
  let list = false
  let verbose = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (arg === "--list") list = true
    else if (arg === "--verbose") verbose = true
    else if (arg === "--only" && argv[index + 1] !== undefined) for (const id of argv[++index]!.split(",")) only.add(id)
    else throw new Error(`unknown argument ${arg} (use --only ID,ID…, --list or --verbose)`)
  }
  return { only, list, verbose }
}

const main = async (): Promise<number> => {
  const { only, list, verbose } = parseArgs(process.argv.slice(2))
  if (list) {
    for (const check of CHECKS) process.stdout.write(`${check.id}\t${check.host}\t${check.title}\n`)
    return 0
  }
  const unknown = [...only].filter((id) => !CHECKS.some((check) => check.id === id))
  if (unknown.length > 0) throw new Error(`no check named ${unknown.join(", ")} (see --list)`)
  const selected = CHECKS.filter((check) => only.size === 0 || only.has(check.id))

  const bin = builtBin()
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`)
  const isolation = detectIsolation()
  const installed = new Map<HostName, string>()
  const hostBin = (host: HostName): string => {
    const known = installed.get(host)
    if (known !== undefined) return known
    const file = ensureInstalled(host)
    installed.set(host, file)
    return file
  }
  for (const host of new Set(selected.map((check) => check.host))) hostBin(host)

  const context: CheckContext = {
    root: ROOT,
    serverInvocation: { command: process.execPath, args: [bin, "mcp"] },
    isolation,
    hostBin,
    sandbox: (fixture) => createSandbox(isolation, fixture),
    runHost: (sandbox, host, args, options = {}) =>
      sandbox.run(hostBin(host), args, { ...options, path: [...(options.path ?? []), path.dirname(hostBin(host))] }),
    runToolMap: (sandbox, args, options = {}) =>
      sandbox.run(process.execPath, [bin, ...args], { ...options, env: { PLUGIN_DATA: path.join(sandbox.root, "data"), ...options.env } })
  }

  // A build without `mcp` refuses it (exit 2); older builds (@effect/cli's help) answered with the root's help and exit 0.
  const mcpHelp = spawnSync(process.execPath, [bin, "mcp", "--help"], { encoding: "utf8", timeout: 30_000 })
  const hasMcp = mcpHelp.status === 0 && /^(Usage: tool-map mcp|\S*\$ mcp)\b/m.test(mcpHelp.stdout.replace(/\u001b\[[0-9;]*m/g, ""))
  process.stdout.write(
    [
      `tool-map conformance: ${selected.length} checks, hosts run with ${describeIsolation(isolation)}`,
      `tool-map: ${bin}${hasMcp ? "" : " (this build has no `mcp` command: the checks of its server cannot agree)"}`,
      ""
    ].join("\n")
  )

  const outcomes: Array<CheckOutcome> = []
  for (const check of selected) {
    process.stderr.write(`conformance: ${check.id}\n`)
    const hostVersion = HOSTS[check.host].version
    try {
      const answers = await check.run(context)
      outcomes.push({ check, hostVersion, verdict: answers.toolMap === answers.host ? "agree" : "disagree", answers })
    } catch (error) {
      outcomes.push({ check, hostVersion, verdict: "error", answers: { error: error instanceof Error ? error.message : String(error) } })
    }
  }
  process.stdout.write(renderTable(outcomes, verbose))
  return outcomes.every((outcome) => outcome.verdict === "agree") ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
)
