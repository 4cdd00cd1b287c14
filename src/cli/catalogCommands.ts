import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer, type Option } from "effect"
import { jsonOption } from "./options.js"

/**
 * The handlers, and the catalog stack they import, loaded when a catalog command runs: the
 * bundle evaluates them lazily, so a scan or a query does not pay for them at start-up.
 */
const handlers = Effect.promise(() => import("./catalogHandlers.js"))

/** `catalog find`'s handler, loaded like the others only when it runs. */
const findHandler = Effect.promise(() => import("./catalogFind.js"))

/** `catalog approve`'s handler, loaded like the others only when it runs. */
const approveHandler = Effect.promise(() => import("./catalogApprove.js"))

/**
 * The catalog graph of one run, built once per command from its --agent and --schemas (the
 * handlers' module, and so the catalog stack, still loads only when a catalog command runs).
 */
const session = (flags: { readonly agent: string; readonly schemas: Option.Option<string> }) =>
  Layer.unwrapEffect(Effect.map(handlers, (run) => run.catalogCliLayer(flags.agent, flags.schemas)))

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

const lsCommand = Command.make(
  "ls",
  {
    path: Args.text({ name: "PATH" }).pipe(Args.withDescription("A catalog path: /, /CATEGORY, /CATEGORY/GROUP or a tool's path (default /)."), Args.withDefault("/")),
    query: Options.text("query").pipe(Options.withDescription("Search words, ranked (names above descriptions)."), Options.optional),
    agent: agentOption,
    schemas: schemasOption,
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
  { agent: agentOption, schemas: schemasOption, json: jsonOption },
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

/** `tool-map catalog`: browse, find, load, unload and diff the tool catalog. */
export const catalogCommand = Command.make("catalog").pipe(
  Command.withDescription(
    "The tool catalog: every tool in /category/group/tool, loaded per agent on demand. State lives in the data dir under catalog/."
  ),
  Command.withSubcommands([lsCommand, findCommand, loadCommand, unloadCommand, diffCommand, approveCommand])
)
