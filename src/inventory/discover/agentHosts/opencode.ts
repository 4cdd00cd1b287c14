import { Effect, Option } from "effect"
import { listedCost } from "../../domain/ledger.js"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import {
  agentFromMarkdown,
  type AgentPlacement,
  commandFromMarkdown,
  draftAt,
  fileFields,
  instructionsFile,
  type ItemPlacement,
  standalone
} from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import { skillHasScripts } from "./skillFiles.js"
import type { ItemDraft } from "./precedence.js"
import { type FileWalk, sha256 } from "./AgentHostFiles.js"
import { decodedOrNull, decodeEntry } from "./config/decode.js"
import { OpencodeAgent, OpencodeAgentWritten, OpencodeCommand, OpencodeCommandWritten, OpencodeConfig } from "./config/opencodeConfig.js"
import { opencodeConfigDir, opencodeInheritedSwitches, opencodeSkillPaths, opencodeSwitches, opencodeToolsOff } from "./policy/opencode.js"
import { describe } from "./frontmatterFields.js"
import { dirsToWorktree } from "./hostPaths.js"
import { type ConfigFile, type HostReadContext, type HostReading, hostReading, type HostReadResult, readConfigFiles } from "./hostReading.js"

/** opencode's managed config directory, per OS. */
export const opencodeManagedDir = (ctx: HostReadContext): string =>
  ctx.env.os === "win32" ? "C:\\ProgramData\\opencode" : ctx.env.os === "darwin" ? "/Library/Application Support/opencode" : "/etc/opencode"


/** How opencode (1.18.33, Bun's glob) walks its agent and command folders: exact `.md`, dotted folders entered. */
const GLOB_WALK: FileWalk = { exactCase: true, dottedFolders: true }

/**
 * opencode, as 1.18.33 loads it (read in its bundled source, checked with `opencode debug
 * config`, `debug skill`, `agent list`, `mcp list`; see scripts/conformance/checks/sharedDirs.ts).
 * Later sources win a name, in the order opencode merges them:
 * - config files: `$XDG_CONFIG_HOME/opencode/{config.json,opencode.json,opencode.jsonc}` (the
 *   folder is `OPENCODE_CONFIG_DIR` when set), `OPENCODE_CONFIG`, then `opencode.json` and
 *   `opencode.jsonc` of each folder from the worktree root (the git root, else `/`) down to the
 *   working directory, unless `OPENCODE_DISABLE_PROJECT_CONFIG`;
 * - then each config folder: the global one, every `.opencode` from the working directory up to
 *   the worktree root (nearest first, so the farthest wins), `~/.opencode`, `OPENCODE_CONFIG_DIR`:
 *   their `opencode.json(c)` (not the global folder's, read above), agents
 *   `{agent,agents}/**\/*.md` and `{mode,modes}/*.md` named by their path, commands
 *   `{command,commands}/**\/*.md`;
 * - then the managed folder's `opencode.json(c)`.
 * Skills come from `~/.claude/skills` and `~/.agents/skills` (any depth, dotted folders too), the
 * same two under each folder from the working directory to the worktree root, then `skill/` and
 * `skills/` of each config folder, then `skills.paths`: every `SKILL.md` whose frontmatter has a
 * `name` string, named by it. opencode does not check the name rules its docs state (lowercase
 * with hyphens, equal to the folder, a description of 1 to 1,024 characters): those skills load.
 * Between two skills of one name 1.18.33 keeps whichever file it finished reading last (they are
 * read concurrently); tool-map lets the later source win, the order opencode means.
 */
