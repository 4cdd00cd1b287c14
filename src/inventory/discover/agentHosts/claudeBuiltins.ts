/**
 * Claude Code's own items (issue 28, point 4): the built-in agent types and the skills the host
 * brings (its bundled skills, the `plugin-authoring` skill of a `@builtin` plugin, and the
 * built-in `init` and `security-review` prompts), which every session lists before the user's.
 *
 * They are not data in the installed package: 2.1.332 ships one native executable whose
 * JavaScript registers them in code (built-in agents as literal objects
 * `{agentType:"general-purpose",whenToUse:"…",tools:["*"],source:"built-in"}`; bundled skills
 * through calls whose descriptions are often getters or depend on remote flags, e.g.
 * `claude-api`'s `listingDescription`). So tool-map keeps, per version, the names and the
 * character length of each listing line as the host sends it, measured in the first request of a
 * scripted session of 2.1.332 (`npm run conformance`, a 200k and a 1M model) and the names
 * checked against the bundle's strings. Another version: unknown (the ledger says so).
 *
 * The version is the installed Claude Code's: the `claude` that PATH gives, read from the npm
 * package it belongs to (`@anthropic-ai/claude-code`'s package.json beside `node_modules/.bin`
 * or under a global prefix's `lib/node_modules`), never by running it. The inventory lists the
 * host's own items only when that version is found and known.
 */
import { Effect, Option } from "effect"
import type { AgentItemScope } from "../../domain/agentHosts.js"
import type { CostDraft } from "../../domain/ledger.js"
import { parseJsonText } from "./configText.js"
import type { HostReading } from "./hostReading.js"
import type { ItemDraft } from "./precedence.js"

/** A built-in agent: its name and the length of its listing line `- <name>: <whenToUse> (Tools: …)`. */
interface BuiltinAgent {
  readonly name: string
  readonly lineChars: number
  /** The line with the agent's shorter `whenToUseLean`, sent to the newer models (seen with claude-opus-5-5). */
  readonly leanLineChars?: number
}

/** A skill of the host: the length of its full line and of its name-only line. */
interface BuiltinSkill {
  readonly name: string
  readonly lineChars: number
  /**
   * False for a bundled skill (`source: "bundled"`), which the listing always gives in full
   * (`q3n`); true for a built-in prompt (`init`, `security-review`), cut to its name line like
   * the user's skills (seen with the 200k model's budget).
   */
  readonly truncatable: boolean
}

export interface ClaudeBuiltins {
  readonly version: string
  readonly agents: ReadonlyArray<BuiltinAgent>
  readonly skills: ReadonlyArray<BuiltinSkill>
}

/** Claude Code 2.1.332's own agents and skills, as its first request lists them. */
export const CLAUDE_BUILTINS: ClaudeBuiltins = {
  version: "2.1.332",
  agents: [
    { name: "claude", lineChars: 132 },
    { name: "Explore", lineChars: 746, leanLineChars: 539 },
    { name: "general-purpose", lineChars: 309 },
    { name: "Plan", lineChars: 364 },
    { name: "statusline-setup", lineChars: 111 }
  ],
  skills: [
    // Its description runs over three lines (a TRIGGER and a SKIP paragraph after the first): 1,171 characters in all.
    { name: "claude-api", lineChars: 1171, truncatable: false },
    { name: "code-review", lineChars: 850, truncatable: false },
    { name: "dataviz", lineChars: 1447, truncatable: false },
    { name: "fewer-permission-prompts", lineChars: 191, truncatable: false },
    { name: "init", lineChars: 67, truncatable: true },
    { name: "keybindings-help", lineChars: 248, truncatable: false },
    { name: "loop", lineChars: 344, truncatable: false },
    { name: "plugin-authoring", lineChars: 275, truncatable: false },
    { name: "run", lineChars: 368, truncatable: false },
    { name: "security-review", lineChars: 90, truncatable: true },
    { name: "simplify", lineChars: 188, truncatable: false },
    { name: "update-config", lineChars: 707, truncatable: false },
    { name: "workflow-authoring", lineChars: 252, truncatable: false }
  ]
}

/** What the host's own items cost in a session of a model, and what they take of the skill listing's budget. */
export interface BuiltinCost {
  readonly version: string
  readonly agents: ReadonlyArray<string>
  readonly skills: ReadonlyArray<string>
  /** Characters of their agent and skill lines (the skills' newlines included). */
  readonly chars: number
  /**
   * What they take of the skill listing's budget before the user's skills: every line and its
   * newline, a truncatable one by its name line (`- <name>`; tool-map does not rank them against
   * the user's skills, an approximation).
   */
  readonly budgetChars: number
}

/**
 * The host's own items for a model: the lean Explore line for the models counted at 3
 * characters a token (seen with claude-opus-5-5; the gate behind `whenToUseLean` was not traced).
 */
