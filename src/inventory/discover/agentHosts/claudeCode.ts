import type * as NodePath from "node:path"
import { Effect, Option } from "effect"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import { sessionStartCost } from "../../domain/ledger.js"
import type { FrontmatterFields, FrontmatterValue } from "../FrontmatterParser.js"
import {
  type AgentNaming,
  type AgentPlacement,
  agentsIn,
  commandsIn,
  instructionsFile,
  type ItemPlacement,
  nameOrFileName,
  skillFromDirectory,
  skillsIn,
  standalone
} from "./markdownItems.js"
import { builtinCost, builtinDrafts, CLAUDE_BUILTINS, installedClaudeCode, KNOWN_BUILTINS } from "./claudeBuiltins.js"
import { type SessionStartFinding, sessionStartFinding, sessionStartHooks } from "./claudeHooks.js"
import { looksLikeServer, mcpDrafts } from "./mcp.js"
import type { ItemDraft } from "./precedence.js"
import { type FileWalk, sha256 } from "./AgentHostFiles.js"
import { ClaudeJson, ClaudeProjectEntry } from "./config/claudeJson.js"
import { ClaudePluginManifest, ClaudePluginMcpFile, InstalledPlugins, KnownMarketplaces, MarketplaceManifest } from "./config/claudePlugins.js"
import { ClaudeSettings } from "./config/claudeSettings.js"
import { decodedOrNull, decodeEntry } from "./config/decode.js"
import { McpServersFile } from "./config/mcpServersFile.js"
import {
  claudeInstalledPlugins,
  claudeMcpServerOff,
  claudeMcpSwitches,
  claudePluginEnabled,
  claudePluginRank,
  claudePluginSwitch,
  claudeSessionListing,
  claudeSettingsPaths,
  type ClaudeSettingsSource,
  enabledButNotInstalled,
  type InstalledPlugin,
  localProjectKey,
  settingsWith
} from "./policy/claude.js"
import { ancestors, projectDirs } from "./hostPaths.js"
import { type HostReadContext, hostReading, type HostReading, type HostReadResult } from "./hostReading.js"

/**
 * Claude Code's own precedence (code.claude.com docs):
 * - subagents: managed > project > user > plugin (a `--agents` session flag is not on disk);
 * - skills: managed > user > project; plugin skills are namespaced `plugin:skill`; a skill wins
 *   over a legacy command of the same name;
 * - MCP servers: local > project > user > plugin; a managed-mcp.json takes exclusive control;
 * - settings (enabledPlugins, MCP lists): managed > local > project > user.
 */
const RANK = {
  agent: { managed: 0, project: 10, user: 100, plugin: 200 },
  slash: { managed: 0, user: 10, project: 20, command: 1000 },
  mcp: { local: 0, project: 10, user: 20, plugin: 30, managed: 0 }
} as const

/** Every markdown file of Claude Code is read as the host reads frontmatter. */
const CLAUDE_MARKDOWN = { dialect: "claude-code" } as const

// How Claude Code 2.1.332 walks folders of markdown items (checked with `claude -p` session starts):
// its settings folders (user, project, managed agents and commands) by a search for `*.md` that
// enters hidden and dotted folders and follows links; a plugin's agents by directory entries,
// any case of `.md`, never through a link.
const SETTINGS_WALK: FileWalk = { exactCase: true, dottedFolders: true }
const PLUGIN_AGENTS_WALK: FileWalk = { dottedFolders: true, skipLinks: true }

/** The longest agent name Claude Code takes (2.1.332), in UTF-16 code units. */
const AGENT_NAME_MAX = 256

const skipped = (reason: string): AgentNaming => ({ _tag: "Skipped", reason })

/**
 * User, project and managed agents, as Claude Code 2.1.332 loads them (its agent loader, checked
 * with the agent list of `claude -p` session starts): `name` must be a non-empty string, not
 * start with `-`, be at most 256 characters and hold no `:` (after NFKC); `description` must be a
 * non-empty string. Any other file is skipped: without a name it is a reference document. The
 * agent's name is the field as written, never the file name. (Not modeled: an agent whose
 * `hooks` the host finds unloadable.)
 */
export const claudeSettingsAgentNaming = (_c: HostReading, fields: FrontmatterFields): AgentNaming => {
  const name = fields["name"]
  if (typeof name !== "string" || name === "") {
    return skipped("no `name` string in the frontmatter: Claude Code reads the file as a reference document, not an agent")
  }
  if (name.startsWith("-")) return skipped("`name` starts with \"-\": Claude Code does not load the agent")
  if (name.length > AGENT_NAME_MAX) return skipped(`\`name\` is over ${AGENT_NAME_MAX} characters: Claude Code does not load the agent`)
  if (name.normalize("NFKC").includes(":")) return skipped("`name` holds \":\" (kept for plugin agents): Claude Code does not load the agent")
  const description = fields["description"]
  if (typeof description !== "string" || description === "") {
    return skipped("no `description` string in the frontmatter: Claude Code does not load the agent")
  }
  return { _tag: "Named", name }
}