export const readOpencode = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = hostReading("opencode", ctx)
    const path = ctx.path
    const env = ctx.env.env
    const home = ctx.env.homedir
    const { configDir, customDir } = opencodeConfigDir(env, home, ctx.env.cwd, path)
    const switches = opencodeSwitches(env)
    const projectConfig = switches.projectConfig
    const worktree = yield* dirsToWorktree(c)
    const custom = env["OPENCODE_CONFIG"]
    // Ranks fall as sources are met: the later source wins a name, as opencode merges them.
    let order = 0
    const nextRank = () => 1_000_000 - order++

    const configs: Array<DecodedConfigFile> = []
    const readConfig = (file: string, scope: AgentItemScope, role: string, recordMissing: boolean) =>
      Effect.gen(function* () {
        const read = (yield* readConfigFiles(c, [[file, scope, nextRank(), role, recordMissing]], "config")).map((config) => ({
          ...config,
          config: decodedOrNull(OpencodeConfig, config.file.path, config.value) ?? {}
        }))
        for (const config of read) addConfigItems(c, config)
        configs.push(...read)
      })

    for (const name of ["config.json", "opencode.json", "opencode.jsonc"]) {
      yield* readConfig(path.join(configDir, name), "user", "global config", name === "opencode.json")
    }
    if (custom !== undefined && custom.length > 0) yield* readConfig(path.resolve(ctx.env.cwd, custom), "user", "OPENCODE_CONFIG", true)
    if (projectConfig) {
      for (const dir of [...worktree].reverse()) {
        for (const name of ["opencode.json", "opencode.jsonc"]) yield* readConfig(path.join(dir, name), "project", "project config", false)
      }
    }

    // The config folders, in opencode's order; a folder met twice is read once, at its first place.
    const folders: Array<{ readonly dir: string; readonly scope: AgentItemScope; readonly label: string }> = [{ dir: configDir, scope: "user", label: "global" }]
    if (projectConfig) {
      for (const dir of worktree) {
        const folder = path.join(dir, ".opencode")
        if ((yield* c.probe(folder))._tag === "directory") folders.push({ dir: folder, scope: "project", label: "project" })
      }
    }
    const homeFolder = path.join(home, ".opencode")
    if ((yield* c.probe(homeFolder))._tag === "directory") folders.push({ dir: homeFolder, scope: "user", label: "~/.opencode" })
    if (customDir !== null) folders.push({ dir: customDir, scope: "user", label: "OPENCODE_CONFIG_DIR" })
    const configFolders = folders.filter((folder, index) => folders.findIndex((other) => other.dir === folder.dir) === index)

    for (const { dir, scope, label } of configFolders) {
      if (dir.endsWith(".opencode") || dir === customDir) {
        for (const name of ["opencode.json", "opencode.jsonc"]) yield* readConfig(path.join(dir, name), scope, `${label} config`, false)
      }
      for (const draft of yield* commandsOf(c, dir, scope, label, nextRank())) c.add(draft)
      for (const draft of yield* agentsOf(c, dir, scope, label, nextRank())) c.add(draft)
    }
    const managedDir = opencodeManagedDir(ctx)
    for (const name of ["opencode.json", "opencode.jsonc"]) yield* readConfig(path.join(managedDir, name), "managed", "managed config", false)
    c.changeDrafts(switchOffInherited)

    // Skills.
    const external = switches.externalSkills
    const claudeSkills = switches.claudeSkills
    const sharedDirs = [...(claudeSkills ? [".claude"] : []), ".agents"]
    const skillSources: Array<{ readonly dir: string; readonly scope: AgentItemScope; readonly role: string | null; readonly dot: boolean }> = []
    if (external) {
      for (const shared of sharedDirs) skillSources.push({ dir: path.join(home, shared, "skills"), scope: "user", role: `${shared === ".claude" ? "Claude Code" : "shared"} skills (~/${shared}/skills)`, dot: true })
      for (const dir of worktree) {
        for (const shared of sharedDirs) {
          if ((yield* c.probe(path.join(dir, shared)))._tag === "directory") skillSources.push({ dir: path.join(dir, shared, "skills"), scope: "project", role: null, dot: true })
        }
      }
    }
    for (const { dir, scope, label } of configFolders) {
      skillSources.push({ dir: path.join(dir, "skill"), scope, role: null, dot: false })
      skillSources.push({ dir: path.join(dir, "skills"), scope, role: label === "global" ? "global skills" : null, dot: false })
    }
    for (const config of configs) {
      for (const dir of opencodeSkillPaths(config.config, home, ctx.env.cwd, path)) skillSources.push({ dir, scope: config.scope, role: "skills.paths", dot: false })
    }
    // The skills of shared folders (the first sources) are walked, read and parsed at the end, and
    // only when opencode is there: a host that is not there loads nothing from them
    // (HostReading.result), and walking thousands of Claude Code skills again would be for
    // nothing. Their tops are still looked at in their place, as the roots of the report.
    const sharedSources: Array<{ readonly dir: string; readonly placement: ItemPlacement }> = []
    const sharedSkillsAt = c.drafts().length
    for (const source of skillSources) {
      if (source.dot) c.shareDir(source.dir)
      if (source.role === null && (yield* c.probe(source.dir))._tag !== "directory") continue
      const placement: ItemPlacement = { ...standalone(source.scope, { rank: nextRank() }), namespace: (name) => `skill:${name}`, dialect: "claude-code" }
      if (source.dot) {
        if (source.role !== null) yield* c.listNames(source.dir, source.role)
        sharedSources.push({ dir: source.dir, placement })
        continue
      }
      for (const file of yield* c.filesNamed(source.dir, "SKILL.md", { role: source.role, dot: false })) {
        const draft = yield* skillOf(c, file, placement)
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }

    // AGENTS.md: global, then up to the repository root.
    const global = yield* instructionsFile(c, path.join(configDir, "AGENTS.md"), "global rules", standalone("user"))
    if (Option.isSome(global)) c.add(global.value)
    for (const dir of [...worktree].reverse()) {
      const draft = yield* instructionsFile(c, path.join(dir, "AGENTS.md"), "project rules", standalone("project"))
      if (Option.isSome(draft)) c.add(draft.value)
    }
    if (c.hasOwnRoot()) {
      const drafts: Array<ItemDraft> = []
      for (const { dir, placement } of sharedSources) {
        for (const file of yield* c.filesNamed(dir, "SKILL.md", { role: null, dot: true })) drafts.push(...Option.toArray(yield* skillOf(c, file, placement)))
      }
      c.changeDrafts((known) => [...known.slice(0, sharedSkillsAt), ...drafts, ...known.slice(sharedSkillsAt)])
    }
    return c.result()
  })

