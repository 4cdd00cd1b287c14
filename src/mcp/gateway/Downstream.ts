/**
 * One downstream MCP server as the gateway drives it: started on first need, listed, called,
 * restarted with backoff after a failure, and stopped with its process group. Each server has
 * its own state and lock, so a server that hangs or dies holds up only its own calls.
 *
 * It speaks either era of MCP (docs/mcp-eras.md): a server (stdio or HTTP) is first probed with
 * `server/discover` and spoken to in 2026-07-28 when it offers it (ModernClient), with the SDK
 * client's 2025 `initialize` handshake otherwise.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsResultSchema,
  McpError,
  type Notification,
  type Progress,
  type Request,
  type Result,
  type Tool,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Clock, Duration, Effect, Fiber, Option, Ref, Schema } from "effect"
import { MAX_NESTING } from "../../catalog/core/nesting.js"
import { looksSecret, redactSecrets } from "../../inventory/domain/secrets.js"
import { cleanLine, cleanText } from "../../inventory/domain/untrusted.js"
import { neutralize } from "../../inventory/render/text.js"
import { TOOL_MAP_VERSION } from "../../version.js"
import { ChildTransport } from "./ChildTransport.js"
import { HttpTransport, httpTarget, MAX_DOWNSTREAM_MESSAGE_BYTES } from "./HttpTransport.js"
import { MODERN_PROTOCOL_VERSION } from "../server/modern/wire.js"
import { gatewayEnvelope, ModernClient, probeEra, ResultRefused } from "./ModernClient.js"
import { describeServer, type ServerConfig } from "./ServerConfig.js"
import { StderrLog } from "./StderrLog.js"

/** How the gateway treats its downstream servers. */
export interface DownstreamTimings {
  /**
   * From spawn to the `initialize` answer, or to the `server/discover` one in the 2026-07-28 era;
   * a first start spends at most {@link probeTimeout} and half of it on the era's probe.
   */
  readonly startTimeout: Duration.Duration
  /**
   * Of a whole `tools/list`, all pages: the entry tools wait for the first listing, so a server
   * that never finishes it must not hold them for the call timeout.
   */
  readonly listTimeout: Duration.Duration
  /** Of one call or list, reset by each progress notification. */
  readonly callTimeout: Duration.Duration
  /** Between SIGTERM and SIGKILL of a server's process group. */
  readonly killGrace: Duration.Duration
  /** The wait before the first restart after a failure; doubled after each further failure. */
  readonly backoffInitial: Duration.Duration
  readonly backoffMax: Duration.Duration
  /**
   * The longest wait for the answer to the `server/discover` probe on a first start (at most
   * half the start timeout): a 2025-era server that leaves it unanswered gets `initialize` then.
   */
  readonly probeTimeout: Duration.Duration
  /**
   * The wait before a `subscriptions/listen` stream that ended is opened again; doubled at each
   * further end without a change on it, and given up after {@link LISTEN_REOPENS} in a row.
   */
  readonly listenBackoff: Duration.Duration
}

/** The timings of a real session. */
export const DEFAULT_TIMINGS: DownstreamTimings = {
  startTimeout: Duration.seconds(30),
  listTimeout: Duration.seconds(30),
  callTimeout: Duration.minutes(5),
  killGrace: Duration.seconds(2),
  backoffInitial: Duration.seconds(1),
  backoffMax: Duration.minutes(1),
  probeTimeout: Duration.seconds(5),
  listenBackoff: Duration.millis(500)
}

/** How many times in a row an ended `subscriptions/listen` stream is opened again. */
export const LISTEN_REOPENS = 3


/**
 * How far the gateway follows a server's `tools/list` pages: a server whose `nextCursor` never
 * ends would otherwise hold every session's entry tools and grow the gateway's memory page by
 * page. Far above real servers (10,000 tools, a 5 MB schema), far below the gateway's limits.
 */
export interface ListingLimits {
  readonly maxPages: number
  readonly maxTools: number
  /** Of the pages' tools and cursors, as JSON text. */
  readonly maxBytes: number
}

