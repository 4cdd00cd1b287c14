import { CATEGORY_ORDER, categoryTitle } from "../domain/categories.js"
import { cleanInventory, cleanTools } from "../domain/cleanInventory.js"
import type { Inventory, Tool } from "../domain/inventory.js"
import { renderAgentHostsMarkdown, summarizeAgentHosts } from "./agentHosts.js"
import { generationMarker } from "../bundle/format.js"
import { isEffective } from "../domain/agentHosts.js"
import { changesBetween, describeChangeCounts, digestOf } from "../domain/drift.js"
import { type McpReadiness, startsAsConfigured } from "../domain/mcpReadiness.js"
import { byteLength, fitLines, fitNames, mdCell, mdCellFit, mdCode, mdInlineCodeFit, mdTextFit, truncateBytes } from "./text.js"

/** The hard cap of `tools.summary.md`. */
export const SUMMARY_MAX_BYTES = 6144

/** Where the bundle's files are, as shown to the reader of the summary. */
export interface BundleLocation {
  readonly markdown: string
  readonly json: string
  /** The scan command that refreshes this bundle (with its redirect path if any). */
  readonly refreshCommand: string
}

const formatSize = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

const groupByCategory = (tools: ReadonlyArray<Tool>): ReadonlyArray<readonly [string, ReadonlyArray<Tool>]> => {
  const groups = new Map<string, Array<Tool>>()
  for (const tool of tools) {
    const list = groups.get(tool.category)
    if (list === undefined) groups.set(tool.category, [tool])
    else list.push(tool)
  }
  const known = CATEGORY_ORDER.filter((category) => groups.has(category))
  const unknown = [...groups.keys()].filter((category) => !CATEGORY_ORDER.includes(category)).sort()
  return [...known, ...unknown].map((category) => [category, groups.get(category) ?? []] as const)
}

/** The cells of a tool's row in tools.md around its version: all but the version depend on the tool alone. */
interface ToolRowCells {
  readonly name: string
  readonly rest: string
}

/** The version-free cells of tools' rows, keyed by tool: see {@link prepareToolRows}. */
export type PreparedToolRows = ReadonlyMap<Tool, ToolRowCells>

/**
 * How many bytes of a row the other names of its file take in tools.md: a file of hundreds of
 * names (busybox) would otherwise make the table quadratic. tools.json lists them all.
 */
const SAME_FILE_NOTE_BYTES = 400

const toolRowCells = (tool: Tool): ToolRowCells => {
  const sameFileAs = tool.sameFileAs ?? []
  const notes = [
    tool.linkTarget === null ? "" : `→ ${mdCode(tool.linkTarget)}`,
    tool.shadowedBy === null ? "" : `shadowed by ${mdCode(tool.shadowedBy)}`,
    tool.alsoAt.length === 0 ? "" : `also at ${tool.alsoAt.map(mdCode).join(", ")}`,
    sameFileAs.length === 0 ? "" : `same file as ${fitNames(sameFileAs, SAME_FILE_NOTE_BYTES, mdCode)}`
  ].filter((note) => note !== "")
  return {
    name: mdCell(tool.name),
    rest: `${formatSize(tool.size)} | ${tool.mtime.slice(0, 19)}Z | ${mdCode(tool.path)} | ${notes.join("; ")} |`
  }
}

/**
 * Renders the parts of the tools' rows that do not depend on the versions, ahead of
 * {@link renderToolsMarkdown} (a scan does it while the last version probes run).
 */
export const prepareToolRows = (tools: ReadonlyArray<Tool>): PreparedToolRows =>
  new Map(cleanTools(tools).map((tool) => [tool, toolRowCells(tool)] as const))

const toolRow = (tool: Tool, versions: ReadonlyMap<string, string>, prepared: PreparedToolRows | undefined): string => {
  const cells = prepared?.get(tool) ?? toolRowCells(tool)
  return `| ${cells.name} | ${mdCell(versions.get(tool.path) ?? "")} | ${cells.rest}`
}

/**
 * `tools.md`: every tool grouped by category with size, mtime and absolute path, then the facts
 * of the scan. `prepared` rows (of these very tools) are used as they are; any other is rendered.
 */