/** A frontmatter value as JavaScript's `String()` writes it, which is how Claude Code reads a plugin agent's `name`. */
const asJsString = (value: FrontmatterValue): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? (value as ReadonlyArray<FrontmatterValue>).map((entry) => (entry === null ? "" : asJsString(entry))).join(",")
    : typeof value === "object"
    ? "[object Object]"
    : String(value)

/**
 * A plugin's agents, as Claude Code 2.1.332 loads them (checked with `claude -p` session
 * starts): every file loads, even one whose frontmatter fails; the name is `name` as `String()`
 * writes it when present, non-empty and at most 256 characters, else the file name without a
 * `.md` suffix; an agent in a subfolder of `agentsDir` gets the folder names before its own
 * (`sub:name`). The host calls it `<plugin>:<that name>`.
 */
export const claudePluginAgentNaming = (agentsDir: string) => (c: HostReading, fields: FrontmatterFields, path: string): AgentNaming => {
  const declared = fields["name"]
  const written = declared === undefined || declared === null ? "" : asJsString(declared)
  const fileName = c.path.basename(path).replace(/\.md$/, "")
  const own = written.length > AGENT_NAME_MAX ? "" : written
  if (written.length > AGENT_NAME_MAX) c.diagnostic(path, null, `field \`name\` is over ${AGENT_NAME_MAX} characters; Claude Code names the agent after its file`)
  else if (declared !== undefined && declared !== null && typeof declared !== "string") {
    c.diagnostic(path, null, `field \`name\` is not a string; Claude Code names the agent ${JSON.stringify(own === "" ? fileName : own)}`)
  }
  const folders = c.path.relative(agentsDir, c.path.dirname(path)).split(c.path.sep).filter((part) => part !== "" && part !== ".")
  return { _tag: "Named", name: [...folders, own === "" ? fileName : own].join(":") }
}

/**
 * The folders whose `.claude` Claude Code 2.1.332 reads for the project (checked with session
 * starts): the working directory and its parents up to the nearest one holding `.git`, else up
 * to the root; never the home directory nor any folder above it.
 */
/**
 * The project folders whose `.claude` Claude Code reads: the working directory and its ancestors
 * up to the git root, never the home directory. Shared with the gateway's reader of deny rules.
 */
export const claudeProjectDirs = <E, R>(
  path: NodePath.PlatformPath,
  cwd: string,
  homedir: string,
  exists: (file: string) => Effect.Effect<boolean, E, R>
): Effect.Effect<ReadonlyArray<string>, E, R> =>
  Effect.gen(function* () {
    const home = path.resolve(homedir)
    const dirs: Array<string> = []
    for (const dir of ancestors(path, cwd)) {
      if (dir === home) break
      dirs.push(dir)
      if (yield* exists(path.join(dir, ".git"))) break
    }
    return dirs
  })

/**
 * Agents of one folder that share a name, as Claude Code 2.1.332 settles them (its debug log says
 * which is active): files are read in path order, a hard link to a file read already is skipped,
 * and the last one read wins (a symbolic link too). The others are ranked after it, so they are
 * shadowed by it.
 */
const lastPathWins = (c: HostReading, drafts: ReadonlyArray<ItemDraft>): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const byName = new Map<string, Array<ItemDraft>>()
    for (const draft of drafts) byName.set(draft.fields.name, [...(byName.get(draft.fields.name) ?? []), draft])
    const losers = new Set<ItemDraft>()
    for (const group of byName.values()) {
      if (group.length < 2) continue
      const read = new Set<string>()
      const kept: Array<ItemDraft> = []
      for (const draft of [...group].sort((a, b) => (a.fields.path < b.fields.path ? -1 : a.fields.path > b.fields.path ? 1 : 0))) {
        // The host takes the inode of the entry itself (lstat): a link is a file of its own, a hard link is not.
        const inode = yield* c.entryIdentity(draft.fields.path)
        if (Option.isSome(inode) && read.has(inode.value)) continue
        if (Option.isSome(inode)) read.add(inode.value)
        kept.push(draft)
      }
      const winner = kept.at(-1)
      for (const draft of group) if (draft !== winner) losers.add(draft)
    }
    return losers.size === 0 ? drafts : drafts.map((draft) => (losers.has(draft) ? { ...draft, rank: draft.rank + 0.5 } : draft))
  })

