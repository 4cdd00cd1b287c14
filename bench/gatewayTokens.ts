/**
 * Session-start tokens of MCP tool definitions per agent host, direct and through the gateway
 * (issue 26, point 8). Each host runs a scripted first-request session (the conformance harness:
 * scripts/conformance/model/, a throwaway HOME, a network namespace holding only a loopback) twice
 * per set of servers: (a) the servers configured directly in the host, (b) only the tool-map
 * gateway (`tool-map mcp --gateway --servers FILE`) over the same servers. The figure is the o200k
 * token count of `JSON.stringify` of each MCP tool entry as the host sent it in its first main
 * request (the first request with a tools array; side requests such as a title, Gemini CLI's
 * router or Claude Code's count_tokens are skipped), summed.
 *
 * Sets: the three reference servers (the real ones from node_modules), and the tool lists of
 * popular MCP servers replayed from their `tools/list` snapshots (bench/data/mcp-tool-schemas.json
 * through test/mcp/fixtures/replay.mjs), all together and, with --per-server, one by one.
 *
 *   npm run build && npx tsx bench/gatewayTokens.ts [--hosts claude,codex,gemini,opencode]
 *     [--servers N] [--per-server] [--sets reference,popular] [--cli PATH] [--out DIR] [--keep DIR]
 *
 * --per-server adds one row per popular server, direct sessions only (the gateway side is the
 * host's figure for the popular set); --keep DIR keeps each session's request log; --cli PATH
 * measures another build (e.g. one made from a clean `git archive` while the checkout is being
 * edited), --built-from REV names its commit in the report (default: this checkout's HEAD).
 *
 * Claude Code runs twice: tool search off (ENABLE_TOOL_SEARCH=false) and on (its default); with it
 * on, the deferred MCP tools' names (one a line in a system message) are counted next to the
 * definitions in the tools array. Writes bench/results/gateway-tokens-<date>.{json,md}.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { neutralize } from "../src/inventory/domain/untrusted.js"
import { MCP_SERVER_NAME } from "../src/mcp/hostConfig.js"
import type { CheckContext } from "../scripts/conformance/check.js"
import { codexSession, referenceServers, type StdioServer } from "../scripts/conformance/checks/sessionsCodex.js"
import { geminiSession } from "../scripts/conformance/checks/sessionsGemini.js"
import { claudeSession, deferredMcpNames } from "../scripts/conformance/checks/sessionsClaudeCode.js"
import { opencodeSession } from "../scripts/conformance/checks/sessionsOpencode.js"
import { HOSTS, type HostName } from "../scripts/conformance/hosts.js"
import { ensureInstalled } from "../scripts/conformance/install.js"
import { COUNT_TOKENS_MODEL } from "../scripts/conformance/model/protocol-anthropic.js"
import type { LoggedRequest } from "../scripts/conformance/model/script.js"
import type { SessionResult } from "../scripts/conformance/model/session.js"
import { createSandbox, detectIsolation, type Sandbox } from "../scripts/conformance/sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "..")
const SNAPSHOT = path.join(ROOT, "bench", "data", "mcp-tool-schemas.json")
const REPLAY = path.join(ROOT, "test", "mcp", "fixtures", "replay.mjs")

/**
 * The popular servers replayed, most used first: the host-config name (letters and digits only,
 * so every host's MCP prefix reads the same) and the npm package whose snapshot is replayed.
 * `--servers N` takes the first N.
 */
