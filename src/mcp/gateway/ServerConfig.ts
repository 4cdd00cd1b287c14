/**
 * The downstream servers of the gateway: the servers file (the `.mcp.json` shape) and the name
 * each server is known by in tool names (`mcp__<server>__<tool>`). The configuration a server is
 * started with and the hash its snapshot is keyed by are the inventory's (`mcpLaunch.ts`), which
 * the ledger shares. Every text made here holds env and header names, never their values.
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { redactArgs, redactUrl } from "../../inventory/discover/agentHosts/mcp.js"
import type { ServerConfig } from "../../inventory/discover/agentHosts/mcpLaunch.js"
import { readBoundedFile } from "./boundedFile.js"

export { configHash, type HttpServerConfig, type ServerConfig, type StdioServerConfig } from "../../inventory/discover/agentHosts/mcpLaunch.js"

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
const Shape = Schema.Struct({ mcpServers: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })

/**
 * Decodes the text of a servers file; the reason names the first problem and where it is. An
 * entry with a `url` is read as an http entry, any other as a stdio one, so the problem named is
 * that of the kind meant. JSON errors are not quoted: V8's quote the text, and it holds secrets.
 */
export const decodeServersText = (text: string): Either.Either<ReadonlyArray<ServerConfig>, string> =>
  Either.gen(function*() {
    const json = yield* Either.try({ try: () => JSON.parse(text) as unknown, catch: () => "it is not valid JSON" })
    const shape = yield* Either.mapLeft(Schema.decodeUnknownEither(Shape)(json), (error) => firstProblem(error, []))
    const configs: Array<ServerConfig> = []
    for (const [name, raw] of Object.entries(shape.mcpServers)) {
      const at = ["mcpServers", name]
      if (typeof raw === "object" && raw !== null && "url" in raw) {
        const entry = yield* Either.mapLeft(Schema.decodeUnknownEither(HttpEntry)(raw), (error) => firstProblem(error, at))
        configs.push({ _tag: "Http", name, url: entry.url, headers: entry.headers })
      } else {
        const entry = yield* Either.mapLeft(Schema.decodeUnknownEither(StdioEntry)(raw), (error) => firstProblem(error, at))
        configs.push({ _tag: "Stdio", name, command: entry.command, args: entry.args, env: entry.env, cwd: entry.cwd })
      }
    }
    return configs
  })

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

/** What a server is, in words with no secret in them: its command and args, or its URL, as the inventory redacts them. */
export const describeServer = (config: ServerConfig): string =>
  config._tag === "Http" ? redactUrl(config.url) : [config.command, ...redactArgs(config.args)].join(" ")
