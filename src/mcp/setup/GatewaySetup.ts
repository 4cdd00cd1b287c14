/**
 * `tool-map gateway setup | restore | status`: moves the MCP servers of an agent host's config
 * behind tool-map's gateway and back. The edit is planned as a pure function (plan.ts); this
 * service reads the files, and writes them in an order whose failure undoes what was written:
 * the backup of the config, the servers file the gateway reads and the record of the setup
 * (each mode 0600 in a 0700 folder of the data dir, written to a temp file beside it and renamed),
 * then the config itself. The backup stays until `restore`, which gives the file back byte for
 * byte when it was not edited since, and otherwise puts the server entries back into the edited
 * file (keeping every later edit) and leaves the original beside it.
 */
import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Either, Exit, Layer, Option, Schema } from "effect"
import * as NodePath from "node:path"
import { defaultDataDir } from "../../inventory/domain/dataDir.js"
import { type AgentHostName, isEffective, type McpServerItem } from "../../inventory/domain/agentHosts.js"
import { agentHostReadContext, ClaudeJson, decodedOrNull, defaultHostFileLimits, entryRunsToolMap, HOST_READERS, localProjectKey, resolvePrecedence, sha256 } from "../../inventory/discover/agentHosts/index.js"
import { FrontmatterParser } from "../../inventory/discover/FrontmatterParser.js"
import { writeFileAtomic } from "../../catalog/stores/jsonFile.js"
import { readBoundedFile } from "../gateway/boundedFile.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { hostServerEntry, type McpInvocation } from "../hostConfig.js"
import {
  GatewayNotSetUp,
  type GatewaySetupError,
  GatewaySetupWriteFailed,
  HostConfigChanged,
  HostConfigUnreadable,
  HostHasNoServers,
  ScopeNotOfHost,
  SetupRecordInvalid
} from "./errors.js"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"
import { editorFor } from "./configEdit.js"
import { hostConfigTarget, type HostConfigTarget, type SetupScope, withProjectKey } from "./hostFiles.js"
import { carriedSettings, type GatewayEntryChange, type KeptServer, planEntryRestore, planSetup, type ServerSummary } from "./plan.js"

/** What `setup` did (or, with `dryRun`, would do). */
export interface SetupResult {
  readonly host: AgentHostName
  readonly scope: SetupScope
  /** `set-up`: first setup; `merged`: servers added since were moved too; `unchanged`: set up already, nothing new; `dry-run`: nothing written. */
  readonly outcome: "set-up" | "merged" | "unchanged" | "dry-run"
  readonly config: string
  readonly serversFile: string
  readonly backup: string
  readonly moved: ReadonlyArray<ServerSummary>
  readonly kept: ReadonlyArray<KeptServer>
  readonly gateway: GatewayEntryChange
  /** The entry added under `tool-map`: this install's gateway over the servers file (no secret in it). */
  readonly gatewayEntry: Readonly<Record<string, unknown>>
  /** Every server behind the gateway afterwards. */
  readonly behind: ReadonlyArray<string>
}

/** What `restore` did. */
export interface RestoreResult {
  readonly host: AgentHostName
  readonly scope: SetupScope
  /** `restored`: the file is byte for byte what it was before setup; `entries-restored`: the file was edited since, its servers were put back into it. */
  readonly outcome: "restored" | "entries-restored"
  readonly config: string
  readonly restored: ReadonlyArray<string>
  /** Servers the edited config holds again under the same name: its own entry was kept. */
  readonly conflicts: ReadonlyArray<string>
  /** Where the file as it was before setup was left, when it was not restored byte for byte. */
  readonly original: string | null
}

/** One setup in force. */
export interface SetupInForce {
  readonly scope: SetupScope
  readonly config: string
  readonly serversFile: string
  readonly setUpAt: string
  readonly behind: ReadonlyArray<string>
}

/** A server the host still loads itself. */
export interface DirectServer {
  readonly name: string
  readonly scope: string
  readonly path: string
  readonly plugin: string | null
  /** Whether `gateway setup` can move it (a user or project server; not a plugin's, a managed or a local one). */
  readonly movable: boolean
}

/** The gateway's state for one host. */
export interface HostGatewayStatus {
  readonly host: AgentHostName
  readonly setups: ReadonlyArray<SetupInForce>
  readonly direct: ReadonlyArray<DirectServer>
}

