import { Effect, Option } from "effect"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import { agentsIn, commandsIn, instructionsFile, type ItemPlacement, skillsIn, standalone } from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import type { ItemDraft } from "./precedence.js"
import {
  asBoolean,
  asRecord,
  asString,
  type ConfigFile,
  describe,
  dirsToGitRoot,
  HostCollector,
  type HostReadContext,
  type HostReadResult,
  own,
  readConfigFiles,
  sha256
} from "./shared.js"

/** opencode's managed config directory, per OS. */
export const opencodeManagedDir = (ctx: HostReadContext): string =>
  ctx.env.os === "win32" ? "C:\\ProgramData\\opencode" : ctx.env.os === "darwin" ? "/Library/Application Support/opencode" : "/etc/opencode"

/**
 * opencode (opencode.ai/docs/config): configs merge global < OPENCODE_CONFIG < project
 * `opencode.json(c)` < `.opencode/opencode.json(c)` < managed, so the later one wins a name;
 * `mcp` entries (`type` local/remote, `enabled`), `agent` and `command` entries, and markdown
 * agents, commands and skills under `~/.config/opencode/` and `.opencode/`.
 */
export const readOpencode = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = new HostCollector("opencode", ctx)
    const path = ctx.path
    const xdg = ctx.env.env["XDG_CONFIG_HOME"]
    const configDir = path.join(xdg !== undefined && xdg.length > 0 ? xdg : path.join(ctx.env.homedir, ".config"), "opencode")
    const projects = yield* dirsToGitRoot(c)
    const custom = ctx.env.env["OPENCODE_CONFIG"]

    const candidates: Array<readonly [string, AgentItemScope, number, string, boolean]> = []
    const managedDir = opencodeManagedDir(ctx)
    for (const name of ["opencode.json", "opencode.jsonc"]) candidates.push([path.join(managedDir, name), "managed", 0, "managed config", false])
    for (const [index, dir] of projects.entries()) {
      for (const name of ["opencode.json", "opencode.jsonc"]) candidates.push([path.join(dir, ".opencode", name), "project", 10 + index, "project config", false])
    }
    for (const [index, dir] of projects.entries()) {
      for (const name of ["opencode.json", "opencode.jsonc"]) candidates.push([path.join(dir, name), "project", 100 + index, "project config", false])
    }
    if (custom !== undefined && custom.length > 0) candidates.push([path.resolve(ctx.env.cwd, custom), "user", 500, "OPENCODE_CONFIG", true])
    candidates.push([path.join(configDir, "opencode.json"), "user", 600, "global config", true])
    candidates.push([path.join(configDir, "opencode.jsonc"), "user", 601, "global config", false])

    const configs = yield* readConfigFiles(c, candidates, "config")

    for (const config of configs) {
      const placement = { plugin: null, enabled: true, disabledReason: null, rank: config.rank }
      const servers = mcpDrafts(c, asRecord(own(config.value, "mcp")), config.file.path, config.file.mtime, config.scope, placement, "mcp", "opencode")
      // Agents and commands share the file: an entry key names its section.
      for (const draft of servers) c.add({ ...draft, entry: `mcp/${draft.entry}` })
      const agents = asRecord(own(config.value, "agent"))
      for (const name of Object.keys(agents ?? {})) c.add(agentFromConfig(config, name, asRecord(agents![name])))
      const commands = asRecord(own(config.value, "command"))
      for (const name of Object.keys(commands ?? {})) c.add(commandFromConfig(config, name, asRecord(commands![name])))
    }

    // Markdown agents, commands, skills: `.opencode/` of the project (nearest first), then global.
    const homes: Array<readonly [string, AgentItemScope, number, string]> = []
    for (const [index, dir] of projects.entries()) {
      const home = path.join(dir, ".opencode")
      if ((yield* c.probe(home))._tag === "directory") homes.push([home, "project", 10 + index, "project"])
    }
    homes.push([configDir, "user", 600, "global"])
    for (const [home, scope, rank, label] of homes) {
      const agentPlacement: ItemPlacement & { readonly source: "local" } = { ...standalone(scope, { rank }), namespace: (name) => `agent:${name}`, source: "local" }
      const commandPlacement: ItemPlacement = { ...standalone(scope, { rank }), namespace: (name) => `command:${name}` }
      const skillPlacement: ItemPlacement = { ...standalone(scope, { rank }), namespace: (name) => `skill:${name}` }
      const kinds = [
        ["agent", "agents", (dir: string, role: string) => agentsIn(c, dir, role, agentPlacement)],
        ["command", "commands", (dir: string, role: string) => commandsIn(c, dir, role, commandPlacement)],
        ["skill", "skills", (dir: string, role: string) => skillsIn(c, dir, role, skillPlacement)]
      ] as const
      for (const [singular, plural, read] of kinds) {
        let found = false
        for (const sub of [singular, plural]) {
          const dir = path.join(home, sub)
          if ((yield* c.probe(dir))._tag !== "directory") continue
          found = true
          for (const draft of yield* read(dir, `${label} ${plural}`)) c.add(draft)
        }
        if (!found && scope === "user") c.root(path.join(home, plural), `${label} ${plural}`, "missing")
      }
    }
    // Claude-compatible project skills, below opencode's own.
    for (const [index, dir] of projects.entries()) {
      const skills = path.join(dir, ".claude", "skills")
      if ((yield* c.probe(skills))._tag === "directory") {
        const placement: ItemPlacement = { ...standalone("project", { rank: 700 + index }), namespace: (name) => `skill:${name}` }
        for (const draft of yield* skillsIn(c, skills, "Claude-compatible project skills", placement)) c.add(draft)
      }
    }

    // AGENTS.md: global, then up to the repository root.
    const global = yield* instructionsFile(c, path.join(configDir, "AGENTS.md"), "global rules", standalone("user"))
    if (Option.isSome(global)) c.add(global.value)
    for (const dir of [...projects].reverse()) {
      const draft = yield* instructionsFile(c, path.join(dir, "AGENTS.md"), "project rules", standalone("project"))
      if (Option.isSome(draft)) c.add(draft.value)
    }
    return c.result()
  })

