/**
 * The downstream servers of the gateway: the servers file (the `.mcp.json` shape, or a host's
 * entries in its own dialect) and the name
 * each server is known by in tool names (`mcp__<server>__<tool>`). The configuration a server is
 * started with and the hash its snapshot is keyed by are the inventory's (`mcpLaunch.ts`), which
 * the ledger shares. Every text made here holds env and header names, never their values.
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import * as NodePath from "node:path"
import type { AgentHostName } from "../../inventory/domain/agentHosts.js"
import { configOfEntry, MCP_DIALECT, normalizeMcpEntry, redactArgs, redactUrl, runsToolMap, type ServerConfig, type SkippedServer, TOOL_MAP_ITSELF } from "../../inventory/discover/agentHosts/index.js"
import { readBoundedFile } from "./boundedFile.js"
import { readClaudeDenyRules, withClaudeDeny } from "./claudeDenyRules.js"
import { OwnRecord } from "../../inventory/domain/ownRecord.js"

export {
  configHash,
  type HttpServerConfig,
  type ServerConfig,
  type SkippedServer,
  type StdioServerConfig,
  type ToolFilter,
  toolAllowed
} from "../../inventory/discover/agentHosts/index.js"

/** The servers file (`--servers FILE`) cannot be used. */
export class ServersFileInvalid extends Schema.TaggedError<ServersFileInvalid>()("ServersFileInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The MCP servers file ${this.path} cannot be used: ${this.reason}.`
  }
}

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

const StdioEntry = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio")),
  command: Schema.String.pipe(Schema.minLength(1)),
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  env: Schema.optionalWith(StringMap, { default: () => ({}) }),
  cwd: Schema.optional(Schema.String)
})

const HttpEntry = Schema.Struct({
  type: Schema.Literal("http", "streamable-http"),
  url: Schema.String.pipe(Schema.filter((url) => URL.canParse(url) || "not a URL")),
  headers: Schema.optionalWith(StringMap, { default: () => ({}) })
})

/** How large a servers file may be: a configuration, not a data set. */
export const SERVERS_FILE_MAX_BYTES = 1024 * 1024

const firstProblem = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey>): string => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = [...prefix, ...(first?.path ?? [])]
  return `${path.length === 0 ? "" : `at ${path.join(".")}: `}${first?.message ?? "it is not valid"}`
}

/** The `.mcp.json` shape: `{ "mcpServers": { name: stdio entry | http entry } }`, its entries decoded one by one. */
const Shape = Schema.Struct({ mcpServers: OwnRecord(Schema.Unknown) })

const isAbsolutePath = (path: string) => NodePath.posix.isAbsolute(path) || NodePath.win32.isAbsolute(path)

const isHostName = (host: string): host is AgentHostName => Object.hasOwn(MCP_DIALECT, host)

/**
 * The host shape (v2, written by `tool-map gateway setup`): the entries exactly as host `host`'s
 * config file `source` holds them, in that host's dialect.
 */
const HostShape = Schema.Struct({
  host: Schema.String.pipe(Schema.filter(isHostName, { message: () => "not one of claude-code, codex, cursor, gemini, opencode" })),
  source: Schema.String.pipe(Schema.filter((path) => isAbsolutePath(path) || "not an absolute path")),
  mcpServers: OwnRecord(Schema.Unknown)
})


/** What a servers file gives the gateway. */
export interface ServersFile {
  /** The host whose entries the file holds (the host shape), null for the `.mcp.json` shape. */
  readonly host: AgentHostName | null
  /** The host's config file the entries were taken from (the host shape), else null. */
  readonly source: string | null
  readonly servers: ReadonlyArray<ServerConfig>
  /** Entries the gateway leaves out, and why: tool-map itself, switched off, a transport it does not speak. */
  readonly skipped: ReadonlyArray<SkippedServer>
}

/** What decoding a servers file needs from where the gateway runs. */
export interface ServersFileContext {
  /** The gateway's environment: `${NAME}` references of host-shape entries are filled in from it. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The gateway's working directory: a server's, unless its entry names one (relative to it). */
  readonly cwd: string
  /** The paths of the running tool-map CLI (see `runsToolMap`). */
  readonly ownCli: ReadonlyArray<string>
}

const NO_CONTEXT: ServersFileContext = { env: {}, cwd: "/", ownCli: [] }

/**
 * Decodes the text of a servers file, of either shape; the reason names the first problem and
 * where it is. In the `.mcp.json` shape an entry with a `url` is read as an http entry, any other
 * as a stdio one, so the problem named is that of the kind meant. In the host shape each entry is
 * read as the inventory reads that host's entries (`normalizeMcpEntry` for its transport and
 * switch, `configOfEntry` for how it starts, its tool filters included), with `${NAME}` filled in
 * from `context.env`. An entry that runs tool-map itself is left out in both. JSON errors are not
 * quoted: V8's quote the text, and it holds secrets.
 */
