/**
 * Issue 28, "The test": tool-map's ledger (`query context`) against what Claude Code really sends.
 * A HOME holds four real public plugins (fixtures/ledger-plugins, pinned by commit), installed
 * and enabled as Claude Code lays them out (marketplace clone, plugin cache, installed_plugins.json,
 * known_marketplaces.json, settings.json `enabledPlugins`). For a model, one scripted `claude -p`
 * session runs with every plugin on and one with each plugin switched off; a plugin's measured
 * cost is how much the first request shrinks without it (chars/4 of its system, messages and
 * tools: the host's own projection). tool-map's figure is what `tool-map query context --by plugin
 * --json` says switching the plugin off saves (`offSavesTokens`) on the same HOME. Agreement: within 10% for every
 * plugin of at least 50 measured tokens.
 *
 * A second check per model compares the agents and skills the first request lists (parsed from
 * its text) with `tool-map query agents` / `query skills` as loaded.
 *
 * The measured table goes to stderr (and, with TOOL_MAP_LEDGER_OUT=FILE, as JSON to FILE) for
 * bench/results; the first requests are kept under TOOL_MAP_LEDGER_DUMP=DIR when set.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { neutralize } from "../../../src/inventory/domain/untrusted.js"
import { type Check, type CheckContext, stripAnsi, toolMapList, toolMapQuery, withSandbox } from "../check.js"
import { COUNT_TOKENS_MODEL } from "../model/protocol-anthropic.js"
import type { ModelRequest } from "../model/script.js"
import { MODEL_BASE_URL, runScriptedSession, type SessionResult } from "../model/session.js"
import type { Sandbox } from "../sandbox.js"
import { cacheRoot } from "../install.js"

/** The fixture: one folder per marketplace, its plugins under `plugins/NAME`, and pins.json. */
export const LEDGER_FIXTURE = path.join(import.meta.dirname, "..", "fixtures", "ledger-plugins")

/** How far tool-map's always-on figure of a plugin may be from the measured delta. */
export const LEDGER_SESSION_TOLERANCE = 0.1

/** Plugins whose measured delta is below this many tokens are shown but not judged. */
export const LEDGER_MIN_TOKENS = 50

interface PinnedPlugin {
  readonly name: string
  readonly version: string
  /** Its directory in the repository. */
  readonly from: string
}
interface PinnedMarketplace {
  readonly marketplace: string
  readonly repo: string
  readonly commit: string
  /** False: the repository's license does not let us copy it (see `marketplaceDir`). */
  readonly redistributable?: boolean
  readonly plugins: ReadonlyArray<PinnedPlugin>
}

/** One installed plugin of the fixture. */
export interface LedgerPlugin {
  readonly id: string
  readonly name: string
  readonly marketplace: string
  readonly repo: string
  readonly version: string
  /** The marketplace's files: `plugins/<name>` holds the plugin. */
  readonly dir: string
}

/**
 * Where a marketplace's plugin files are: in the repository's fixture, or, for a repository whose
 * license does not let us copy it ("redistributable": false), in the conformance cache,
 * extracted there once at the pinned commit from a local git mirror of the repository
 * (`$TOOL_MAP_LEDGER_MIRRORS/<owner>+<name>/repo`, default /work/.mirror). Throws, naming what is
 * missing, when neither is at hand: the check is then reported as not made.
 */
