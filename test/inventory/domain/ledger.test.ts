import { describe, expect, it } from "vitest"
import { FastCheck } from "effect"
import { claudeAgentLine, claudeListingModel, claudeModelInvocable, describeListingModel, skillListing } from "../../../src/inventory/domain/ledger.js"

/**
 * Claude Code 2.1.332's model and skill-listing budget (issue 28, point 1), read in its bundle:
 * `K9n` (ANTHROPIC_MODEL, then the settings' `model`), `KB` (aliases: `opus` → `kn` → `opus55`,
 * `sonnet` → `Od` → `sonnet46`, `haiku` → `U_` → `haiku45`), the `models:[…]` registry
 * (`context.window`), `Hw` (4 characters a token for the models of `xB`, else 3) and
 * `Cdn(window, charsPerToken)` = `floor(window × charsPerToken × (skillListingBudgetFraction ?? 0.01))`,
 * `SLASH_COMMAND_TOOL_CHAR_BUDGET` over all.
 */
const row = (input: Parameters<typeof claudeListingModel>[0]) => {
  const listing = claudeListingModel(input)
  return [listing.model, listing.contextWindow, listing.charsPerToken, listing.budget]
}
const settings = (value: string) => ({ value, file: "/u/.claude/settings.json" })

describe("claudeListingModel (Claude Code 2.1.332)", () => {
  it("resolves the settings' model and gives its context window and listing budget", () => {
    expect([
      row({ env: {}, settingsModel: settings("opus") }),
      row({ env: {}, settingsModel: settings("sonnet") }),
      row({ env: {}, settingsModel: settings("haiku") }),
      row({ env: {}, settingsModel: settings("claude-sonnet-4-5") }),
      row({ env: {}, settingsModel: settings("claude-sonnet-4-5-20250929") }),
      row({ env: {}, settingsModel: settings("sonnet[1m]") }),
      row({ env: {}, settingsModel: settings("claude-sonnet-5") }),
      row({ env: {}, settingsModel: settings("us.anthropic.claude-opus-4-6-v1") }),
      row({ env: {}, settingsModel: settings("gpt-9") }),
      row({ env: {}, settingsModel: null })
    ]).toEqual([
      ["claude-opus-5-5", 1_000_000, 3, 30_000],
      ["claude-sonnet-4-6", 200_000, 4, 8_000],
      ["claude-haiku-4-5", 200_000, 4, 8_000],
      ["claude-sonnet-4-5", 200_000, 4, 8_000],
      ["claude-sonnet-4-5", 200_000, 4, 8_000],
      ["claude-sonnet-4-6", 1_000_000, 4, 40_000],
      ["claude-sonnet-5", 1_000_000, 3, 30_000],
      ["claude-opus-4-6", 200_000, 4, 8_000],
      ["gpt-9", 200_000, 3, 6_000],
      ["claude-sonnet-4-6", 200_000, 4, 8_000]
    ])
  })

  it("ANTHROPIC_MODEL wins over the settings; ANTHROPIC_DEFAULT_OPUS_MODEL sets what opus means; the budget variable and fraction", () => {
    expect([
      row({ env: { ANTHROPIC_MODEL: "claude-opus-4-5" }, settingsModel: settings("opus") }),
      row({ env: { ANTHROPIC_DEFAULT_OPUS_MODEL: "claude-opus-4-1" }, settingsModel: settings("opus") }),
      row({ env: { SLASH_COMMAND_TOOL_CHAR_BUDGET: "500" }, settingsModel: settings("opus") }),
      row({ env: {}, settingsModel: settings("opus"), budgetFraction: 0.02 })
    ]).toEqual([
      ["claude-opus-4-5", 200_000, 4, 8_000],
      ["claude-opus-4-1", 200_000, 4, 8_000],
      ["claude-opus-5-5", 1_000_000, 3, 500],
      ["claude-opus-5-5", 1_000_000, 3, 60_000]
    ])
  })

  it("says which model it assumed and why", () => {
    expect([
      describeListingModel(claudeListingModel({ env: {}, settingsModel: settings("opus") })),
      describeListingModel(claudeListingModel({ env: { ANTHROPIC_MODEL: "sonnet", SLASH_COMMAND_TOOL_CHAR_BUDGET: "900" }, settingsModel: null })),
      describeListingModel(claudeListingModel({ env: {}, settingsModel: null }))
    ]).toEqual([
      "claude-opus-5-5 (1,000,000-token context, \"opus\" in /u/.claude/settings.json): skill listing within 30,000 characters",
      "claude-sonnet-4-6 (200,000-token context, \"sonnet\" in ANTHROPIC_MODEL): skill listing within 900 characters (SLASH_COMMAND_TOOL_CHAR_BUDGET)",
      "claude-sonnet-4-6 (200,000-token context, Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)): skill listing within 8,000 characters"
    ])
  })
})

