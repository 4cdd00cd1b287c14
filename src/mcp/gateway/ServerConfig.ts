/**
 * The downstream servers of the gateway: their configuration (the `.mcp.json` shape), the
 * name each is known by in tool names (`mcp__<server>__<tool>`), and the hash a snapshot of its
 * tool list is keyed by. Env and header values are carried to the child or the request only:
 * the hash and every text made here hold their names, never their values.
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { sha256 } from "../../catalog/core/definitions.js"
import { redactArgs, redactUrl } from "../../inventory/discover/agentHosts/mcp.js"
import { readBoundedFile } from "./boundedFile.js"

/** A stdio server: a command run as a child of the gateway. */
export interface StdioServerConfig {
  readonly _tag: "Stdio"
  /** The name in the configuration (untrusted: neutralize before printing). */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Values passed to the child only. */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
}

/** A Streamable HTTP server. */
export interface HttpServerConfig {
  readonly _tag: "Http"
  readonly name: string
  readonly url: string
  /** Values sent with each request only. */
  readonly headers: Readonly<Record<string, string>>
}

/** One downstream server. */
export type ServerConfig = StdioServerConfig | HttpServerConfig

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

/** The `.mcp.json` shape: `{ "mcpServers": { name: stdio entry | http entry } }`. */
export const ServersFile = Schema.Struct({
  mcpServers: Schema.Record({ key: Schema.String, value: Schema.Union(StdioEntry, HttpEntry) })
})

/** How large a servers file may be: a configuration, not a data set. */
export const SERVERS_FILE_MAX_BYTES = 1024 * 1024

/** The configurations of a decoded servers file, in the file's order. */
export const configsOfFile = (file: typeof ServersFile.Type): ReadonlyArray<ServerConfig> =>
  Object.entries(file.mcpServers).map(([name, entry]): ServerConfig =>
    "url" in entry
      ? { _tag: "Http", name, url: entry.url, headers: entry.headers }
      : { _tag: "Stdio", name, command: entry.command, args: entry.args, env: entry.env, cwd: entry.cwd }
  )

/** Decodes the text of a servers file; the reason names the first problem. */
export const decodeServersText = (text: string): Either.Either<ReadonlyArray<ServerConfig>, string> =>
  Either.map(
    Either.mapLeft(
      Schema.decodeEither(Schema.parseJson(ServersFile))(text),
      (error) => ParseResult.TreeFormatter.formatErrorSync(error)
    ),
    configsOfFile
  )

/** Reads a servers file: a regular file of at most {@link SERVERS_FILE_MAX_BYTES}. */
export const readServersFile = Effect.fn("readServersFile")(function*(path: string) {
  const invalid = (reason: string) => new ServersFileInvalid({ path, reason })
  const bytes = yield* readBoundedFile(path, SERVERS_FILE_MAX_BYTES).pipe(Effect.mapError((error) => invalid(error.reason)))
  if (Option.isNone(bytes)) return yield* invalid("it does not exist")
  return yield* Either.match(decodeServersText(new TextDecoder().decode(bytes.value)), {
    onLeft: (reason) => Effect.fail(invalid(reason)),
    onRight: Effect.succeed
  })
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
 * The key of a server's snapshot: SHA-256 of its transport, command, args, env names (sorted)
 * and cwd, or its URL and header names. A changed value of an env variable keeps the key;
 * anything that may change which program answers does not.
 */
export const configHash = (config: ServerConfig): string =>
  sha256(JSON.stringify(
    config._tag === "Stdio"
      ? { transport: "stdio", command: config.command, args: config.args, env: Object.keys(config.env).sort(), cwd: config.cwd ?? null }
      : { transport: "http", url: config.url, headers: Object.keys(config.headers).sort() }
  ))

/** What a server is, in words with no secret in them: its command and args, or its URL, as the inventory redacts them. */
export const describeServer = (config: ServerConfig): string =>
  config._tag === "Http" ? redactUrl(config.url) : [config.command, ...redactArgs(config.args)].join(" ")