/** The system directory of managed settings, per OS. */
export const claudeManagedDir = (os: string): string =>
  os === "win32"
    ? "C:\\Program Files\\ClaudeCode"
    : os === "darwin"
    ? "/Library/Application Support/ClaudeCode"
    : "/etc/claude-code"

/** The settings files Claude Code reads, highest precedence first (the rule: `policy/claude.ts`). */
export { claudeSettingsPaths, localProjectKey } from "./policy/claude.js"

/** Reads everything Claude Code loads from disk: agents, skills, commands, MCP servers, plugins, memory files. */
export const readClaudeCode = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = hostReading("claude-code", ctx)
    const path = ctx.path
    const configDir = ctx.env.env["CLAUDE_CONFIG_DIR"]
    const userDir = configDir !== undefined && configDir.length > 0 ? path.resolve(configDir) : path.join(ctx.env.homedir, ".claude")
    const stateFile = configDir !== undefined && configDir.length > 0 ? path.join(userDir, ".claude.json") : path.join(ctx.env.homedir, ".claude.json")
    const managedDir = claudeManagedDir(ctx.env.os)
    const projects = projectDirs(ctx)
    const projectClaudeDirs: Array<{ readonly dir: string; readonly claude: string; readonly index: number }> = []
    for (const [index, dir] of (yield* claudeProjectDirs(path, c.env.cwd, c.env.homedir, (file) => c.exists(file))).entries()) {
      const claude = path.join(dir, ".claude")
      if (claude !== userDir && (yield* c.probe(claude))._tag === "directory") projectClaudeDirs.push({ dir, claude, index })
    }

    // Settings of every scope, highest precedence first.
    const settings = yield* readSettings(c, userDir, managedDir, projectClaudeDirs)

    // Subagents, skills, commands of the managed, user and project directories.
    const agentPlacement = (scope: AgentItemScope, rank: number): AgentPlacement => ({
      ...standalone(scope, { rank }),
      ...CLAUDE_MARKDOWN,
      namespace: (name) => `agent:${name}`,
      source: "local",
      agentNaming: claudeSettingsAgentNaming,
      walk: SETTINGS_WALK
    })
    const slashPlacement = (scope: AgentItemScope, rank: number): ItemPlacement => ({
      ...standalone(scope, { rank }),
      ...CLAUDE_MARKDOWN,
      namespace: (name) => `slash:${name}`
    })
    const managedClaude = path.join(managedDir, ".claude")
    const managedExists = (yield* c.probe(managedClaude))._tag === "directory"
    const homes: ReadonlyArray<{ readonly dir: string; readonly scope: AgentItemScope; readonly agentRank: number; readonly slashRank: number; readonly label: string }> = [
      ...(managedExists ? [{ dir: managedClaude, scope: "managed" as const, agentRank: RANK.agent.managed, slashRank: RANK.slash.managed, label: "managed" }] : []),
      ...projectClaudeDirs.map(({ claude, index }) => ({
        dir: claude,
        scope: "project" as const,
        agentRank: RANK.agent.project + index,
        slashRank: RANK.slash.project + index,
        label: "project"
      })),
      { dir: userDir, scope: "user" as const, agentRank: RANK.agent.user, slashRank: RANK.slash.user, label: "user" }
    ]
    for (const home of homes) {
      const agents = yield* lastPathWins(c, yield* agentsIn(c, path.join(home.dir, "agents"), `${home.label} agents`, agentPlacement(home.scope, home.agentRank)))
      const skills = yield* skillsIn(c, path.join(home.dir, "skills"), `${home.label} skills`, slashPlacement(home.scope, home.slashRank))
      const commands = yield* commandsIn(
        c,
        path.join(home.dir, "commands"),
        `${home.label} commands`,
        { ...slashPlacement(home.scope, RANK.slash.command + home.slashRank), walk: SETTINGS_WALK }
      )
      for (const draft of [...agents, ...skills, ...commands]) c.add(draft)
    }

    // Memory files.
    const memory: ReadonlyArray<readonly [string, AgentItemScope, string]> = [
      [path.join(managedDir, "CLAUDE.md"), "managed", "managed memory"],
      [path.join(userDir, "CLAUDE.md"), "user", "user memory"],
      ...projects.flatMap((dir): ReadonlyArray<readonly [string, AgentItemScope, string]> => [
        [path.join(dir, "CLAUDE.md"), "project", "project memory"],
        [path.join(dir, ".claude", "CLAUDE.md"), "project", "project memory"],
        [path.join(dir, "CLAUDE.local.md"), "local", "local memory"]
      ])
    ]
    for (const [file, scope, role] of memory) {
      const draft = yield* instructionsFile(c, file, role, standalone(scope))
      if (Option.isSome(draft)) c.add(draft.value)
    }

    // Plugins and what they ship.
    const pluginDrafts = yield* readPlugins(c, userDir, settings)
    for (const draft of pluginDrafts) if (draft.fields.kind !== "mcpServer") c.add(draft)

    // MCP servers, the plugins' ones included (managed exclusivity and deny lists apply to them too).
    const pluginServers = pluginDrafts.filter((draft) => draft.fields.kind === "mcpServer")
    yield* readMcpServers(c, { userDir, stateFile, managedDir, projects, projectClaudeDirs, settings, pluginServers })

    // The session's model, which sets the skill listing's budget (issue 28, point 1).
    const listing = claudeSessionListing(settings, ctx.env.env)
    // The host's own agents and skills come first in the listing and take their part of the budget (point 4):
    // items of the installed version when tool-map knows it, else the newest version it knows is assumed.
    const installed = yield* installedClaudeCode(c)
    const known = Option.flatMap(installed, (found) => Option.fromNullable(KNOWN_BUILTINS.find((builtins) => builtins.version === found.version)))
    if (Option.isSome(installed) && Option.isSome(known)) for (const draft of builtinDrafts(installed.value, known.value, listing.charsPerToken)) c.add(draft)
    return { ...c.result(), listing: { ...listing, builtins: builtinCost(listing.charsPerToken, Option.getOrElse(known, () => CLAUDE_BUILTINS)) } }
  })