/** A config file read, with its keys decoded. */
interface DecodedConfigFile extends ConfigFile {
  readonly config: OpencodeConfig
}

/** The inherited `enabled: false` switches ({@link opencodeInheritedSwitches}) applied to the MCP servers among the drafts. */
const switchOffInherited = (drafts: ReadonlyArray<ItemDraft>): ReadonlyArray<ItemDraft> => {
  const servers = drafts.flatMap((draft, index) =>
    draft.fields.kind === "mcpServer" ? [{ index, namespace: draft.namespace, rank: draft.rank, enabled: draft.fields.enabled, path: draft.fields.path }] : []
  )
  const reasons = opencodeInheritedSwitches(servers)
  const off = new Map(servers.flatMap((server, at) => (reasons[at] === null ? [] : [[server.index, reasons[at]!] as const])))
  return off.size === 0 ? drafts : drafts.map((draft, index) => {
    const reason = off.get(index)
    return reason === undefined ? draft : { ...draft, fields: { ...draft.fields, enabled: false, disabledReason: reason } }
  })
}

/** The MCP servers, agents and commands of one config file. */
const addConfigItems = (c: HostReading, config: DecodedConfigFile): void => {
  const placement = { plugin: null, enabled: true, disabledReason: null, rank: config.rank }
  const servers = mcpDrafts(c, config.config.mcp ?? null, config.file.path, config.file.mtime, config.scope, placement, "mcp", "opencode")
  // Agents and commands share the file: an entry key names its section.
  for (const draft of servers) c.add({ ...draft, entry: `mcp/${draft.entry}` })
  const agents = config.config.agent ?? {}
  for (const name of Object.keys(agents)) c.add(agentFromConfig(config, name, agents[name]))
  const commands = config.config.command ?? {}
  for (const name of Object.keys(commands)) c.add(commandFromConfig(config, name, commands[name]))
}

/** `a/b` of `<folder>/agents/a/b.md`: the path under the kind's folder, without `.md`. */
const nameUnder = (c: HostReading, kindDir: string, file: string): string =>
  c.path.relative(kindDir, file).split(c.path.sep).join("/").replace(/\.md$/, "")

/** Agents of a config folder: `{agent,agents}/**\/*.md`, then the primary ones of `{mode,modes}/*.md`. */
const agentsOf = (c: HostReading, folder: string, scope: AgentItemScope, label: string, rank: number): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const drafts: Array<ItemDraft> = []
    for (const [sub, recursive] of [["agent", true], ["agents", true], ["mode", false], ["modes", false]] as const) {
      const dir = c.path.join(folder, sub)
      const role = label === "global" && sub === "agents" ? "global agents" : null
      if (role === null && (yield* c.probe(dir))._tag !== "directory") continue
      const placement: AgentPlacement = {
        ...standalone(scope, { rank }),
        namespace: (name) => `agent:${name}`,
        source: "local",
        dialect: "claude-code",
        walk: GLOB_WALK,
        // opencode names a file agent by its path under the folder, whatever its `name` field says.
        agentNaming: (collector, _fields, file) => ({ _tag: "Named", name: nameUnder(collector, dir, file) })
      }
      const files = yield* c.filesWithExtension(dir, role, recursive, ".md", GLOB_WALK)
      for (const file of files) {
        const draft = yield* agentFromMarkdown(c, file, placement)
        if (Option.isSome(draft)) drafts.push(draft.value)
      }
    }
    return drafts
  })