const entryHash = (value: unknown): string => sha256(JSON.stringify(value) ?? "null")

const agentFromConfig = (config: ConfigFile, name: string, entry: Readonly<Record<string, unknown>> | null): ItemDraft => {
  const tools = asRecord(own(entry, "tools"))
  const off = tools === null ? [] : Object.keys(tools).filter((tool) => tools[tool] === false)
  const disabled = asBoolean(own(entry, "disable")) === true
  return {
    fields: {
      kind: "agent",
      host: "opencode",
      scope: config.scope,
      name,
      path: config.file.path,
      enabled: !disabled,
      disabledReason: disabled ? "disable: true" : null,
      sha256: entryHash({ description: own(entry, "description"), model: own(entry, "model"), tools: own(entry, "tools"), mode: own(entry, "mode") }),
      mtime: config.file.mtime,
      plugin: null,
      description: describe(asString(own(entry, "description")), null),
      tools: null,
      disallowedTools: off,
      model: asString(own(entry, "model")),
      background: false,
      maxTurns: null,
      mcpServers: null,
      source: "local"
    },
    entry: `agent/${name}`,
    namespace: `agent:${name}`,
    rank: config.rank
  }
}

const commandFromConfig = (config: ConfigFile, name: string, entry: Readonly<Record<string, unknown>> | null): ItemDraft => ({
  fields: {
    kind: "command",
    host: "opencode",
    scope: config.scope,
    name,
    path: config.file.path,
    enabled: true,
    disabledReason: null,
    sha256: entryHash({ description: own(entry, "description"), model: own(entry, "model"), agent: own(entry, "agent") }),
    mtime: config.file.mtime,
    plugin: null,
    description: describe(asString(own(entry, "description")), null),
    argumentHint: null,
    allowedTools: null,
    model: asString(own(entry, "model"))
  },
  entry: `command/${name}`,
  namespace: `command:${name}`,
  rank: config.rank
})