const readSettings = (
  c: HostReading,
  userDir: string,
  managedDir: string,
  projectClaudeDirs: ReadonlyArray<{ readonly claude: string }>
): Effect.Effect<ReadonlyArray<ClaudeSettingsSource>> =>
  Effect.gen(function* () {
    const path = c.path
    const out: Array<ClaudeSettingsSource> = []
    const read = (file: string, scope: AgentItemScope, role: string, recordMissing: boolean) =>
      Effect.gen(function* () {
        if (!recordMissing && !(yield* c.exists(file))) return
        const json = yield* c.readJson(file, role, { jsonc: false })
        if (Option.isNone(json)) return
        const decoded = decodedOrNull(ClaudeSettings, file, json.value.value)
        if (decoded === null) c.diagnostic(file, null, "settings file is not a JSON object; ignored")
        else out.push({ path: file, scope, settings: decoded })
      })
    // Drop-ins are merged over the main managed file, the last in name order winning.
    const dropIns = yield* c.listDir(path.join(managedDir, "managed-settings.d"), null)
    const dropInFiles = Option.match(dropIns, {
      onNone: () => [],
      onSome: (entries) => entries.filter((entry) => entry.isFile && entry.name.endsWith(".json")).map((entry) => entry.path)
    })
    const files = claudeSettingsPaths(path, { managedDir, dropIns: dropInFiles, projectClaudeDirs: projectClaudeDirs.map(({ claude }) => claude), userDir })
    // The user's file is the one whose absence is worth a note.
    for (const { file, scope, role } of files) yield* read(file, scope, role, scope === "user")
    return out
  })

