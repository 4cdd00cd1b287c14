import { Effect, Option } from "effect"
import { AGENT_HOST_TITLES, type AgentItemScope, type AgentSource } from "../../domain/agentHosts.js"
import type { FrontmatterDialect, FrontmatterFields, ParsedMarkdown } from "../FrontmatterParser.js"
import { claudeCodeCost, claudeSkillName, type CostDraft, instructionsCost, listedCost } from "../../domain/ledger.js"
import type { ItemDraft } from "./precedence.js"
import type { FileRead, FileWalk, MarkdownRead } from "./AgentHostFiles.js"
import { baseName, describe, namesOf } from "./frontmatterFields.js"
import type { HostReading } from "./hostReading.js"

/** Where an item sits in its host: scope, plugin, effective switch and precedence slot. */
export interface ItemPlacement {
  readonly scope: AgentItemScope
  readonly plugin: string | null
  readonly enabled: boolean
  readonly disabledReason: string | null
  readonly rank: number
  /** The namespace of conflicts for an item of this name, or null when it never competes. */
  readonly namespace: (name: string) => string | null
  /** How the host reads the frontmatter of the item's file (strict YAML when absent). */
  readonly dialect?: FrontmatterDialect
  /** How the host walks a folder of such files (see {@link FileWalk}; the shared walk when absent). */
  readonly walk?: FileWalk
}

/** The name a host gives an agent file, or why it does not load the file as an agent. */
export type AgentNaming =
  | { readonly _tag: "Named"; readonly name: string }
  | { readonly _tag: "Skipped"; readonly reason: string }

/** The placement of agent files: where they come from, and the host's rule for naming them. */
export interface AgentPlacement extends ItemPlacement {
  readonly source: AgentSource
  /** The host's naming rule; when absent, the `name` field, else the file name ({@link nameOrFileName}). */
  readonly agentNaming?: (c: HostReading, fields: FrontmatterFields, path: string) => AgentNaming
}

