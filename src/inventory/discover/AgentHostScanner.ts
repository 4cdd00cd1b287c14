import { FileSystem } from "@effect/platform"
import { Cause, Context, Effect, Layer, Option } from "effect"
import * as NodePath from "node:path"
import {
  AGENT_HOSTS,
  AgentHostCounts,
  AgentHostDiagnostic,
  type AgentHostItem,
  type AgentHostName,
  AgentHostReport,
  ListingModel,
  AgentHostsInventory,
  isEffective
} from "../domain/agentHosts.js"
import { defaultDataDir } from "../domain/dataDir.js"
import { CLAUDE_SKILL_BUDGET_VARIABLE, claudeSkillBudget, mcpSchemaCost, userSkillBudget } from "../domain/ledger.js"
import { envValue } from "../domain/machine.js"
import {
  AgentHostFiles,
  defaultHostFileLimits,
  HOST_READERS,
  type HostFileLimits,
  type HostReadContext,
  type HostReadResult,
  linkSameFiles,
  resolvePrecedence,
  ScanMemo
} from "./agentHosts/index.js"
import { FrontmatterParser } from "./FrontmatterParser.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { readSnapshotFile, snapshotFileOf, snapshotsDirOf } from "../../services/ToolSnapshots.js"

/** The outcome of a scan of every agent host. */
export interface AgentHostScanResult {
  readonly inventory: AgentHostsInventory
  /** Every file and directory read or looked for, sorted: the inputs `--if-stale` watches. */
  readonly watched: ReadonlyArray<string>
}

/**
 * Reads the configuration of every agent host (Claude Code, Codex, Cursor, Gemini CLI,
 * opencode) and records what each will really load. Never fails: a malformed or unreadable
 * file is a diagnostic, a host whose reader breaks is a diagnostic.
 */
export class AgentHostScanner extends Context.Tag("tool-map/AgentHostScanner")<AgentHostScanner, {
  readonly scan: Effect.Effect<AgentHostScanResult>
}>() {
  static readonly layer = Layer.effect(this, Effect.map(makeScanContext(defaultHostFileLimits), (ctx) => ({ scan: scanAgentHosts(ctx) })))
  /** The scanner with other file caps (tests, benchmarks). */
  static readonly layerWith = (limits: Partial<HostFileLimits>) =>
    Layer.effect(this, Effect.map(makeScanContext({ ...defaultHostFileLimits, ...limits }), (ctx) => ({ scan: scanAgentHosts(ctx) })))
}

/** What a scan reads with: the readers' context, and the FileSystem of the gateway's snapshots. */
interface ScanContext extends HostReadContext {
  readonly fs: FileSystem.FileSystem
}

function makeScanContext(limits: HostFileLimits): Effect.Effect<ScanContext, never, AgentHostFiles | FileSystem.FileSystem | MachineEnvironment | FrontmatterParser> {
  return Effect.gen(function* () {
    const env = yield* MachineEnvironment
    return {
      files: yield* AgentHostFiles,
      fs: yield* FileSystem.FileSystem,
      env,
      parser: yield* FrontmatterParser,
      limits,
      path: env.os === "win32" ? NodePath.win32 : NodePath.posix
    }
  })
}

/**
 * A host's diagnostics by path (those without one first), each file's own in the order they
 * were met: files are read concurrently, and the bundle must not depend on which ends first.
 */
const inPathOrder = (diagnostics: ReadonlyArray<AgentHostDiagnostic>): ReadonlyArray<AgentHostDiagnostic> =>
  [...diagnostics].sort((a, b) => {
    const left = a.path ?? ""
    const right = b.path ?? ""
    return left < right ? -1 : left > right ? 1 : 0
  })