const readPlugins = (
  c: HostReading,
  userDir: string,
  settings: ReadonlyArray<ClaudeSettingsSource>
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const path = c.path
    const pluginsDir = path.join(userDir, "plugins")
    const drafts: Array<ItemDraft> = []
    const installedFile = path.join(pluginsDir, "installed_plugins.json")
    const installedJson = yield* c.readJson(installedFile, "installed plugins", { jsonc: false })
    const installed = Option.match(installedJson, {
      onNone: () => [],
      onSome: (json) => {
        // A top level that is not an object has no `plugins` object either.
        const read = claudeInstalledPlugins(decodedOrNull(InstalledPlugins, installedFile, json.value) ?? {}, pluginsDir, path)
        for (const problem of read.problems) c.diagnostic(installedFile, null, problem)
        return read.plugins
      }
    })
    const knownFile = path.join(pluginsDir, "known_marketplaces.json")
    const known = yield* c.readJson(knownFile, "known marketplaces", { jsonc: false })
    const marketplaces = Option.match(known, { onNone: () => null, onSome: (json) => decodedOrNull(KnownMarketplaces, knownFile, json.value) })
    if (marketplaces !== null) {
      for (const name of Object.keys(marketplaces)) {
        const location = marketplaces[name]!.installLocation ?? path.join(pluginsDir, "marketplaces", name)
        const probe = yield* c.probe(location)
        c.root(location, `marketplace ${name}`, probe._tag === "directory" ? "ok" : probe._tag === "missing" ? "missing" : "unreadable")
      }
    }
    const cwdChain = ancestors(path, c.env.cwd)
    const plugin = (id: string, at: number) => ({ rank: at, namespace: `plugin:${id}` })
    for (const [index, installedEntry] of installed.entries()) {
      const folder = yield* directoryMarketplaceFolder(c, marketplaces, installedEntry)
      const entry = folder === null ? installedEntry : { ...installedEntry, installPath: folder }
      if (entry.marketplace !== null && marketplaces !== null && !Object.hasOwn(marketplaces, entry.marketplace)) {
        c.diagnostic(installedFile, null, `plugin ${entry.id}: marketplace ${entry.marketplace} is not in known_marketplaces.json`)
      }
      const { enabled, disabledReason } = claudePluginEnabled(entry, claudePluginSwitch(settings, entry.id), cwdChain, path)
      const manifestPath = path.join(entry.installPath, ".claude-plugin", "plugin.json")
      const probe = yield* c.probe(entry.installPath)
      c.root(
        entry.installPath,
        `plugin ${entry.id}`,
        probe._tag === "directory" ? "ok" : probe._tag === "missing" ? "missing" : probe._tag === "unreadable" ? "unreadable" : "not-a-directory"
      )
      if (probe._tag === "missing") c.diagnostic(installedFile, null, `plugin ${entry.id} is installed at ${entry.installPath}, which does not exist`)
      const slot = plugin(entry.id, claudePluginRank(entry.scope))
      const hooks = probe._tag === "directory" ? yield* pluginSessionStartHooks(c, entry.installPath, manifestPath) : { hooks: 0, knownChars: 0 }
      drafts.push({
        fields: {
          kind: "plugin",
          host: "claude-code",
          scope: entry.scope,
          name: entry.name,
          path: entry.installPath,
          enabled,
          disabledReason,
          sha256: sha256(JSON.stringify([entry.id, entry.version, entry.installPath, entry.scope])),
          mtime: null,
          plugin: entry.id,
          marketplace: entry.marketplace,
          version: entry.version,
          ...(hooks.hooks > 0 ? { sessionStartHooks: hooks.hooks, sessionStartKnownChars: hooks.knownChars } : {})
        },
        ...(hooks.knownChars > 0 ? { cost: sessionStartCost(hooks.knownChars) } : {}),
        entry: `${entry.id}/${index}`,
        namespace: slot.namespace,
        rank: slot.rank
      })
      if (probe._tag === "directory") {
        drafts.push(...(yield* readPluginContents(c, entry, manifestPath, enabled, disabledReason === null ? null : `plugin ${disabledReason}`)))
      }
    }
    // Enabled in settings but not installed: the host cannot load it.
    const installedIds = new Set(installed.map((entry) => entry.id))
    for (const [file, id] of enabledButNotInstalled(settings, installedIds)) c.diagnostic(file, null, `plugin ${id} is enabled but not installed`)
    // Versions kept in the cache that are not the installed one are not active.
    const active = new Set(installed.map((entry) => path.resolve(entry.installPath)))
    const cacheDir = path.join(pluginsDir, "cache")
    const markets = yield* c.listDir(cacheDir, "plugin cache")
    for (const market of Option.getOrElse(markets, () => [])) {
      if (!market.isDirectory) continue
      const names = yield* c.listDir(market.path, null)
      for (const pluginDir of Option.getOrElse(names, () => [])) {
        if (!pluginDir.isDirectory || active.has(path.resolve(pluginDir.path))) continue
        const versions = yield* c.listDir(pluginDir.path, null)
        for (const version of Option.getOrElse(versions, () => [])) {
          if (version.isDirectory && !active.has(path.resolve(version.path))) {
            c.root(version.path, `plugin ${pluginDir.name}@${market.name} ${version.name}`, "inactive", "not the installed version; the host does not load it")
          }
        }
      }
    }
    return drafts
  })

/**
 * The folder Claude Code 2.1.332 reads a plugin from when its marketplace is a local directory
 * (`source: { source: "directory", path }` in known_marketplaces.json): the plugin entry's
 * relative `source` in that directory's marketplace.json, not the copy in the cache (`claude
 * plugin list --json` calls it `readFromFolder`; session starts load its agents). Null for any
 * other marketplace, or when the folder is not there.
 */
const directoryMarketplaceFolder = (
  c: HostReading,
  marketplaces: KnownMarketplaces | null,
  entry: InstalledPlugin
): Effect.Effect<string | null> =>
  Effect.gen(function* () {
    if (entry.marketplace === null || marketplaces === null || !Object.hasOwn(marketplaces, entry.marketplace)) return null
    const source = marketplaces[entry.marketplace]!.source
    const directory = source?.path
    if (source?.source !== "directory" || directory === undefined) return null
    const manifestFile = c.path.join(directory, ".claude-plugin", "marketplace.json")
    const manifest = yield* c.readJson(manifestFile, null, { jsonc: false })
    if (Option.isNone(manifest)) return null
    const plugins = decodedOrNull(MarketplaceManifest, manifestFile, manifest.value.value)?.plugins ?? []
    const relative = plugins.find((plugin) => plugin.name === entry.name)?.source
    if (typeof relative !== "string") return null
    const folder = c.path.resolve(directory, relative)
    return (yield* c.probe(folder))._tag === "directory" ? folder : null
  })

