/**
 * One downstream MCP server as the gateway drives it: started on first need, listed, called,
 * restarted with backoff after a failure, and stopped with its process group. Each server has
 * its own state and lock, so a server that hangs or dies holds up only its own calls.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsResultSchema,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Clock, Duration, Effect, Option, Ref, Schema } from "effect"
import { neutralize } from "../../inventory/render/text.js"
import { TOOL_MAP_VERSION } from "../../version.js"
import { ChildTransport } from "./ChildTransport.js"
import { HttpTransport } from "./HttpTransport.js"
import { describeServer, type ServerConfig } from "./ServerConfig.js"
import { StderrLog } from "./StderrLog.js"

/** How the gateway treats its downstream servers. */
export interface DownstreamTimings {
  /** From spawn to the `initialize` answer. */
  readonly startTimeout: Duration.Duration
  /** Of one call or list, reset by each progress notification. */
  readonly callTimeout: Duration.Duration
  /** Between SIGTERM and SIGKILL of a server's process group. */
  readonly killGrace: Duration.Duration
  /** The wait before the first restart after a failure; doubled after each further failure. */
  readonly backoffInitial: Duration.Duration
  readonly backoffMax: Duration.Duration
}

/** The timings of a real session. */
export const DEFAULT_TIMINGS: DownstreamTimings = {
  startTimeout: Duration.seconds(30),
  callTimeout: Duration.minutes(5),
  killGrace: Duration.seconds(2),
  backoffInitial: Duration.seconds(1),
  backoffMax: Duration.minutes(1)
}

/** The longest line a stdio server may write: a tool list of many large schemas is one line. */
const MAX_LINE_BYTES = 128 * 1024 * 1024

/**
 * The gateway passes results on unchanged and never calls the SDK's validating helpers: the
 * client upstream validates `structuredContent` against the `outputSchema` it is listed with.
 * Without this, each start would build an Ajv instance it never uses.
 */
const PASS_THROUGH: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input) => ({ valid: true, data: input as T, errorMessage: undefined })
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
  readonly client: Client
  readonly transport: Transport
  readonly child: Option.Option<ChildTransport>
}

type State =
  | { readonly _tag: "Idle"; readonly failures: number; readonly retryAt: number; readonly lastError: Option.Option<string> }
  | { readonly _tag: "Running"; readonly connection: Connection; readonly failures: number }

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
  /** Called (in a fiber of its own) when the server sends `notifications/tools/list_changed`. */
  readonly onListChanged: () => void
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Builds the handle of one server; nothing is started until it is needed. */
export const makeDownstream = (input: DownstreamInput): Effect.Effect<Downstream> =>
  Effect.gen(function*() {
    const { config, timings } = input
    const state = yield* Ref.make<State>({ _tag: "Idle", failures: 0, retryAt: 0, lastError: Option.none() })
    const starting = yield* Effect.makeSemaphore(1)
    const logPath = config._tag === "Stdio" ? Option.some(input.logPath) : Option.none<string>()
    const failed = (reason: string) =>
      new DownstreamFailed({ server: config.name, reason, log: Option.getOrNull(logPath) })

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
          return [next, { _tag: "Idle", failures: next, retryAt: now + backoff(next), lastError: Option.some(reason) }]
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

    const transportOf = (): { readonly transport: Transport; readonly child: Option.Option<ChildTransport> } => {
      if (config._tag === "Http") {
        return {
          transport: new HttpTransport(new URL(config.url), config.headers),
          child: Option.none()
        }
      }
      const child = new ChildTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        log: new StderrLog(input.logPath),
        killGraceMs: Duration.toMillis(timings.killGrace),
        maxLineBytes: MAX_LINE_BYTES
      })
      return { transport: child, child: Option.some(child) }
    }

    const start = Effect.gen(function*() {
      const { child, transport } = transportOf()
      const client = new Client({ name: "tool-map-gateway", version: TOOL_MAP_VERSION }, { capabilities: {}, jsonSchemaValidator: PASS_THROUGH })
      const connection: Connection = { client, transport, child }
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => input.onListChanged())
      const startMs = Duration.toMillis(timings.startTimeout)
      const connected = yield* Effect.tryPromise({
        try: () => client.connect(transport, { timeout: startMs }),
        catch: (error) => error
      }).pipe(Effect.either)
      if (connected._tag === "Left") {
        const error = connected.left
        const reason = error instanceof McpError && error.code === ErrorCode.RequestTimeout
          ? `did not answer initialize within ${startMs} ms`
          : error instanceof McpError && error.code === ErrorCode.ConnectionClosed
          ? "exited before it answered initialize"
          : `could not be started (${describeServer(config)}): ${errorText(error)}`
        yield* closeConnection(connection)
        const full = `${reason}${garbageNote(Option.some(connection))}`
        yield* fail(Option.none(), full)
        return yield* failed(full)
      }
      // A crash or an exit of the server: its calls in flight fail at once (the SDK rejects
      // them), and the next call restarts it after the backoff.
      client.onclose = () => {
        Effect.runFork(fail(Option.some(connection), "exited"))
      }
      yield* Ref.update(state, (current): State => ({ _tag: "Running", connection, failures: current.failures }))
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
      run: (connection: Connection, signal: AbortSignal) => Promise<A>
    ): Effect.Effect<A, DownstreamFailed> =>
      Effect.gen(function*() {
        const open = yield* connection
        const ms = Duration.toMillis(timings.callTimeout)
        const result = yield* Effect.tryPromise({ try: (signal) => run(open, signal), catch: (error) => error }).pipe(Effect.either)
        if (result._tag === "Right") return result.right
        const error = result.left
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          // A server that hangs on a request may hang on the next one too: it is stopped and
          // started afresh (after the backoff) on the next need.
          const reason = `did not answer ${what} within ${ms} ms${garbageNote(Option.some(open))}`
          yield* fail(Option.some(open), reason)
          return yield* failed(`${reason}; it was stopped`)
        }
        if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
          const reason = `exited during ${what}${garbageNote(Option.some(open))}`
          yield* fail(Option.some(open), reason)
          return yield* failed(reason)
        }
        if (error instanceof McpError) return yield* failed(`answered ${what} with error ${error.code}: ${error.message}`)
        return yield* failed(`failed on ${what}: ${errorText(error)}`)
      })

    const listTools = request("tools/list", async (open, signal) => {
      const tools: Array<Tool> = []
      let cursor: string | undefined
      do {
        const page = await open.client.request(
          { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
          { signal, timeout: Duration.toMillis(timings.callTimeout) }
        )
        tools.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return tools
    }).pipe(Effect.withSpan("Downstream.listTools", { attributes: { server: config.name } }))

    const call = (tool: string, args: Readonly<Record<string, unknown>>, options: CallOptions) =>
      request(`tools/call of "${tool}"`, (open, signal) =>
        open.client.request(
          { method: "tools/call", params: { name: tool, arguments: { ...args } } },
          CallToolResultSchema,
          {
            signal,
            timeout: Duration.toMillis(timings.callTimeout),
            resetTimeoutOnProgress: true,
            ...(options.onProgress === undefined ? {} : { onprogress: options.onProgress })
          }
        )).pipe(Effect.withSpan("Downstream.call", { attributes: { server: config.name, tool } }))

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
      lastError: Effect.map(Ref.get(state), (s) => (s._tag === "Idle" ? s.lastError : Option.none())),
      stop
    } satisfies Downstream
  })
