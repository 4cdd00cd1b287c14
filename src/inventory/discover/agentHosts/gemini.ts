import { Effect, Option } from "effect"
import { listedCost } from "../../domain/ledger.js"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import { agentsIn, draftAt, fileFields, instructionsFile, type ItemPlacement, standalone } from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import { skillHasScripts } from "./skillFiles.js"
import type { ItemDraft } from "./precedence.js"
import { asString } from "./configText.js"
import { decodedOrNull } from "./config/decode.js"
import { GeminiCommand, GeminiExtension, GeminiSettings, GeminiTrustedFolders } from "./config/geminiSettings.js"
import {
  geminiContextFileNames,
  geminiDisabledSkills,
  geminiMergedSettings,
  geminiServerFilter,
  geminiServerOff,
  type GeminiSettingsSource,
  geminiSettingsContextNames,
  type GeminiTrust,
  type GeminiTrustedFoldersFile,
  geminiTrustByRules,
  geminiTrustWithoutRules
} from "./policy/gemini.js"
import { describe } from "./frontmatterFields.js"
import { dirsToGitRoot } from "./hostPaths.js"
import { type HostReadContext, type HostReading, hostReading, type HostReadResult, readConfigFiles } from "./hostReading.js"

/** Gemini CLI's system settings file, per OS (overridable with GEMINI_CLI_SYSTEM_SETTINGS_PATH). */
export const geminiSystemSettings = (ctx: HostReadContext): string => {
  const override = ctx.env.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]
  if (override !== undefined && override.length > 0) return override
  return ctx.env.os === "win32"
    ? "C:\\ProgramData\\gemini-cli\\settings.json"
    : ctx.env.os === "darwin"
    ? "/Library/Application Support/GeminiCli/settings.json"
    : "/etc/gemini-cli/settings.json"
}

/**
 * Gemini CLI (geminicli.com/docs): settings system > workspace (`<cwd>/.gemini`) > user, all
 * JSON with comments; `mcpServers` with `includeTools`/`excludeTools`/`trust`, filtered by
 * `mcp.allowed`/`mcp.excluded`; commands `commands/**.toml` (project over user, named by path
 * with `:`); agents `agents/*.md`; extensions under `~/.gemini/extensions`; GEMINI.md files.
 * Skills (0.61.0, `gemini skills list`): `~/.gemini/skills`, `~/.agents/skills`, then the working
 * directory's `.gemini/skills` and `.agents/skills`, the later winning a name; never
 * `~/.claude/skills`. Folder trust ({@link folderTrust}) gates the workspace settings, every MCP
 * server, the project's skills and agents.
 */
