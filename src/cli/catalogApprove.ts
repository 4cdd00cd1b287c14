// `tool-map catalog approve`: a person approves (or denies) the one-time code the gateway gave an
// agent for a high-risk tool, where the agent's MCP client cannot ask the user itself. Loaded,
// like the other catalog handlers, only when it runs (see catalogCommands.ts).
import { Clock, Console, Context, Effect, Layer, Option } from "effect"
import * as readline from "node:readline"
import { type Approval, ApprovalCodeNotFound, ApprovalCodes, approvalsFileIn, normalizeCode } from "../catalog/stores/ApprovalCodes.js"
import { cleanText } from "../inventory/domain/untrusted.js"
import { defaultCatalogDir } from "../layers/HostLayer.js"
import { MachineEnvironment } from "../services/MachineEnvironment.js"
import { CatalogUsageError } from "./catalogHandlers.js"
import { printJson, printLines, printTable } from "./output.js"
import { TerminalFacts } from "./terminal.js"

/** Reads one answer from the terminal: the question on stderr, the line typed on stdin ("" on Ctrl-C or end of input). */
const askOnTerminal = (question: string) =>
  Effect.async<string>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    let done = false
    const finish = (answer: string) => {
      if (done) return
      done = true
      rl.close()
      resume(Effect.succeed(answer))
    }
    rl.on("close", () => finish(""))
    // Ctrl-C at the question is a no; the line it interrupted is ended first.
    rl.on("SIGINT", () => {
      process.stderr.write("\n")
      finish("")
    })
    rl.question(question, finish)
    return Effect.sync(() => {
      done = true
      rl.close()
    })
  })

/** How `catalog approve CODE` asks the person at the terminal; tests provide their own answers. */
export class ApprovalQuestion extends Context.Reference<ApprovalQuestion>()("tool-map/ApprovalQuestion", {
  defaultValue: (): { readonly ask: (question: string) => Effect.Effect<string> } => ({ ask: askOnTerminal })
}) {}

/** The approvals of the default catalog dir, where the gateway keeps them. */
export const approvalsCliLayer = Layer.unwrapEffect(
  Effect.map(MachineEnvironment, (environment) =>
    ApprovalCodes.layer(approvalsFileIn(defaultCatalogDir(environment.env, environment.homedir))))
)

/** An approval's texts came from an MCP server and a client: cleaned once, before any output. */
const cleaned = (approval: Approval): Approval => ({
  ...approval,
  agentId: cleanText(approval.agentId),
  tool: cleanText(approval.tool),
  server: cleanText(approval.server),
  summary: cleanText(approval.summary),
  evidence: approval.evidence.map(cleanText)
})

const approvalJson = (approval: Approval) => ({
  code: approval.code,
  status: approval.status,
  agent: approval.agentId,
  tool: approval.tool,
  server: approval.server,
  summary: approval.summary,
  evidence: approval.evidence,
  requestedAt: new Date(approval.requestedAt).toISOString(),
  expiresAt: new Date(approval.expiresAt).toISOString()
})

/** "10 min": the minutes left, rounded up. */
const minutesLeft = (expiresAt: number, now: number) => `${Math.max(1, Math.ceil((expiresAt - now) / 60_000))} min`

const codeOf = (typed: string) =>
  Option.match(normalizeCode(typed), {
    onNone: () =>
      Effect.fail(new CatalogUsageError({ command: "approve", reason: `"${typed}" is not an approval code (8 letters and digits, like ABCD-EFGH)` })),
    onSome: Effect.succeed
  })

const list = (json: boolean) =>
  Effect.gen(function*() {
    const approvals = (yield* (yield* ApprovalCodes).list).map(cleaned)
    if (json) return yield* printJson({ approvals: approvals.map(approvalJson) })
    const now = yield* Clock.currentTimeMillis
    if (approvals.length > 0) {
      yield* printLines(["Approvals waiting (approve one with `tool-map catalog approve CODE`, refuse it with `tool-map catalog approve --deny CODE`):"])
    }
    yield* printTable(
      ["CODE", "STATUS", "AGENT", "TOOL", "SERVER", "EXPIRES"],
      approvals.map((approval) => [approval.code, approval.status, approval.agentId, approval.tool, approval.server, `in ${minutesLeft(approval.expiresAt, now)}`]),
      "No approvals are waiting."
    )
  })