const POPULAR: ReadonlyArray<{ readonly name: string; readonly pkg: string }> = [
  { name: "github", pkg: "@modelcontextprotocol/server-github" },
  { name: "playwright", pkg: "@playwright/mcp" },
  { name: "notion", pkg: "@notionhq/notion-mcp-server" },
  { name: "firecrawl", pkg: "firecrawl-mcp" },
  { name: "chromedevtools", pkg: "chrome-devtools-mcp" },
  { name: "kubernetes", pkg: "mcp-server-kubernetes" },
  { name: "desktopcommander", pkg: "@wonderwhy-er/desktop-commander" },
  { name: "circleci", pkg: "@circleci/mcp-server-circleci" },
  { name: "brave", pkg: "@brave/brave-search-mcp-server" },
  { name: "context7", pkg: "@upstash/context7-mcp" },
  { name: "tavily", pkg: "tavily-mcp" },
  { name: "exa", pkg: "exa-mcp-server" },
  { name: "chart", pkg: "@antv/mcp-server-chart" },
  { name: "slack", pkg: "@modelcontextprotocol/server-slack" },
  { name: "gitlab", pkg: "@modelcontextprotocol/server-gitlab" },
  { name: "puppeteer", pkg: "@modelcontextprotocol/server-puppeteer" }
]

// ---------------------------------------------------------------------------------------------
// Hosts: how each is configured with a set of servers, and which entries of its first main
// request are MCP tools, through the conformance checks' own session helpers.
// ---------------------------------------------------------------------------------------------

/** The MCP tools of a first main request: their JSON as sent, and names the host lists without a definition. */
interface McpTools {
  readonly entries: ReadonlyArray<unknown>
  /** How many tools the entries define (a Codex namespace entry holds a server's tools). */
  readonly tools: number
  /** Claude Code with tool search on: the deferred tools' names, one a line. */
  readonly deferred: ReadonlyArray<string>
}

interface Variant {
  /** The row's label. */
  readonly id: string
  readonly host: HostName
  /** The protocol adapter the host needs: scripts/conformance/model/protocol-<name>.ts. */
  readonly protocol: string
  readonly session: (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, logName: string) => SessionResult
  /** The first main request: the first with tools, side requests skipped. */
  readonly firstMain: (session: SessionResult) => LoggedRequest | undefined
  readonly mcpTools: (request: LoggedRequest, serverNames: ReadonlyArray<string>) => McpTools
}


const withTools = (session: SessionResult): LoggedRequest | undefined => session.requests.find((logged) => logged.request.tools.length > 0)

const plain = (entries: ReadonlyArray<unknown>): McpTools => ({ entries, tools: entries.length, deferred: [] })

/** The MCP tools a Claude Code request names as deferred (tool search on), the check's own reader. */
const claudeDeferred = (request: LoggedRequest): ReadonlyArray<string> => deferredMcpNames(request.request)

const claude = (toolSearch: "off" | "on"): Variant => ({
  id: `claude (tool search ${toolSearch})`,
  host: "claude",
  protocol: "anthropic",
  session: (context, sandbox, servers, logName) => claudeSession(context, sandbox, servers, { toolSearch, script: "firstRequest", logName }),
  firstMain: (session) => session.requests.find((logged) => logged.request.model !== COUNT_TOKENS_MODEL && logged.request.tools.length > 0),
  mcpTools: (request) => {
    const entries = request.request.tools.filter((tool) => tool.name.startsWith("mcp__")).map((tool) => tool.raw)
    return { entries, tools: entries.length, deferred: claudeDeferred(request) }
  }
})

const VARIANTS: ReadonlyArray<Variant> = [
  {
    id: "codex",
    host: "codex",
    protocol: "openai-responses",
    session: (context, sandbox, servers, logName) => codexSession(context, sandbox, servers, "firstRequest", logName),
    firstMain: withTools,
    // MCP tools come as one `{"type":"namespace"}` entry per server, named `mcp__<server>__`.
    mcpTools: (request) => {
      const raw = (request.request.raw as { readonly tools?: ReadonlyArray<Record<string, unknown>> }).tools ?? []
      const entries = raw.filter((tool) => tool["type"] === "namespace" && String(tool["name"]).startsWith("mcp__"))
      return { entries, tools: request.request.tools.filter((tool) => tool.namespace?.startsWith("mcp__") === true).length, deferred: [] }
    }
  },
  {
    id: "gemini",
    host: "gemini",
    protocol: "gemini",
    // yolo: every MCP tool offered, as an interactive session would (as the first-request check does).
    session: (context, sandbox, servers, logName) => geminiSession(context, sandbox, servers, { script: "firstRequest", logName, approval: "yolo" }),
    firstMain: withTools,
    mcpTools: (request) => plain(request.request.tools.filter((tool) => tool.name.startsWith("mcp_")).map((tool) => tool.raw))
  },
  claude("off"),
  claude("on"),
  {
    id: "opencode",
    host: "opencode",
    protocol: "openai-chat",
    session: (context, sandbox, servers, logName) => opencodeSession(context, sandbox, servers, "firstRequest", logName),
    firstMain: withTools,
    // opencode names an MCP tool `<server>_<tool>`.
    mcpTools: (request, serverNames) => plain(request.request.tools.filter((tool) => serverNames.some((name) => tool.name.startsWith(`${name}_`))).map((tool) => tool.raw))
  }
]

