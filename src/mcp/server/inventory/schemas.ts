import { JSONSchema, Schema } from "effect"
import { AgentHostName, AgentItemScope, AgentSource } from "../../../inventory/domain/agentHosts.js"
import { MAX_NAME_GLOB_LENGTH } from "../../../inventory/query/nameGlob.js"

/** The kinds `inventory_query` lists, named as the `tool-map query` subcommands. */
export const QueryKind = Schema.Literal("tools", "agents", "skills", "commands", "mcp", "plugins")
export type QueryKind = typeof QueryKind.Type

const text = (description: string) => Schema.String.annotations({ description })
const flag = (description: string) => Schema.optional(Schema.Boolean.annotations({ description }))
const NullOrText = Schema.NullOr(Schema.String)

/** Arguments of `which`. */
export const WhichInput = Schema.Struct({
  name: Schema.NonEmptyString.annotations({ description: "The command name as typed in a shell, e.g. git or python3." })
})

/** Result of `which`: `tool-map query which NAME --json`, plus the winner's version. */
export const WhichOutput = Schema.Struct({
  name: Schema.String,
  winner: NullOrText.annotations({ description: "The path that runs when the name is typed; null when no copy is on PATH." }),
  version: NullOrText.annotations({ description: "The winner's probed version, if known." }),
  copies: Schema.Array(
    Schema.Struct({
      path: Schema.String,
      linkTarget: NullOrText,
      pathIndex: Schema.NullOr(Schema.Number),
      root: Schema.String,
      sameFileAs: NullOrText,
      version: NullOrText,
      wins: Schema.Boolean
    })
  ).annotations({ description: "Every copy in PATH order, then copies outside PATH." })
})

/** Arguments of `inventory_query`: the filters of `tool-map query KIND`. */
export const QueryInput = Schema.Struct({
  kind: QueryKind.annotations({ description: "What to list: executables (tools), or the agent hosts' agents, skills, commands, MCP servers (mcp) or plugins." }),
  category: Schema.optional(text("tools: only this category (e.g. runtimes, version-control).")),
  name: Schema.optional(
    Schema.NonEmptyString.pipe(
      Schema.filter((glob) => Array.from(glob).length <= MAX_NAME_GLOB_LENGTH, {
        message: () => `name takes a glob of at most ${MAX_NAME_GLOB_LENGTH} characters`,
        // JSON Schema's maxLength counts code points, as this filter does.
        jsonSchema: { maxLength: MAX_NAME_GLOB_LENGTH }
      })
    ).annotations({
      description: `tools: only tools whose name (or an alias's) matches this glob of at most ${MAX_NAME_GLOB_LENGTH} characters, e.g. python*: * any run, ? one character, [a-z] or [!a-z] a class, {a,b} alternatives, \\ escapes.`
    })
  ),
  host: Schema.optional(AgentHostName.annotations({ description: "Agent-host kinds: only this host." })),
  scope: Schema.optional(AgentItemScope.annotations({ description: "Agent-host kinds: only this scope." })),
  all: flag("Agent-host kinds: also what the host will not load (disabled, shadowed)."),
  tool: Schema.optional(text("agents: only agents that can use this tool (base name: Bash matches Bash(git diff:*)).")),
  model: Schema.optional(text("agents: only agents whose model is exactly this.")),
  readOnly: flag("agents: only agents with none of Bash, Write, Edit (an agent without tools inherits all: not read-only)."),
  background: flag("agents: only agents with background: true."),
  source: Schema.optional(AgentSource.annotations({ description: "agents: only this source." })),
  keyword: Schema.optional(text("skills: only skills whose description contains this text (any case)."))
})
export type QueryInput = typeof QueryInput.Type

/** Result of `inventory_query`: the items `tool-map query KIND --json` prints. */
export const QueryOutput = Schema.Struct({
  kind: QueryKind,
  generation: Schema.String.annotations({ description: "The bundle generation answered from." }),
  count: Schema.Number,
  items: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description: "The matching records, as `tool-map query KIND --json` prints them."
  })
})

/** Arguments of `inventory_refresh`. */
export const RefreshInput = Schema.Struct({
  force: flag("Rescan even when nothing watched changed (default: the --if-stale check).")
})

const ScanCounts = Schema.Struct({
  tools: Schema.Number,
  shadowed: Schema.Number,
  pathDirs: Schema.Number,
  roots: Schema.Number,
  versions: Schema.Number,
  agentHostItems: Schema.Number,
  diagnostics: Schema.Number
})

/** Result of `inventory_refresh`: what `tool-map scan --json` prints. */
export const RefreshOutput = Schema.Struct({
  skipped: Schema.Boolean.annotations({ description: "True when nothing changed and no scan ran." }),
  generation: Schema.String,
  files: Schema.Struct({ json: Schema.String, markdown: Schema.String, summary: Schema.String }),
  durationMs: Schema.Number,
  reason: Schema.optional(Schema.String.annotations({ description: "Why nothing was rescanned (skipped only)." })),
  counts: Schema.optional(ScanCounts),
  rescanReason: Schema.optional(NullOrText.annotations({ description: "Which change made the scan run (null when forced)." })),
  changes: Schema.optional(
    Schema.NullOr(Schema.Struct({ since: Schema.String, count: Schema.Number, summary: NullOrText })).annotations({
      description: "What changed since the generation the scan replaced (null when there was none); details: tool-map query changes."
    })
  )
})

/** A JSON Schema object of a tool's `inputSchema`/`outputSchema`, from its Effect Schema (no `$schema` key). */
export const toolJsonSchema = (schema: Schema.Schema.AnyNoContext): { readonly type: "object"; readonly [key: string]: unknown } => {
  const fields = Object.entries(JSONSchema.make(schema)).filter(([key]) => key !== "$schema")
  return { ...Object.fromEntries(fields), type: "object" }
}
