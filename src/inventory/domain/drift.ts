import { Option, Schema } from "effect"
import { AGENT_HOSTS, type AgentHostName, AgentItemKind } from "./agentHosts.js"

/**
 * Drift between scans (issue 14, part 2). Each commit keeps, in the bundle's history
 * (bundle/history.ts), the digests of its last generations: the command names with the path that wins for each, the probed
 * versions, and the agent-host items with their sha256, loaded state and, for MCP servers, the
 * command, url and env var names: enough to say what changed, not a second copy of everything.
 */

/** One agent-host item as the digest keeps it. */
export const DigestItem = Schema.Struct({
  id: Schema.String,
  host: Schema.String,
  kind: AgentItemKind,
  name: Schema.String,
  sha256: Schema.NullOr(Schema.String),
  /** Enabled and not shadowed: the host loads it. */
  loaded: Schema.Boolean,
  /** An MCP server's command line (command and args), else absent. */
  command: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  url: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  envVars: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
export type DigestItem = typeof DigestItem.Type

/** What a generation's digest holds (plain structs: a scan builds one per item, and the schema fast path reads them). */
export const GenerationDigest = Schema.Struct({
  generation: Schema.String,
  generatedAt: Schema.String,
  /**
   * Each command name and the path a user gets by typing it, sorted by name. (Structs, not
   * tuples: the schema fast path decodes and encodes structs, and a bundle is read by every query.)
   */
  tools: Schema.Array(Schema.Struct({ name: Schema.String, path: Schema.String })),
  /** Each probed name and its version (ok probes only), sorted by name. */
  versions: Schema.Array(Schema.Struct({ name: Schema.String, version: Schema.String })),
  items: Schema.Array(DigestItem)
})
export type GenerationDigest = typeof GenerationDigest.Type

/** The parts of a tool record the digest reads. */
interface ToolLike {
  readonly name: string
  readonly path: string
  readonly pathIndex: number | null
  readonly shadowedBy: string | null
}

/** The parts of an agent-host item the digest reads. */
interface ItemLike {
  readonly id: string
  readonly host: string
  readonly kind: AgentItemKind
  readonly name: string
  readonly sha256: string | null
  readonly enabled: boolean
  readonly shadowedBy: string | null
  readonly command?: string | null | undefined
  readonly args?: ReadonlyArray<string> | undefined
  readonly url?: string | null | undefined
  readonly envVars?: ReadonlyArray<string> | undefined
}

/** What a digest is made of: an inventory, or the parsed tools.json of an earlier one. */
export interface DigestSource {
  readonly generation: string
  readonly generatedAt: string
  readonly tools: ReadonlyArray<ToolLike>
  readonly versions: ReadonlyArray<{ readonly name: string; readonly version: string | null; readonly status: string }>
  readonly agentHosts: { readonly items: ReadonlyArray<ItemLike> }
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * The digest of a generation. A name's path is the copy that is not shadowed, on PATH first (the
 * walk marks every later PATH copy of a name shadowed by the first), else the first found.
 */
export const digestOf = (source: DigestSource): GenerationDigest => {
  const winners = new Map<string, ToolLike>()
  for (const tool of source.tools) {
    if (tool.shadowedBy !== null) continue
    const known = winners.get(tool.name)
    if (known === undefined || (known.pathIndex === null && tool.pathIndex !== null)) winners.set(tool.name, tool)
  }
  const items = source.agentHosts.items.map((item): DigestItem => ({
      id: item.id,
      host: item.host,
      kind: item.kind,
      name: item.name,
      sha256: item.sha256,
      loaded: item.enabled && item.shadowedBy === null,
      ...(item.kind === "mcpServer"
        ? { command: item.command === null || item.command === undefined ? null : [item.command, ...(item.args ?? [])].join(" "), url: item.url ?? null, envVars: item.envVars ?? [] }
        : {})
  }))
  return {
    generation: source.generation,
    generatedAt: source.generatedAt,
    tools: [...winners.values()].map((tool) => ({ name: tool.name, path: tool.path })).sort(byName),
    versions: source.versions.flatMap((report) => (report.status === "ok" && report.version !== null ? [{ name: report.name, version: report.version }] : [])).sort(byName),
    items
  }
}

type Json = { readonly [key: string]: unknown }

const record = (value: unknown): Json | null => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null)
const text = (value: unknown): value is string => typeof value === "string"
const textOrNull = (value: unknown): value is string | null => value === null || typeof value === "string"
const texts = (value: unknown): value is ReadonlyArray<string> => Array.isArray(value) && value.every(text)
const KINDS: ReadonlySet<unknown> = new Set(AgentItemKind.literals)

/** A tool record of a parsed tools.json, or null when it lacks a field the digest reads. */
const toolOf = (value: unknown): ToolLike | null => {
  const tool = record(value)
  if (tool === null || !text(tool["name"]) || !text(tool["path"]) || !textOrNull(tool["shadowedBy"])) return null
  const pathIndex = tool["pathIndex"]
  if (pathIndex !== null && typeof pathIndex !== "number") return null
  return { name: tool["name"], path: tool["path"], pathIndex, shadowedBy: tool["shadowedBy"] }
}

/** An agent-host item of a parsed tools.json, or null when it lacks a field the digest reads. */
const itemOf = (value: unknown): ItemLike | null => {
  const item = record(value)
  if (item === null || !text(item["id"]) || !text(item["host"]) || !KINDS.has(item["kind"]) || !text(item["name"])) return null
  if (!textOrNull(item["sha256"]) || typeof item["enabled"] !== "boolean" || !textOrNull(item["shadowedBy"])) return null
  const command = item["command"]
  const args = item["args"]
  const url = item["url"]
  const envVars = item["envVars"]
  return {
    id: item["id"],
    host: item["host"],
    kind: item["kind"] as AgentItemKind,
    name: item["name"],
    sha256: item["sha256"],
    enabled: item["enabled"],
    shadowedBy: item["shadowedBy"],
    command: textOrNull(command) ? command : undefined,
    args: texts(args) ? args : undefined,
    url: textOrNull(url) ? url : undefined,
    envVars: texts(envVars) ? envVars : undefined
  }
}

/** Every element read by `read`, or null when one cannot be. */
const all = <A>(value: unknown, read: (entry: unknown) => A | null): ReadonlyArray<A> | null => {
  if (!Array.isArray(value)) return null
  const out: Array<A> = []
  for (const entry of value) {
    const found = read(entry)
    if (found === null) return null
    out.push(found)
  }
  return out
}

/**
 * The digest of the parsed tools.json of an earlier scan (only the fields the digest needs are
 * read, by hand: a scan pays for it, and every bundle since the first schema version has them),
 * or none when it has not.
 */
export const digestOfParsed = (parsed: unknown): Option.Option<GenerationDigest> => {
  const bundle = record(parsed)
  if (bundle === null || !text(bundle["generation"]) || !text(bundle["generatedAt"])) return Option.none()
  const tools = all(bundle["tools"], toolOf)
  const versions = all(bundle["versions"], (value) => {
    const report = record(value)
    return report !== null && text(report["name"]) && textOrNull(report["version"]) && text(report["status"])
      ? { name: report["name"], version: report["version"], status: report["status"] }
      : null
  })
  const items = all(record(bundle["agentHosts"])?.["items"], itemOf)
  if (tools === null || versions === null || items === null) return Option.none()
  return Option.some(digestOf({ generation: bundle["generation"], generatedAt: bundle["generatedAt"], tools, versions, agentHosts: { items } }))
}

/** An agent-host item in a change list. */
export interface ChangedItem {
  readonly host: string
  readonly kind: AgentItemKind
  readonly name: string
  readonly id: string
}

/** An MCP server whose command, url or env var names changed. */
export interface ChangedMcpServer extends ChangedItem {
  /** Which of `command`, `url`, `env` changed. */
  readonly fields: ReadonlyArray<"command" | "url" | "env">
  readonly before: { readonly command: string | null; readonly url: string | null; readonly envVars: ReadonlyArray<string> }
  readonly after: { readonly command: string | null; readonly url: string | null; readonly envVars: ReadonlyArray<string> }
}

/** What changed from one generation to another; MCP servers first, as the security-relevant part. */
export interface Changes {
  readonly since: { readonly generation: string; readonly generatedAt: string }
  readonly current: { readonly generation: string; readonly generatedAt: string }
  readonly mcpServers: {
    readonly added: ReadonlyArray<ChangedItem & { readonly command: string | null; readonly url: string | null; readonly envVars: ReadonlyArray<string> }>
    readonly changed: ReadonlyArray<ChangedMcpServer>
    readonly removed: ReadonlyArray<ChangedItem>
  }
  readonly tools: {
    readonly added: ReadonlyArray<{ readonly name: string; readonly path: string }>
    readonly removed: ReadonlyArray<{ readonly name: string; readonly path: string }>
    /** The name now runs another file: the PATH winner changed. */
    readonly moved: ReadonlyArray<{ readonly name: string; readonly from: string; readonly to: string }>
    readonly versionChanged: ReadonlyArray<{ readonly name: string; readonly from: string | null; readonly to: string | null }>
  }
  readonly items: {
    readonly added: ReadonlyArray<ChangedItem>
    readonly removed: ReadonlyArray<ChangedItem>
    readonly enabled: ReadonlyArray<ChangedItem>
    readonly disabled: ReadonlyArray<ChangedItem>
    readonly contentChanged: ReadonlyArray<ChangedItem>
  }
  /** How many changes in all. */
  readonly count: number
}

const changedItem = (item: DigestItem): ChangedItem => ({ host: item.host, kind: item.kind, name: item.name, id: item.id })

const mcpFacts = (item: DigestItem) => ({ command: item.command ?? null, url: item.url ?? null, envVars: item.envVars ?? [] })

const hostOrder = (host: string): number => {
  const index = AGENT_HOSTS.indexOf(host as AgentHostName)
  return index === -1 ? AGENT_HOSTS.length : index
}

const byHostThenId = (a: ChangedItem, b: ChangedItem) => hostOrder(a.host) - hostOrder(b.host) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** What changed from `before` to `after`, each list sorted (tools by name, items by host then id). */
export const changesBetween = (before: GenerationDigest, after: GenerationDigest): Changes => {
  const oldTools = new Map(before.tools.map((tool) => [tool.name, tool.path] as const))
  const newTools = new Map(after.tools.map((tool) => [tool.name, tool.path] as const))
  const oldVersions = new Map(before.versions.map((report) => [report.name, report.version] as const))
  const newVersions = new Map(after.versions.map((report) => [report.name, report.version] as const))
  const tools = {
    added: after.tools.filter((tool) => !oldTools.has(tool.name)).map(({ name, path }) => ({ name, path })),
    removed: before.tools.filter((tool) => !newTools.has(tool.name)).map(({ name, path }) => ({ name, path })),
    moved: after.tools.flatMap(({ name, path }) => {
      const from = oldTools.get(name)
      return from !== undefined && from !== path ? [{ name, from, to: path }] : []
    }),
    versionChanged: [...new Set([...oldVersions.keys(), ...newVersions.keys()])].sort().flatMap((name) => {
      const from = oldVersions.get(name) ?? null
      const to = newVersions.get(name) ?? null
      return from === to ? [] : [{ name, from, to }]
    })
  }
  const oldItems = new Map(before.items.map((item) => [item.id, item] as const))
  const newItems = new Map(after.items.map((item) => [item.id, item] as const))
  const added = after.items.filter((item) => !oldItems.has(item.id))
  const removed = before.items.filter((item) => !newItems.has(item.id))
  const kept = after.items.flatMap((item) => {
    const old = oldItems.get(item.id)
    return old === undefined ? [] : [{ old, item }]
  })
  const mcpChanged: Array<ChangedMcpServer> = []
  for (const { old, item } of kept) {
    if (item.kind !== "mcpServer") continue
    const a = mcpFacts(old)
    const b = mcpFacts(item)
    const fields = [
      ...(a.command === b.command ? [] : ["command" as const]),
      ...(a.url === b.url ? [] : ["url" as const]),
      ...(a.envVars.join("\u0000") === b.envVars.join("\u0000") ? [] : ["env" as const])
    ]
    if (fields.length > 0) mcpChanged.push({ ...changedItem(item), fields, before: a, after: b })
  }
  const mcpChangedIds = new Set(mcpChanged.map((item) => item.id))
  const sorted = (list: ReadonlyArray<DigestItem>) => list.map(changedItem).sort(byHostThenId)
  const mcpServers = {
    added: added.filter((item) => item.kind === "mcpServer").map((item) => ({ ...changedItem(item), ...mcpFacts(item) })).sort(byHostThenId),
    changed: mcpChanged.sort(byHostThenId),
    removed: sorted(removed.filter((item) => item.kind === "mcpServer"))
  }
  const items = {
    added: sorted(added.filter((item) => item.kind !== "mcpServer")),
    removed: sorted(removed.filter((item) => item.kind !== "mcpServer")),
    enabled: sorted(kept.filter(({ old, item }) => !old.loaded && item.loaded).map(({ item }) => item)),
    disabled: sorted(kept.filter(({ old, item }) => old.loaded && !item.loaded).map(({ item }) => item)),
    contentChanged: sorted(kept.filter(({ old, item }) => old.sha256 !== item.sha256 && !mcpChangedIds.has(item.id)).map(({ item }) => item))
  }
  const count = [
    mcpServers.added, mcpServers.changed, mcpServers.removed,
    tools.added, tools.removed, tools.moved, tools.versionChanged,
    items.added, items.removed, items.enabled, items.disabled, items.contentChanged
  ].reduce((sum, list) => sum + list.length, 0)
  return {
    since: { generation: before.generation, generatedAt: before.generatedAt },
    current: { generation: after.generation, generatedAt: after.generatedAt },
    mcpServers,
    tools,
    items,
    count
  }
}

/** The change counts in a few words (`2 MCP servers added, 3 tools added, …`), or null when nothing changed. */
export const describeChangeCounts = (changes: Changes): string | null => {
  const parts: Array<readonly [number, string, string]> = [
    [changes.mcpServers.added.length, "MCP server added", "MCP servers added"],
    [changes.mcpServers.changed.length, "MCP server changed", "MCP servers changed"],
    [changes.mcpServers.removed.length, "MCP server removed", "MCP servers removed"],
    [changes.tools.added.length, "tool added", "tools added"],
    [changes.tools.removed.length, "tool removed", "tools removed"],
    [changes.tools.moved.length, "tool moved", "tools moved"],
    [changes.tools.versionChanged.length, "version changed", "versions changed"],
    [changes.items.added.length, "agent-host item added", "agent-host items added"],
    [changes.items.removed.length, "agent-host item removed", "agent-host items removed"],
    [changes.items.enabled.length, "item enabled", "items enabled"],
    [changes.items.disabled.length, "item disabled", "items disabled"],
    [changes.items.contentChanged.length, "item's content changed", "items' content changed"]
  ]
  const said = parts.filter(([count]) => count > 0).map(([count, one, many]) => `${count} ${count === 1 ? one : many}`)
  return said.length === 0 ? null : said.join(", ")
}
