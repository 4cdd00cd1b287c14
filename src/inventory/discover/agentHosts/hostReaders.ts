import { Effect } from "effect"
import * as NodePath from "node:path"
import type { AgentHostName } from "../../domain/agentHosts.js"
import { MachineEnvironment } from "../../../services/MachineEnvironment.js"
import { FrontmatterParser } from "../FrontmatterParser.js"
import { AgentHostFiles, defaultHostFileLimits } from "./AgentHostFiles.js"
import { readClaudeCode } from "./claudeCode.js"
import { readCodex } from "./codex.js"
import { readCursor } from "./cursor.js"
import { readGemini } from "./gemini.js"
import type { HostReadContext, HostReadResult } from "./hostReading.js"
import { readOpencode } from "./opencode.js"

/** The reader of each host, in report order. */
export const HOST_READERS: Readonly<Record<AgentHostName, (ctx: HostReadContext) => Effect.Effect<HostReadResult>>> = {
  "claude-code": readClaudeCode,
  codex: readCodex,
  cursor: readCursor,
  gemini: readGemini,
  opencode: readOpencode
}

/**
 * The context of a host reader run outside a scan (the gateway's servers, `gateway setup`): over
 * the graph's `AgentHostFiles`, whose layer (concurrent or one by one) the graph chose.
 */
export const agentHostReadContext: Effect.Effect<HostReadContext, never, AgentHostFiles | MachineEnvironment | FrontmatterParser> = Effect.gen(function* () {
  const env = yield* MachineEnvironment
  return {
    files: yield* AgentHostFiles,
    env,
    parser: yield* FrontmatterParser,
    limits: defaultHostFileLimits,
    path: env.os === "win32" ? NodePath.win32 : NodePath.posix
  }
})