// ---------------------------------------------------------------------------------------------
// Sets of servers
// ---------------------------------------------------------------------------------------------

interface ServerSet {
  readonly id: string
  /** The servers' host-config names. */
  readonly names: ReadonlyArray<string>
  readonly servers: (context: CheckContext, sandbox: Sandbox) => Readonly<Record<string, StdioServer>>
  /** o200k tokens of the servers' own tools/list entries (compact JSON), for a host-free reference; undefined for live servers. */
  readonly snapshotTokens?: number
  readonly tools?: number
  /** One popular server alone (--per-server): only the direct session runs; the gateway side is the host's measured figure for the popular set (the gateway's first request does not depend on what is behind it). */
  readonly perServer?: boolean
}

interface SnapshotTool {
  readonly server: string
  readonly [key: string]: unknown
}

const snapshotTools = (): ReadonlyArray<SnapshotTool> => (JSON.parse(fs.readFileSync(SNAPSHOT, "utf8")) as { readonly tools: ReadonlyArray<SnapshotTool> }).tools

const tokens = (value: unknown): number => encode(JSON.stringify(value)).length

const replaySet = (id: string, chosen: ReadonlyArray<(typeof POPULAR)[number]>, all: ReadonlyArray<SnapshotTool>): ServerSet => {
  const tools = all.filter((tool) => chosen.some((server) => server.pkg === tool.server)).map(({ server: _server, ...tool }) => tool)
  return {
    id,
    names: chosen.map((server) => server.name),
    servers: () => Object.fromEntries(chosen.map((server) => [server.name, { command: process.execPath, args: [REPLAY, SNAPSHOT, server.pkg] }])),
    snapshotTokens: tools.reduce((sum, tool) => sum + tokens(tool), 0),
    tools: tools.length
  }
}

/** The gateway over `servers`, as the host's only server: `tool-map mcp --gateway --servers FILE`, its data dir in the sandbox. */
const gatewayServersFile = (sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>): string =>
  sandbox.write("gateway-servers.json", `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`)

const gatewayOver = (context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>): Readonly<Record<string, StdioServer>> => {
  const file = gatewayServersFile(sandbox, servers)
  return {
    [MCP_SERVER_NAME]: {
      command: context.serverInvocation.command,
      args: [...context.serverInvocation.args, "--gateway", "--servers", file],
      env: { PLUGIN_DATA: path.join(sandbox.root, "data") }
    }
  }
}

/**
 * How many downstream tools the gateway's catalog holds for `set`, read from its `tools_ls`
 * answer (`mcp/  N tools …`) through an SDK client: shows the gateway really fronted every
 * server of the set while the hosts saw only its entry tools. Also its own `tools/list` (the
 * entry tools as the gateway sends them, before any host wraps them). No host runs here.
 */
/** What an SDK client sees of the gateway over a set: its catalog's size, and its own tools/list (the entry tools) in o200k tokens. */
type GatewayView = { readonly catalogTools: number; readonly entryTools: number; readonly entryTokens: number } | string

