/**
 * Claude Code's permission deny rules that can name an MCP tool, read when the gateway starts in
 * front of Claude Code's servers (so a rule added after `gateway setup` holds): `permissions.deny`
 * of every settings file Claude Code reads — the managed file and its `managed-settings.d/`
 * drop-ins, each project's `.claude/settings.local.json` and `.claude/settings.json` from the
 * working directory up to its git root, and the user's `settings.json` (`$CLAUDE_CONFIG_DIR` or
 * `~/.claude`). Deny rules of all of them hold together. They become each server's
 * `claudeDeny` filter, or leave a server out when one denies all its tools.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import * as NodePath from "node:path"
import { ClaudeSettings, claudeDeniesServer, claudeDenyRulesOf, decodedOrNull, claudeManagedDir, claudePluginServerName, claudeProjectDirs, claudeRulesFor, claudeSettingsPaths, mcpDenyRules, type ServerConfig, type SkippedServer } from "../../inventory/discover/agentHosts/index.js"
import { neutralize } from "../../inventory/render/text.js"
import { MachineEnvironment } from "../../services/MachineEnvironment.js"
import { readBoundedFile } from "./boundedFile.js"

const SETTINGS_MAX_BYTES = 4 * 1024 * 1024

/** The deny rules, and the settings files that could not be used (path and why). */
export interface ClaudeDenyRules {
  readonly rules: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
}

/** The settings files Claude Code reads: the inventory's reader's own list (`claudeSettingsPaths`). */
const settingsFiles = Effect.gen(function*() {
  const env = yield* MachineEnvironment
  const fs = yield* FileSystem.FileSystem
  const path = env.os === "win32" ? NodePath.win32 : NodePath.posix
  const configDir = env.env["CLAUDE_CONFIG_DIR"]
  const userDir = configDir !== undefined && configDir.length > 0 ? path.resolve(configDir) : path.join(env.homedir, ".claude")
  const managedDir = claudeManagedDir(env.os)
  const dropIns = yield* fs.readDirectory(path.join(managedDir, "managed-settings.d")).pipe(Effect.orElseSucceed(() => []))
  const projects = yield* claudeProjectDirs(path, env.cwd, env.homedir, (file) => fs.exists(file).pipe(Effect.orElseSucceed(() => false)))
  return claudeSettingsPaths(path, {
    managedDir,
    dropIns: dropIns.filter((name) => name.endsWith(".json")).sort().map((name) => path.join(managedDir, "managed-settings.d", name)),
    projectClaudeDirs: projects.map((dir) => path.join(dir, ".claude")).filter((claude) => claude !== userDir),
    userDir
  }).map(({ file }) => file)
})

/** Reads the MCP deny rules of every settings file Claude Code reads; a file that cannot be used is named in `problems`. */
export const readClaudeDenyRules = Effect.fn("readClaudeDenyRules")(function*() {
  const rules: Array<string> = []
  const problems: Array<string> = []
  for (const file of yield* settingsFiles) {
    const bytes = yield* readBoundedFile(file, SETTINGS_MAX_BYTES).pipe(
      Effect.catchAll((error) =>
        Effect.sync(() => {
          problems.push(error.message)
          return Option.none<Uint8Array>()
        })
      )
    )
    if (Option.isNone(bytes)) continue
    const text = new TextDecoder().decode(bytes.value)
    const parsed = Either.try(() => JSON.parse(text) as unknown)
    // Claude Code ignores a settings file it cannot parse; so does this reader, saying so.
    if (Either.isLeft(parsed)) problems.push(`${file} is not valid JSON`)
    else rules.push(...claudeDenyRulesOf([decodedOrNull(ClaudeSettings, file, parsed.right) ?? {}]))
  }
  for (const problem of problems) yield* Effect.logWarning(`tool-map mcp --gateway: a Claude Code settings file was left out: ${neutralize(problem)}`)
  return { rules: mcpDenyRules(rules), problems } satisfies ClaudeDenyRules
})

/** The server's name as Claude Code knows it: a plugin's server is `plugin:<plugin>:<server>`. */
export const claudeServerName = (name: string, plugin: string | null): string => (plugin === null ? name : claudePluginServerName(plugin, name))

/**
 * A Claude Code server with the deny rules that hold for it as its filter, or why it is left
 * out: a rule denies every tool it could have. `claudeName` is its name to Claude Code.
 */
export const withClaudeDeny = (config: ServerConfig, claudeName: string, allRules: ReadonlyArray<string>): ServerConfig | SkippedServer => {
  const rules = claudeRulesFor(allRules, claudeName)
  if (rules.length === 0) return config
  const whole = claudeDeniesServer(rules, claudeName)
  if (whole !== undefined) return { name: config.name, reason: `Claude Code's permission deny rule ${whole} denies all its tools` }
  return { ...config, tools: { ...config.tools, claudeDeny: { server: claudeName, rules } } }
}
