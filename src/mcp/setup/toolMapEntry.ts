/**
 * Whether an MCP server entry starts tool-map's own MCP server: recognised by what it runs (its
 * command, or its first argument after a runtime such as node or npx, is a tool-map CLI, and
 * `mcp` is among its arguments), never by its name. Such an entry is never moved behind the
 * gateway: the gateway would front itself.
 */
import * as NodePath from "node:path"
import { asRecord, asString, asStringArray } from "../../inventory/discover/agentHosts/shared.js"
import type { McpDialect } from "../../inventory/discover/agentHosts/mcpLaunch.js"

const TOOL_MAP_CLI = /^tool-map(\.gateway)?(\.(c|m)?js)?$/i

const isToolMapCli = (word: string | undefined): boolean =>
  word !== undefined && TOOL_MAP_CLI.test(NodePath.basename(word.replaceAll("\\", "/")))

/** The words an entry runs: its command then its arguments (opencode's command is the whole list). */
const wordsOf = (raw: unknown, dialect: McpDialect): ReadonlyArray<string> => {
  const entry = asRecord(raw)
  if (entry === null) return []
  const list = dialect === "opencode" ? asStringArray(entry["command"]) : null
  if (list !== null) return list
  const command = asString(entry["command"])
  return command === null ? [] : [command, ...(asStringArray(entry["args"]) ?? [])]
}

/** Whether the entry `raw` (in the host's dialect) runs `tool-map … mcp …`. */
export const runsToolMap = (raw: unknown, dialect: McpDialect): boolean => {
  const [command, ...args] = wordsOf(raw, dialect)
  if (command === undefined || !args.includes("mcp")) return false
  const firstArg = args.find((arg) => !arg.startsWith("-"))
  return isToolMapCli(command) || isToolMapCli(firstArg)
}