/** File extensions that make a skill directory one that ships code. */
export const SCRIPT_EXTENSIONS = [".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".bat", ".cmd"]

/** The fields every item defined by a file takes from that file and from its placement. */
export const fileFields = (c: HostReading, file: FileRead, name: string, placement: ItemPlacement) => ({
  host: c.host,
  scope: placement.scope,
  name,
  path: file.path,
  enabled: placement.enabled,
  disabledReason: placement.disabledReason,
  sha256: file.sha256,
  mtime: file.mtime,
  plugin: placement.plugin
})

/** The draft of an item defined by a whole file (no entry key), at its placement. */
export const draftAt = (fields: ItemDraft["fields"], placement: ItemPlacement, cost?: CostDraft): ItemDraft => ({
  fields,
  entry: null,
  namespace: placement.namespace(fields.name),
  rank: placement.rank,
  ...(cost === undefined ? {} : { cost })
})

/** The plugin's own name in `name@marketplace`. */
const pluginNameOf = (plugin: string): string => (plugin.lastIndexOf("@") > 0 ? plugin.slice(0, plugin.lastIndexOf("@")) : plugin)

/**
 * What a skill, command or agent file costs in its host's sessions: Claude Code's own rules from
 * the raw frontmatter and body (its agents under their file name), another host's listing line.
 */
const fileCost = (
  c: HostReading,
  kind: "skill" | "command" | "agent",
  input: { readonly name: string; readonly path: string; readonly fields: FrontmatterFields; readonly body: string; readonly description: string | null; readonly plugin: string | null }
): CostDraft =>
  c.host === "claude-code"
    ? claudeCodeCost({
        kind,
        name: kind === "agent" ? baseName(c.path, input.path) : claudeSkillName(input.name, input.plugin === null ? null : pluginNameOf(input.plugin)),
        description: input.fields["description"],
        whenToUse: input.fields["when_to_use"],
        body: input.body,
        fromPlugin: input.plugin !== null,
        disableModelInvocation: input.fields["disable-model-invocation"],
        ...(kind === "agent"
          ? {
              agent: {
                listedName: input.plugin === null ? input.name : `${pluginNameOf(input.plugin)}:${input.name}`,
                pluginName: input.plugin === null ? null : pluginNameOf(input.plugin),
                tools: input.fields["tools"],
                disallowedTools: input.fields["disallowedTools"],
                whenToUseDash: input.fields["when-to-use"]
              }
            }
          : {})
      })
    : listedCost(c.host, kind, input.name, input.description, input.body, input.path)

/** The naming rule of most hosts: the `name` field, else the file name without its extension. */
export const nameOrFileName = (c: HostReading, fields: FrontmatterFields, path: string): AgentNaming => ({
  _tag: "Named",
  name: nameField(c, fields, path, baseName(c.path, path))
})

/**
 * Frontmatter whose fields the host drops (`claude-code` dialect) becomes a diagnostic saying what
 * the host does instead: `consequence` follows "<Host> reads none of its fields and".
 */
const droppedFields = (c: HostReading, path: string, doc: ParsedMarkdown, consequence: string): void => {
  if (doc.fieldsDropped !== undefined) {
    c.diagnostic(path, doc.fieldsDropped.line, `${doc.fieldsDropped.message}; ${AGENT_HOST_TITLES[c.host]} reads none of its fields and ${consequence}`)
  }
}

// A name that is not a string (`name: 42`, a list) is not trusted as one: the file name is used.
const nameField = (c: HostReading, fields: FrontmatterFields, path: string, fallback: string): string => {
  const name = fields["name"]
  if (name === undefined || name === null) return fallback
  if (typeof name !== "string") {
    c.diagnostic(path, null, `field \`name\` is not a string; the file is named ${JSON.stringify(fallback)}`)
    return fallback
  }
  return name.trim().length > 0 ? name.trim() : fallback
}

/**
 * The tools of an agent: a list or comma string, or (opencode) a mapping of tool to on/off, in
 * which case the agent inherits every tool but the ones switched off.
 */
const agentTools = (c: HostReading, fields: FrontmatterFields, path: string) => {
  const tools = fields["tools"]
  const disallowed = c.toolListField(fields, ["disallowedTools", "disallowed-tools", "disallowed_tools"], path) ?? []
  if (tools !== null && typeof tools === "object" && !Array.isArray(tools)) {
    const off = Object.keys(tools).filter((key) => (tools as FrontmatterFields)[key] === false)
    return { tools: null, disallowedTools: [...disallowed, ...off] }
  }
  return { tools: c.toolListField(fields, ["tools"], path), disallowedTools: disallowed }
}

/** An agent from a markdown file with frontmatter; none when the file is malformed or the host's naming rule skips it. */
export const agentFromMarkdown = (
  c: HostReading,
  path: string,
  placement: AgentPlacement
): Effect.Effect<Option.Option<ItemDraft>> => Effect.map(c.readMarkdown(path, placement.dialect ?? "yaml"), (read) => agentDraft(c, path, read, placement))

/** The agent of a markdown file read (see {@link agentFromMarkdown}). */
const agentDraft = (c: HostReading, path: string, read: Option.Option<MarkdownRead>, placement: AgentPlacement): Option.Option<ItemDraft> =>
  Option.flatMap(read, ({ doc, file }) => {
    const fields = doc.fields
    const naming = (placement.agentNaming ?? nameOrFileName)(c, fields, path)
    droppedFields(c, path, doc, naming._tag === "Named" ? `loads the agent as ${JSON.stringify(naming.name)}` : "does not load the agent")
    if (naming._tag === "Skipped") {
      if (doc.fieldsDropped === undefined) c.diagnostic(path, null, naming.reason)
      return Option.none()
    }
    const name = naming.name
    const maxTurns = fields["maxTurns"] !== undefined
      ? c.integerField(fields, "maxTurns", path)
      : c.integerField(fields, "max_turns", path)
    // opencode's `disable: true`; a placement that is already off keeps its own reason.
    const switchedOff = c.booleanField(fields, "disable", path) === true || c.booleanField(fields, "disabled", path) === true
    const { tools, disallowedTools } = agentTools(c, fields, path)
    const off = placement.enabled && switchedOff ? { enabled: false, disabledReason: "switched off in its frontmatter" } : {}
    const description = describe(c.stringField(fields, "description", path), null)
    return Option.some(draftAt(
      {
        kind: "agent",
        ...fileFields(c, file, name, placement),
        ...off,
        description,
        tools,
        disallowedTools,
        model: c.stringField(fields, "model", path),
        background: c.booleanField(fields, "background", path) ?? false,
        maxTurns,
        mcpServers: namesOf(fields["mcpServers"]),
        source: placement.source
      },
      placement,
      fileCost(c, "agent", { name, path, fields, body: doc.body, description, plugin: placement.plugin })
    ))
  })

/** A command (or custom prompt) from a markdown file; its name is the file name. */
export const commandFromMarkdown = (
  c: HostReading,
  path: string,
  placement: ItemPlacement,
  name: string = baseName(c.path, path)
): Effect.Effect<Option.Option<ItemDraft>> => Effect.map(c.readMarkdown(path, placement.dialect ?? "yaml"), (read) => commandDraft(c, path, read, placement, name))

/** The command of a markdown file read (see {@link commandFromMarkdown}). */
const commandDraft = (c: HostReading, path: string, read: Option.Option<MarkdownRead>, placement: ItemPlacement, name: string): Option.Option<ItemDraft> =>
  Option.map(read, ({ doc, file }) => {
    droppedFields(c, path, doc, "loads the command")
    const fields = doc.fields
    const hint = fields["argument-hint"] !== undefined ? "argument-hint" : fields["argumentHint"] !== undefined ? "argumentHint" : "argument_hint"
    const description = describe(c.stringField(fields, "description", path), doc.body)
    return draftAt(
      {
        kind: "command",
        ...fileFields(c, file, name, placement),
        description,
        argumentHint: c.stringField(fields, hint, path),
        allowedTools: c.toolListField(fields, ["allowed-tools", "allowedTools", "allowed_tools"], path),
        model: c.stringField(fields, "model", path)
      },
      placement,
      fileCost(c, "command", { name, path, fields, body: doc.body, description, plugin: placement.plugin })
    )
  })

/**
 * A skill: `<dir>/SKILL.md`, named by its `name` field or the directory. None when the directory
 * has no SKILL.md (a helper folder) or the file is malformed.
 */
export const skillFromDirectory = (
  c: HostReading,
  dir: string,
  placement: ItemPlacement,
  assumeDirectory = false
): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.flatMap(c.listNames(dir, null, assumeDirectory), (names) =>
    Option.isNone(names) || !names.value.includes("SKILL.md")
      ? Effect.succeed(Option.none())
      : Effect.map(c.readMarkdown(c.path.join(dir, "SKILL.md"), placement.dialect ?? "yaml"), (read) => skillDraft(c, dir, names.value, read, placement)))

/** The skill of a folder whose listing holds SKILL.md, from that file read (see {@link skillFromDirectory}). */
const skillDraft = (c: HostReading, dir: string, names: ReadonlyArray<string>, read: Option.Option<MarkdownRead>, placement: ItemPlacement): Option.Option<ItemDraft> => {
  const hasScripts = names.some((name) => name === "scripts" || SCRIPT_EXTENSIONS.some((extension) => name.toLowerCase().endsWith(extension)))
  return Option.map(read, ({ doc, file }) => {
    droppedFields(c, file.path, doc, "loads the skill")
    const fields = doc.fields
    const name = nameField(c, fields, file.path, c.path.basename(dir))
    const description = describe(c.stringField(fields, "description", file.path), doc.body)
    return draftAt(
      {
        kind: "skill",
        ...fileFields(c, file, name, placement),
        description,
        allowedTools: c.toolListField(fields, ["allowed-tools", "allowedTools", "allowed_tools"], file.path),
        hasScripts
      },
      placement,
      fileCost(c, "skill", { name, path: file.path, fields, body: doc.body, description, plugin: placement.plugin })
    )
  })
}

/** The drafts of markdown files read together (see HostReading.readMarkdownEach), in order; a file that gives none is left out. */
const draftsOf = (
  c: HostReading,
  paths: ReadonlyArray<string>,
  placement: ItemPlacement,
  draft: (index: number, read: Option.Option<MarkdownRead>) => Option.Option<ItemDraft>
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.map(c.readMarkdownEach(paths, placement.dialect ?? "yaml"), (reads) => reads.flatMap((read, index) => Option.toArray(draft(index, read))))

/** Every skill directly under a skills directory (recorded as a root with `role`); their SKILL.md files read together. */
export const skillsIn = (
  c: HostReading,
  skillsDir: string,
  role: string | null,
  placement: ItemPlacement
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const names = yield* c.listNames(skillsDir, role)
    if (Option.isNone(names)) return []
    const dirs = names.value.filter((name) => !name.startsWith(".")).map((name) => c.path.join(skillsDir, name))
    const listings = yield* c.listEach(dirs)
    const skills = dirs.flatMap((dir, index) => {
      const listing = listings[index]!
      return Option.isSome(listing) && listing.value.includes("SKILL.md") ? [{ dir, names: listing.value }] : []
    })
    return yield* draftsOf(c, skills.map(({ dir }) => c.path.join(dir, "SKILL.md")), placement, (index, read) => skillDraft(c, skills[index]!.dir, skills[index]!.names, read, placement))
  })

/** Every agent file in a directory (recursively), as drafts. */
export const agentsIn = (
  c: HostReading,
  dir: string,
  role: string | null,
  placement: AgentPlacement,
  recursive = true
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.flatMap(c.filesWithExtension(dir, role, recursive, ".md", placement.walk), (files) =>
    draftsOf(c, files, placement, (index, read) => agentDraft(c, files[index]!, read, placement)))

/** Every command file in a directory (recursively), as drafts. */
export const commandsIn = (
  c: HostReading,
  dir: string,
  role: string | null,
  placement: ItemPlacement,
  recursive = true
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.flatMap(c.filesWithExtension(dir, role, recursive, ".md", placement.walk), (files) =>
    draftsOf(c, files, placement, (index, read) => commandDraft(c, files[index]!, read, placement, baseName(c.path, files[index]!))))

/**
 * An instructions file (CLAUDE.md, AGENTS.md, GEMINI.md, a rule) when it exists; it is recorded
 * as a root only then, so that every parent directory does not add a "missing" line.
 */
export const instructionsFile = (
  c: HostReading,
  path: string,
  role: string,
  placement: ItemPlacement,
  description: string | null = null
): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.gen(function* () {
    if (!(yield* c.exists(path))) return Option.none()
    const file = yield* c.readFile(path, role, c.ctx.limits.maxConfigBytes)
    return Option.map(file, (read) =>
      draftAt(
        { kind: "instructions", ...fileFields(c, read, c.path.basename(path), placement), description, size: read.bytes.length },
        placement,
        instructionsCost(new TextDecoder().decode(read.bytes))
      )
    )
  })

/** Placement of an item that never competes with another. */
export const standalone = (
  scope: AgentItemScope,
  extra: Partial<Omit<ItemPlacement, "scope" | "namespace">> = {}
): ItemPlacement => ({
  scope,
  plugin: extra.plugin ?? null,
  enabled: extra.enabled ?? true,
  disabledReason: extra.disabledReason ?? null,
  rank: extra.rank ?? 0,
  namespace: () => null
})
