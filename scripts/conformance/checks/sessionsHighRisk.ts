/**
 * The human gate in real host sessions (issue 26, points 5 and 7): in each host, a model that
 * loads a high-risk tool (the memory server's `delete_entities`) behind the gateway is refused,
 * and nothing is deleted; a person then approves the code of the refusal with
 * `tool-map catalog approve CODE` in a terminal, and in the next session the same load passes
 * and the call deletes. The model's script never approves: it only loads and calls.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { type Check, type CheckContext, withSandbox } from "../check.js"
import type { HostName } from "../hosts.js"
import type { SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { KEPT_ENTITY, offered } from "../sessions/gatewayFlow.js"
import { claudeSession } from "./sessionsClaudeCode.js"
import { codexSession, gatewayServer, type StdioServer } from "./sessionsCodex.js"
import { geminiSession } from "./sessionsGemini.js"
import { opencodeSession } from "./sessionsOpencode.js"

type Session = (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, logName: string) => SessionResult

const SESSIONS: Readonly<Record<HostName, Session>> = {
  claude: (context, sandbox, servers, logName) => claudeSession(context, sandbox, servers, { toolSearch: "off", script: "highRisk", logName }),
  codex: (context, sandbox, servers, logName) => codexSession(context, sandbox, servers, "highRisk", logName),
  gemini: (context, sandbox, servers, logName) => geminiSession(context, sandbox, servers, { script: "highRisk", logName, approval: "trust" }),
  opencode: (context, sandbox, servers, logName) => opencodeSession(context, sandbox, servers, "highRisk", logName)
}

const CODE = /tool-map catalog approve ([A-Z0-9]{4}-[A-Z0-9]{4})/

/** The answer the model got to its tools_load, from the request that carried it. */
const loadAnswer = (session: SessionResult): string | undefined =>
  session.requests.find((logged) => offered(logged.request, "tools_load") !== undefined && logged.request.toolResults.length === 1)?.request.toolResults[0]?.text

const oneLine = (text: string | undefined): string => (text ?? "(no tools_load answer)").replace(/\s+/g, " ").slice(0, 200)

const humanGateCheck = (host: HostName): Check => ({
  id: `${host}-session-high-risk`,
  host,
  title: `${host} with the gateway: a high-risk load is refused and nothing runs; after \`tool-map catalog approve CODE\` by a person, the next session loads and calls it`,
  run: (context) =>
    withSandbox(context, (sandbox) => {
      const memory = path.join(sandbox.root, "memory.jsonl")
      fs.writeFileSync(memory, `${JSON.stringify({ type: "entity", name: KEPT_ENTITY, entityType: "test", observations: ["kept until a person approves"] })}\n`)
      const servers = { "tool-map": gatewayServer(context, sandbox) }
      const kept = () => fs.readFileSync(memory, "utf8").includes(KEPT_ENTITY)

      const first = SESSIONS[host](context, sandbox, servers, "refused.jsonl")
      const refusal = loadAnswer(first)
      const code = refusal?.match(CODE)?.[1]
      // Why the gate refused (no elicitation, a cancel, a decline): an observation for the docs, not part of the verdict.
      process.stderr.write(`conformance: ${host} high-risk refusal: ${(refusal ?? "").match(/was not loaded: [^.]*/)?.[0] ?? oneLine(refusal)}\n`)
      const afterRefusal = kept() ? "nothing deleted" : "DELETED without a person"
      if (code === undefined) {
        return {
          toolMap: "refused with a code; nothing deleted",
          host: `${refusal?.includes("Loaded 1 tool(s)") === true ? "LOADED without a person" : "refused without a code"}: ${oneLine(refusal)}; ${afterRefusal}`
        }
      }
      // The person: the CLI in a terminal of the same HOME and data dir, confirming with --yes (no TTY here).
      const approved = context.runToolMap(sandbox, ["catalog", "approve", code, "--yes"])
      const second = SESSIONS[host](context, sandbox, servers, "approved.jsonl")
      const loaded = loadAnswer(second)
      return {
        toolMap: "refused with a code; nothing deleted; approved by a person (exit 0); the next load passed; the call deleted the entity",
        host: [
          "refused with a code",
          afterRefusal,
          `approved by a person (exit ${approved.status}${approved.status === 0 ? "" : `: ${oneLine(approved.stderr)}`})`,
          loaded?.includes("Loaded 1 tool(s)") === true ? "the next load passed" : `the next load: ${oneLine(loaded)}`,
          kept() ? `the call did not delete (exit ${second.result.status})` : "the call deleted the entity"
        ].join("; ")
      }
    })
})

export const sessionsHighRiskChecks: ReadonlyArray<Check> = (["claude", "codex", "gemini", "opencode"] as const).map(humanGateCheck)
