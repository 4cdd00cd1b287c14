/**
 * The gateway's risk gate: a high-risk tool is loaded only when a person said yes. An approval
 * the user gave with `tool-map catalog approve CODE` for this agent and tool is used first (once:
 * spent where the load commits, after every gate, so a load stopped by a later tool's question or
 * a cancel leaves it to the next, and two loads never share it);
 * else a session of the agent whose client can elicit asks the user (a 2026-07-28 request: that
 * request, whose answer is `input_required` until the client retries it with the user's answer); else (or when that request
 * fails or is cancelled) the load is refused with a one-time code the user approves in a terminal.
 * A "no" is a no: refused, without a code. Nothing a client sends can approve: the gateway only
 * asks for codes and consumes approvals, the CLI alone approves (see docs/gateway-approvals.md).
 */
import { Duration, Effect, FiberRef, Option, type Scope } from "effect"
import type { ToolEntry } from "../../catalog/core/model.js"
import { type Agent, ToolCatalog } from "../../catalog/services/ToolCatalog.js"
import { ApprovalCodes } from "../../catalog/stores/ApprovalCodes.js"
import { neutralize } from "../../inventory/render/text.js"
import { CurrentRequestSession, type McpSession } from "../server/McpSession.js"

/** What the gate needs of the provider. */
export interface GatewayRiskGateOptions {
  /** The gate's name, as the catalog's notes show it. */
  readonly name: string
  /** The sessions the agent is attached through now. */
  readonly sessionsOf: (agentId: string) => Effect.Effect<ReadonlyArray<McpSession>>
  /** Records why the load of `tool` was refused (for the answer of the request that loads) and answers false. */
  readonly refuse: (tool: string, reason: string) => Effect.Effect<boolean>
}

/** The sentence that tells the model how a person approves `tool` with `code`, valid until `expiresAt`. */
export const approvalInstruction = (code: string, expiresAt: number, now: number): string => {
  const minutes = Math.max(1, Math.ceil(Duration.toMinutes(Duration.millis(expiresAt - now))))
  return `Ask the user to run \`tool-map catalog approve ${code}\` in their terminal (the code expires in ${minutes} minute${minutes === 1 ? "" : "s"}), then call tools_load again.`
}

const canElicit = (session: McpSession) => Option.exists(session.capabilities, (capabilities) => capabilities.elicitation !== undefined)

/** Registers the gateway's risk gate on the catalog for as long as the scope lasts. */
export const registerGatewayRiskGate = (
  options: GatewayRiskGateOptions
): Effect.Effect<void, never, ToolCatalog | ApprovalCodes | Scope.Scope> =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog
    const approvals = yield* ApprovalCodes

    /** Refuses with a code for the user to approve in a terminal; `why` says why the client could not ask. */
    const refuseWithCode = (agent: Agent, tool: ToolEntry, why: string) =>
      Effect.gen(function*() {
        const issued = yield* approvals.request({
          agentId: agent.id,
          tool: tool.name,
          server: tool.group,
          summary: tool.summary,
          evidence: tool.riskEvidence
        }).pipe(Effect.either)
        if (issued._tag === "Left") {
          return yield* options.refuse(tool.name, `${tool.name} was not loaded: ${why}, and no approval code could be recorded (${issued.left.message})`)
        }
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        return yield* options.refuse(
          tool.name,
          `${tool.name} was not loaded: ${why}. ${approvalInstruction(issued.right.code, issued.right.expiresAt, now)}`
        )
      })

    yield* catalog.registerRiskGate({
      name: options.name,
      approve: ({ agent, tool, spendOnLoad }) =>
        Effect.gen(function*() {
          const current = yield* FiberRef.get(CurrentRequestSession)
          // The approval is spent where the load commits (a later tool's question, a cancel, stops
          // the load before it and spends nothing); a load that finds it gone by then refuses the
          // tool. A store that cannot be read has no approval to give: the code path below says why.
          if (yield* approvals.isApproved(agent.id, tool.name).pipe(Effect.orElseSucceed(() => false))) {
            yield* spendOnLoad(
              approvals.consume(agent.id, tool.name).pipe(
                Effect.orElseSucceed(() => false),
                Effect.tap((spent) =>
                  spent ? Effect.void : refuseWithCode(agent, tool, "its terminal approval was used by another load, denied or expired meanwhile")
                )
              )
            )
            return true
          }
          // A 2026-07-28 request asks through its own answer (`input_required`), with its own capabilities.
          const asking = (Option.isSome(current) ? [current.value] : yield* options.sessionsOf(agent.id)).find(canElicit)
          if (asking === undefined) {
            return yield* refuseWithCode(
              agent,
              tool,
              "this MCP client cannot ask the user to confirm a high-risk tool (it declared no elicitation capability)"
            )
          }
          const evidence = tool.riskEvidence.length > 0 ? `\nWhy it is high risk: ${neutralize(tool.riskEvidence.join("; "))}` : ""
          const answer = yield* asking.elicit({
            mode: "form",
            message: `Let the agent use the high-risk tool ${neutralize(tool.name)}?\n${neutralize(tool.summary)}${evidence}`,
            requestedSchema: {
              type: "object",
              properties: { confirm: { type: "boolean", title: `Load ${tool.name}`, description: "Make this tool callable for the session." } },
              required: ["confirm"]
            }
          }).pipe(Effect.either)
          // The client declared elicitation but could not ask (some support only some forms): a code still reaches a person.
          if (answer._tag === "Left") return yield* refuseWithCode(agent, tool, answer.left.message)
          if (answer.right.action === "accept" && answer.right.content?.["confirm"] === true) return true
          // Only an explicit "no" in the form is the user's decision. A cancel or a decline may come
          // from a client with nobody to show the form to: Codex 0.171.0 `exec` declines every
          // elicitation under `approval_policy = "never"` (seen in a scripted session). A code still
          // needs a person at a terminal, so offering one weakens nothing.
          if (answer.right.action !== "accept") return yield* refuseWithCode(agent, tool, `the user answered ${answer.right.action}`)
          return yield* options.refuse(tool.name, `${tool.name} was not loaded: the user answered no`)
        })
    })
  })