/** The limits of a real session. */
export const DEFAULT_LISTING_LIMITS: ListingLimits = {
  maxPages: 1000,
  maxTools: 100_000,
  maxBytes: 256 * 1024 * 1024
}

/**
 * The gateway passes results on unchanged and never calls the SDK's validating helpers: the
 * client upstream validates `structuredContent` against the `outputSchema` it is listed with.
 * Without this, each start would build an Ajv instance it never uses.
 */
const PASS_THROUGH: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input) => ({ valid: true, data: input as T, errorMessage: undefined })
}

/**
 * The era a connection speaks: `legacy` is the 2025 family (`initialize`, a session), `modern`
 * is 2026-07-28 (`server/discover`, `subscriptions/listen`, `input_required`).
 */
export interface DownstreamEra {
  readonly era: "legacy" | "modern"
  /** The protocol version agreed on (the server's word, in the 2025 era). */
  readonly protocolVersion: string
}

/** A downstream server could not be started or did not answer. The message names the server. */
export class DownstreamFailed extends Schema.TaggedError<DownstreamFailed>()("DownstreamFailed", {
  server: Schema.String,
  reason: Schema.String,
  /** The server's stderr log, when it has one. */
  log: Schema.NullOr(Schema.String)
}) {
  get message() {
    return `The MCP server "${neutralize(this.server)}" ${neutralize(this.reason)}${
      this.log === null ? "" : ` (its stderr is logged in ${this.log})`
    }.`
  }
}

/** What one call is given besides its arguments. */
export interface CallOptions {
  /** Forwards a downstream progress notification; absent when the client asked for none. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
}

interface Connection {
  /** The SDK v1 `Client` in the 2025 era, a {@link ModernClient} in 2026-07-28. */
  readonly client: Protocol<Request, Notification, Result>
  readonly transport: Transport
  readonly child: Option.Option<ChildTransport>
  /** Set when the SDK saw the transport close (before it fails the requests in flight). */
  readonly closed: { value: boolean }
  /**
   * Its `subscriptions/listen` stream (2026-07-28, a server whose capabilities say
   * `tools.listChanged`): whether one is open, the changes seen on the connection, and until when
   * (epoch ms) a listing that starts is taken for the listen loop's own (it opens no stream again).
   */
  readonly listen: { wanted: boolean; open: boolean; changes: number; ownListingUntil: number }
}

// A timer may fire a millisecond or so before its time.
const TIMER_SLACK_MS = 10

/**
 * The SDK's own timeout of a request, not a server's error answer with the same code (-32001):
 * a server may answer with any code, and is not stopped for answering.
 */
const timedOut = (error: unknown, startedAt: number, ms: number): boolean =>
  error instanceof McpError && error.code === ErrorCode.RequestTimeout && Date.now() - startedAt >= ms - TIMER_SLACK_MS

/**
 * The SDK's failure of a request because the connection closed, not a server's error answer
 * with the same code (-32000, the first of the range JSON-RPC leaves to servers, and common).
 */
const closedUnder = (error: unknown, connection: Connection): boolean =>
  error instanceof McpError && error.code === ErrorCode.ConnectionClosed && connection.closed.value

type State =
  | { readonly _tag: "Idle"; readonly failures: number; readonly retryAt: number; readonly lastError: Option.Option<string> }
  | { readonly _tag: "Running"; readonly connection: Connection; readonly failures: number; readonly era: DownstreamEra }

/** What the gateway sees of one downstream server. */
export interface Downstream {
  readonly name: string
  readonly config: ServerConfig
  /** Its stderr log (stdio servers). */
  readonly logPath: Option.Option<string>
  /** Its whole `tools/list`, all pages; starts it if needed. */
  readonly listTools: Effect.Effect<ReadonlyArray<Tool>, DownstreamFailed>
  /** One `tools/call` by the server's own tool name; interrupting it cancels the request downstream. */
  readonly call: (
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: CallOptions
  ) => Effect.Effect<CallToolResult, DownstreamFailed>
  readonly running: Effect.Effect<boolean>
  /** The era of its running connection; none while it is not running. */
  readonly era: Effect.Effect<Option.Option<DownstreamEra>>
  /** Why its last start or call failed, while it waits for a restart. */
  readonly lastError: Effect.Effect<Option.Option<string>>
  /** Stops it (and its process group); the next need starts it again. */
  readonly stop: Effect.Effect<void>
}