const gatewayView = async (context: CheckContext, set: ServerSet): Promise<GatewayView> => {
  const sandbox = context.sandbox()
  const transport = new StdioClientTransport({
    command: context.serverInvocation.command,
    args: [...context.serverInvocation.args, "--gateway", "--servers", gatewayServersFile(sandbox, set.servers(context, sandbox))],
    env: { PATH: process.env["PATH"] ?? "", HOME: sandbox.home, PLUGIN_DATA: path.join(sandbox.root, "data") },
    stderr: "ignore"
  })
  const client = new Client({ name: "gateway-tokens-bench", version: "1.0.0" })
  try {
    await client.connect(transport)
    const listed = await client.listTools()
    const result = await client.callTool({ name: "tools_ls", arguments: {} })
    const text = (result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>).map((part) => part.text ?? "").join("\n")
    const count = /^\s*mcp\/\s+(\d+) tools/m.exec(text)?.[1]
    if (count === undefined) return `tools_ls answered without an mcp/ line: ${neutralize(text.slice(0, 160))}`
    return { catalogTools: Number(count), entryTools: listed.tools.length, entryTokens: listed.tools.reduce((sum, { _meta: _hostOnly, ...tool }) => sum + tokens(tool), 0) }
  } catch (error) {
    return neutralize(error instanceof Error ? error.message : String(error)).slice(0, 240)
  } finally {
    await client.close().catch(() => undefined)
    sandbox.remove()
  }
}

const describeView = (view: GatewayView): string =>
  typeof view === "string"
    ? `failed: ${view}`
    : `${view.catalogTools} tools catalogued; its tools/list: ${view.entryTools} entry tools, ${view.entryTokens} o200k tokens (compact JSON of each tool as the gateway sends it, \`_meta\` left out: the host reads it, the model never sees it)`

// ---------------------------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------------------------

/** One side of a row: the MCP tools of the first main request, or why there is no figure. */
type Side =
  | { readonly _tag: "Measured"; readonly tokens: number; readonly definitions: number; readonly deferredTokens: number; readonly tools: number; readonly deferred: number; readonly seconds: number }
  | { readonly _tag: "Missing"; readonly reason: string }

interface Row {
  readonly host: string
  readonly hostVersion: string
  readonly set: string
  readonly servers: number
  readonly direct: Side
  readonly gateway: Side
  /** The gateway side is the host's figure for the popular set, not a session of its own (--per-server rows). */
  readonly gatewayReused: boolean
  /** 1 − gateway/direct, in percent, rounded; undefined when a side is missing. */
  readonly reductionPct?: number
}

/** --keep DIR: each session's request log is copied there (the sandbox is removed). */
const keepLog = (session: SessionResult, name: string): void => {
  const dir = process.env["GATEWAY_TOKENS_KEEP"]
  if (dir === undefined || !fs.existsSync(session.logFile)) return
  fs.mkdirSync(dir, { recursive: true })
  fs.copyFileSync(session.logFile, path.join(dir, `${Date.now()}-${name.replace(/[^A-Za-z0-9.-]+/g, "-")}`))
}