export const builtinCost = (charsPerToken: number, builtins: ClaudeBuiltins = CLAUDE_BUILTINS): BuiltinCost => {
  const agentChars = builtins.agents.reduce((sum, agent) => sum + (charsPerToken === 3 ? agent.leanLineChars ?? agent.lineChars : agent.lineChars), 0)
  const nameLine = (skill: BuiltinSkill) => `- ${skill.name}`.length
  const budgetChars = builtins.skills.reduce((sum, skill) => sum + (skill.truncatable ? nameLine(skill) : skill.lineChars) + 1, 0)
  return {
    version: builtins.version,
    agents: builtins.agents.map((agent) => agent.name),
    skills: builtins.skills.map((skill) => skill.name),
    chars: agentChars + budgetChars,
    budgetChars
  }
}

/** The versions whose own items tool-map knows. */
export const KNOWN_BUILTINS: ReadonlyArray<ClaudeBuiltins> = [CLAUDE_BUILTINS]

/** The installed Claude Code PATH gives: its executable and, when its package says, its version. */
export interface InstalledClaudeCode {
  readonly executable: string
  readonly version: string | null
}

/** A package.json is read up to this size (Claude Code's is about 1.5 KiB). */
const MAX_PACKAGE_JSON_BYTES = 64 * 1024

/**
 * The first `claude` on PATH, and the version of the npm package it is the binary of; none when
 * PATH has no `claude`. The package is looked for where npm puts it: `<dir>/../@anthropic-ai/
 * claude-code` for a `node_modules/.bin` directory, `<dir>/../lib/node_modules/@anthropic-ai/
 * claude-code` for a global prefix's `bin`, `<dir>/node_modules/@anthropic-ai/claude-code` for a
 * Windows npm prefix (a native install keeps no package.json: version unknown).
 */
export const installedClaudeCode = (c: HostReading): Effect.Effect<Option.Option<InstalledClaudeCode>> =>
  Effect.gen(function* () {
    const path = c.path
    const separator = c.env.os === "win32" ? ";" : ":"
    const names = c.env.os === "win32" ? ["claude.exe", "claude.cmd", "claude"] : ["claude"]
    for (const dir of (c.env.env["PATH"] ?? "").split(separator)) {
      if (dir === "" || !path.isAbsolute(dir)) continue
      for (const name of names) {
        const executable = path.join(dir, name)
        const probe = yield* c.probe(executable)
        if (probe._tag !== "file") continue
        const packageDirs = [
          path.join(dir, "..", "@anthropic-ai", "claude-code"),
          path.join(dir, "..", "lib", "node_modules", "@anthropic-ai", "claude-code"),
          // npm on Windows puts the prefix's shims beside its node_modules (`%APPDATA%\\npm\\claude.cmd`).
          path.join(dir, "node_modules", "@anthropic-ai", "claude-code")
        ]
        for (const packageDir of packageDirs) {
          const manifest = path.join(packageDir, "package.json")
          if ((yield* c.probe(manifest))._tag !== "file") continue
          const read = yield* c.readFile(manifest, null, MAX_PACKAGE_JSON_BYTES)
          if (Option.isNone(read)) continue
          const value = yield* Effect.option(parseJsonText(new TextDecoder("utf-8").decode(read.value.bytes)))
          const fields = Option.getOrNull(value)
          if (typeof fields === "object" && fields !== null && !Array.isArray(fields) && (fields as Record<string, unknown>)["name"] === "@anthropic-ai/claude-code") {
            const version = (fields as Record<string, unknown>)["version"]
            return Option.some({ executable, version: typeof version === "string" ? version : null })
          }
        }
        return Option.some({ executable, version: null })
      }
    }
    return Option.none()
  })

/** The host's own items of a known version, by its listing lines' projection (round(chars / 4)). */
const ownCost = (chars: number): CostDraft => ({ alwaysOn: "", onInvokeTokens: null, measuredTokens: Math.round(chars / 4) })

const BUILTIN: AgentItemScope = "builtin"

/**
 * Claude Code's own agents and skills as inventory items of scope `builtin`, defined by its
 * executable. A user's agent of the same name wins over a built-in one (lowest rank in the agents'
 * namespace); the skills never compete. `charsPerToken` picks the line the model is sent.
 */
export const builtinDrafts = (installed: InstalledClaudeCode, builtins: ClaudeBuiltins, charsPerToken: number): ReadonlyArray<ItemDraft> => {
  const common = {
    host: "claude-code" as const,
    scope: BUILTIN,
    path: installed.executable,
    enabled: true,
    disabledReason: null,
    sha256: null,
    mtime: null,
    plugin: null,
    description: null
  }
  const agents = builtins.agents.map((agent): ItemDraft => ({
    fields: {
      kind: "agent",
      ...common,
      name: agent.name,
      tools: null,
      disallowedTools: [],
      model: null,
      background: false,
      maxTurns: null,
      mcpServers: null,
      source: "local"
    },
    cost: ownCost(charsPerToken === 3 ? agent.leanLineChars ?? agent.lineChars : agent.lineChars),
    entry: `builtin:agent:${agent.name}`,
    namespace: `agent:${agent.name}`,
    rank: 10_000
  }))
  const skills = builtins.skills.map((skill): ItemDraft => ({
    fields: { kind: "skill", ...common, name: skill.name, allowedTools: null, hasScripts: false },
    cost: ownCost(skill.truncatable ? `- ${skill.name}`.length : skill.lineChars),
    entry: `builtin:skill:${skill.name}`,
    namespace: null,
    rank: 10_000
  }))
  return [...agents, ...skills]
}