/** Commands of a config folder: `{command,commands}/**\/*.md`, named by their path under it. */
const commandsOf = (c: HostReading, folder: string, scope: AgentItemScope, label: string, rank: number): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const drafts: Array<ItemDraft> = []
    for (const sub of ["command", "commands"]) {
      const dir = c.path.join(folder, sub)
      const role = label === "global" && sub === "commands" ? "global commands" : null
      if (role === null && (yield* c.probe(dir))._tag !== "directory") continue
      const placement: ItemPlacement = { ...standalone(scope, { rank }), namespace: (name) => `command:${name}`, dialect: "claude-code" }
      for (const file of yield* c.filesWithExtension(dir, role, true, ".md", GLOB_WALK)) {
        const draft = yield* commandFromMarkdown(c, file, placement, nameUnder(c, dir, file))
        if (Option.isSome(draft)) drafts.push(draft.value)
      }
    }
    return drafts
  })

/**
 * A skill of opencode: any `SKILL.md` whose frontmatter has a `name` string (its name, as
 * written); the description is the field's, or none. A file without a name is skipped.
 */
const skillOf = (c: HostReading, file: string, placement: ItemPlacement): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.gen(function* () {
    const read = yield* c.readMarkdown(file, placement.dialect ?? "yaml")
    if (Option.isNone(read)) return Option.none()
    const { doc, file: bytes } = read.value
    const name = doc.fields["name"]
    if (typeof name !== "string") {
      c.diagnostic(file, doc.fieldsDropped?.line ?? null, `${doc.fieldsDropped === undefined ? "no `name` string in the frontmatter" : doc.fieldsDropped.message}; opencode does not load the skill`)
      return Option.none()
    }
    const hasScripts = yield* skillHasScripts(c, file)
    return Option.some(draftAt(
      {
        kind: "skill",
        ...fileFields(c, bytes, name, placement),
        description: describe(c.stringField(doc.fields, "description", file), null),
        allowedTools: c.toolListField(doc.fields, ["allowed-tools", "allowedTools", "allowed_tools"], file),
        hasScripts
      },
      placement,
      listedCost("opencode", "skill", name, describe(c.stringField(doc.fields, "description", file), null), doc.body)
    ))
  })

const entryHash = (value: unknown): string => sha256(JSON.stringify(value) ?? "null")
const decodeAgent = decodeEntry(OpencodeAgent, {})
const decodeAgentWritten = decodeEntry(OpencodeAgentWritten, {})
const decodeCommand = decodeEntry(OpencodeCommand, {})
const decodeCommandWritten = decodeEntry(OpencodeCommandWritten, {})

const agentFromConfig = (config: ConfigFile, name: string, raw: unknown): ItemDraft => {
  const entry = decodeAgent(raw)
  const off = opencodeToolsOff(entry)
  const disabled = entry.disable === true
  return {
    fields: {
      kind: "agent",
      host: "opencode",
      scope: config.scope,
      name,
      path: config.file.path,
      enabled: !disabled,
      disabledReason: disabled ? "disable: true" : null,
      sha256: entryHash(decodeAgentWritten(raw)),
      mtime: config.file.mtime,
      plugin: null,
      description: describe(entry.description ?? null, null),
      tools: null,
      disallowedTools: off,
      model: entry.model ?? null,
      background: false,
      maxTurns: null,
      mcpServers: null,
      source: "local"
    },
    entry: `agent/${name}`,
    namespace: `agent:${name}`,
    rank: config.rank,
    cost: listedCost("opencode", "agent", name, describe(entry.description ?? null, null), entry.prompt ?? "")
  }
}

const commandFromConfig = (config: ConfigFile, name: string, raw: unknown): ItemDraft => {
  const entry = decodeCommand(raw)
  return {
    fields: {
      kind: "command",
      host: "opencode",
      scope: config.scope,
      name,
      path: config.file.path,
      enabled: true,
      disabledReason: null,
      sha256: entryHash(decodeCommandWritten(raw)),
      mtime: config.file.mtime,
      plugin: null,
      description: describe(entry.description ?? null, null),
      argumentHint: null,
      allowedTools: null,
      model: entry.model ?? null
    },
    entry: `command/${name}`,
    namespace: `command:${name}`,
    rank: config.rank,
    cost: listedCost("opencode", "command", name, null, entry.template ?? "")
  }
}