const marketplaceDir = (market: PinnedMarketplace): string => {
  if (market.redistributable !== false) return path.join(LEDGER_FIXTURE, market.marketplace)
  const dir = path.join(cacheRoot(), "ledger-plugins", `${market.marketplace}@${market.commit.slice(0, 12)}`)
  if (fs.existsSync(path.join(dir, ".extracted"))) return dir
  const mirror = path.join(process.env["TOOL_MAP_LEDGER_MIRRORS"] || "/work/.mirror", market.repo.replace("/", "+"), "repo")
  if (!fs.existsSync(mirror)) throw new Error(`the plugins of ${market.repo} are not redistributed with tool-map: give a git mirror of it at ${mirror} (TOOL_MAP_LEDGER_MIRRORS)`)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const archive = spawnSync("git", ["--git-dir", mirror, "archive", "--format=tar", market.commit, ...market.plugins.map((plugin) => plugin.from)], { maxBuffer: 256 * 1024 * 1024 })
  if (archive.status !== 0) throw new Error(`git archive of ${market.repo}@${market.commit} failed: ${archive.stderr.toString().trim()}`)
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout })
  if (untar.status !== 0) throw new Error(`extracting ${market.repo}@${market.commit} failed: ${untar.stderr.toString().trim()}`)
  fs.writeFileSync(path.join(dir, ".extracted"), `${market.commit}\n`)
  return dir
}

export const ledgerPlugins = (): ReadonlyArray<LedgerPlugin> =>
  (JSON.parse(fs.readFileSync(path.join(LEDGER_FIXTURE, "pins.json"), "utf8")) as { readonly marketplaces: ReadonlyArray<PinnedMarketplace> }).marketplaces.flatMap(
    (market) => {
      const dir = marketplaceDir(market)
      return market.plugins.map((plugin) => ({
        id: `${plugin.name}@${market.marketplace}`,
        name: plugin.name,
        marketplace: market.marketplace,
        repo: market.repo,
        version: plugin.version,
        dir
      }))
    }
  )

const STAMP = "2026-01-01T00:00:00.000Z"

/**
 * Lays the plugins out in the sandbox's HOME as `claude plugin install` leaves them, every one
 * enabled but `disabled`, and `model` in ~/.claude/settings.json (where the host reads it).
 */
export const layOutPlugins = (sandbox: Sandbox, options: { readonly model: string; readonly disabled?: string | undefined }): void => {
  const plugins = ledgerPlugins()
  const installed: Record<string, unknown> = {}
  const known: Record<string, unknown> = {}
  const enabled: Record<string, boolean> = {}
  for (const marketplace of new Set(plugins.map((plugin) => plugin.marketplace))) {
    const ofMarket = plugins.filter((plugin) => plugin.marketplace === marketplace)
    const clone = path.join(sandbox.home, ".claude", "plugins", "marketplaces", marketplace)
    for (const plugin of ofMarket) {
      const source = path.join(plugin.dir, "plugins", plugin.name)
      const cache = path.join(sandbox.home, ".claude", "plugins", "cache", marketplace, plugin.name, plugin.version)
      fs.cpSync(source, cache, { recursive: true })
      fs.cpSync(source, path.join(clone, "plugins", plugin.name), { recursive: true })
      installed[plugin.id] = [{ scope: "user", installPath: cache, version: plugin.version, installedAt: STAMP, lastUpdated: STAMP }]
      enabled[plugin.id] = plugin.id !== options.disabled
    }
    sandbox.write(
      path.relative(sandbox.root, path.join(clone, ".claude-plugin", "marketplace.json")),
      `${JSON.stringify(
        {
          name: marketplace,
          owner: { name: "fixture" },
          plugins: ofMarket.map((plugin) => ({ name: plugin.name, source: `./plugins/${plugin.name}`, version: plugin.version }))
        },
        null,
        2
      )}\n`
    )
    known[marketplace] = { source: { source: "github", repo: ofMarket[0]!.repo }, installLocation: clone, lastUpdated: STAMP }
  }
  sandbox.write("home/.claude/plugins/installed_plugins.json", `${JSON.stringify({ version: 2, plugins: installed }, null, 2)}\n`)
  sandbox.write("home/.claude/plugins/known_marketplaces.json", `${JSON.stringify(known, null, 2)}\n`)
  sandbox.write("home/.claude/settings.json", `${JSON.stringify({ enabledPlugins: enabled, model: options.model }, null, 2)}\n`)
}

/** The prompt of every ledger session. */
const PROMPT = "hello"

