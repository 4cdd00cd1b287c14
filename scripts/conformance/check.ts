import type { CommandResult, Isolation, RunOptions, Sandbox } from "./sandbox.js"
import type { AgentHostName } from "../../src/inventory/domain/agentHosts.js"
import type { HostName } from "./hosts.js"

/** What a check compares: tool-map's answer (or what its files say) and the host's own. */
export interface Answers {
  readonly toolMap: string
  readonly host: string
}

/** Everything a check needs: the repo, the built tool-map, the pinned hosts, fresh sandboxes. */
export interface CheckContext {
  /** The repository's root. */
  readonly root: string
  /** How a host starts this checkout's built MCP server: `node /abs/dist/tool-map.cjs mcp`. */
  readonly serverInvocation: { readonly command: string; readonly args: ReadonlyArray<string> }
  readonly isolation: Isolation
  /** The path of a pinned host's executable, installed on first use. */
  readonly hostBin: (host: HostName) => string
  /** A fresh sandbox (a copy of `fixture` when given), removed when the check ends. */
  readonly sandbox: (fixture?: string) => Sandbox
  /** Runs a pinned host's executable in a sandbox. */
  readonly runHost: (sandbox: Sandbox, host: HostName, args: ReadonlyArray<string>, options?: RunOptions) => CommandResult
  /** Runs the built tool-map in a sandbox, its data dir inside the sandbox. */
  readonly runToolMap: (sandbox: Sandbox, args: ReadonlyArray<string>, options?: RunOptions) => CommandResult
}

/**
 * One conformance check: a question asked of a real host and of tool-map. A module of checks
 * exports an array of these; run.ts lists the modules. The two answers are normalized to the
 * same short text, so agreement is string equality and a disagreement shows both.
 */
export interface Check {
  /** A short unique id (`--only` selects by it). */
  readonly id: string
  readonly host: HostName
  /** What is compared, in a line. */
  readonly title: string
  readonly run: (context: CheckContext) => Answers | Promise<Answers>
}

export type Verdict = "agree" | "disagree" | "error"

export interface CheckOutcome {
  readonly check: Check
  readonly hostVersion: string
  readonly verdict: Verdict
  /** Both answers (agree, disagree) or why the check could not be made (error). */
  readonly answers: Answers | { readonly error: string }
}

/** Runs `body` in a fresh sandbox, removed afterwards whatever happens. */
export const withSandbox = <A>(context: CheckContext, body: (sandbox: Sandbox) => A): A => {
  const sandbox = context.sandbox()
  try {
    return body(sandbox)
  } finally {
    sandbox.remove()
  }
}

/** A host command's failure, with what it printed, for an error row. */
export class HostCommandFailed extends Error {
  constructor(what: string, result: CommandResult) {
    const why = result.timedOut ? "timed out" : result.signal !== null ? `killed by ${result.signal}` : `exited ${result.status}`
    const output = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-6).join("\n    ")
    super(`${what} ${why}${output === "" ? "" : `:\n    ${output}`}`)
  }
}

/** The result of a command that must succeed. */
export const succeeded = (what: string, result: CommandResult): CommandResult => {
  if (result.status !== 0) throw new HostCommandFailed(what, result)
  return result
}

/** The JSON a `tool-map query KIND [flags] --json` prints for the sandbox, the type the caller expects of it. */
export const toolMapQuery = <A>(context: CheckContext, sandbox: Sandbox, args: ReadonlyArray<string>, options?: RunOptions): A => {
  const argv = ["query", ...args, "--json"]
  return JSON.parse(succeeded(`tool-map ${argv.join(" ")}`, context.runToolMap(sandbox, argv, options)).stdout) as A
}

/**
 * The list a `tool-map query KIND --json` answers: since issue 29 the answer is `{ stale,
 * staleReason, KIND: [...] }`; an older build printed the bare list.
 */
export const toolMapList = <A>(context: CheckContext, sandbox: Sandbox, args: ReadonlyArray<string>, options?: RunOptions): ReadonlyArray<A> => {
  const answer = toolMapQuery<unknown>(context, sandbox, args, options)
  if (Array.isArray(answer)) return answer as ReadonlyArray<A>
  const list = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>)[args[0]!] : undefined
  if (!Array.isArray(list)) throw new Error(`tool-map query ${args.join(" ")} --json: no list under "${args[0]}"`)
  return list as ReadonlyArray<A>
}

/**
 * What `tool-map mcp --print-config HOST` prints in the sandbox: the snippet a user copies, with
 * the invocation the built CLI computes for itself (the checks expect {@link CheckContext.serverInvocation}).
 */
export const printConfig = (context: CheckContext, sandbox: Sandbox, host: AgentHostName): string =>
  succeeded(`tool-map mcp --print-config ${host}`, context.runToolMap(sandbox, ["mcp", "--print-config", host])).stdout

/** Colour and cursor escapes, which some hosts print even with NO_COLOR and TERM=dumb. */
export const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")

const pad = (text: string, width: number) => text.padEnd(width)

/**
 * The table: one line per check (verdict, host and version, id, title), both answers under each
 * disagreement (under every check when `verbose`), and a total.
 */
export const renderTable = (outcomes: ReadonlyArray<CheckOutcome>, verbose = false): string => {
  const hostWidth = Math.max(4, ...outcomes.map((outcome) => `${outcome.check.host}@${outcome.hostVersion}`.length))
  const idWidth = Math.max(5, ...outcomes.map((outcome) => outcome.check.id.length))
  const lines = [`${pad("verdict", 8)}  ${pad("host", hostWidth)}  ${pad("check", idWidth)}  what`]
  for (const outcome of outcomes) {
    const host = `${outcome.check.host}@${outcome.hostVersion}`
    lines.push(`${pad(outcome.verdict, 8)}  ${pad(host, hostWidth)}  ${pad(outcome.check.id, idWidth)}  ${outcome.check.title}`)
    if (outcome.verdict === "agree" && !verbose) continue
    if ("error" in outcome.answers) {
      lines.push(`    error: ${outcome.answers.error}`)
    } else {
      lines.push(`    tool-map: ${outcome.answers.toolMap.replace(/\n/g, "\n              ")}`)
      lines.push(`    host:     ${outcome.answers.host.replace(/\n/g, "\n              ")}`)
    }
  }
  const count = (verdict: Verdict) => outcomes.filter((outcome) => outcome.verdict === verdict).length
  lines.push(`${outcomes.length} checks: ${count("agree")} agree, ${count("disagree")} disagree, ${count("error")} could not be made`)
  return `${lines.join("\n")}\n`
}