const deny = (typed: string, json: boolean) =>
  Effect.gen(function*() {
    const approval = cleaned(yield* (yield* ApprovalCodes).deny(yield* codeOf(typed)))
    if (json) return yield* printJson({ denied: true, approval: approvalJson(approval) })
    yield* printLines([
      `Denied ${approval.code}: ${approval.agentId} may not load ${approval.tool} with it; a later tools_load asks for a new code.`
    ])
  })

/** The tool an approval is for, as the person is shown it before they answer. */
const details = (approval: Approval, now: number): ReadonlyArray<string> => [
  `An agent asks to load a high-risk tool (code ${approval.code}):`,
  `  agent:   ${approval.agentId}`,
  `  tool:    ${approval.tool}`,
  `  server:  ${approval.server}`,
  `  summary: ${approval.summary}`,
  `  why it is high risk: ${approval.evidence.length > 0 ? approval.evidence.join("; ") : "listed as high risk"}`,
  `  the code expires in ${minutesLeft(approval.expiresAt, now)}`
]

const approve = (typed: string, flags: { readonly yes: boolean; readonly json: boolean }) =>
  Effect.gen(function*() {
    const code = yield* codeOf(typed)
    if (!flags.yes && !(yield* TerminalFacts).stdinIsTty) {
      return yield* new CatalogUsageError({
        command: "approve",
        reason:
          "stdin is not a terminal, and an approval needs a person to confirm it: run it in your own terminal (see --help)"
      })
    }
    const approvals = yield* ApprovalCodes
    const found = yield* approvals.find(code)
    if (Option.isNone(found)) return yield* new ApprovalCodeNotFound({ code })
    // Approved already: nothing to ask, it is answered as it stands.
    if (found.value.status === "approved") return yield* reportApproved(found.value, flags.json)
    const now = yield* Clock.currentTimeMillis
    const shown = cleaned(found.value)
    yield* Console.error(details(shown, now).join("\n"))
    if (!flags.yes) {
      const answer = (yield* (yield* ApprovalQuestion).ask("Approve this one load? [y/N] ")).trim().toLowerCase()
      if (answer !== "y" && answer !== "yes") {
        if (flags.json) return yield* printJson({ approved: false, approval: approvalJson(shown) })
        return yield* printLines([
          `Not approved: ${code} stays pending until it expires; refuse it now with \`tool-map catalog approve --deny ${code}\`.`
        ])
      }
    }
    yield* reportApproved(yield* approvals.approve(code), flags.json)
  })

const reportApproved = (stored: Approval, json: boolean) =>
  Effect.gen(function*() {
    const approval = cleaned(stored)
    if (json) return yield* printJson({ approved: true, approval: approvalJson(approval) })
    const now = yield* Clock.currentTimeMillis
    yield* printLines([
      `Approved ${approval.code}: the next tools_load of ${approval.tool} by ${approval.agentId} within ${minutesLeft(approval.expiresAt, now)} loads it, once.`
    ])
  })

/** `catalog approve` (list), `catalog approve CODE [--yes]`, `catalog approve --deny CODE`. */
export const run = (flags: {
  readonly code: Option.Option<string>
  readonly deny: Option.Option<string>
  readonly yes: boolean
  readonly json: boolean
}) =>
  Effect.gen(function*() {
    if (Option.isSome(flags.code) && Option.isSome(flags.deny)) {
      return yield* new CatalogUsageError({ command: "approve", reason: "give a CODE to approve or --deny CODE, not both" })
    }
    if (Option.isSome(flags.deny)) return yield* deny(flags.deny.value, flags.json)
    if (Option.isSome(flags.code)) return yield* approve(flags.code.value, flags)
    return yield* list(flags.json)
  })