/**
 * A plugin's `SessionStart` hooks that add context (issue 28, point 2), read where Claude Code
 * 2.1.332 reads a plugin's hooks (`cre` of its bundle: `hooks/hooks.json`, and the manifest's
 * `hooks`, paths or inline objects), and what is known of their context (`claudeHooks.ts`). Never run.
 */
/** At most this many hooks files of one plugin are read (its hooks/hooks.json and those its manifest names). */
const MAX_HOOK_FILES = 16

const pluginSessionStartHooks = (c: HostReading, root: string, manifestPath: string): Effect.Effect<SessionStartFinding> =>
  Effect.gen(function* () {
    const hooks: Array<{ readonly command: string | null }> = []
    // Each hooks file once, and a bounded number of them (a manifest may name one file thousands of times).
    const read = new Set<string>()
    const fromFile = (file: string) =>
      Effect.gen(function* () {
        if (read.has(file) || read.size >= MAX_HOOK_FILES) return
        read.add(file)
        if (!(yield* c.exists(file))) return
        const json = yield* c.readJson(file, null, { jsonc: false })
        if (Option.isSome(json)) hooks.push(...sessionStartHooks(json.value.value))
      })
    const hooksFile = c.path.join(root, "hooks", "hooks.json")
    yield* fromFile(hooksFile)
    if (yield* c.exists(manifestPath)) {
      const manifest = yield* c.readJson(manifestPath, null, { jsonc: false })
      const declared = Option.match(manifest, { onNone: () => undefined, onSome: (read) => decodedOrNull(ClaudePluginManifest, manifestPath, read.value)?.hooks })
      for (const entry of [declared ?? []].flat()) {
        if (typeof entry === "string") {
          for (const file of manifestPaths(c, root, entry, manifestPath)) if (file !== hooksFile) yield* fromFile(file)
        } else hooks.push(...sessionStartHooks(entry))
      }
    }
    return hooks.length === 0 ? { hooks: 0, knownChars: 0 } : yield* sessionStartFinding(c, root, hooks)
  })

/** Paths named by a plugin manifest field (a string or a list), kept inside the plugin root. */
const manifestPaths = (c: HostReading, root: string, value: string | ReadonlyArray<string>, manifest: string): ReadonlyArray<string> => {
  const list = typeof value === "string" ? [value] : value
  return list.flatMap((relative) => {
    const full = c.path.resolve(root, relative)
    const inside = c.path.relative(root, full)
    if (inside.startsWith("..") || c.path.isAbsolute(inside)) {
      c.diagnostic(manifest, null, `path ${relative} points outside the plugin; ignored`)
      return []
    }
    return [full]
  })
}

