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
 */

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
    { name: "claude-api", lineChars: 164, truncatable: false },
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
