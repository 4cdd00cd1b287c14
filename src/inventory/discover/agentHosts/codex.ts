import { Effect, Option } from "effect"
import { listedCost } from "../../domain/ledger.js"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import { commandsIn, draftAt, fileFields, instructionsFile, type ItemPlacement, skillsIn, standalone } from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import type { ItemDraft } from "./precedence.js"
import { CodexAgent, CodexConfig } from "./config/codexConfig.js"
import { decodedOrNull } from "./config/decode.js"
import { CODEX_UNTRUSTED, codexTrusts } from "./policy/codex.js"
import { baseName, describe } from "./frontmatterFields.js"
import { ancestors, dirsToGitRoot } from "./hostPaths.js"
import { type HostReadContext, hostReading, type HostReading, type HostReadResult } from "./hostReading.js"

/**
 * Codex's precedence (developers.openai.com/codex): project `.codex/config.toml` (trusted
 * projects only) over `$CODEX_HOME/config.toml`; skills REPO (nearest first) > USER > ADMIN;
 * custom agents project over user; AGENTS.override.md over AGENTS.md in the same directory.
 */
export const readCodex = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = hostReading("codex", ctx)
    const path = ctx.path
    const codexHomeVar = ctx.env.env["CODEX_HOME"]
    const codexHome = codexHomeVar !== undefined && codexHomeVar.length > 0 ? path.resolve(codexHomeVar) : path.join(ctx.env.homedir, ".codex")
    const projects = yield* dirsToGitRoot(c)

    // MCP servers.
    const userConfigPath = path.join(codexHome, "config.toml")
    const userConfig = yield* c.readToml(userConfigPath, "user config")
    const userDecoded = Option.match(userConfig, { onNone: () => null, onSome: (toml) => decodedOrNull(CodexConfig, userConfigPath, toml.value) })
    const servers = (config: CodexConfig | null, file: string, mtime: string | null, scope: AgentItemScope, rank: number, untrusted: string | null) => {
      const placement = { plugin: null, enabled: untrusted === null, disabledReason: untrusted, rank }
      for (const draft of mcpDrafts(c, config?.mcp_servers ?? null, file, mtime, scope, placement, "mcp", "codex")) c.add(draft)
    }
    for (const [index, dir] of projects.entries()) {
      const file = path.join(dir, ".codex", "config.toml")
      if (!(yield* c.exists(file))) continue
      const toml = yield* c.readToml(file, "project config")
      if (Option.isSome(toml)) {
        const trusted = codexTrusts(userDecoded, ancestors(path, dir))
        servers(decodedOrNull(CodexConfig, file, toml.value.value), file, toml.value.file.mtime, "project", index, trusted ? null : CODEX_UNTRUSTED)
      }
    }
    if (Option.isSome(userConfig)) servers(userDecoded, userConfigPath, userConfig.value.file.mtime, "user", 100, null)

    // Skills.
    const skillPlacement = (scope: AgentItemScope, rank: number): ItemPlacement => ({ ...standalone(scope, { rank }), namespace: (name) => `skill:${name}` })
    const skillDirs: Array<readonly [string, AgentItemScope, number, string]> = []
    for (const [index, dir] of projects.entries()) {
      for (const sub of [path.join(dir, ".agents", "skills"), path.join(dir, ".codex", "skills")]) {
        if ((yield* c.probe(sub))._tag === "directory") skillDirs.push([sub, "project", index, "project skills"])
      }
    }
    skillDirs.push([path.join(ctx.env.homedir, ".agents", "skills"), "user", 100, "user skills"])
    skillDirs.push([path.join(codexHome, "skills"), "user", 101, "user skills (CODEX_HOME)"])
    if (ctx.env.os !== "win32") skillDirs.push(["/etc/codex/skills", "managed", 200, "admin skills"])
    for (const [dir, scope, rank, role] of skillDirs) {
      if (dir.endsWith(path.join(".agents", "skills"))) c.shareDir(dir)
      for (const draft of yield* skillsIn(c, dir, role, skillPlacement(scope, rank))) c.add(draft)
    }

    // Custom agents (TOML).
    const agentDirs: Array<readonly [string, AgentItemScope, number, string]> = []
    for (const [index, dir] of projects.entries()) {
      const sub = path.join(dir, ".codex", "agents")
      if ((yield* c.probe(sub))._tag === "directory") agentDirs.push([sub, "project", index, "project agents"])
    }
    agentDirs.push([path.join(codexHome, "agents"), "user", 100, "user agents"])
    for (const [dir, scope, rank, role] of agentDirs) {
      const files = yield* c.filesWithExtension(dir, role, false, ".toml")
      for (const file of files) {
        const draft = yield* agentFromToml(c, file, scope, rank)
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }

    // Custom prompts (slash commands).
    const prompts = yield* commandsIn(c, path.join(codexHome, "prompts"), "user prompts", {
      ...standalone("user"),
      namespace: (name) => `prompt:${name}`
    }, false)
    for (const draft of prompts) c.add(draft)

    // AGENTS.md: global, then every directory from the repository root down to the working directory.
    const instructionDirs: ReadonlyArray<readonly [string, AgentItemScope, string]> = [
      [codexHome, "user", "user instructions"],
      ...[...projects].reverse().map((dir) => [dir, "project", "project instructions"] as const)
    ]
    for (const [dir, scope, role] of instructionDirs) {
      const placement = (rank: number): ItemPlacement => ({ ...standalone(scope, { rank }), namespace: () => `instructions:${dir}` })
      for (const [file, rank] of [["AGENTS.override.md", 0], ["AGENTS.md", 1]] as const) {
        const draft = yield* instructionsFile(c, path.join(dir, file), role, placement(rank))
        if (Option.isSome(draft)) c.add(draft.value)
      }
    }
    return c.result()
  })

const agentFromToml = (c: HostReading, file: string, scope: AgentItemScope, rank: number): Effect.Effect<Option.Option<ItemDraft>> =>
  Effect.map(c.readToml(file, null), (toml) =>
    Option.map(toml, ({ file: read, value }) => {
      const agent = decodedOrNull(CodexAgent, file, value) ?? {}
      const name = agent.name?.trim() || baseName(c.path, file)
      const servers = agent.mcp_servers ?? null
      const placement: ItemPlacement = { ...standalone(scope, { rank }), namespace: (agent) => `agent:${agent}` }
      return draftAt(
        {
          kind: "agent",
          ...fileFields(c, read, name, placement),
          description: describe(agent.description ?? null, null),
          tools: null,
          disallowedTools: [],
          model: agent.model ?? null,
          background: false,
          maxTurns: null,
          mcpServers: servers === null || Object.keys(servers).length === 0 ? null : Object.keys(servers),
          source: "local"
        },
        placement,
        // The agent's instructions are the file's text: what starting it costs.
        listedCost("codex", "agent", name, describe(agent.description ?? null, null), new TextDecoder().decode(read.bytes))
      )
    })
  )