/** The record of a setup, kept beside its backup until restore. */
const SetupRecord = Schema.Struct({
  version: Schema.Literal(1),
  host: Schema.String,
  scope: Schema.Literal("user", "project", "local"),
  config: Schema.String,
  originalSha256: Schema.String,
  writtenSha256: Schema.String,
  /** False once a later setup merged servers added since: the backup alone no longer restores them. */
  exact: Schema.Boolean,
  setUpAt: Schema.String
})
type SetupRecord = typeof SetupRecord.Type

const ServersFile = Schema.Struct({
  host: Schema.String,
  source: Schema.String,
  mcpServers: OwnRecord(Schema.Unknown)
})

const RECORD_SUFFIX = ".setup.json"
const PRIVATE_FILE = 0o600
const PRIVATE_DIR = 0o700

/** The files of one setup in the data dir. */
interface SetupFiles {
  readonly serversFile: string
  readonly backup: string
  readonly record: string
}

/** The folder of the setups: `<data dir>/gateway/hosts`. */
export const setupsDirOf = (dataDir: string): string => NodePath.join(dataDir, "gateway", "hosts")

/** `<host>-user`, or `<host>-<project|local>-<hash of the project's folder>` (one per project). */
const stemOf = (host: AgentHostName, scope: SetupScope, project: string): string =>
  scope === "user" ? `${host}-user` : `${host}-${scope}-${sha256(project).slice(0, 12)}`

const filesOf = (dir: string, stem: string): SetupFiles => ({
  serversFile: NodePath.join(dir, `${stem}.json`),
  backup: NodePath.join(dir, `${stem}.backup`),
  record: NodePath.join(dir, `${stem}${RECORD_SUFFIX}`)
})

const reasonOf = (error: { readonly message: string }): string => error.message

/** Moves MCP servers of agent hosts behind the gateway and back, and says where each stands. */
export class GatewaySetup extends Context.Tag("tool-map/GatewaySetup")<GatewaySetup, {
  readonly setup: (host: AgentHostName, scope: SetupScope, options: { readonly dryRun: boolean }) => Effect.Effect<SetupResult, GatewaySetupError>
  readonly restore: (host: AgentHostName, scope: SetupScope) => Effect.Effect<RestoreResult, GatewaySetupError>
  readonly status: (hosts: ReadonlyArray<AgentHostName>) => Effect.Effect<ReadonlyArray<HostGatewayStatus>, GatewaySetupError>
}>() {
  /** The service; `launch` is how a host starts this install's gateway over a servers file. */
  static readonly layer = (launch: (serversFile: string) => McpInvocation) =>
    Layer.effect(this, make(launch)).pipe(Layer.provide(FrontmatterParser.layer))
}