/** One `claude -p` session answered by the `firstRequest` script (a text to every request). */
export const ledgerSession = (context: CheckContext, sandbox: Sandbox, logName: string): SessionResult =>
  runScriptedSession(context, sandbox, {
    host: "claude",
    args: ["-p", PROMPT, "--output-format", "json"],
    scriptModule: path.join(import.meta.dirname, "..", "sessions", "claudeCodeFlow.ts"),
    script: "firstRequest",
    env: { ANTHROPIC_BASE_URL: MODEL_BASE_URL, ANTHROPIC_API_KEY: "sk-ant-scripted" },
    timeoutMs: 120_000,
    logName
  })

const tail = (session: SessionResult): string =>
  neutralize(`${session.result.stdout}\n${session.result.stderr}`.trim().split("\n").slice(-3).join(" | ").slice(0, 300))

/** The conversation's first request: the first with a tools array (side requests and count_tokens left out). */
export const mainRequest = (session: SessionResult, what: string): ModelRequest => {
  const logged = session.requests.find((entry) => entry.request.model !== COUNT_TOKENS_MODEL && entry.request.tools.length > 0)
  if (logged === undefined) throw new Error(`claude sent no request with tools (${what}; ${session.requests.length} requests; exit ${session.result.status}: ${tail(session)})`)
  return logged.request
}

type Json = Readonly<Record<string, unknown>>
const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** The texts of a content value: a string, or its text blocks. */
const contentTexts = (content: unknown): ReadonlyArray<string> =>
  typeof content === "string"
    ? [content]
    : asArray(content).flatMap((block) => (isRecord(block) && typeof block.text === "string" ? [block.text] : []))

/** Every text of the request: system blocks, then each message's text blocks, in order. */
export const requestTexts = (request: ModelRequest): ReadonlyArray<string> => {
  const raw = request.raw as Json
  return [...contentTexts(raw.system), ...asArray(raw.messages).flatMap((message) => (isRecord(message) ? contentTexts(message.content) : []))]
}

/** Characters of the request: the texts of system and messages, and each tool's JSON as sent. */
export const requestChars = (request: ModelRequest): number =>
  requestTexts(request).reduce((sum, text) => sum + text.length, 0) + request.tools.reduce((sum, tool) => sum + JSON.stringify(tool.raw).length, 0)

/** The host's projection: characters / 4, rounded. */
export const projected = (chars: number): number => Math.round(chars / 4)

/** A row of `tool-map query context --json` (by item). */
interface LedgerRow {
  readonly kind: string
  readonly name?: string
  readonly plugin: string | null
  readonly alwaysOnTokens: number | null
}

/** A row of `tool-map query context --by plugin --json`: a plugin's sums, and what switching it off saves. */
interface PluginRow {
  readonly group: string
  readonly alwaysOnTokens: number
  readonly offSavesTokens?: number
}

/**
 * tool-map's figure for a plugin, the one a session's delta is compared with: what switching it
 * off saves (`--by plugin`'s `offSavesTokens`), or, from a build that does not say, the sum of
 * its items' always-on figures.
 */
const pluginFigure = (plugins: ReadonlyArray<PluginRow>, rows: ReadonlyArray<LedgerRow>, id: string): number =>
  plugins.find((row) => row.group === id)?.offSavesTokens ?? rows.filter((row) => row.plugin === id).reduce((sum, row) => sum + (row.alwaysOnTokens ?? 0), 0)