/** What a downstream server's start needs from the gateway. */
export interface DownstreamInput {
  readonly config: ServerConfig
  readonly timings: DownstreamTimings
  /** Where its stderr goes (stdio servers). */
  readonly logPath: string
  /**
   * Called (in a fiber of its own) when the server sends `notifications/tools/list_changed`:
   * unsolicited in the 2025 era, on the `subscriptions/listen` stream in 2026-07-28.
   */
  readonly onListChanged: () => void
  /** How far a listing is followed (default {@link DEFAULT_LISTING_LIMITS}). */
  readonly listing?: Partial<ListingLimits> | undefined
}

/**
 * The text of an error a library or the server gave (its cause's too: undici's "fetch failed"
 * says nothing without it). Such texts quote what they were given, URLs with their credentials
 * and commands with their flags included, so every reason of a downstream failure passes
 * {@link reasonText} before it is kept or shown.
 */
const errorText = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error && error.cause.message !== "" ? ` (${error.cause.message})` : ""
  return `${error.message}${cause}`
}

/**
 * A failure's reason through the one boundary of untrusted text, on one line (`cleanLine`:
 * secrets redacted, a line break shown as ` ⏎ `, other controls neutralized: it is shown in
 * status lines and tables), the server's URL or command first replaced by its described form
 * (credentials gone, every query value redacted; a command's secret flags redacted) wherever a
 * library quoted it.
 */
const reasonText = (config: ServerConfig, reason: string): string => {
  if (config._tag !== "Http") {
    // Node's spawn error quotes the command as written: as described, its words are redacted as arguments.
    const command = describeServer({ ...config, args: [] })
    return cleanLine(command === config.command ? reason : reason.split(config.command).join(command))
  }
  const described = describeServer(config)
  // As written, as parsed, and as requested (without its userinfo).
  const forms = [config.url, ...(URL.canParse(config.url) ? [new URL(config.url).href, httpTarget(config.url, {}).url.href] : [])]
  return cleanLine(forms.reduce((text, form) => text.split(form).join(described), reason))
}

/**
 * A server's error answer in its own words: the SDK puts "MCP error <code>: " ahead of the
 * message, and a server built on the SDK has often put it there already.
 */
const errorAnswer = (error: McpError): string => error.message.replace(/^(?:MCP error -?\d+: )+/, "")

/**
 * About how many bytes `value` takes as JSON (strings by their UTF-16 length, each value and key
 * a few bytes of punctuation), by a walk with its own stack: a listed tool may nest far deeper
 * than JSON.stringify can recurse (the catalog leaves such a tool out; its listing must not fail).
 */
const jsonBytesAbout = (value: unknown): number => {
  let bytes = 0
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    bytes += 2
    if (typeof item === "string") bytes += item.length
    else if (typeof item === "object" && item !== null) {
      if (Array.isArray(item)) {
        for (const element of item) stack.push(element)
      } else {
        for (const [key, member] of Object.entries(item)) {
          bytes += key.length + 2
          stack.push(member)
        }
      }
    } else bytes += 6
  }
  return bytes
}

/** Too far to follow a server's listing: the reason is the failure's. */
class ListingStopped extends Error {}

/**
 * A listed tool with every string but its name through the secret rule (`redactSecrets`, not
 * neutralized: the catalog flags and cleans descriptions itself). The name is how the server is
 * called: a tool whose name looks like a secret is left out instead. Levels below the nesting
 * cap are not walked: such a tool is left out by the catalog anyway.
 */
const redactedStrings = (value: unknown, depth: number): unknown => {
  if (typeof value === "string") return redactSecrets(value)
  if (typeof value !== "object" || value === null || depth > MAX_NESTING) return value
  if (Array.isArray(value)) {
    const items = value.map((item) => redactedStrings(item, depth + 1))
    return items.every((item, index) => item === value[index]) ? value : items
  }
  let changed: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(value)) {
    const after = redactedStrings(item, depth + 1)
    // Defined, not assigned: an own `__proto__` key stays a key.
    if (after !== item) Object.defineProperty((changed ??= { ...value }), key, { value: after, writable: true, enumerable: true, configurable: true })
  }
  return changed ?? value
}