export const renderToolsMarkdown = (raw: Inventory, prepared?: PreparedToolRows): string => {
  const inventory = cleanInventory(raw)
  const versions = new Map(
    inventory.versions.flatMap((report) => (report.version !== null && report.path !== null ? [[report.path, report.version] as const] : []))
  )
  const lines: Array<string> = [
    generationMarker(inventory.generation),
    "# Tool map",
    "",
    `Generated ${inventory.generatedAt} on ${inventory.host.os} ${inventory.host.arch}, Node ${inventory.host.node}, tool-map ${inventory.host.toolMap}.`,
    `${inventory.tools.length} command names; ${inventory.tools.filter((tool) => tool.shadowedBy !== null).length} of them shadowed by an earlier PATH entry.`,
    ""
  ]
  for (const [category, tools] of groupByCategory(inventory.tools)) {
    lines.push(`## ${mdCell(categoryTitle(category))} (${tools.length})`, "", "| name | version | size | modified | path | notes |", "|---|---|---|---|---|---|")
    for (const tool of tools) lines.push(toolRow(tool, versions, prepared))
    lines.push("")
  }
  lines.push("## Versions", "", "| tool | version | status | ms | path |", "|---|---|---|---|---|")
  for (const report of inventory.versions) {
    lines.push(`| ${mdCell(report.name)} | ${mdCell(report.version ?? "")} | ${report.status}${report.detail === null ? "" : `: ${mdCell(report.detail)}`} | ${Math.round(report.durationMs)} | ${report.path === null ? "" : mdCode(report.path)} |`)
  }
  if (inventory.versions.length === 0) lines.push("| (probes not run) | | | | |")
  lines.push("", "## PATH", "", "| # | dir | status | tools |", "|---|---|---|---|")
  for (const root of inventory.path) {
    lines.push(`| ${root.pathIndex ?? ""} | ${mdCode(root.path)} | ${root.status}${root.reason === null ? "" : `: ${mdCell(root.reason)}`} | ${root.toolCount} |`)
  }
  lines.push("", "## Other roots", "", "| root | kind | status | tools |", "|---|---|---|---|")
  for (const root of inventory.roots) {
    lines.push(`| ${mdCode(root.path)} | ${root.kind} | ${root.status}${root.reason === null ? "" : `: ${mdCell(root.reason)}`} | ${root.toolCount} |`)
  }
  lines.push("", "## Identity", "")
  lines.push(`- git user: ${mdCell(inventory.identity.gitUserName ?? "(not set)")} ${inventory.identity.gitUserEmail === null ? "" : `<${mdCell(inventory.identity.gitUserEmail)}>`}`.trimEnd())
  lines.push(`- files in ~/.ssh: ${inventory.identity.sshFiles.length === 0 ? "(none)" : inventory.identity.sshFiles.map(mdCode).join(", ")}`)
  lines.push("", renderAgentHostsMarkdown(inventory.agentHosts).trimEnd(), "")
  lines.push("## Diagnostics", "")
  if (inventory.diagnostics.length === 0) lines.push("None.")
  for (const diagnostic of inventory.diagnostics) {
    const where = diagnostic.path === null ? "" : ` ${mdCode(diagnostic.path)}${diagnostic.line === null ? "" : `:${diagnostic.line}`}`
    lines.push(`- [${mdCell(diagnostic.source)}]${where}: ${mdCell(diagnostic.message)}`)
  }
  return `${lines.join("\n")}\n`
}

/** How many bytes of a tool name the summary shows: longer names keep their head and tail around `…`. */
const SUMMARY_NAME_BYTES = 40

/** A tool name in the summary: escaped as in tools.md, at most {@link SUMMARY_NAME_BYTES} bytes. */
const summaryName = (name: string): string => mdCellFit(name, SUMMARY_NAME_BYTES, "middle")

/**
 * The names of a category in the summary, `a, b … and N more` within `budget` bytes: distinct full
 * names, sorted, each cut for display only after that, so N counts the distinct names not shown.
 */
const categoryNames = (tools: ReadonlyArray<Tool>, budget: number): string =>
  fitNames([...new Set(tools.map((tool) => tool.name))].sort(), budget, summaryName)

/** What the summary says beyond the inventory, when its caller knows it (issue 14). */
export interface SummaryFacts {
  /** The readiness of the MCP servers, by item id: the summary counts those that will not start. */
  readonly readiness?: ReadonlyMap<string, McpReadiness>
  /** The change counts since the previous generation in words, null when nothing changed; computed from the inventory when absent. */
  readonly changes?: string | null
}

/** "Changed since last scan: …" when the bundle keeps the previous generation's digest and anything changed. */
const changedLine = (inventory: Inventory, known: string | null | undefined): ReadonlyArray<string> => {
  if (inventory.previous === undefined) return []
  const summary = known !== undefined ? known : describeChangeCounts(changesBetween(inventory.previous, digestOf(inventory)))
  return summary === null ? [] : [`Changed since last scan (${mdCell(inventory.previous.generatedAt)}): ${summary}. Ask: \`tool-map query changes\`.`]
}