const tail = (session: SessionResult): string =>
  neutralize(`${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").replace(/\s+/g, " ").slice(0, 240))

const measure = (variant: Variant, context: CheckContext, sandbox: Sandbox, servers: Readonly<Record<string, StdioServer>>, names: ReadonlyArray<string>, logName: string): Side => {
  const started = Date.now()
  let session: SessionResult
  try {
    session = variant.session(context, sandbox, servers, logName)
  } catch (error) {
    return { _tag: "Missing", reason: neutralize(error instanceof Error ? error.message : String(error)).slice(0, 240) }
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10
  keepLog(session, `${variant.id}-${logName}`)
  const first = variant.firstMain(session)
  if (first === undefined) {
    const why = session.result.timedOut ? "timed out" : `exit ${session.result.status}`
    return { _tag: "Missing", reason: `no request with tools (${session.requests.length} requests; ${why}: ${tail(session)})` }
  }
  const mcp = variant.mcpTools(first, names)
  if (mcp.tools === 0 && mcp.deferred.length === 0) return { _tag: "Missing", reason: `the first main request holds no MCP tool (${first.request.tools.length} tools; exit ${session.result.status}: ${tail(session)})` }
  const definitions = mcp.entries.reduce<number>((sum, entry) => sum + tokens(entry), 0)
  const deferredTokens = mcp.deferred.length === 0 ? 0 : encode(mcp.deferred.join("\n")).length
  return { _tag: "Measured", tokens: definitions + deferredTokens, definitions, deferredTokens, tools: mcp.tools, deferred: mcp.deferred.length, seconds }
}

const row = (variant: Variant, set: ServerSet, context: CheckContext, reusedGateway: Side | undefined): Row => {
  const sandbox = context.sandbox()
  try {
    const servers = set.servers(context, sandbox)
    const direct = measure(variant, context, sandbox, servers, set.names, "direct.jsonl")
    const gateway = reusedGateway ?? measure(variant, context, sandbox, gatewayOver(context, sandbox, servers), [MCP_SERVER_NAME], "gateway.jsonl")
    const reductionPct = direct._tag === "Measured" && gateway._tag === "Measured" && direct.tokens > 0 ? Math.round((1 - gateway.tokens / direct.tokens) * 1000) / 10 : undefined
    return { host: variant.id, hostVersion: HOSTS[variant.host].version, set: set.id, servers: set.names.length, direct, gateway, gatewayReused: reusedGateway !== undefined, ...(reductionPct === undefined ? {} : { reductionPct }) }
  } finally {
    sandbox.remove()
  }
}

/**
 * A row with a missing side is measured once more: a session can fail for a passing reason (a
 * script module being edited in the shared checkout, a host's start-up timing out on a loaded
 * machine). The second row stands, with its missing reasons if it fails again.
 */
const retried = (measureRow: () => Row): Row => {
  const first = measureRow()
  if (first.direct._tag === "Measured" && first.gateway._tag === "Measured") return first
  process.stderr.write(`gateway-tokens: ${first.host}, ${first.set}: measuring again (${[first.direct, first.gateway].flatMap((side) => (side._tag === "Missing" ? [side.reason] : [])).join("; ")})\n`)
  return measureRow()
}

const missingRow = (variant: Variant, set: ServerSet, reason: string): Row => ({
  host: variant.id,
  hostVersion: HOSTS[variant.host].version,
  set: set.id,
  servers: set.names.length,
  direct: { _tag: "Missing", reason },
  gateway: { _tag: "Missing", reason },
  gatewayReused: false
})

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

const cell = (side: Side): string =>
  side._tag === "Missing" ? "missing" : `${side.tokens.toLocaleString("en-US")} (${side.tools} tools${side.deferred > 0 ? ` + ${side.deferred} deferred names` : ""})`

const markdownTable = (rows: ReadonlyArray<Row>): string => {
  const lines = ["| host | set | direct tokens | gateway tokens | reduction |", "|---|---|---:|---:|---:|"]
  for (const r of rows) lines.push(`| ${r.host} ${r.hostVersion} | ${r.set} | ${cell(r.direct)} | ${cell(r.gateway)}${r.gatewayReused ? " †" : ""} | ${r.reductionPct === undefined ? "–" : `${r.reductionPct}%`} |`)
  return lines.join("\n")
}

const missingLines = (rows: ReadonlyArray<Row>): ReadonlyArray<string> =>
  rows.flatMap((r) =>
    (["direct", "gateway"] as const).flatMap((side) => {
      const value = r[side]
      return value._tag === "Missing" ? [`- ${r.host}, ${r.set}, ${side}: ${value.reason}`] : []
    })
  )

/** The entry tools' own cost per host: the gateway side of the reference set (the gateway's entry tools only). */
const entryToolCosts = (rows: ReadonlyArray<Row>): ReadonlyArray<{ readonly host: string; readonly tokens?: number; readonly tools?: number }> =>
  rows.filter((r) => r.set === "reference").map((r) => (r.gateway._tag === "Measured" ? { host: r.host, tokens: r.gateway.tokens, tools: r.gateway.tools } : { host: r.host }))

const parseArgs = (argv: ReadonlyArray<string>) => {
  let hosts: ReadonlyArray<string> = ["claude", "codex", "gemini", "opencode"]
  let servers = 10
  let perServer = false
  let cli = path.join(ROOT, "dist", "tool-map.cjs")
  let out = path.join(ROOT, "bench", "results")
  let sets: ReadonlyArray<string> | undefined
  let keep: string | undefined
  let builtFrom: string | undefined
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const value = () => {
      const next = argv[++index]
      if (next === undefined) throw new Error(`${arg} needs a value`)
      return next
    }
    if (arg === "--hosts") hosts = value().split(",")
    else if (arg === "--servers") servers = Number(value())
    else if (arg === "--per-server") perServer = true
    else if (arg === "--cli") cli = path.resolve(value())
    else if (arg === "--out") out = path.resolve(value())
    else if (arg === "--sets") sets = value().split(",")
    else if (arg === "--keep") keep = path.resolve(value())
    else if (arg === "--built-from") builtFrom = value()
    else throw new Error(`unknown argument ${arg} (--hosts claude,codex,gemini,opencode --servers N --per-server --sets reference,popular --cli PATH --out DIR --keep DIR --built-from REV)`)
  }
  if (!Number.isInteger(servers) || servers < 1 || servers > POPULAR.length) throw new Error(`--servers takes 1 to ${POPULAR.length}`)
  for (const host of hosts) if (!(host in HOSTS)) throw new Error(`unknown host ${host} (${Object.keys(HOSTS).join(", ")})`)
  if (keep !== undefined) process.env["GATEWAY_TOKENS_KEEP"] = keep
  return { hosts: hosts as ReadonlyArray<HostName>, servers, perServer, cli, out, sets, builtFrom }
}

const main = async (): Promise<void> => {
  const options = parseArgs(process.argv.slice(2))
  if (!fs.existsSync(options.cli)) throw new Error(`${options.cli} is missing: run \`npm run build\` first`)
  const isolation = detectIsolation()
  if (isolation._tag !== "NetNamespace") throw new Error(`the hosts run only in a network namespace: ${isolation.reason}`)
  const installed = new Map<HostName, string>()
  const hostBin = (host: HostName): string => {
    const known = installed.get(host) ?? ensureInstalled(host)
    installed.set(host, known)
    return known
  }
  const context: CheckContext = {
    root: ROOT,
    serverInvocation: { command: process.execPath, args: [options.cli, "mcp"] },
    isolation,
    hostBin,
    sandbox: (fixture) => createSandbox(isolation, fixture),
    runHost: (sandbox, host, args, runOptions = {}) => sandbox.run(hostBin(host), args, { ...runOptions, path: [...(runOptions.path ?? []), path.dirname(hostBin(host))] }),
    runToolMap: (sandbox, args, runOptions = {}) =>
      sandbox.run(process.execPath, [options.cli, ...args], { ...runOptions, env: { PLUGIN_DATA: path.join(sandbox.root, "data"), ...runOptions.env } })
  }

  const all = snapshotTools()
  const chosen = POPULAR.slice(0, options.servers)
  const popular = replaySet(`popular (${chosen.length} servers)`, chosen, all)
  const reference: ServerSet = { id: "reference", names: ["everything", "filesystem", "memory"], servers: referenceServers }
  const sets: Array<ServerSet> = []
  if (options.sets === undefined || options.sets.includes("reference")) sets.push(reference)
  if (options.sets === undefined || options.sets.includes("popular")) sets.push(popular)
  if (options.perServer) for (const server of chosen) sets.push({ ...replaySet(server.name, [server], all), perServer: true })

  const catalog: Array<{ readonly set: string; readonly view: GatewayView }> = []
  for (const set of sets.filter((set) => !set.perServer)) {
    const view = await gatewayView(context, set)
    catalog.push({ set: set.id, view })
    process.stderr.write(`gateway-tokens: the gateway over ${set.id}: ${describeView(view)}\n`)
  }

  const variants = VARIANTS.filter((variant) => options.hosts.includes(variant.host))
  const rows: Array<Row> = []
  for (const set of sets) {
    for (const variant of variants) {
      const adapter = path.join(ROOT, "scripts", "conformance", "model", `protocol-${variant.protocol}.ts`)
      const reused = set.perServer === true ? rows.find((r) => r.host === variant.id && r.set === popular.id)?.gateway : undefined
      const result = !fs.existsSync(adapter)
        ? missingRow(variant, set, `no scripted-session adapter (${path.relative(ROOT, adapter)} is missing)`)
        : set.perServer === true && reused === undefined
        ? missingRow(variant, set, "per-server rows reuse the gateway figure of the popular set, which was not run")
        : retried(() => row(variant, set, context, reused))
      rows.push(result)
      process.stderr.write(`gateway-tokens: ${result.host}, ${result.set}: direct ${cell(result.direct)}, gateway ${cell(result.gateway)}${result.reductionPct === undefined ? "" : `, ${result.reductionPct}% less`}\n`)
    }
  }

  const date = new Date().toISOString().slice(0, 10)
  const commit = options.builtFrom ?? (() => {
    try {
      return execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    } catch {
      return "unknown"
    }
  })()
  const entry = entryToolCosts(rows)
  const popularSets = sets.filter((set) => set.snapshotTokens !== undefined).map((set) => ({ set: set.id, servers: set.names, tools: set.tools, snapshotTokens: set.snapshotTokens }))
  const report = {
    date,
    commit,
    cli: options.cli,
    method: "o200k tokens (gpt-tokenizer) of JSON.stringify of each MCP tool entry as the host sent it in its first main request, summed; Claude Code with tool search on: plus the deferred MCP tool names (one a line)",
    hosts: Object.fromEntries(variants.map((variant) => [variant.id, HOSTS[variant.host].version])),
    sets: popularSets,
    gatewayCatalog: catalog,
    rows,
    entryTools: entry
  }
  fs.mkdirSync(options.out, { recursive: true })
  const base = path.join(options.out, `gateway-tokens-${date}`)
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`)
  const missing = missingLines(rows)
  const markdown = [
    `# Session-start tokens of MCP tool definitions, direct vs through the gateway (${date})`,
    "",
    `tool-map ${commit} (\`${path.relative(ROOT, options.cli) || options.cli}\`); \`npx tsx bench/gatewayTokens.ts\`. ${report.method}.`,
    "",
    markdownTable(rows.filter((r) => !r.gatewayReused)),
    "",
    ...(rows.some((r) => r.gatewayReused)
      ? [
        "Each popular server alone (direct sessions; † the gateway figure is the host's for the popular set: the gateway's first request holds only its entry tools whatever is behind it):",
        "",
        markdownTable(rows.filter((r) => r.gatewayReused)),
        ""
      ]
      : []),
    "Entry tools' own cost per host (the gateway column of the reference set):",
    "",
    ...entry.map((e) => `- ${e.host}: ${e.tokens === undefined ? "missing" : `${e.tokens} tokens (${e.tools} tools)`}`),
    "",
    "Popular servers replayed (tools/list snapshots, bench/data/mcp-tool-schemas.json), with the o200k tokens of their own tools/list entries:",
    "",
    ...popularSets.map((set) => `- ${set.set}: ${set.servers.join(", ")}: ${set.tools} tools, ${set.snapshotTokens} tokens`),
    "",
    "The gateway seen through an SDK client (no host): the tools its catalog holds behind the entry tools (its tools_ls answer), and its own tools/list:",
    "",
    ...catalog.map((c) => `- ${c.set}: ${describeView(c.view)}`),
    ...(missing.length === 0 ? [] : ["", "Missing:", "", ...missing]),
    ""
  ].join("\n")
  fs.writeFileSync(`${base}.md`, markdown)
  process.stdout.write(`${markdownTable(rows)}\n\nwrote ${path.relative(ROOT, base)}.{json,md}\n`)
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway-tokens: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
})