function make(launch: (serversFile: string) => McpInvocation) {
  return Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const machine = yield* MachineEnvironment
    const hostContext = yield* agentHostReadContext
    const dir = setupsDirOf(defaultDataDir(machine.env, machine.homedir))

    const exists = (path: string) => fs.exists(path).pipe(Effect.orElseSucceed(() => false))

    /**
     * The bytes of a file, none when it does not exist: a regular file of at most the size the
     * readers allow a host's state file (`~/.claude.json` is the largest config setup edits).
     */
    const readBytes = (path: string, host: string) =>
      readBoundedFile(path, defaultHostFileLimits.maxStateBytes).pipe(
        Effect.mapError((error) => new HostConfigUnreadable({ host, path, reason: error.reason })),
        Effect.provideService(FileSystem.FileSystem, fs)
      )

    const decodeText = (bytes: Uint8Array, host: string, path: string) =>
      Either.match(Either.try(() => new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)), {
        onLeft: () => Effect.fail(new HostConfigUnreadable({ host, path, reason: "it is not UTF-8 text" })),
        onRight: Effect.succeed
      })

    const writeFailed = (path: string) => (error: { readonly message: string }) => new GatewaySetupWriteFailed({ path, reason: reasonOf(error) })

    /** Writes `bytes` to a temp file beside `path` with `mode`, then renames it over `path` (the catalog's atomic write). */
    const writeAtomic = (path: string, bytes: Uint8Array, mode: number) =>
      writeFileAtomic(path, bytes, { mode }).pipe(
        Effect.mapError((error) => new GatewaySetupWriteFailed({ path, reason: error.reason })),
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provide(Path.layer)
      )

    /** A write the scope undoes when it closes in failure: the file gets its old bytes back, or goes. */
    const writeUndoable = (path: string, bytes: Uint8Array, mode: number) =>
      Effect.gen(function*() {
        const before = yield* fs.readFile(path).pipe(Effect.option)
        yield* Effect.acquireRelease(writeAtomic(path, bytes, mode), (_, exit) =>
          Exit.isSuccess(exit)
            ? Effect.void
            : Option.match(before, {
              onNone: () => fs.remove(path).pipe(Effect.ignore),
              onSome: (old) => writeAtomic(path, old, mode).pipe(Effect.ignore)
            }))
      })

    const ensureDir = fs.makeDirectory(dir, { recursive: true, mode: PRIVATE_DIR }).pipe(
      Effect.zipRight(fs.chmod(dir, PRIVATE_DIR)),
      Effect.mapError(writeFailed(dir))
    )

    const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`)

    const readRecord = (files: SetupFiles) =>
      Effect.gen(function*() {
        const bytes = yield* readBytes(files.record, "tool-map").pipe(Effect.mapError((error) => new SetupRecordInvalid({ path: files.record, reason: error.reason })))
        if (Option.isNone(bytes)) return Option.none<SetupRecord>()
        const decoded = Schema.decodeUnknownEither(Schema.parseJson(SetupRecord))(new TextDecoder().decode(bytes.value))
        if (Either.isLeft(decoded)) return yield* new SetupRecordInvalid({ path: files.record, reason: "it is not a setup record" })
        return Option.some(decoded.right)
      })

    const readBehind = (files: SetupFiles) =>
      Effect.gen(function*() {
        const bytes = yield* readBytes(files.serversFile, "tool-map").pipe(Effect.mapError((error) => new SetupRecordInvalid({ path: files.serversFile, reason: error.reason })))
        if (Option.isNone(bytes)) return yield* new SetupRecordInvalid({ path: files.serversFile, reason: "the servers file of the setup is gone" })
        const decoded = Schema.decodeUnknownEither(Schema.parseJson(ServersFile))(new TextDecoder().decode(bytes.value))
        if (Either.isLeft(decoded)) return yield* new SetupRecordInvalid({ path: files.serversFile, reason: "it is not a servers file" })
        return decoded.right.mcpServers
      })

    /** The config file of a setup: the record's, else the first candidate that exists (and holds servers, for hosts with several). */
    const configPathOf = (target: HostConfigTarget) =>
      Effect.gen(function*() {
        const present: Array<string> = []
        for (const candidate of target.candidates) if (yield* exists(candidate)) present.push(candidate)
        if (present.length <= 1) return present[0] ?? target.candidates[0]!
        for (const candidate of present) {
          const bytes = yield* readBytes(candidate, target.host)
          const text = Option.isSome(bytes) ? yield* decodeText(bytes.value, target.host, candidate) : ""
          if (Either.isRight(planSetup({ target, path: candidate, text, behind: {} }, {}))) return candidate
        }
        return present[0]!
      })

    /**
     * The local scope's map sits under the project's key as the file has it: the nearest project
     * of the working directory, as Claude Code picks it (`localProjectKey`); the working directory
     * itself when the file has none yet.
     */
    const keyed = (target: HostConfigTarget, config: string) =>
      Effect.gen(function*() {
        if (target.scope !== "local") return target
        const bytes = yield* readBytes(config, target.host)
        if (Option.isNone(bytes)) return target
        const parsed = editorFor(target.format).parse(yield* decodeText(bytes.value, target.host, config))
        const projects = Either.isRight(parsed) ? decodedOrNull(ClaudeJson, config, parsed.right)?.projects ?? null : null
        const key = localProjectKey(projects, machine.cwd, machine.os === "win32" ? NodePath.win32 : NodePath.posix, machine.os)
        return key === undefined ? target : withProjectKey(target, key)
      })

    const locate = (host: AgentHostName, scope: SetupScope) =>
      Effect.gen(function*() {
        const unkeyed = hostConfigTarget(host, scope, machine)
        if (unkeyed === null) return yield* new ScopeNotOfHost({ host, scope })
        const config = yield* configPathOf(unkeyed)
        const target = yield* keyed(unkeyed, config)
        const files = filesOf(dir, stemOf(host, scope, NodePath.resolve(machine.cwd)))
        return { target, config, files }
      })

    const readHost = (host: AgentHostName) => HOST_READERS[host](hostContext)

    /** The servers of `config` the host's reader finds not loaded for a reason outside their entry (a settings list, folder trust). */
    const notLoadedIn = (host: AgentHostName, scope: SetupScope, config: string) =>
      Effect.map(readHost(host), (result) =>
        new Map(
          result.drafts
            .map((draft) => draft.fields)
            .filter((item) => item.kind === "mcpServer" && item.path === config && item.scope === scope && !item.enabled)
            .map((item) => [item.name, item.disabledReason ?? "off"] as const)
        ))

    const setup = Effect.fn("GatewaySetup.setup")(function*(host: AgentHostName, scope: SetupScope, options: { readonly dryRun: boolean }) {
      const located = yield* locate(host, scope)
      const { target, files } = located
      const record = yield* readRecord(files)
      const config = Option.match(record, { onNone: () => located.config, onSome: (r) => r.config })
      const bytes = yield* readBytes(config, host)
      if (Option.isNone(bytes)) return yield* new HostHasNoServers({ host, scope, path: config })
      const text = yield* decodeText(bytes.value, host, config)
      const behind = Option.isSome(record) ? yield* readBehind(files) : {}
      const notLoaded = yield* notLoadedIn(host, scope, config)
      const planned = (entry: Readonly<Record<string, unknown>>) =>
        Either.match(planSetup({ target, path: config, text, behind, notLoaded }, entry), {
          onLeft: (error) => (error._tag === "HostHasNoServers" ? Effect.flatMap(elsewhereThan(host, scope), (elsewhere) => new HostHasNoServers({ ...error, elsewhere })) : Effect.fail(error)),
          onRight: Effect.succeed
        })
      // The entry takes over the settings of the servers it fronts, which are known once planned.
      const bare = hostServerEntry(host, launch(files.serversFile))
      const carried = carriedSettings(target.dialect, Object.values((yield* planned(bare)).servers))
      const gatewayEntry = { ...bare, ...carried }
      const plan = Object.keys(carried).length === 0 ? yield* planned(bare) : yield* planned(gatewayEntry)
      const result = (outcome: SetupResult["outcome"]): SetupResult => ({
        host,
        scope,
        outcome,
        config,
        serversFile: files.serversFile,
        backup: files.backup,
        moved: plan.moved,
        kept: plan.kept,
        gateway: plan.gateway,
        gatewayEntry,
        behind: Object.keys(plan.servers)
      })
      if (options.dryRun) return result("dry-run")
      if (!plan.changed) return result("unchanged")
      const written = new TextEncoder().encode(plan.text)
      const mode = (yield* fs.stat(config).pipe(Effect.mapError((error) => new HostConfigUnreadable({ host, path: config, reason: reasonOf(error) })))).mode & 0o7777
      yield* Effect.scoped(Effect.gen(function*() {
        yield* ensureDir
        if (Option.isNone(record)) yield* writeUndoable(files.backup, bytes.value, PRIVATE_FILE)
        yield* writeUndoable(files.serversFile, json({ host, source: config, mcpServers: plan.servers }), PRIVATE_FILE)
        const next: SetupRecord = {
          version: 1,
          host,
          scope,
          config,
          originalSha256: Option.match(record, { onNone: () => sha256(bytes.value), onSome: (r) => r.originalSha256 }),
          writtenSha256: sha256(written),
          exact: Option.isNone(record) || (record.value.exact && plan.moved.length === 0 && sha256(bytes.value) === record.value.writtenSha256),
          setUpAt: Option.match(record, { onNone: () => new Date().toISOString(), onSome: (r) => r.setUpAt })
        }
        yield* writeUndoable(files.record, json(next), PRIVATE_FILE)
        const now = yield* readBytes(config, host)
        if (Option.isNone(now) || sha256(now.value) !== sha256(bytes.value)) return yield* new HostConfigChanged({ host, path: config })
        yield* writeAtomic(config, written, mode)
      }))
      return result(Option.isSome(record) ? "merged" : "set-up")
    })

    /** The first free `<config>.tool-map-original[-N]` beside the config. */
    const originalBeside = (config: string) =>
      Effect.gen(function*() {
        for (let n = 1; ; n++) {
          const path = `${config}.tool-map-original${n === 1 ? "" : `-${n}`}`
          if (!(yield* exists(path))) return path
        }
      })

    const restore = Effect.fn("GatewaySetup.restore")(function*(host: AgentHostName, scope: SetupScope) {
      const { target, files } = yield* locate(host, scope)
      const record = yield* readRecord(files)
      if (Option.isNone(record)) return yield* new GatewayNotSetUp({ host, scope })
      const config = record.value.config
      const backup = yield* readBytes(files.backup, host).pipe(Effect.mapError((error) => new SetupRecordInvalid({ path: files.backup, reason: error.reason })))
      if (Option.isNone(backup)) return yield* new SetupRecordInvalid({ path: files.backup, reason: "the backup of the config is gone" })
      const current = yield* readBytes(config, host)
      const mode = Option.isSome(current)
        ? (yield* fs.stat(config).pipe(Effect.mapError((error) => new HostConfigUnreadable({ host, path: config, reason: reasonOf(error) })))).mode & 0o7777
        : PRIVATE_FILE
      const behind = yield* readBehind(files)
      const forget = Effect.forEach([files.serversFile, files.backup, files.record], (path) => fs.remove(path).pipe(Effect.ignore), { discard: true })
      if (Option.isNone(current) || (record.value.exact && sha256(current.value) === record.value.writtenSha256)) {
        yield* writeAtomic(config, backup.value, mode)
        yield* forget
        return { host, scope, outcome: "restored", config, restored: Object.keys(behind), conflicts: [], original: null } satisfies RestoreResult
      }
      const text = yield* decodeText(current.value, host, config)
      const plan = yield* planEntryRestore({ target, path: config, text, behind })
      const original = yield* originalBeside(config)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* writeUndoable(original, backup.value, PRIVATE_FILE)
        const now = yield* readBytes(config, host)
        if (Option.isNone(now) || sha256(now.value) !== sha256(current.value)) return yield* new HostConfigChanged({ host, path: config })
        yield* writeAtomic(config, new TextEncoder().encode(plan.text), mode)
      }))
      yield* forget
      return { host, scope, outcome: "entries-restored", config, restored: plan.restored, conflicts: plan.conflicts, original } satisfies RestoreResult
    })

    const setupsOf = (host: AgentHostName) =>
      Effect.gen(function*() {
        const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): Array<string> => []))
        const stems = names.filter((name) => name.startsWith(`${host}-`) && name.endsWith(RECORD_SUFFIX)).sort().map((name) => name.slice(0, -RECORD_SUFFIX.length))
        const setups: Array<SetupInForce> = []
        for (const stem of stems) {
          const files = filesOf(dir, stem)
          const record = yield* readRecord(files)
          if (Option.isNone(record) || record.value.host !== host) continue
          const behind = yield* readBehind(files)
          setups.push({ scope: record.value.scope, config: record.value.config, serversFile: files.serversFile, setUpAt: record.value.setUpAt, behind: Object.keys(behind) })
        }
        return setups
      })

    const directOf = (host: AgentHostName) =>
      Effect.gen(function*() {
        const result = yield* readHost(host)
        return resolvePrecedence(result.drafts)
          .filter((item): item is McpServerItem => item.kind === "mcpServer" && isEffective(item))
          .filter((item) => !entryRunsToolMap({ command: item.command, args: item.args }, "claude"))
          .map((item): DirectServer => ({
            name: item.name,
            scope: item.scope,
            path: item.path,
            plugin: item.plugin,
            movable: item.scope === "user" || item.scope === "project" || (item.scope === "local" && host === "claude-code")
          }))
      })

    /**
     * The servers the host loads from outside `scope`, as `name (where; what moves it)`: said when a
     * setup finds nothing to move in its own scope.
     */
    const elsewhereThan = (host: AgentHostName, scope: SetupScope) =>
      Effect.map(directOf(host), (servers) =>
        servers.filter((server) => server.scope !== scope).map((server) =>
          server.plugin !== null
            ? `${server.name} (plugin ${server.plugin}; cannot be moved)`
            : server.movable
            ? `${server.name} (${server.scope} scope: --scope ${server.scope} moves it)`
            : `${server.name} (${server.scope} scope, ${server.path}; cannot be moved)`
        ))

    const status = Effect.fn("GatewaySetup.status")(function*(hosts: ReadonlyArray<AgentHostName>) {
      return yield* Effect.forEach(hosts, (host) =>
        Effect.all({ setups: setupsOf(host), direct: directOf(host) }).pipe(Effect.map(({ setups, direct }): HostGatewayStatus => ({ host, setups, direct }))))
    })

    return { setup, restore, status }
  })
}
