import {
  AGENT_HOST_TITLES,
  AGENT_HOSTS,
  type AgentHostItem,
  type AgentHostName,
  type AgentHostReport,
  type AgentHostsInventory,
  type AgentItem,
  isEffective
} from "../domain/agentHosts.js"
import { cleanAgentHosts } from "../domain/cleanInventory.js"
import { formatTokens } from "../domain/tokens.js"
import { effectiveToolNames } from "../query/agentQueries.js"
import { hostLedgerLine } from "../query/contextLedger.js"
import { byteLength, mdCell, mdCellFit, mdCode, truncateChars, utf16Length } from "./text.js"

/**
 * An agent's name as its host calls it (issue 28, point 6): Claude Code calls a plugin's agent
 * `<plugin>:<name>` (the `agentType` its plugin agent loader builds from the plugin's name, the
 * subfolders and the name, 2.1.332), so two plugins' `code-reviewer` can be told apart; every
 * other agent keeps its name.
 */
export const hostAgentName = (agent: AgentItem): string => {
  if (agent.host !== "claude-code" || agent.plugin === null || agent.source !== "plugin-root") return agent.name
  const at = agent.plugin.lastIndexOf("@")
  return `${at > 0 ? agent.plugin.slice(0, at) : agent.plugin}:${agent.name}`
}

/** The cells of `query agents`' table: name (as the host calls it), host, scope, model, tools, bg, source, state. */
export const AGENT_QUERY_COLUMNS = ["name", "host", "scope", "model", "tools", "bg", "source", "state"] as const
export const agentQueryCells = (agent: AgentItem, state: string): ReadonlyArray<string> => [
  hostAgentName(agent),
  agent.host,
  agent.scope,
  agent.model ?? "",
  agent.tools === null ? "(all)" : effectiveToolNames(agent).join(","),
  agent.background ? "yes" : "",
  agent.source,
  state
]

/** The state of an item in words: loaded, shadowed by whom, or why it is off. */
export const itemState = (item: AgentHostItem, byId: ReadonlyMap<string, AgentHostItem>): string => {
  if (!item.enabled) return `off: ${item.disabledReason ?? "disabled"}`
  if (item.shadowedBy !== null) {
    const winner = byId.get(item.shadowedBy)
    return winner === undefined ? "shadowed" : `shadowed by ${winner.scope} ${winner.name}`
  }
  return "loaded"
}

/**
 * Claude Code counts a command file (`commands/*.md`) as a skill: `claude plugin details`
 * (2.1.332) lists a plugin's commands under "Skills", and its docs say commands were merged into
 * skills. The items keep their kind; counts, names and section titles follow the host.
 */
const countedAsSkill = (host: AgentHostName, kind: AgentHostItem["kind"]): boolean => host === "claude-code" && kind === "command"

const sectionTitle = (host: AgentHostName, kind: AgentHostItem["kind"], title: string): string =>
  countedAsSkill(host, kind) ? "Skills from commands/" : title

const SECTION_TITLES: ReadonlyArray<readonly [AgentHostItem["kind"], string]> = [
  ["agent", "Agents"],
  ["skill", "Skills"],
  ["command", "Commands"],
  ["mcpServer", "MCP servers"],
  ["plugin", "Plugins"],
  ["instructions", "Instructions"]
]

const cell = (text: string | null | undefined): string => mdCell(text ?? "")
const code = (text: string | null | undefined): string => (text === null || text === undefined || text === "" ? "" : mdCode(text))
const list = (values: ReadonlyArray<string> | null): string => (values === null ? "" : cell(values.join(", ")))

const row = (cells: ReadonlyArray<string>): string => `| ${cells.join(" | ")} |`

const tableOf = (kind: AgentHostItem["kind"], items: ReadonlyArray<AgentHostItem>, byId: ReadonlyMap<string, AgentHostItem>): ReadonlyArray<string> => {
  const state = (item: AgentHostItem) => cell(itemState(item, byId))
  switch (kind) {
    case "agent":
      return [
        row(["name", "scope", "state", "model", "tools", "source", "path"]),
        "|---|---|---|---|---|---|---|",
        ...items.map((item) => {
          const agent = item as AgentItem
          const tools = agent.tools === null ? `(inherits all)${agent.disallowedTools.length > 0 ? ` minus ${agent.disallowedTools.join(", ")}` : ""}` : effectiveToolNames(agent).join(", ")
          return row([cell(agent.name), agent.scope, state(agent), cell(agent.model), cell(tools), agent.source, code(agent.path)])
        })
      ]
    case "skill":
    case "command":
      return [
        row(["name", "scope", "state", "description", "path"]),
        "|---|---|---|---|---|",
        ...items.map((item) =>
          row([
            cell(item.plugin === null ? item.name : `${item.name} (${item.plugin})`),
            item.scope,
            state(item),
            cell("description" in item ? truncateChars(item.description ?? "", 120) : ""),
            code(item.path)
          ])
        )
      ]
    case "mcpServer":
      return [
        row(["name", "scope", "state", "transport", "command / url", "env vars", "path"]),
        "|---|---|---|---|---|---|---|",
        ...items.map((item) => {
          if (item.kind !== "mcpServer") return ""
          const target = item.command === null ? item.url : [item.command, ...item.args].join(" ")
          return row([cell(item.name), item.scope, state(item), item.transport, code(truncateChars(target ?? "", 160)), list(item.envVars), code(item.path)])
        })
      ]
    case "plugin":
      return [
        row(["name", "marketplace", "version", "scope", "state", "path"]),
        "|---|---|---|---|---|---|",
        ...items.map((item) =>
          item.kind === "plugin" ? row([cell(item.name), cell(item.marketplace), cell(item.version), item.scope, state(item), code(item.path)]) : ""
        )
      ]
    case "instructions":
      return [
        row(["file", "scope", "bytes", "path"]),
        "|---|---|---|---|",
        ...items.map((item) => (item.kind === "instructions" ? row([cell(item.name), item.scope, String(item.size), code(item.path)]) : ""))
      ]
  }
}