/** Runs every host reader and applies each host's precedence. */
export const scanAgentHosts = (scanner: ScanContext): Effect.Effect<AgentHostScanResult> =>
  Effect.gen(function* () {
    // Hosts share folders: what one reader has read, the next takes from this scan's memo.
    const ctx: ScanContext = { ...scanner, memo: new ScanMemo() }
    const results = yield* withSnapshotCosts(yield* Effect.forEach(AGENT_HOSTS, (host) => readHost(host, ctx), { concurrency: "unbounded" }), ctx)
    const items: Array<AgentHostItem> = []
    const diagnostics: Array<AgentHostDiagnostic> = []
    const hosts: Array<AgentHostReport> = []
    const watched = new Set<string>()
    const skillBudget = claudeSkillBudget(envValue(ctx.env, CLAUDE_SKILL_BUDGET_VARIABLE))
    for (const result of results) {
      // Claude Code's own skills take their part of the listing's budget first (issue 28, point 4).
      const hostItems = resolvePrecedence(result.drafts, result.listing === undefined ? skillBudget : userSkillBudget(result.listing))
      items.push(...hostItems)
      diagnostics.push(...inPathOrder(result.diagnostics))
      for (const path of result.watched) watched.add(path)
      const count = (kind: AgentHostItem["kind"]) => hostItems.filter((item) => item.kind === kind).length
      hosts.push(
        new AgentHostReport({
          host: result.host,
          detected: result.detected ?? (result.roots.some((root) => root.status !== "missing") || hostItems.length > 0),
          roots: result.roots,
          counts: new AgentHostCounts({
            agents: count("agent"),
            skills: count("skill"),
            commands: count("command"),
            mcpServers: count("mcpServer"),
            plugins: count("plugin"),
            instructions: count("instructions"),
            effective: hostItems.filter(isEffective).length,
            diagnostics: result.diagnostics.length
          }),
          ...(result.listing === undefined ? {} : { listing: new ListingModel(result.listing, true) })
        }, true)
      )
    }
    return {
      inventory: new AgentHostsInventory({ hosts, items: linkSameFiles(items), diagnostics }, true),
      watched: Array.from(watched).sort()
    }
  }).pipe(Effect.withSpan("AgentHostScanner.scan"))

/**
 * The ledger cost of every MCP server whose tool list the gateway has kept (issue 14): read from
 * its snapshot, under the key the gateway starts it by. Costs one look at the snapshots dir when
 * a host has MCP servers, nothing more when the dir is not there. The dir is watched, so a new
 * snapshot makes `--if-stale` scan again; a snapshot that cannot be used is a diagnostic and
 * leaves its server unknown.
 */
const withSnapshotCosts = (results: ReadonlyArray<HostReadResult>, ctx: ScanContext): Effect.Effect<ReadonlyArray<HostReadResult>> =>
  Effect.gen(function* () {
    if (!results.some((result) => result.drafts.some((draft) => draft.snapshotKey !== undefined))) return results
    const dataDir = defaultDataDir(ctx.env.env, ctx.env.homedir)
    if (!ctx.path.isAbsolute(dataDir)) return results
    const dir = snapshotsDirOf(dataDir, ctx.path)
    const watched = (result: HostReadResult): HostReadResult => ({ ...result, watched: [...result.watched, dir] })
    if (!(yield* Effect.orElseSucceed(ctx.fs.exists(dir), () => false))) return results.map(watched)
    return yield* Effect.forEach(results, (result) =>
      Effect.gen(function* () {
        const diagnostics: Array<AgentHostDiagnostic> = []
        const drafts = yield* Effect.forEach(result.drafts, (draft) => {
          const key = draft.snapshotKey?.() ?? null
          if (key === null || draft.fields.kind !== "mcpServer") return Effect.succeed(draft)
          const fields = draft.fields
          return readSnapshotFile(snapshotFileOf(dir, key, ctx.path), key).pipe(
            Effect.provideService(FileSystem.FileSystem, ctx.fs),
            Effect.map((snapshot) =>
              Option.match(snapshot, {
                onNone: () => draft,
                onSome: (found) => ({ ...draft, cost: mcpSchemaCost(found.tools, fields.enabledTools, fields.disabledTools) })
              })
            ),
            Effect.catchAll((error) =>
              Effect.sync(() => {
                diagnostics.push(new AgentHostDiagnostic({ source: `agent-hosts/${result.host}`, path: error.path, line: null, message: error.reason }))
                return draft
              })
            )
          )
        })
        return { ...watched(result), drafts, diagnostics: [...result.diagnostics, ...diagnostics] }
      }))
  })

// A reader that breaks (a bug met on some input) costs its host, never the scan.
const readHost = (host: AgentHostName, ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  HOST_READERS[host](ctx).pipe(
    Effect.catchAllCause((cause) =>
      Effect.succeed<HostReadResult>({
        host,
        drafts: [],
        roots: [],
        watched: [],
        diagnostics: [
          new AgentHostDiagnostic({
            source: `agent-hosts/${host}`,
            path: null,
            line: null,
            message: `the ${host} reader stopped on an internal error (${Cause.isDie(cause) ? "defect" : "failure"}); its items are missing from this scan`
          })
        ]
      })
    )
  )