/** Claude Code 2.1.332's `rve` (issue 28, point 5): which skills and commands the session lists. */
describe("claudeModelInvocable (Claude Code 2.1.332)", () => {
  it("a plugin's item needs a description of its own or a when_to_use; disable-model-invocation takes any item out", () => {
    expect([
      claudeModelInvocable({ description: undefined, whenToUse: undefined, fromPlugin: true }),
      claudeModelInvocable({ description: "  ", whenToUse: undefined, fromPlugin: true }),
      claudeModelInvocable({ description: 3, whenToUse: undefined, fromPlugin: true }),
      claudeModelInvocable({ description: undefined, whenToUse: "after a change", fromPlugin: true }),
      claudeModelInvocable({ description: undefined, whenToUse: undefined, fromPlugin: false }),
      claudeModelInvocable({ description: "x", whenToUse: undefined, fromPlugin: false, disableModelInvocation: "yes" }),
      claudeModelInvocable({ description: "x", whenToUse: undefined, fromPlugin: true, disableModelInvocation: false })
    ]).toEqual([false, false, true, true, true, false, true])
  })
})

/** Claude Code 2.1.332's agent line (`Y_s`, tools written by `wKi`; issue 28, point 3). */
describe("claudeAgentLine (Claude Code 2.1.332)", () => {
  const line = (fields: { description?: unknown; whenToUse?: unknown; tools?: unknown; disallowedTools?: unknown }, plugin: string | null = null) =>
    claudeAgentLine({
      listedName: plugin === null ? "rev" : `${plugin}:rev`,
      pluginName: plugin,
      description: fields.description,
      whenToUse: fields.whenToUse,
      tools: fields.tools,
      disallowedTools: fields.disallowedTools
    })
  it("ends each line with (Tools: …)", () => {
    expect([
      line({ description: "Reviews code" }),
      line({ description: "Reviews code", tools: "Read, Grep, Bash(git add, git commit)" }),
      line({ description: "Reviews code", tools: ["Read", "Edit"], disallowedTools: "Edit" }),
      line({ description: "Reviews code", tools: ["Edit"], disallowedTools: ["Edit"] }),
      line({ description: "Reviews code", disallowedTools: "Write, Edit" }),
      line({ description: "Reviews code", tools: "*" }),
      line({ description: "Examples:\\n\\n<example>" }),
      line({ description: "Reviews code" }, "toolkit"),
      line({ whenToUse: "after a change" }, "toolkit"),
      line({}, "toolkit")
    ]).toEqual([
      "- rev: Reviews code (Tools: All tools)",
      "- rev: Reviews code (Tools: Read, Grep, Bash(git add, git commit))",
      "- rev: Reviews code (Tools: Read)",
      "- rev: Reviews code (Tools: None)",
      "- rev: Reviews code (Tools: All tools except Write, Edit)",
      "- rev: Reviews code (Tools: All tools)",
      "- rev: Examples:\n\n<example> (Tools: All tools)",
      "- toolkit:rev: Reviews code (Tools: All tools)",
      "- toolkit:rev: after a change (Tools: All tools)",
      "- toolkit:rev: Agent from toolkit plugin (Tools: All tools)"
    ])
  })
})

describe("skillListing (Claude Code 2.1.332's budget pass)", () => {
  const lines = [{ full: 40, nameOnly: 10 }, { full: 30, nameOnly: 8 }, { full: 50, nameOnly: 12 }]

  it("keeps every line whole within the budget: the lines and the newlines between them", () => {
    expect(skillListing(lines, 200)).toEqual({ cut: new Set(), chars: 40 + 30 + 50 + 2 })
    expect(skillListing([], 100)).toEqual({ cut: new Set(), chars: 0 })
  })

  it("over the budget, lists every line by name and gives descriptions back in order while they fit", () => {
    // Names 10 + 8 + 12 + 2 newlines = 32; 100 leaves 68: the first's 30 fits (38 left), the second's 22 (16 left), the third's 38 does not.
    expect(skillListing(lines, 100)).toEqual({ cut: new Set([2]), chars: 84 })
    // Without the first line, the third gets its description back: the listing shrinks by far less than the first line's 40.
    expect(skillListing(lines.slice(1), 100)).toEqual({ cut: new Set(), chars: 81 })
  })

  it("never goes over the budget unless the names alone do, and never lists more than every line whole", () => {
    const line = FastCheck.record({ nameOnly: FastCheck.integer({ min: 1, max: 60 }), extra: FastCheck.integer({ min: 0, max: 400 }) })
      .map(({ nameOnly, extra }) => ({ nameOnly, full: nameOnly + extra }))
    FastCheck.assert(FastCheck.property(FastCheck.array(line, { maxLength: 30 }), FastCheck.integer({ min: 0, max: 4000 }), (all, budget) => {
      const { cut, chars } = skillListing(all, budget)
      const separators = Math.max(0, all.length - 1)
      const whole = all.reduce((sum, entry) => sum + entry.full, 0) + separators
      const names = all.reduce((sum, entry) => sum + entry.nameOnly, 0) + separators
      expect(chars).toBeLessThanOrEqual(Math.max(budget, names))
      expect(chars).toBeLessThanOrEqual(whole)
      expect(chars).toBe(all.reduce((sum, entry, index) => sum + (cut.has(index) ? entry.nameOnly : entry.full), 0) + separators)
    }))
  })
})