export const decodeServersText = (text: string, context: ServersFileContext = NO_CONTEXT): Either.Either<ServersFile, string> =>
  Either.gen(function*() {
    const json = yield* Either.try({ try: () => JSON.parse(text) as unknown, catch: () => "it is not valid JSON" })
    const servers: Array<ServerConfig> = []
    const skipped: Array<SkippedServer> = []
    const keep = (config: ServerConfig | SkippedServer) => {
      if (!("_tag" in config)) skipped.push(config)
      else if (runsToolMap(config, context.ownCli)) skipped.push({ name: config.name, reason: TOOL_MAP_ITSELF })
      else servers.push(config)
    }
    if (typeof json === "object" && json !== null && "host" in json) {
      const shape = yield* Either.mapLeft(Schema.decodeUnknownEither(HostShape)(json), (error) => firstProblem(error, []))
      const dialect = MCP_DIALECT[shape.host]
      for (const [name, raw] of Object.entries(shape.mcpServers)) {
        if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return yield* Either.left(`at mcpServers.${name}: not an object`)
        const fields = normalizeMcpEntry(raw, dialect)
        if (fields.switchedOn === false) skipped.push({ name, reason: "it is switched off in its entry" })
        else keep(configOfEntry(name, raw, dialect, fields.transport, context.env, context.cwd))
      }
      return { host: shape.host, source: shape.source, servers, skipped }
    }
    const shape = yield* Either.mapLeft(Schema.decodeUnknownEither(Shape)(json), (error) => firstProblem(error, []))
    for (const [name, raw] of Object.entries(shape.mcpServers)) {
      const at = ["mcpServers", name]
      if (typeof raw === "object" && raw !== null && "url" in raw) {
        const entry = yield* Either.mapLeft(Schema.decodeUnknownEither(HttpEntry)(raw), (error) => firstProblem(error, at))
        keep({ _tag: "Http", name, url: entry.url, headers: entry.headers })
      } else {
        const entry = yield* Either.mapLeft(Schema.decodeUnknownEither(StdioEntry)(raw), (error) => firstProblem(error, at))
        keep({ _tag: "Stdio", name, command: entry.command, args: entry.args, env: entry.env, cwd: entry.cwd })
      }
    }
    return { host: null, source: null, servers, skipped }
  })

/**
 * Reads a servers file: a regular file of at most {@link SERVERS_FILE_MAX_BYTES}. Entries of
 * Claude Code (the host shape with host `claude-code`) get the deny rules of Claude Code's
 * settings as they are now.
 */
export const readServersFile = Effect.fn("readServersFile")(function*(path: string, context: ServersFileContext = NO_CONTEXT) {
  const invalid = (reason: string) => new ServersFileInvalid({ path, reason })
  const bytes = yield* readBoundedFile(path, SERVERS_FILE_MAX_BYTES).pipe(Effect.mapError((error) => invalid(error.reason)))
  if (Option.isNone(bytes)) return yield* invalid("it does not exist")
  const file = yield* Either.match(decodeServersText(new TextDecoder().decode(bytes.value), context), {
    onLeft: (reason) => Effect.fail(invalid(reason)),
    onRight: Effect.succeed
  })
  if (file.host !== "claude-code") return file
  const { rules } = yield* readClaudeDenyRules()
  const denied = file.servers.map((config) => withClaudeDeny(config, config.name, rules))
  return {
    ...file,
    servers: denied.filter((config): config is ServerConfig => "_tag" in config),
    skipped: [...file.skipped, ...denied.filter((config): config is SkippedServer => !("_tag" in config))]
  } satisfies ServersFile
})

/**
 * The server's name as one segment of `mcp__<server>__<tool>`: letters, digits, `_` and `-`
 * kept, anything else `_`, and no `__` inside (it would end the segment early). Claude Code
 * names its MCP tools the same way, so a user sees the names they know.
 */
export const serverSegment = (name: string): string => {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_").replace(/_{2,}/g, "_").replace(/^_+|_+$/g, "")
  return cleaned === "" ? "server" : cleaned
}

/**
 * The segments of every server, unique: a second server whose name cleans to a segment taken
 * already gets `-2`, `-3` … in configuration order.
 */
export const uniqueSegments = (configs: ReadonlyArray<ServerConfig>): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return configs.map((config) => {
    const base = serverSegment(config.name)
    let segment = base
    for (let n = 2; taken.has(segment); n++) segment = `${base}-${n}`
    taken.add(segment)
    return segment
  })
}

/** The full name the gateway gives a downstream tool. */
export const gatewayToolName = (segment: string, tool: string): string => `mcp__${segment}__${tool}`

/**
 * What a server is, in words with no secret in them: its command and args, or its URL, as the
 * inventory redacts them. The command is split at its blanks first: a host may write a whole
 * command line in it (`"command": "server --api-key=X"`), which no spawn runs but every error
 * text quotes.
 */
export const describeServer = (config: ServerConfig): string =>
  config._tag === "Http" ? redactUrl(config.url) : redactArgs([...config.command.split(" "), ...config.args]).join(" ")