const readPluginContents = (
  c: HostReading,
  entry: InstalledPlugin,
  manifestPath: string,
  enabled: boolean,
  disabledReason: string | null
): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const path = c.path
    const root = entry.installPath
    const drafts: Array<ItemDraft> = []
    const manifestJson = (yield* c.exists(manifestPath)) ? yield* c.readJson(manifestPath, null, { jsonc: false }) : Option.none()
    const manifest = Option.match(manifestJson, { onNone: () => null, onSome: (json) => decodedOrNull(ClaudePluginManifest, manifestPath, json.value) })
    const base = { ...standalone("plugin", { plugin: entry.id, enabled, disabledReason }), ...CLAUDE_MARKDOWN }
    // A plugin's agents are `<plugin>:<name>` to the host: they compete only with each other.
    const rootAgents = (agentsDir: string): AgentPlacement => ({
      ...base,
      rank: RANK.agent.plugin,
      namespace: (name) => `agent:${entry.name}:${name}`,
      source: "plugin-root",
      agentNaming: claudePluginAgentNaming(agentsDir),
      walk: PLUGIN_AGENTS_WALK
    })
    const nestedAgents: AgentPlacement = { ...base, source: "plugin-nested", agentNaming: nameOrFileName }
    const slash: ItemPlacement = { ...base, namespace: (name) => `slash:${entry.name}:${name}` }
    const commandSlash: ItemPlacement = { ...slash, rank: RANK.slash.command }

    for (const dir of [path.join(root, "agents"), ...manifestPaths(c, root, manifest?.agents ?? [], manifestPath)]) {
      const probe = yield* c.probe(dir)
      if (probe._tag === "directory") drafts.push(...(yield* agentsIn(c, dir, null, rootAgents(dir))))
      else if (probe._tag === "file") drafts.push(...Option.toArray(yield* agentsInFile(c, dir, rootAgents(path.dirname(dir)))))
    }
    const skillDirs = [path.join(root, "skills"), ...manifestPaths(c, root, manifest?.skills ?? [], manifestPath)]
    for (const dir of skillDirs) {
      const entries = yield* c.listDir(dir, null)
      for (const skill of Option.getOrElse(entries, () => [])) {
        if (!skill.isDirectory) continue
        drafts.push(...Option.toArray(yield* skillFromDirectory(c, skill.path, slash)))
        // Agents inside a skill are scoped to that skill: listed, never in the agent namespace.
        const nested = path.join(skill.path, "agents")
        if ((yield* c.probe(nested))._tag === "directory") drafts.push(...(yield* agentsIn(c, nested, null, nestedAgents)))
      }
    }
    for (const dir of [path.join(root, "commands"), ...manifestPaths(c, root, manifest?.commands ?? [], manifestPath)]) {
      if ((yield* c.probe(dir))._tag === "directory") drafts.push(...(yield* commandsIn(c, dir, null, commandSlash)))
    }
    const mcpPlacement = { ...base, rank: RANK.mcp.plugin }
    const pluginMcp = path.join(root, ".mcp.json")
    if (yield* c.exists(pluginMcp)) {
      const json = yield* c.readJson(pluginMcp, null, { jsonc: false })
      if (Option.isSome(json)) drafts.push(...mcpDrafts(c, pluginServersOf(pluginMcp, json.value.value), pluginMcp, json.value.file.mtime, "plugin", mcpPlacement, "mcp"))
    }
    const manifestServers = manifest?.mcpServers
    const sources = manifestServers === undefined ? [] : typeof manifestServers === "string" || !Array.isArray(manifestServers) ? [manifestServers] : manifestServers
    for (const source of sources) {
      if (typeof source === "string") {
        for (const file of manifestPaths(c, root, source, manifestPath)) {
          const json = yield* c.readJson(file, null, { jsonc: false })
          if (Option.isSome(json)) drafts.push(...mcpDrafts(c, pluginServersOf(file, json.value.value), file, json.value.file.mtime, "plugin", mcpPlacement, "mcp"))
        }
      } else {
        const mtime = Option.match(manifestJson, { onNone: () => null, onSome: (json) => json.file.mtime })
        drafts.push(...mcpDrafts(c, source, manifestPath, mtime, "plugin", mcpPlacement, "mcp"))
      }
    }
    return drafts
  })

const agentsInFile = (
  c: HostReading,
  file: string,
  placement: AgentPlacement
): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.map(agentsIn(c, c.path.dirname(file), null, placement, false), (drafts) =>
    Option.fromNullable(drafts.find((draft) => draft.fields.path === file))
  )

/** The servers of a plugin's MCP file: its `mcpServers` object, else the top level when every value looks like a server. */
const pluginServersOf = (file: string, value: unknown): Readonly<Record<string, unknown>> | null => {
  const servers = decodedOrNull(McpServersFile, file, value)?.mcpServers
  if (servers !== undefined) return servers
  const record = decodedOrNull(ClaudePluginMcpFile, file, value)
  if (record === null) return null
  const keys = Object.keys(record)
  return keys.length > 0 && keys.every((key) => looksLikeServer(record[key])) ? record : null
}

interface McpContext {
  readonly userDir: string
  readonly stateFile: string
  readonly managedDir: string
  readonly projects: ReadonlyArray<string>
  readonly projectClaudeDirs: ReadonlyArray<{ readonly dir: string; readonly claude: string }>
  readonly settings: ReadonlyArray<ClaudeSettingsSource>
  readonly pluginServers: ReadonlyArray<ItemDraft>
}

const IGNORED_SETTINGS = "ignored by the host: Claude Code does not read mcpServers from settings files"
const IGNORED_FILE = "ignored by the host: Claude Code reads MCP servers from ~/.claude.json, .mcp.json at the project root, plugins and managed-mcp.json"