/** `tool-map query context --json`: its rows, and per host the totals (with the model the figures assume, once it says). */
interface LedgerJson {
  readonly rows: ReadonlyArray<LedgerRow>
  readonly totals: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * The model Claude Code's figures assume, as tool-map states it: the host's totals' `model`, a
 * model id or `{ model: ID, … }` (contextWindow, skillListingBudget, where it was read); undefined
 * while it states none.
 */
const statedModel = (ledger: LedgerJson): string | undefined => {
  const stated = ledger.totals.find((entry) => entry["host"] === "claude-code")?.["model"]
  if (typeof stated === "string") return stated
  return isRecord(stated) && typeof stated["model"] === "string" ? stated["model"] : undefined
}

interface ToolMapItem {
  readonly host: string
  readonly name: string
  readonly scope: string
  readonly plugin: string | null
  readonly enabled?: boolean
  readonly listingLine?: unknown
}

/** The models of the check: a 200k-context model by id, and the alias `opus` (1M context in 2.1.332). */
export const LEDGER_MODELS = [
  { key: "200k", model: "claude-sonnet-4-5" },
  { key: "1m", model: "opus" }
] as const

type ModelKey = (typeof LEDGER_MODELS)[number]["key"]

/** One plugin's row of the measured table. */
export interface LedgerMeasure {
  readonly plugin: string
  /** Measured: the first request's chars/4 with all plugins minus with this one off. */
  readonly measured: number
  /** tool-map's always-on tokens of the plugin's rows. */
  readonly toolMap: number
  /** `claude plugin details`' own "Always-on" figure, for the record (not judged). */
  readonly details: number | null
  readonly ratio: number | null
  readonly judged: boolean
  readonly agrees: boolean
}

export interface LedgerTable {
  readonly model: string
  /** The model id the host put in the first request. */
  readonly sentModel: string
  readonly baselineChars: number
  /** chars/4 between two sessions on the same HOME (should be 0). */
  readonly repeatNoise: number
  /** The model tool-map says its figures assume, if it says. */
  readonly assumedModel: string | null
  readonly rows: ReadonlyArray<LedgerMeasure>
}

const dump = (name: string, request: ModelRequest): void => {
  const dir = process.env["TOOL_MAP_LEDGER_DUMP"]
  if (dir === undefined || dir === "") return
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(request.raw, null, 2)}\n`)
}

/** The first request of a session on the fixture HOME with `disabled` off (kept under TOOL_MAP_LEDGER_DUMP as `label`.json). */
const firstRequestOn = (context: CheckContext, sandbox: Sandbox, model: string, label: string, disabled?: string): ModelRequest => {
  layOutPlugins(sandbox, { model, disabled })
  const request = mainRequest(ledgerSession(context, sandbox, `${label}.jsonl`), label)
  dump(label, request)
  return request
}

/** tool-map run as the user would: the pinned `claude` on PATH, so the scan finds the installed version (its own agents and skills). */
export const withClaude = (context: CheckContext) => ({ path: [path.dirname(context.hostBin("claude"))] })

/**
 * The items of one kind tool-map says a Claude Code session lists: the enabled ones, and of the
 * skills and commands those in the skill listing (`listingLine`) or the host's own (scope `builtin`).
 */
const loadedItems = (context: CheckContext, sandbox: Sandbox, kind: string): ReadonlyArray<ToolMapItem> =>
  toolMapList<ToolMapItem>(context, sandbox, [kind], withClaude(context))
    .filter((item) => item.host === "claude-code" && item.enabled !== false && (kind === "agents" || item.listingLine !== undefined || item.scope === "builtin"))

/** The session with every plugin on, and on the same HOME what tool-map says (ledger, loaded items) and what `claude plugin details` projects. */
const measureAll = (context: CheckContext, model: string, key: ModelKey) =>
  withSandbox(context, (sandbox) => {
    const request = firstRequestOn(context, sandbox, model, `${key}-all`)
    const ledger = toolMapQuery<LedgerJson>(context, sandbox, ["context", "--host", "claude-code"], withClaude(context))
    const byPlugin = toolMapQuery<{ readonly rows: ReadonlyArray<PluginRow> }>(context, sandbox, ["context", "--host", "claude-code", "--by", "plugin"], withClaude(context))
    const listed = { agents: loadedItems(context, sandbox, "agents"), skills: loadedItems(context, sandbox, "skills"), commands: loadedItems(context, sandbox, "commands") }
    const details = new Map(ledgerPlugins().map((plugin) => [plugin.id, detailsAlwaysOn(context, sandbox, plugin.id)]))
    return { request, rows: ledger.rows, plugins: byPlugin.rows, assumedModel: statedModel(ledger), listed, details }
  })

/** `claude plugin details ID`'s "Always-on: ~N tok" (2.1.332, chars/4 offline), or null when it prints none. */
const detailsAlwaysOn = (context: CheckContext, sandbox: Sandbox, id: string): number | null => {
  const result = context.runHost(sandbox, "claude", ["plugin", "details", id])
  const match = /Always-on:\s+~([\d,]+) tok/.exec(stripAnsi(result.stdout))
  return result.status !== 0 || match === null ? null : Number(match[1]!.replace(/,/g, ""))
}

/** Sessions are slow: one model's measures are made once and shared by its checks. */
const measured = new Map<ModelKey, ReturnType<typeof measureModel>>()

const measureModel = (context: CheckContext, model: string, key: ModelKey) => {
  const all = measureAll(context, model, key)
  const baselineChars = requestChars(all.request)
  // The same session again: how far two identical HOMEs' first requests differ (run paths are one length).
  const repeatNoise = projected(Math.abs(baselineChars - requestChars(withSandbox(context, (sandbox) => firstRequestOn(context, sandbox, model, `${key}-repeat`)))))
  process.stderr.write(`conformance: ledger ${key} (${model} sent as ${all.request.model}): first request ${projected(baselineChars)} (chars/4) with every plugin on; the same session again differs by ${repeatNoise}\n`)
  const rows = ledgerPlugins().map((plugin): LedgerMeasure => {
    const without = withSandbox(context, (sandbox) => firstRequestOn(context, sandbox, model, `${key}-without-${plugin.name}`, plugin.id))
    const delta = projected(baselineChars - requestChars(without))
    const toolMap = pluginFigure(all.plugins, all.rows, plugin.id)
    const ratio = delta === 0 ? null : toolMap / delta
    const judged = delta >= LEDGER_MIN_TOKENS
    const agrees = !judged || Math.abs(toolMap - delta) <= LEDGER_SESSION_TOLERANCE * delta
    process.stderr.write(
      `conformance: ledger ${key} (${model}): ${plugin.id}: measured ${delta}, tool-map ${toolMap}${ratio === null ? "" : ` (×${ratio.toFixed(2)})`}, plugin details ${all.details.get(plugin.id) ?? "-"}\n`
    )
    return { plugin: plugin.id, measured: delta, toolMap, details: all.details.get(plugin.id) ?? null, ratio, judged, agrees }
  })
  const table: LedgerTable = { model, sentModel: all.request.model, baselineChars, repeatNoise, assumedModel: all.assumedModel ?? null, rows }
  const out = process.env["TOOL_MAP_LEDGER_OUT"]
  if (out !== undefined && out !== "") {
    const previous: Record<string, unknown> = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, "utf8")) as Record<string, unknown>) : {}
    fs.writeFileSync(out, `${JSON.stringify({ ...previous, [key]: { ...table, listing: hostListing(all.request) } }, null, 2)}\n`)
  }
  return { all, table }
}

const measure = (context: CheckContext, model: string, key: ModelKey) => {
  const known = measured.get(key)
  if (known !== undefined) return known
  const made = measureModel(context, model, key)
  measured.set(key, made)
  return made
}

/**
 * The agents and skills the first request lists. 2.1.332 lists agents for its Agent tool as
 * lines `- NAME: DESCRIPTION (Tools: …)` and skills as lines `- NAME: DESCRIPTION` (or `- NAME`
 * where the budget cut the description) under "The following skills are available", up to the
 * first blank line after the list (a description may run over several lines); both lists
 * may be in the tools' descriptions, the system prompt or a system-reminder.
 */
export const hostListing = (request: ModelRequest): { readonly agents: ReadonlyArray<string>; readonly skills: ReadonlyArray<string> } => {
  const texts = [...requestTexts(request), ...request.tools.map((tool) => tool.description)]
  const agents = new Set<string>()
  const skills = new Set<string>()
  for (const text of texts) {
    const lines = text.split("\n")
    let section: "agents" | "skills" | undefined
    let listed = 0
    for (const line of lines) {
      if (/available agent types/i.test(line)) [section, listed] = ["agents", 0]
      else if (/following skills are available/i.test(line)) [section, listed] = ["skills", 0]
      else if (section !== undefined && /^- /.test(line)) {
        const name = /^- ([^:\s]+(?::[^:\s]+)*?)(?::\s|:$|$|\s\()/.exec(line)?.[1]
        // An agent's line ends with its tools (`(Tools: …)`); the Agent tool's text has other lists after the agents.
        if (name !== undefined && (section === "skills" || /\(Tools: [^)]*\)$/.test(line))) (section === "agents" ? agents : skills).add(name)
        listed += 1
      } else if (section !== undefined && line.trim() === "" && listed > 0) section = undefined
      // Any other line is the rest of a multi-line description (claude-api's has three lines in 2.1.332).
    }
  }
  return { agents: [...agents].sort(), skills: [...skills].sort() }
}

const times = (ratio: number | null) => (ratio === null ? "-" : `×${ratio.toFixed(2)}`)

/**
 * The table as one side's answer, a line per plugin. A row the verdict does not separate (agrees,
 * or under {@link LEDGER_MIN_TOKENS}) reads the same on both sides and shows both figures; a
 * disagreeing row shows tool-map's figure (and its ratio to the measured one) against the measured.
 */
const describeTable = (table: LedgerTable, side: "toolMap" | "host"): string =>
  [
    ...table.rows.map((row) =>
      !row.judged
        ? `${row.plugin}: measured ${row.measured}, tool-map ${row.toolMap} (under ${LEDGER_MIN_TOKENS}: not judged)`
        : row.agrees
        ? `${row.plugin}: measured ${row.measured}, tool-map ${row.toolMap} (${times(row.ratio)}, within ${LEDGER_SESSION_TOLERANCE * 100}%)`
        : side === "host"
        ? `${row.plugin}: ${row.measured}`
        : `${row.plugin}: ${row.toolMap} (${times(row.ratio)} of the measured)`
    ),
    `(the all-on session run again differed by ${table.repeatNoise})`
  ].join("\n")

const deltaCheck = (key: ModelKey, model: string): Check => ({
  id: `claude-ledger-delta-${key}`,
  host: "claude",
  title: `model ${model}: each real plugin's first-request cost (chars/4 with it on minus off) = what tool-map query context --by plugin says switching it off saves, within 10% (plugins of at least 50 tokens)`,
  run: (context) => {
    const { table } = measure(context, model, key)
    return {
      toolMap: `model: ${table.assumedModel ?? "(tool-map states none)"}\n${describeTable(table, "toolMap")}`,
      host: `model: ${table.sentModel}\n${describeTable(table, "host")}`
    }
  }
})

/** The name Claude Code gives a plugin's item: `plugin:name`. */
const hostName = (item: ToolMapItem): string => (item.plugin === null ? item.name : `${item.plugin.slice(0, item.plugin.lastIndexOf("@"))}:${item.name}`)

const list = (names: ReadonlyArray<string>): string => (names.length === 0 ? "(none)" : [...new Set(names)].sort().join(", "))

const listingCheck = (key: ModelKey, model: string): Check => ({
  id: `claude-ledger-listing-${key}`,
  host: "claude",
  title: `model ${model}: the agents and skills the first request lists (builtins included) = tool-map query agents / the skills and commands tool-map says the session lists (listingLine, or scope builtin), claude on PATH`,
  run: (context) => {
    const { all } = measure(context, model, key)
    const host = hostListing(all.request)
    const listed = all.listed
    return {
      toolMap: `agents: ${list(listed.agents.map(hostName))}\nskills: ${list([...listed.skills, ...listed.commands].map(hostName))}`,
      host: `agents: ${list(host.agents)}\nskills: ${list(host.skills)}`
    }
  }
})

export const claudeLedgerChecks: ReadonlyArray<Check> = LEDGER_MODELS.flatMap(({ key, model }) => [deltaCheck(key, model), listingCheck(key, model)])