export const readGemini = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = hostReading("gemini", ctx)
    const path = ctx.path
    const userDir = path.join(ctx.env.homedir, ".gemini")
    const workspaceDir = path.join(ctx.env.cwd, ".gemini")
    const hasWorkspace = path.resolve(workspaceDir) !== path.resolve(userDir) && (yield* c.probe(workspaceDir))._tag === "directory"

    const sources: ReadonlyArray<readonly [string, AgentItemScope, number, string, boolean]> = [
      [geminiSystemSettings(ctx), "managed", 0, "system settings", false],
      ...(hasWorkspace ? [[path.join(workspaceDir, "settings.json"), "project", 10, "workspace settings", false] as const] : []),
      [path.join(userDir, "settings.json"), "user", 20, "user settings", true]
    ]
    const settings = (yield* readConfigFiles(c, sources, "settings file")).map((setting) => ({
      ...setting,
      source: { path: setting.file.path, scope: setting.scope, settings: decodedOrNull(GeminiSettings, setting.file.path, setting.value) ?? {} }
    }))
    const trust = yield* folderTrust(c, settings.map((setting) => setting.source))
    const merged = geminiMergedSettings(settings.map((setting) => setting.source), trust)
    const untrusted = <P extends ItemPlacement>(placement: P): P => (trust.trusted ? placement : { ...placement, enabled: false, disabledReason: trust.reason })
    const filter = geminiServerFilter(merged)

    const servers: Array<ItemDraft> = []
    for (const setting of settings) {
      servers.push(...mcpDrafts(c, setting.source.settings.mcpServers ?? null, setting.file.path, setting.file.mtime, setting.scope, { plugin: null, enabled: true, disabledReason: null, rank: setting.rank }, "mcp", "gemini"))
    }

    // Extensions: their MCP servers, commands and context files.
    const extensionsDir = path.join(userDir, "extensions")
    const extensions = yield* c.listDir(extensionsDir, "extensions")
    const extensionCommandDirs: Array<readonly [string, string]> = []
    for (const entry of Option.getOrElse(extensions, () => [])) {
      if (!entry.isDirectory) continue
      const manifestPath = path.join(entry.path, "gemini-extension.json")
      if (!(yield* c.exists(manifestPath))) continue
      const json = yield* c.readJson(manifestPath, null, { jsonc: true })
      if (Option.isNone(json)) continue
      const manifest = decodedOrNull(GeminiExtension, manifestPath, json.value.value) ?? {}
      const name = manifest.name ?? entry.name
      c.add({
        fields: {
          kind: "plugin",
          host: "gemini",
          scope: "user",
          name,
          path: entry.path,
          enabled: true,
          disabledReason: null,
          sha256: json.value.file.sha256,
          mtime: json.value.file.mtime,
          plugin: name,
          marketplace: null,
          version: manifest.version ?? null
        },
        entry: null,
        namespace: `plugin:${name}`,
        rank: 0
      })
      servers.push(...mcpDrafts(c, manifest.mcpServers ?? null, manifestPath, json.value.file.mtime, "plugin", { plugin: name, enabled: true, disabledReason: null, rank: 30 }, "mcp", "gemini"))
      extensionCommandDirs.push([path.join(entry.path, "commands"), name])
      const contextNames = geminiContextFileNames(manifest.contextFileName)
      for (const contextName of contextNames) {
        const draft = yield* instructionsFile(c, path.join(entry.path, contextName), `extension ${name} context`, standalone("plugin", { plugin: name }))
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    for (const draft of servers) {
      const fields = draft.fields
      // Untrusted, 0.61.0 starts no MCP server at all, the user's and the extensions' included (even one switched off in its entry).
      const reason = fields.kind !== "mcpServer" || (trust.trusted && !fields.enabled) ? null : geminiServerOff(trust, filter, fields.name)
      c.add(reason === null ? draft : { ...draft, fields: { ...fields, enabled: false, disabledReason: reason } })
    }

    // Commands (TOML), agents, skills.
    const commandDirs: Array<readonly [string, AgentItemScope, number, string, string | null]> = [
      ...(hasWorkspace ? [[path.join(workspaceDir, "commands"), "project", 0, "project commands", null] as const] : []),
      [path.join(userDir, "commands"), "user", 10, "user commands", null],
      ...extensionCommandDirs.map(([dir, name]) => [dir, "plugin", 20, `extension ${name} commands`, name] as const)
    ]
    for (const [dir, scope, rank, role, plugin] of commandDirs) {
      const files = yield* c.filesWithExtension(dir, plugin === null ? role : null, true, ".toml")
      for (const file of files) {
        const draft = yield* commandFromToml(c, dir, file, scope, rank, plugin)
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    const agentPlacement = (scope: AgentItemScope, rank: number): ItemPlacement & { readonly source: "local" } => ({
      ...standalone(scope, { rank }),
      namespace: (name) => `agent:${name}`,
      source: "local"
    })
    if (hasWorkspace) {
      for (const draft of yield* agentsIn(c, path.join(workspaceDir, "agents"), "project agents", untrusted(agentPlacement("project", 0)), false)) c.add(draft)
    }
    for (const draft of yield* agentsIn(c, path.join(userDir, "agents"), "user agents", agentPlacement("user", 10), false)) c.add(draft)

    // Skills, the later source winning a name; the project's only in a trusted folder.
    const disabledSkills = geminiDisabledSkills(merged)
    const skillSources: ReadonlyArray<readonly [string, AgentItemScope, string, boolean]> = [
      [path.join(userDir, "skills"), "user", "user skills", true],
      [path.join(ctx.env.homedir, ".agents", "skills"), "user", "shared user skills (~/.agents/skills)", true],
      ...(path.resolve(ctx.env.cwd) === path.resolve(ctx.env.homedir)
        ? []
        : [[path.join(workspaceDir, "skills"), "project", "project skills", false] as const, [path.join(ctx.env.cwd, ".agents", "skills"), "project", "shared project skills (.agents/skills)", false] as const])
    ]
    for (const [index, [dir, scope, role, recordMissing]] of skillSources.entries()) {
      if (dir.endsWith(path.join(".agents", "skills"))) c.shareDir(dir)
      if (!recordMissing && (yield* c.probe(dir))._tag !== "directory") continue
      const base: ItemPlacement = { ...standalone(scope, { rank: 100 - index }), namespace: (name) => `skill:${name}`, dialect: "claude-code" }
      const placement = scope === "project" ? untrusted(base) : base
      for (const draft of yield* geminiSkillsIn(c, dir, role, placement)) {
        const fields = draft.fields
        c.add(fields.enabled && disabledSkills.has(fields.name) ? { ...draft, fields: { ...fields, enabled: false, disabledReason: "named in skills.disabled" } } : draft)
      }
    }

    // Context files: the global one, then each directory up to the repository root.
    const names = geminiSettingsContextNames(merged)
    const projects = yield* dirsToGitRoot(c)
    for (const name of names) {
      const global = yield* instructionsFile(c, path.join(userDir, name), "user context", standalone("user"))
      if (Option.isSome(global)) c.add(global.value)
      for (const dir of [...projects].reverse()) {
        // 0.61.0 puts no project memory in context in an untrusted folder.
        const draft = yield* instructionsFile(c, path.join(dir, name), "project context", untrusted(standalone("project")))
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    return c.result()
  })

/** A command from `commands/<a>/<b>.toml`, named `a:b`. */
const commandFromToml = (
  c: HostReading,
  commandsDir: string,
  file: string,
  scope: AgentItemScope,
  rank: number,
  plugin: string | null
): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.map(c.readToml(file, null), (toml) =>
    Option.flatMap(toml, ({ file: read, value }) => {
      const command = decodedOrNull(GeminiCommand, file, value) ?? {}
      const prompt = command.prompt
      if (prompt === undefined) {
        c.diagnostic(file, null, "command has no `prompt` string; Gemini CLI skips it")
        return Option.none()
      }
      const relative = c.path.relative(commandsDir, file).replace(/\.toml$/i, "")
      const name = relative.split(/[\\/]/).join(":")
      const placement: ItemPlacement = { ...standalone(scope, { rank, plugin }), namespace: (command) => `command:${command}` }
      return Option.some(
        draftAt(
          {
            kind: "command",
            ...fileFields(c, read, name, placement),
            description: describe(command.description ?? null, null),
            argumentHint: null,
            allowedTools: null,
            model: null
          },
          placement,
          listedCost("gemini", "command", name, null, prompt)
        )
      )
    })
  )

/** Whether Gemini CLI trusts the working directory, and if not, which rule says so (the rule: `policy/gemini.ts`). */
export type { GeminiTrust } from "./policy/gemini.js"

/**
 * Gemini CLI's folder trust ({@link geminiTrustWithoutRules}, then {@link geminiTrustByRules}
 * of `trustedFolders.json`: `GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `~/.gemini/`); a file that
 * stops the host is a diagnostic on it.
 */
export const folderTrust = (c: HostReading, settings: ReadonlyArray<GeminiSettingsSource>): Effect.Effect<GeminiTrust> =>
  Effect.gen(function* () {
    const env = c.env.env
    const decided = geminiTrustWithoutRules(env, settings)
    if (decided !== null) return decided
    const override = env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"]
    const file = override !== undefined && override.length > 0 ? override : c.path.join(c.env.homedir, ".gemini", "trustedFolders.json")
    const read: GeminiTrustedFoldersFile = yield* Effect.gen(function* () {
      if (!(yield* c.exists(file))) return { _tag: "Missing" } as const
      const json = yield* c.readJson(file, "trusted folders", { jsonc: true })
      if (Option.isNone(json)) return { _tag: "Invalid", why: "unreadable or invalid JSON" } as const
      const rules = decodedOrNull(GeminiTrustedFolders, file, json.value.value)
      return rules === null ? { _tag: "Invalid", why: "not a JSON object" } as const : { _tag: "Rules", rules } as const
    })
    const judged = geminiTrustByRules(file, read, c.env.cwd, c.path)
    if (judged.problem !== null) c.diagnostic(file, null, judged.problem)
    return judged.trust
  })

/**
 * Skills of one Gemini CLI skills folder (0.61.0): `SKILL.md` in the folder itself or one level
 * down (no dotted folder), with `name` and `description` strings; `:\\/<>*?"|` in the name become `-`.
 */
const geminiSkillsIn = (c: HostReading, dir: string, role: string, placement: ItemPlacement): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.gen(function* () {
    const entries = yield* c.listDir(dir, role)
    if (Option.isNone(entries)) return []
    const files = [
      ...entries.value.filter((entry) => entry.isFile && entry.name === "SKILL.md").map((entry) => entry.path),
      ...entries.value.filter((entry) => entry.isDirectory && !entry.name.startsWith(".")).map((entry) => c.path.join(entry.path, "SKILL.md"))
    ]
    const drafts: Array<ItemDraft> = []
    for (const file of files) {
      if (!(yield* c.exists(file))) continue
      const read = yield* c.readMarkdown(file, placement.dialect ?? "yaml")
      if (Option.isNone(read)) continue
      const { doc, file: bytes } = read.value
      const name = asString(doc.fields["name"])
      const description = asString(doc.fields["description"])
      if (name === null || description === null) {
        c.diagnostic(file, null, "a skill needs `name` and `description` strings; Gemini CLI skips it")
        continue
      }
      const hasScripts = yield* skillHasScripts(c, file)
      drafts.push(draftAt({
        kind: "skill",
        ...fileFields(c, bytes, name.replace(/[:\\/<>*?"|]/g, "-"), placement),
        description: describe(description, null),
        allowedTools: c.toolListField(doc.fields, ["allowed-tools", "allowedTools", "allowed_tools"], file),
        hasScripts
      }, placement, listedCost("gemini", "skill", name, describe(description, null), doc.body, file)))
    }
    return drafts
  })