const readMcpServers = (c: HostReading, m: McpContext): Effect.Effect<void> =>
  Effect.gen(function* () {
    const path = c.path
    const drafts: Array<ItemDraft> = []
    const on = (rank: number) => ({ plugin: null, enabled: true, disabledReason: null, rank })

    // Managed: when present, it is the only source of servers.
    const managedFile = path.join(m.managedDir, "managed-mcp.json")
    const managedExists = yield* c.exists(managedFile)
    if (managedExists) {
      const json = yield* c.readJson(managedFile, "managed MCP servers", { jsonc: false })
      if (Option.isSome(json)) {
        const servers = decodedOrNull(McpServersFile, managedFile, json.value.value)?.mcpServers ?? null
        drafts.push(...mcpDrafts(c, servers, managedFile, json.value.file.mtime, "managed", on(RANK.mcp.managed), "mcp"))
      }
    }

    // User and local scope: ~/.claude.json (large: it is also Claude Code's state file).
    const state = yield* c.readJson(m.stateFile, "user and local MCP servers (~/.claude.json)", { jsonc: false, maxBytes: c.ctx.limits.maxStateBytes })
    const stateJson = Option.match(state, { onNone: () => null, onSome: (json) => decodedOrNull(ClaudeJson, m.stateFile, json.value) })
    const stateMtime = Option.match(state, { onNone: () => null, onSome: (json) => json.file.mtime })
    drafts.push(...mcpDrafts(c, stateJson?.mcpServers ?? null, m.stateFile, stateMtime, "user", on(RANK.mcp.user), "mcp"))
    const projectsMap = stateJson?.projects ?? null
    const projectKey = localProjectKey(projectsMap, c.env.cwd, path, c.env.os)
    const projectEntry = projectKey === undefined || projectsMap === null ? null : decodeProjectEntry(projectsMap[projectKey])
    if (projectKey !== undefined) {
      drafts.push(
        ...mcpDrafts(c, projectEntry?.mcpServers ?? null, `${m.stateFile}`, stateMtime, "local", on(RANK.mcp.local), "mcp").map(
          (draft) => ({ ...draft, entry: `projects/${projectKey}/${draft.entry}` })
        )
      )
    }

    // Project scope: the nearest .mcp.json walking up from the working directory.
    for (const dir of m.projects) {
      const file = path.join(dir, ".mcp.json")
      if (!(yield* c.exists(file))) continue
      const json = yield* c.readJson(file, "project MCP servers (.mcp.json)", { jsonc: false })
      if (Option.isSome(json)) {
        const servers = decodedOrNull(McpServersFile, file, json.value.value)?.mcpServers ?? null
        if (servers === null) c.diagnostic(file, null, "no `mcpServers` object")
        drafts.push(...mcpDrafts(c, servers, file, json.value.file.mtime, "project", on(RANK.mcp.project), "mcp"))
      }
      break
    }

    drafts.push(...m.pluginServers)

    // Present but ignored: mcpServers in settings files and MCP files in places the host never reads.
    for (const { source, value: servers } of settingsWith(m.settings, "mcpServers")) {
      const count = Object.keys(servers).length
      c.diagnostic(source.path, null, `${count} MCP server entr${count === 1 ? "y" : "ies"} under mcpServers: ${IGNORED_SETTINGS}`)
      drafts.push(...mcpDrafts(c, servers, source.path, null, source.scope, { plugin: null, enabled: false, disabledReason: IGNORED_SETTINGS, rank: 0 }, "ignored"))
    }
    const wrongFiles: ReadonlyArray<readonly [string, AgentItemScope]> = [
      [path.join(m.userDir, "mcp.json"), "user"],
      [path.join(m.userDir, ".mcp.json"), "user"],
      ...m.projectClaudeDirs.flatMap(({ claude }): ReadonlyArray<readonly [string, AgentItemScope]> => [
        [path.join(claude, "mcp.json"), "project"],
        [path.join(claude, ".mcp.json"), "project"]
      ])
    ]
    for (const [file, scope] of wrongFiles) {
      if (!(yield* c.exists(file))) continue
      const json = yield* c.readJson(file, null, { jsonc: false })
      if (Option.isNone(json)) continue
      const servers = pluginServersOf(file, json.value.value)
      c.diagnostic(file, null, `MCP servers in this file are ${IGNORED_FILE}`)
      drafts.push(...mcpDrafts(c, servers, file, json.value.file.mtime, scope, { plugin: null, enabled: false, disabledReason: IGNORED_FILE, rank: 0 }, "ignored"))
    }

    // Switches: managed exclusivity, allow/deny lists, project-server approvals.
    const switches = claudeMcpSwitches(m.settings, projectEntry, managedExists)
    for (const draft of drafts) {
      const fields = draft.fields
      if (fields.kind !== "mcpServer" || !fields.enabled) {
        c.add(draft)
        continue
      }
      const reason = claudeMcpServerOff(switches, { name: fields.name, scope: fields.scope, command: fields.command === null ? [] : [fields.command, ...fields.args] })
      c.add(reason === null ? draft : { ...draft, fields: { ...fields, enabled: false, disabledReason: reason } })
    }
  })

const decodeProjectEntry = decodeEntry(ClaudeProjectEntry, {})