/** The MCP servers a host loads that will not start as configured (issue 14, readiness), counted, a few named. */
const notReadyLines = (inventory: Inventory, readiness: ReadonlyMap<string, McpReadiness> | undefined): ReadonlyArray<string> => {
  if (readiness === undefined) return []
  const servers = inventory.agentHosts.items.filter((item) => item.kind === "mcpServer" && isEffective(item))
  const failing = servers.flatMap((server) => {
    const ready = readiness.get(server.id)?.ready
    return ready === undefined || startsAsConfigured(ready) ? [] : [`${mdCellFit(server.name, 40, "middle")} (${server.host}: ${mdCellFit(ready, 80)})`]
  })
  if (failing.length === 0) return []
  return [`- MCP servers that will not start: ${failing.length} of ${servers.length}: ${fitNames(failing, 400)}. Ask: \`tool-map query mcp\`.`]
}

/** SSH key pairs are counted by their public halves; names are never shown in the summary. */
const sshKeyCount = (files: ReadonlyArray<string>): number => files.filter((name) => name.endsWith(".pub")).length

/**
 * `tools.summary.md`: the one page an agent reads at session start. Never over
 * {@link SUMMARY_MAX_BYTES} bytes whatever the machine holds: every list is cut with
 * `… and N more`, and every untrusted string is escaped as in tools.md (see `text.ts`) and length-capped.
 */
export const renderSummary = (raw: Inventory, location: BundleLocation, facts: SummaryFacts = {}): string => {
  const inventory = cleanInventory(raw)
  const winners = inventory.tools.filter((tool) => tool.shadowedBy === null)
  const pathDirs = inventory.path.filter((root) => root.status === "ok").length
  const head = [
    generationMarker(inventory.generation),
    "# Tools on this machine (tool-map summary)",
    "",
    `Scanned ${inventory.generatedAt} · ${inventory.host.os} ${inventory.host.arch} · Node ${inventory.host.node} · tool-map ${inventory.host.toolMap}`,
    `${inventory.tools.length} command names (${winners.length} callable, ${inventory.tools.length - winners.length} shadowed) in ${pathDirs} PATH dirs and ${inventory.roots.filter((root) => root.status === "ok").length} other roots.`,
    ...changedLine(inventory, facts.changes),
    ""
  ]
  const foot = [
    "",
    "## Identity",
    `git user: ${mdCellFit(inventory.identity.gitUserName ?? "(not set)", 80)}${inventory.identity.gitUserEmail === null ? "" : ` <${mdCellFit(inventory.identity.gitUserEmail, 120)}>`} · SSH keys: ${sshKeyCount(inventory.identity.sshFiles)}`,
    "",
    "## More",
    `Full list: ${mdTextFit(location.markdown, 400)} · JSON: ${mdTextFit(location.json, 400)}`,
    `Refresh: ${mdInlineCodeFit(location.refreshCommand, 400)} (add --force after an install). Ask: \`tool-map query which NAME\`.`
  ]
  const fixedBytes = byteLength([...head, ...foot].join("\n")) + 1
  const remaining = SUMMARY_MAX_BYTES - fixedBytes

  const okVersions = inventory.versions.filter((report) => report.status === "ok")
  const versionLines = fitLines(
    okVersions.map((report) => `| ${mdCellFit(report.name, 40)} | ${mdCellFit(report.version ?? "", 40)} |`),
    Math.floor(remaining * 0.25),
    "versions"
  )
  const notFound = inventory.versions.filter((report) => report.status !== "ok")
  const versions = inventory.versions.length === 0
    ? ["## Core versions", "(version probes were not run)"]
    : [
        "## Core versions",
        "| tool | version |",
        "|---|---|",
        ...versionLines,
        ...(notFound.length === 0 ? [] : [`Not available: ${fitNames(notFound.map((report) => `${mdCell(report.name)}${report.status === "missing" ? "" : ` (${report.status})`}`), 400)}`])
      ]

  const categoryLines = fitLines(
    groupByCategory(winners).map(([category, tools]) =>
      `- ${mdCell(categoryTitle(category))} (${tools.length}): ${categoryNames(tools, 200)}`
    ),
    Math.floor(remaining * 0.4),
    "categories"
  )
  const agentLines = [...summarizeAgentHosts(inventory.agentHosts, Math.floor(remaining * 0.25)), ...notReadyLines(inventory, facts.readiness)]

  const body = [...versions, "", "## By category", ...categoryLines, "", "## Agent hosts", ...agentLines]
  const bodyLines = fitLines(body, remaining - 1, "lines")
  const text = `${[...head, ...bodyLines, ...foot].join("\n")}\n`
  return byteLength(text) <= SUMMARY_MAX_BYTES ? text : `${truncateBytes(text, SUMMARY_MAX_BYTES - 1)}\n`
}