const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`


/** The "## Agent hosts" part of tools.md: per host, the locations read, a table per kind, diagnostics. */
export const renderAgentHostsMarkdown = (raw: AgentHostsInventory): string => {
  const inventory = cleanAgentHosts(raw)
  const lines: Array<string> = ["## Agent hosts", ""]
  const byId = new Map(inventory.items.map((item) => [item.id, item] as const))
  const reports = orderedReports(inventory)
  if (reports.length === 0) lines.push("No agent host was scanned.", "")
  for (const report of reports) {
    const items = inventory.items.filter((item) => item.host === report.host)
    const diagnostics = inventory.diagnostics.filter((diagnostic) => diagnostic.source === `agent-hosts/${report.host}`)
    lines.push(`### ${AGENT_HOST_TITLES[report.host]}`, "")
    if (!report.detected) {
      lines.push(`Not found (looked in ${plural(report.roots.length, "location")}).`, "")
      continue
    }
    lines.push(`${plural(items.length, "item")}, ${items.filter(isEffective).length} loaded by the host; ${plural(diagnostics.length, "diagnostic")}.`, "")
    lines.push("| location | reads | status |", "|---|---|---|")
    for (const root of report.roots) {
      lines.push(row([code(root.path), cell(root.role), `${root.status}${root.reason === null ? "" : `: ${cell(root.reason)}`}`]))
    }
    lines.push("")
    for (const [kind, title] of SECTION_TITLES) {
      const ofKind = items.filter((item) => item.kind === kind)
      if (ofKind.length === 0) continue
      lines.push(`#### ${sectionTitle(report.host, kind, title)} (${ofKind.length})`, "", ...tableOf(kind, ofKind, byId), "")
    }
    if (diagnostics.length > 0) {
      lines.push("#### Diagnostics", "")
      for (const diagnostic of diagnostics) {
        const where = diagnostic.path === null ? "" : `${mdCode(diagnostic.path)}${diagnostic.line === null ? "" : `:${diagnostic.line}`}: `
        lines.push(`- ${where}${cell(diagnostic.message)}`)
      }
      lines.push("")
    }
  }
  return `${lines.join("\n").trimEnd()}\n`
}

const orderedReports = (inventory: AgentHostsInventory): ReadonlyArray<AgentHostReport> =>
  AGENT_HOSTS.flatMap((host) => inventory.hosts.filter((report) => report.host === host))

/** How long a name in the summary is at most, in UTF-16 code units: longer ones keep their head and tail around `…`. */
const SUMMARY_NAME_LENGTH = 48

// Names in the summary are untrusted (file names, frontmatter): escaped as in tools.md, and short.
const summaryName = (name: string): string => mdCellFit(name, SUMMARY_NAME_LENGTH, "middle", utf16Length)

const KIND_WORDS: ReadonlyArray<readonly [AgentHostItem["kind"], string, string]> = [
  ["agent", "agent", "agents"],
  ["skill", "skill", "skills"],
  ["command", "command", "commands"],
  ["mcpServer", "MCP server", "MCP servers"],
  ["plugin", "plugin", "plugins"]
]

/** `names`: distinct full names, sorted; only the `limit` shown are escaped and cut for display. */
const namesLine = (label: string, names: ReadonlyArray<string>, limit: number): string | null => {
  if (names.length === 0 || limit <= 0) return null
  const shown = names.slice(0, limit).map(summaryName)
  const rest = names.length - shown.length
  return `  - ${label}: ${shown.join(", ")}${rest > 0 ? ` … and ${rest} more` : ""}`
}