const redactedTool = (tool: Tool): Tool => {
  const { name, ...rest } = tool
  const after = redactedStrings(rest, 1)
  return after === rest ? tool : { name, ...(after as Omit<Tool, "name">) }
}

/**
 * Whether a `_meta` key is the protocol's: its prefix has a label `modelcontextprotocol` or `mcp`
 * (the spec reserves those), as `io.modelcontextprotocol/serverInfo` has. Such keys describe
 * the hop to the downstream server (who it is, its subscription, its task), not the tool's
 * result, and the gateway does not relay them as its own.
 */
const protocolMetaKey = (key: string): boolean => {
  const slash = key.indexOf("/")
  return slash > 0 && key.slice(0, slash).split(".").some((label) => label === "modelcontextprotocol" || label === "mcp")
}

/**
 * A call's result as the gateway passes it on: its `_meta` without the protocol's keys (the
 * server's own, such as a UI template or a trace id, are relayed), and without `_meta` when none
 * is left.
 */
export const relayedResult = (result: CallToolResult): CallToolResult => {
  const meta = result._meta
  if (meta === undefined || !Object.keys(meta).some(protocolMetaKey)) return result
  const { _meta: _, ...rest } = result
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !protocolMetaKey(key)))
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept }
}

/** Builds the handle of one server; nothing is started until it is needed. */
export const makeDownstream = (input: DownstreamInput): Effect.Effect<Downstream> =>
  Effect.gen(function*() {
    const { config, timings } = input
    const state = yield* Ref.make<State>({ _tag: "Idle", failures: 0, retryAt: 0, lastError: Option.none() })
    const starting = yield* Effect.makeSemaphore(1)
    const logPath = config._tag === "Stdio" ? Option.some(input.logPath) : Option.none<string>()
    const failed = (reason: string) =>
      new DownstreamFailed({ server: config.name, reason: reasonText(config, reason), log: Option.getOrNull(logPath) })

    const backoff = (failures: number) =>
      Math.min(Duration.toMillis(timings.backoffMax), Duration.toMillis(timings.backoffInitial) * 2 ** Math.max(0, failures - 1))

    /** Marks a failure: the connection (if any) is closed and a restart waits for the backoff. */
    const fail = (connection: Option.Option<Connection>, reason: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const failures = yield* Ref.modify(state, (current): [number, State] => {
          // A connection replaced already (another failure handled it) is not counted twice.
          if (Option.isSome(connection) && (current._tag !== "Running" || current.connection !== connection.value)) {
            return [-1, current]
          }
          const next = current.failures + 1
          return [next, { _tag: "Idle", failures: next, retryAt: now + backoff(next), lastError: Option.some(reasonText(config, reason)) }]
        })
        if (Option.isSome(connection) && failures >= 0) yield* closeConnection(connection.value)
      })

    const closeConnection = (connection: Connection) =>
      Effect.promise(() => connection.client.close().catch(() => undefined)).pipe(
        Effect.zipRight(Effect.promise(() => connection.transport.close().catch(() => undefined)))
      )

    const garbageNote = (connection: Option.Option<Connection>) =>
      Option.match(Option.flatMap(connection, (c) => Option.flatMap(c.child, (child) => Option.fromNullable(child.lastGarbage))), {
        onNone: () => "",
        onSome: (line) => `; it wrote something that is not JSON-RPC on stdout: ${line}`
      })

    const transportOf = (): {
      readonly transport: ChildTransport | HttpTransport
      readonly child: Option.Option<ChildTransport>
    } => {
      if (config._tag === "Http") {
        const target = httpTarget(config.url, config.headers)
        return { transport: new HttpTransport(target.url, target.headers), child: Option.none() }
      }
      const child = new ChildTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        log: new StderrLog(input.logPath),
        killGraceMs: Duration.toMillis(timings.killGrace),
        maxLineBytes: MAX_DOWNSTREAM_MESSAGE_BYTES
      })
      return { transport: child, child: Option.some(child) }
    }

    const clientInfo = { name: "tool-map-gateway", version: TOOL_MAP_VERSION }
    const envelope = gatewayEnvelope(clientInfo)
    /**
     * The era the last start found, so that a restart of a 2025-era server skips the probe (a
     * 2026-07-28 one is probed again: `server/discover` is its handshake). A failed start forgets it.
     */
    const knownEra = yield* Ref.make<Option.Option<DownstreamEra["era"]>>(Option.none())

    type Attempt =
      | { readonly _tag: "Connected"; readonly connection: Connection; readonly era: DownstreamEra }
      | { readonly _tag: "Failed"; readonly connection: Connection; readonly error: unknown; readonly handshake: string }
      | { readonly _tag: "ExitedOnProbe"; readonly connection: Connection }

    /**
     * One connect within `startMs`: the probe (a server not known to be of the 2025 era; at most
     * {@link DownstreamTimings.probeTimeout} and half the time when its era is unknown), then the
     * client of the era found.
     */
    const attempt = (startMs: number, probe: boolean, startedAt: number) =>
      Effect.gen(function*() {
        const { child, transport } = transportOf()
        const closed = { value: false }
        const listen = { wanted: false, open: false, changes: 0, ownListingUntil: 0 }
        const legacy = (): Connection => ({
          client: new Client(clientInfo, { capabilities: {}, jsonSchemaValidator: PASS_THROUGH }),
          transport,
          child,
          closed,
          listen
        })
        const left = () => Math.max(1, startMs - (Date.now() - startedAt))
        const known = yield* Ref.get(knownEra)
        const probeMs = Math.max(1, Math.min(Duration.toMillis(timings.probeTimeout), Math.floor(startMs / 2)))
        const probed = probe
          ? yield* Effect.tryPromise({
            try: () => probeEra(transport, envelope, Option.isSome(known) ? left() : probeMs),
            catch: (error) => error
          }).pipe(Effect.either)
          : undefined
        if (probed?._tag === "Left") return { _tag: "Failed", connection: legacy(), error: probed.left, handshake: "server/discover" } satisfies Attempt
        const outcome = probed?.right
        if (outcome?._tag === "Closed") return { _tag: "ExitedOnProbe", connection: legacy() } satisfies Attempt
        // A session the probe's answer may have named is not the handshake's.
        if (outcome?._tag === "Legacy" && transport instanceof HttpTransport) transport.sessionId = undefined
        const connection: Connection = outcome?._tag === "Modern" ? { client: new ModernClient(envelope), transport, child, closed, listen } : legacy()
        connection.client.onclose = () => {
          closed.value = true
        }
        connection.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          listen.changes += 1
          input.onListChanged()
        })
        const { client } = connection
        const connected = yield* Effect.tryPromise({
          try: () => (client instanceof Client ? client.connect(transport, { timeout: left() }) : client.connect(transport)),
          catch: (error) => error
        }).pipe(Effect.either)
        if (connected._tag === "Left") return { _tag: "Failed", connection, error: connected.left, handshake: "initialize" } satisfies Attempt
        const era: DownstreamEra = client instanceof Client
          ? { era: "legacy", protocolVersion: transport.protocolVersion ?? "" }
          : { era: "modern", protocolVersion: MODERN_PROTOCOL_VERSION }
        listen.wanted = outcome?._tag === "Modern" && outcome.capabilities.tools?.listChanged === true
        return { _tag: "Connected", connection, era } satisfies Attempt
      })

    const listenBackoffMs = Duration.toMillis(timings.listenBackoff)

    /**
     * Keeps a `subscriptions/listen` stream open on `connection` while it runs: in 2026-07-28 a
     * change reaches only a client that listens for it. A stream the server ends (or that breaks)
     * is opened again after {@link listenBackoffMs}, doubled at each end in a row without a change
     * on it, and each re-opened stream is followed by a listing (a change between the two streams
     * was sent to nobody). After {@link LISTEN_REOPENS} ends in a row it is left closed, with a
     * warning, until the server's next listing opens it again: a listing the loop itself asked
     * for (one that starts within a backoff of its asking) does not (a stream that ends before its backoff asks for its listing as it ends; no timer
     * is left behind).
     */
    const keepListening = (connection: Connection) => {
      const { client } = connection
      if (!(client instanceof ModernClient) || !connection.listen.wanted || connection.listen.open) return
      connection.listen.open = true
      const current = Effect.map(Ref.get(state), (s) => s._tag === "Running" && s.connection === connection)
      const loop = Effect.gen(function*() {
        let ends = 0
        for (let opened = 0;; opened += 1) {
          const changesBefore = connection.listen.changes
          // The start does not wait for the server's acknowledgement: the request is on the wire
          // ahead of every later one, and a server that never acknowledges must not hold it.
          // A re-opened stream is followed by a listing, once the server acknowledged it (or after
          // the backoff or at its end, for a server that does not acknowledge): it sees what changed while none was open.
          let relisted = opened === 0
          const relist = () => {
            if (relisted || connection.closed.value) return
            relisted = true
            connection.listen.ownListingUntil = Date.now() + listenBackoffMs
            input.onListChanged()
          }
          const listening = client.listenToolChanges(relist)
          const relistLater = relisted ? undefined : yield* Effect.fork(Effect.delay(Effect.sync(relist), Duration.millis(listenBackoffMs)))
          const ended = yield* Effect.either(Effect.tryPromise({ try: () => listening, catch: (error) => error }))
          // Its listing is asked for now, not by a timer left behind, which would ask again after the loop gave up.
          if (relistLater !== undefined) yield* Fiber.interrupt(relistLater)
          relist()
          if (connection.closed.value) return
          ends = connection.listen.changes > changesBefore ? 1 : ends + 1
          const why = ended._tag === "Right"
            ? "the server ended it"
            : reasonText(config, ended.left instanceof McpError ? errorAnswer(ended.left) : errorText(ended.left))
          if (ends > LISTEN_REOPENS) {
            return yield* Effect.logWarning(
              `MCP server ${neutralize(config.name)}: its tool-list changes are not seen until its next listing (subscriptions/listen ended ${ends} times in a row: ${why})`
            )
          }
          yield* Effect.sleep(Duration.millis(listenBackoffMs * 2 ** (ends - 1)))
          if (connection.closed.value || !(yield* current)) return
        }
      }).pipe(Effect.ensuring(Effect.sync(() => {
        connection.listen.open = false
      })))
      Effect.runFork(loop)
    }

    const start = Effect.gen(function*() {
      if (config._tag === "Http" && !URL.canParse(config.url)) {
        const reason = `could not be started (${describeServer(config)}): its URL is not a URL`
        yield* fail(Option.none(), reason)
        return yield* failed(reason)
      }
      const startMs = Duration.toMillis(timings.startTimeout)
      const startedAt = Date.now()
      const probe = Option.getOrUndefined(yield* Ref.get(knownEra)) !== "legacy"
      let attempted = yield* attempt(startMs, probe, startedAt)
      const exitedOnProbe = attempted._tag === "ExitedOnProbe"
      if (attempted._tag === "ExitedOnProbe") {
        // It exited on the probe, as servers on SDKs that stop on any request before
        // `initialize` do: started again, once, with the 2025 handshake only. A server that
        // crashes at once looks the same; its later starts skip the probe (below), so it is
        // started twice on its first start only.
        yield* closeConnection(attempted.connection)
        yield* Ref.set(knownEra, Option.some("legacy"))
        attempted = yield* attempt(startMs, false, startedAt)
      }
      if (attempted._tag !== "Connected") {
        const { connection } = attempted
        const error = attempted._tag === "Failed" ? attempted.error : undefined
        const handshake = attempted._tag === "Failed" ? attempted.handshake : "initialize"
        const exited = attempted._tag === "ExitedOnProbe" || closedUnder(error, connection)
        const reason = exited
          ? `exited before it answered ${handshake}`
          : timedOut(error, startedAt, startMs)
          ? `did not answer ${handshake} within ${startMs} ms`
          : error instanceof McpError
          ? `answered ${handshake} with error ${error.code}: ${errorAnswer(error)}`
          : `could not be started (${describeServer(config)}): ${errorText(error)}`
        yield* closeConnection(connection)
        // A failed start forgets the era (an upgraded server is probed again), except when the
        // server exited before `initialize` without a probe sent, or on the probe and again
        // after it: a server that crashes at once is not spawned twice on each restart.
        if (!(exited && (exitedOnProbe || !probe))) yield* Ref.set(knownEra, Option.none())
        const full = `${reason}${garbageNote(Option.some(connection))}`
        yield* fail(Option.none(), full)
        return yield* failed(full)
      }
      const { connection, era } = attempted
      yield* Ref.set(knownEra, Option.some(era.era))
      // A crash or an exit of the server: its calls in flight fail at once (the SDK rejects
      // them), and the next call restarts it after the backoff.
      connection.client.onclose = () => {
        connection.closed.value = true
        Effect.runFork(fail(Option.some(connection), "exited"))
      }
      yield* Ref.update(state, (current): State => ({ _tag: "Running", connection, failures: current.failures, era }))
      keepListening(connection)
      return connection
    })

    const connection: Effect.Effect<Connection, DownstreamFailed> = starting.withPermits(1)(
      Effect.gen(function*() {
        const current = yield* Ref.get(state)
        if (current._tag === "Running") return current.connection
        const now = yield* Clock.currentTimeMillis
        if (current.retryAt > now) {
          const last = Option.getOrElse(current.lastError, () => "failed")
          return yield* failed(
            `${last}; it failed ${current.failures} time(s) and is restarted in ${Math.ceil((current.retryAt - now) / 1000)} s at the earliest`
          )
        }
        return yield* start
      })
    )

    /** One request on a connection, its failure told in a sentence; a timeout stops the server. */
    const request = <A>(
      what: string,
      ms: number,
      run: (connection: Connection, signal: AbortSignal) => Promise<A>
    ): Effect.Effect<A, DownstreamFailed> =>
      Effect.gen(function*() {
        const open = yield* connection
        const startedAt = Date.now()
        const result = yield* Effect.tryPromise({ try: (signal) => run(open, signal), catch: (error) => error }).pipe(Effect.either)
        if (result._tag === "Right") return result.right
        const error = result.left
        if (timedOut(error, startedAt, ms)) {
          // A server that hangs on a request may hang on the next one too: it is stopped and
          // started afresh (after the backoff) on the next need.
          const reason = `did not answer ${what} within ${ms} ms${garbageNote(Option.some(open))}`
          yield* fail(Option.some(open), reason)
          return yield* failed(`${reason}; it was stopped`)
        }
        if (closedUnder(error, open)) {
          const reason = `exited during ${what}${garbageNote(Option.some(open))}`
          yield* fail(Option.some(open), reason)
          return yield* failed(reason)
        }
        if (error instanceof ListingStopped) {
          // A listing too long to follow is as good as none: the server is stopped like one that hangs.
          const reason = `${error.message}${garbageNote(Option.some(open))}`
          yield* fail(Option.some(open), reason)
          return yield* failed(`${reason}; it was stopped`)
        }
        if (error instanceof ResultRefused) {
          return yield* failed(
            error.kind === "input_required"
              ? `asked for input during ${what} (an input_required result), which the gateway does not answer`
              : `answered ${what} with a result of kind "${error.kind}", which the gateway does not know`
          )
        }
        if (error instanceof McpError) return yield* failed(`answered ${what} with error ${error.code}: ${errorAnswer(error)}`)
        return yield* failed(`failed on ${what}: ${errorText(error)}`)
      })

    const limits: ListingLimits = { ...DEFAULT_LISTING_LIMITS, ...input.listing }
    const listMs = Duration.toMillis(timings.listTimeout)

    /** All pages of the server's list, within {@link limits} and {@link listMs} in all. */
    const listPages = async (open: Connection, signal: AbortSignal): Promise<ReadonlyArray<Tool>> => {
      // A listen stream given up on is opened again by the next listing, but not by one that starts
      // within a backoff of the listen loop asking for one: that is the loop's own (else a server
      // that ends every stream is listened to forever).
      if (Date.now() > open.listen.ownListingUntil) keepListening(open)
      const deadline = Date.now() + listMs
      const tools: Array<Tool> = []
      const cursors = new Set<string>()
      let bytes = 0
      let pages = 0
      let cursor: string | undefined
      const stopped = (why: string) => new ListingStopped(`${why} (${pages} page(s), ${tools.length} tools so far)`)
      const late = () => stopped(`did not finish tools/list within ${listMs} ms`)
      do {
        const pageStart = Date.now()
        const left = deadline - pageStart
        if (left <= 0) throw late()
        const page = await open.client.request(
          { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
          { signal, timeout: left }
        ).catch((error: unknown) => {
          // A page's own timeout is the listing's: the time left was all it had.
          throw timedOut(error, pageStart, left) ? late() : error
        })
        pages += 1
        tools.push(...page.tools)
        cursor = page.nextCursor
        bytes += jsonBytesAbout(page.tools) + (cursor?.length ?? 0)
        if (tools.length > limits.maxTools) throw stopped(`listed more than ${limits.maxTools} tools`)
        if (bytes > limits.maxBytes) throw stopped(`listed more than ${limits.maxBytes} bytes of tools`)
        if (cursor !== undefined) {
          if (pages >= limits.maxPages) throw stopped(`listed more than ${limits.maxPages} pages of tools`)
          if (cursors.has(cursor)) throw stopped("gave a tools/list cursor it gave before")
          cursors.add(cursor)
        }
      } while (cursor !== undefined)
      return tools
    }

    const listTools = request("tools/list", listMs, listPages).pipe(
      Effect.flatMap((listed) =>
        Effect.gen(function*() {
          const kept: Array<Tool> = []
          for (const tool of listed) {
            if (looksSecret(tool.name)) {
              yield* Effect.logWarning(
                `MCP server ${neutralize(config.name)}: a tool whose name looks like a secret (${cleanText(tool.name)}) is left out`
              )
            } else {
              kept.push(redactedTool(tool))
            }
          }
          return kept
        })
      ),
      Effect.withSpan("Downstream.listTools", { attributes: { server: config.name } })
    )

    const call = (tool: string, args: Readonly<Record<string, unknown>>, options: CallOptions) =>
      request(`tools/call of "${tool}"`, Duration.toMillis(timings.callTimeout), (open, signal) =>
        open.client.request(
          { method: "tools/call", params: { name: tool, arguments: { ...args } } },
          CallToolResultSchema,
          {
            signal,
            timeout: Duration.toMillis(timings.callTimeout),
            resetTimeoutOnProgress: true,
            ...(options.onProgress === undefined ? {} : { onprogress: progressOf(options.onProgress) })
          }
        ).then(relayedResult)).pipe(Effect.withSpan("Downstream.call", { attributes: { server: config.name, tool } }))

    /** A progress notification goes on to the client: its message through the one boundary too. */
    const progressOf = (onProgress: (progress: Progress) => void) => (progress: Progress) =>
      onProgress(progress.message === undefined ? progress : { ...progress, message: cleanText(progress.message) })

    const stop = starting.withPermits(1)(
      Effect.gen(function*() {
        const current = yield* Ref.getAndUpdate(state, (s): State =>
          s._tag === "Running" ? { _tag: "Idle", failures: s.failures, retryAt: 0, lastError: Option.none() } : s)
        if (current._tag === "Running") yield* closeConnection(current.connection)
      })
    )

    return {
      name: config.name,
      config,
      logPath,
      listTools,
      call,
      running: Effect.map(Ref.get(state), (s) => s._tag === "Running"),
      era: Effect.map(Ref.get(state), (s) => (s._tag === "Running" ? Option.some(s.era) : Option.none())),
      lastError: Effect.map(Ref.get(state), (s) => (s._tag === "Idle" ? s.lastError : Option.none())),
      stop
    } satisfies Downstream
  })
