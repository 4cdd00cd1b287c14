import { Effect, Option } from "effect"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import { agentsIn, draftAt, fileFields, instructionsFile, type ItemPlacement, skillsIn, standalone } from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import type { ItemDraft } from "./precedence.js"
import {
  asRecord,
  asString,
  asStringArray,
  describe,
  dirsToGitRoot,
  HostCollector,
  type HostReadContext,
  type HostReadResult,
  own,
  readConfigFiles
} from "./shared.js"

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
 */
export const readGemini = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = new HostCollector("gemini", ctx)
    const path = ctx.path
    const userDir = path.join(ctx.env.homedir, ".gemini")
    const workspaceDir = path.join(ctx.env.cwd, ".gemini")
    const hasWorkspace = path.resolve(workspaceDir) !== path.resolve(userDir) && (yield* c.probe(workspaceDir))._tag === "directory"

    const sources: ReadonlyArray<readonly [string, AgentItemScope, number, string, boolean]> = [
      [geminiSystemSettings(ctx), "managed", 0, "system settings", false],
      ...(hasWorkspace ? [[path.join(workspaceDir, "settings.json"), "project", 10, "workspace settings", false] as const] : []),
      [path.join(userDir, "settings.json"), "user", 20, "user settings", true]
    ]
    const settings = yield* readConfigFiles(c, sources, "settings file")
    const firstSetting = <A>(read: (value: Readonly<Record<string, unknown>>) => A | null): A | null => {
      for (const setting of settings) {
        const found = read(setting.value)
        if (found !== null) return found
      }
      return null
    }
    const excluded = new Set(firstSetting((value) => asStringArray(own(asRecord(own(value, "mcp")), "excluded")) ?? asStringArray(own(value, "excludeMCPServers"))) ?? [])
    const allowed = firstSetting((value) => asStringArray(own(asRecord(own(value, "mcp")), "allowed")) ?? asStringArray(own(value, "allowMCPServers")))

    const servers: Array<ItemDraft> = []
    for (const setting of settings) {
      servers.push(...mcpDrafts(c, asRecord(own(setting.value, "mcpServers")), setting.file.path, setting.file.mtime, setting.scope, { plugin: null, enabled: true, disabledReason: null, rank: setting.rank }, "mcp", "gemini"))
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
      const manifest = asRecord(json.value.value)
      const name = asString(own(manifest, "name")) ?? entry.name
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
          version: asString(own(manifest, "version"))
        },
        entry: null,
        namespace: `plugin:${name}`,
        rank: 0
      })
      servers.push(...mcpDrafts(c, asRecord(own(manifest, "mcpServers")), manifestPath, json.value.file.mtime, "plugin", { plugin: name, enabled: true, disabledReason: null, rank: 30 }, "mcp", "gemini"))
      extensionCommandDirs.push([path.join(entry.path, "commands"), name])
      const contextNames = contextFileNames(own(manifest, "contextFileName"))
      for (const contextName of contextNames) {
        const draft = yield* instructionsFile(c, path.join(entry.path, contextName), `extension ${name} context`, standalone("plugin", { plugin: name }))
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    for (const draft of servers) {
      const fields = draft.fields
      if (fields.kind !== "mcpServer" || !fields.enabled) {
        c.add(draft)
        continue
      }
      const reason = excluded.has(fields.name)
        ? "excluded by mcp.excluded"
        : allowed !== null && !allowed.includes(fields.name)
        ? "not in mcp.allowed"
        : null
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
    const skillPlacement = (scope: AgentItemScope, rank: number): ItemPlacement => ({ ...standalone(scope, { rank }), namespace: (name) => `skill:${name}` })
    if (hasWorkspace) {
      for (const draft of yield* agentsIn(c, path.join(workspaceDir, "agents"), "project agents", agentPlacement("project", 0), false)) c.add(draft)
      for (const draft of yield* skillsIn(c, path.join(workspaceDir, "skills"), "project skills", skillPlacement("project", 0))) c.add(draft)
    }
    for (const draft of yield* agentsIn(c, path.join(userDir, "agents"), "user agents", agentPlacement("user", 10), false)) c.add(draft)
    for (const draft of yield* skillsIn(c, path.join(userDir, "skills"), "user skills", skillPlacement("user", 10))) c.add(draft)

    // Context files: the global one, then each directory up to the repository root.
    const names = contextFileNames(firstSetting((value) => own(asRecord(own(value, "context")), "fileName") ?? own(value, "contextFileName") ?? null))
    const projects = yield* dirsToGitRoot(c)
    for (const name of names) {
      const global = yield* instructionsFile(c, path.join(userDir, name), "user context", standalone("user"))
      if (Option.isSome(global)) c.add(global.value)
      for (const dir of [...projects].reverse()) {
        const draft = yield* instructionsFile(c, path.join(dir, name), "project context", standalone("project"))
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    return c.result()
  })

const contextFileNames = (value: unknown): ReadonlyArray<string> => {
  const names = typeof value === "string" ? [value] : asStringArray(value) ?? []
  const safe = names.filter((name) => name.length > 0 && !name.includes("/") && !name.includes("\\"))
  return safe.length === 0 ? ["GEMINI.md"] : safe
}

/** A command from `commands/<a>/<b>.toml`, named `a:b`. */
const commandFromToml = (
  c: HostCollector,
  commandsDir: string,
  file: string,
  scope: AgentItemScope,
  rank: number,
  plugin: string | null
): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.map(c.readToml(file, null), (toml) =>
    Option.flatMap(toml, ({ file: read, value }) => {
      const record = asRecord(value)
      if (asString(own(record, "prompt")) === null) {
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
            description: describe(asString(own(record, "description")), null),
            argumentHint: null,
            allowedTools: null,
            model: null
          },
          placement
        )
      )
    })
  )