const hostLines = (host: AgentHostName, inventory: AgentHostsInventory, limit: number): ReadonlyArray<string> => {
  const items = inventory.items.filter((item) => item.host === host)
  const loaded = items.filter(isEffective)
  // The kind an item is counted and named under in this host's lines.
  const countedKind = (item: AgentHostItem): AgentHostItem["kind"] => (countedAsSkill(host, item.kind) ? "skill" : item.kind)
  const counts = KIND_WORDS.flatMap(([kind, one, many]) => {
    const all = items.filter((item) => countedKind(item) === kind).length
    const on = loaded.filter((item) => countedKind(item) === kind).length
    const fromCommands = kind === "skill" ? loaded.filter((item) => item.kind !== kind && countedKind(item) === kind).length : 0
    const note = fromCommands === 0 ? "" : ` (${fromCommands} from commands/)`
    return all === 0 ? [] : [`${on === all ? all : `${on}/${all}`} ${all === 1 ? one : many}${note}`]
  })
  const diagnostics = inventory.diagnostics.filter((diagnostic) => diagnostic.source === `agent-hosts/${host}`).length
  const ignored = items.filter((item) => item.kind === "mcpServer" && !item.enabled && (item.disabledReason ?? "").startsWith("ignored by the host")).length
  const head = `- ${AGENT_HOST_TITLES[host]}: ${counts.length === 0 ? "nothing configured" : counts.join(", ")} loaded${diagnostics > 0 ? `; ${plural(diagnostics, "diagnostic")}` : ""}${ignored > 0 ? `; ${plural(ignored, "MCP entry", "MCP entries")} the host ignores` : ""}`
  // Distinct full names first, cut for display after: `… and N more` counts distinct names not shown.
  const names = (kind: AgentHostItem["kind"]) =>
    Array.from(new Set(loaded.filter((item) => countedKind(item) === kind).map((item) => (item.kind === "plugin" ? item.plugin ?? item.name : item.name)))).sort()
  const detail = KIND_WORDS.flatMap(([kind, , many]) => {
    const line = namesLine(many, names(kind), limit)
    return line === null ? [] : [line]
  })
  // The always-on line goes with the names: when even those do not fit, the counts alone stay.
  const ledger = limit === 0 ? null : ledgerLine(host, inventory, Math.min(3, limit))
  return [head, ...(ledger === null ? [] : [ledger]), ...detail]
}

/** The host's always-on total (issue 14) and up to `limit` of its largest items, or null when it loads nothing. */
const ledgerLine = (host: AgentHostName, inventory: AgentHostsInventory, limit: number): string | null => {
  const ledger = hostLedgerLine(inventory, host)
  if (ledger === null) return null
  const unknown = ledger.unknown === 0 ? "" : ` + ${plural(ledger.unknown, "item")} unknown`
  const largest = ledger.largest.slice(0, limit).map((row) => `${summaryName(row.name)} ${formatTokens(row.alwaysOnTokens ?? 0)}`)
  return `  - always-on: ${formatTokens(ledger.total)}${unknown} in every session${largest.length === 0 ? "" : `; largest: ${largest.join(", ")}`}`
}

const totalBytes = (lines: ReadonlyArray<string>): number => lines.reduce((sum, line) => sum + byteLength(line) + 1, 0)

/**
 * A few lines per detected host (counts, then the notable names of what it loads), within
 * `maxBytes` counting a newline per line: names are cut first (`… and N more`), then hosts.
 */
export const summarizeAgentHosts = (raw: AgentHostsInventory, maxBytes: number): ReadonlyArray<string> => {
  const inventory = cleanAgentHosts(raw)
  const detected = orderedReports(inventory).filter((report) => report.detected).map((report) => report.host)
  const missing = orderedReports(inventory).filter((report) => !report.detected).map((report) => AGENT_HOST_TITLES[report.host])
  const tail = missing.length === 0 ? [] : [`- Not found: ${missing.join(", ")}`]
  if (detected.length === 0) {
    const none = inventory.hosts.length === 0 ? ["- No agent host scanned."] : ["- No agent host configuration found."]
    return totalBytes(none) <= maxBytes ? none : []
  }
  for (const limit of [8, 5, 3, 1, 0]) {
    const lines = [...detected.flatMap((host) => hostLines(host, inventory, limit)), ...tail]
    if (totalBytes(lines) <= maxBytes) return lines
  }
  // Even the count lines do not fit: keep whole hosts while they do, then say how many are left.
  const heads = detected.map((host) => hostLines(host, inventory, 0)[0]!)
  const kept: Array<string> = []
  for (let index = 0; index < heads.length; index++) {
    const more = `… and ${heads.length - index} more hosts`
    const candidate = [...kept, heads[index]!]
    const rest = heads.length - index - 1
    if (totalBytes(rest > 0 ? [...candidate, `… and ${rest} more hosts`] : candidate) > maxBytes) {
      return totalBytes([...kept, more]) <= maxBytes ? [...kept, more] : kept
    }
    kept.push(heads[index]!)
  }
  return kept
}
