import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { markdown, scanTree } from "../../../bench/hostGenerators.js"
import { claudeCodeFixture } from "../../../scripts/conformance/fixtures/claudeCode.js"
import { estimateTextTokens } from "../../../src/inventory/domain/tokens.js"
import { contextLedger, type LedgerItemRow } from "../../../src/inventory/query/contextLedger.js"

const x80 = "x".repeat(80)

/** Items of every kind, on two hosts, and three skills over a small listing budget. */
const TREE = {
  "home/u/.claude/skills/a/SKILL.md": markdown({ name: "a", description: x80 }, "Body of a.\n"),
  "home/u/.claude/skills/b/SKILL.md": markdown({ name: "b", description: x80 }, "Body of b.\n"),
  "home/u/.claude/skills/c/SKILL.md": markdown({ name: "c", description: x80 }, "Body of c.\n"),
  "home/u/.claude/agents/rev.md": markdown({ name: "rev", description: "Reviews code", when_to_use: "after a change" }, "You review code carefully and completely.\n"),
  "home/u/.claude/agents/nodesc.md": "---\nname: nodesc\ndescription: \"\"\n---\n\n# Heading as description\n\nMore.\n",
  "home/u/.claude/commands/ship.md": markdown({ description: "Ship it" }, "Run the tests, then push the branch.\n"),
  "home/u/.claude/CLAUDE.md": "# Rules\n\nAlways run the tests.\n",
  "home/u/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["-y", "notion"] } } }),
  "home/u/.codex/config.toml": "[mcp_servers.gh]\ncommand = \"gh\"\n",
  "home/u/.codex/AGENTS.md": "Use pnpm, never npm.\n",
  "home/u/.agents/skills/lint/SKILL.md": markdown({ name: "lint", description: "Lints the code" }, "Run the linter.\n")
}

/**
 * Gemini CLI's: the skill's entry (it holds its path under the temp dir, so the test checks its
 * figure against that exact text), the agent's `  <subagent>\n    <name>scout</name>\n
 * <description>Finds the files a change touches</description>\n  </subagent>\n` (22), a command
 * (nothing until used; its prompt 2).
 */
const GEMINI_ITEMS = [
  ["skill", "deploy", "the entry's", 5],
  ["agent", "scout", 22, 5],
  ["command", "hello", 0, 2]
]

const rowsOf = (by: ReturnType<typeof contextLedger>) => by.rows as ReadonlyArray<LedgerItemRow>

/**
 * Claude Code 2.1.332's own agents and skills (issue 28, point 4), with a 200k model: their lines
 * (the longer Explore line; claude-api's three-line description) and newlines, 7,739 characters, ~1,935 tokens.
 */
const HOST_OWN = {
  version: "2.1.332",
  agents: ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
  skills: ["claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help", "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config", "workflow-authoring"],
  alwaysOnTokens: 1935
}

describe("the always-on ledger (issue 14)", () => {
  it.effect("each item's figures by its host's rules; Claude Code's listing budget leaves the last skill its name only", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(TREE, { env: { SLASH_COMMAND_TOOL_CHAR_BUDGET: "6277" } })
      const ledger = contextLedger(inventory, { by: "item" })
      expect(rowsOf(ledger).map((row) => [row.host, row.kind, row.name, row.alwaysOnTokens, row.onInvokeTokens])).toEqual(ITEMS)
      expect(ledger.totals).toEqual(TOTALS)
      expect(contextLedger(inventory, { by: "source", host: "claude-code" }).rows).toEqual(BY_SOURCE)
    }))

  it.effect("without the budget variable the three skills fit Claude Code's 8,000 characters", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree(TREE)
      const skills = rowsOf(contextLedger(inventory, { by: "item", host: "claude-code" })).filter((row) => row.kind === "skill")
      expect(skills.map((row) => [row.name, row.alwaysOnTokens])).toEqual([["a", 21], ["b", 21], ["c", 21]])
    }))

  it.effect("the listing's budget follows the model of the settings (issue 28, point 1): \"opus\" is claude-opus-5-5, 1M context, 30,000 characters", () =>
    Effect.gen(function* () {
      // 120 skills of 100-character lines: 12,119 characters, over a 200k model's 8,000 and within a 1M model's 30,000.
      const skills = Object.fromEntries(Array.from({ length: 120 }, (_, index) => {
        const name = `s${String(index).padStart(3, "0")}`
        return [`home/u/.claude/skills/${name}/SKILL.md`, markdown({ name, description: "d".repeat(92) }, "Body.\n")]
      }))
      const listed = (settings: string) =>
        Effect.map(scanTree({ ...skills, "home/u/.claude/settings.json": settings }), ({ inventory }) => {
          const ledger = contextLedger(inventory, { by: "host", host: "claude-code" })
          return [ledger.totals[0]!.alwaysOnTokens, ledger.totals[0]!.model]
        })
      expect(yield* listed(JSON.stringify({ model: "opus" }))).toEqual([
        120 * 24,
        { model: "claude-opus-5-5", source: expect.stringMatching(/\/home\/u\/\.claude\/settings\.json$/), setting: "opus", contextWindow: 1000000, skillListingBudget: 30000 }
      ])
      // claude-sonnet-4-5: 8,000 characters, less the 6,077 Claude Code's own skills take (11 bundled
      // skills in full, init and security-review by name, 13 newlines); 120 name lines (6 characters)
      // and 119 newlines leave 1,084 for descriptions of 94 characters: 11 keep theirs (24 tokens
      // each), 109 their name line (2 tokens).
      expect(yield* listed(JSON.stringify({ model: "claude-sonnet-4-5" }))).toEqual([
        11 * 24 + 109 * 2,
        { model: "claude-sonnet-4-5", source: expect.stringMatching(/settings\.json$/), setting: "claude-sonnet-4-5", contextWindow: 200000, skillListingBudget: 8000 }
      ])
    }))

  it.effect("a plugin's command or skill without a description of its own is not in Claude Code's listing (issue 28, point 5)", () =>
    Effect.gen(function* () {
      const plugin = "home/u/.claude/plugins/cache/mkt/kit/1.0.0"
      const { inventory } = yield* scanTree({
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "kit@mkt": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
          version: 2,
          plugins: { "kit@mkt": [{ scope: "user", installPath: `/${plugin}`, version: "1.0.0" }] }
        }),
        [`${plugin}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "kit" }),
        [`${plugin}/commands/bare.md`]: "Scaffold a new Python project with uv.\n",
        [`${plugin}/commands/described.md`]: markdown({ description: "Ship it" }, "Push.\n"),
        [`${plugin}/commands/when.md`]: markdown({ "argument-hint": "[x]", when_to_use: "after a change" }, "# Checks the change\n"),
        [`${plugin}/commands/hidden.md`]: markdown({ description: "Never by the model", "disable-model-invocation": true }, "Only typed.\n"),
        [`${plugin}/skills/nodesc/SKILL.md`]: markdown({ name: "nodesc" }, "# A skill without a description\n"),
        "home/u/.claude/commands/mine.md": "Run the user's own checks.\n"
      })
      const rows = rowsOf(contextLedger(inventory, { by: "item", host: "claude-code" }))
      expect(rows.map((row) => [row.kind, row.name, row.alwaysOnTokens, row.onInvokeTokens])).toEqual([
        // `kit:when Checks the change after a change`
        ["command", "when", 10, 5],
        // `mine Run the user's own checks.` (a user's command is listed, its body's first line as description)
        ["command", "mine", 8, 7],
        // `kit:described Ship it`
        ["command", "described", 5, 1],
        ["command", "bare", 0, 10],
        ["command", "hidden", 0, 3],
        ["plugin", "kit", 0, 0],
        ["skill", "nodesc", 0, 8]
      ])
    }))

  it.effect("a plugin with SessionStart hooks that add context is said to, never run; the plugin files their scripts name are counted (issue 28, point 2)", () =>
    Effect.gen(function* () {
      const root = (name: string) => `home/u/.claude/plugins/cache/mkt/${name}/1.0.0`
      const sessionStart = (command: string) => ({ SessionStart: [{ matcher: "startup|resume", hooks: [{ type: "command", command }] }] })
      // superpowers' shape: a dispatcher named with the script it runs beside it, which prints a skill file inside a wrapper.
      const script = [
        "#!/usr/bin/env bash",
        "PLUGIN_ROOT=\"$(cd \"$(dirname \"$0\")/..\" && pwd)\"",
        "content=$(cat \"${PLUGIN_ROOT}/skills/using/SKILL.md\" 2>&1 || echo missing)",
        "# never read: outside the plugin, or not there",
        "cat ../../../../../../etc/motd.md ${PLUGIN_ROOT}/absent.md",
        "printf '{\"hookSpecificOutput\": {\"additionalContext\": \"%s\"}}' \"$content\""
      ].join("\n")
      const { inventory } = yield* scanTree({
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "superpowers@mkt": true, "inline@mkt": true, "quiet@mkt": true, "opaque@mkt": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
          version: 2,
          plugins: Object.fromEntries(["superpowers", "inline", "quiet", "opaque"].map((name) => [`${name}@mkt`, [{ scope: "user", installPath: `/${root(name)}`, version: "1.0.0" }]]))
        }),
        [`${root("superpowers")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "superpowers" }),
        [`${root("superpowers")}/hooks/hooks.json`]: JSON.stringify({ description: "intro", hooks: sessionStart("\"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd\" session-start") }),
        [`${root("superpowers")}/hooks/run-hook.cmd`]: "exec bash \"${SCRIPT_DIR}/${SCRIPT_NAME}\" \"$@\"\n",
        [`${root("superpowers")}/hooks/session-start`]: script,
        [`${root("superpowers")}/skills/using/SKILL.md`]: "x".repeat(402),
        [`${root("inline")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "inline", hooks: sessionStart("cat ${CLAUDE_PLUGIN_ROOT}/intro.md") }),
        [`${root("inline")}/intro.md`]: "y".repeat(40),
        // A hook whose script names no file of the plugin: said, nothing counted.
        [`${root("opaque")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "opaque", hooks: sessionStart("${CLAUDE_PLUGIN_ROOT}/hooks/start.sh") }),
        [`${root("opaque")}/hooks/start.sh`]: "date\n",
        // Only a PreToolUse hook: nothing at session start.
        [`${root("quiet")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "quiet" }),
        [`${root("quiet")}/hooks/hooks.json`]: JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] } })
      })
      const ledger = contextLedger(inventory, { by: "item", host: "claude-code" })
      const partly = "adds context at session start (counted: the plugin files its hook scripts name; not: what they print besides)"
      expect(rowsOf(ledger).map((row) => [row.name, row.alwaysOnTokens, row.note ?? null])).toEqual([
        ["superpowers", 101, partly],
        ["inline", 10, partly],
        ["opaque", 0, "adds context at session start (not counted)"],
        ["quiet", 0, null],
        // The skill file the hook prints is a skill as well (a SKILL.md without frontmatter is not listed).
        ["using", 0, null]
      ])
      expect(ledger.totals[0]!.sessionStartContext).toEqual(["inline@mkt", "opaque@mkt", "superpowers@mkt"])
      expect(ledger.totals[0]!.estimate.endsWith(
        "; inline@mkt, opaque@mkt, superpowers@mkt: SessionStart hooks that add context at session start (tool-map does not run hooks: only the plugin files their scripts name are counted)"
      )).toBe(true)
    }))

  it.effect("the installed Claude Code's version is read beside a Windows-style npm prefix's shim too; without a package, no builtin rows", () =>
    Effect.gen(function* () {
      const builtinRows = (tree: Record<string, string>, path: string) =>
        Effect.map(scanTree(tree, { env: { PATH: path } }), ({ inventory }) => inventory.items.filter((item) => item.scope === "builtin").length)
      const manifest = JSON.stringify({ name: "@anthropic-ai/claude-code", version: "2.1.332" })
      expect(yield* builtinRows({ "opt/npm/claude": "#!/bin/sh\n", "opt/npm/node_modules/@anthropic-ai/claude-code/package.json": manifest }, "/opt/npm")).toBe(18)
      expect(yield* builtinRows({ "opt/native/claude": "#!/bin/sh\n" }, "/opt/native")).toBe(0)
      // Another package's manifest there is not Claude Code's.
      expect(yield* builtinRows({ "opt/npm/claude": "#!/bin/sh\n", "opt/npm/node_modules/@anthropic-ai/claude-code/package.json": JSON.stringify({ name: "other", version: "2.1.332" }) }, "/opt/npm")).toBe(0)
    }))

  it.effect("a plugin's hooks are read within bounds: a link out of the plugin is not followed, a flood of scripts and words is capped, a file named many times read once (review findings)", () =>
    Effect.gen(function* () {
      const root = (name: string) => `home/u/.claude/plugins/cache/mkt/${name}/1.0.0`
      const sessionStart = (command: string) => ({ SessionStart: [{ hooks: [{ type: "command", command }] }] })
      const flood = [
        ...Array.from({ length: 300 }, (_, index) => `\${CLAUDE_PLUGIN_ROOT}/d${index}/s`),
        ...Array.from({ length: 3000 }, (_, index) => `w${index}`)
      ].join(" ")
      const { inventory, watched } = yield* scanTree({
        "outside/secret.txt": "s".repeat(400),
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "linked@mkt": true, "flood@mkt": true, "repeat@mkt": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({
          version: 2,
          plugins: Object.fromEntries(["linked", "flood", "repeat"].map((name) => [`${name}@mkt`, [{ scope: "user", installPath: `/${root(name)}`, version: "1.0.0" }]]))
        }),
        [`${root("linked")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "linked", hooks: sessionStart("cat ${CLAUDE_PLUGIN_ROOT}/intro.md") }),
        [`${root("flood")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "flood" }),
        [`${root("flood")}/hooks/hooks.json`]: JSON.stringify({ hooks: sessionStart(flood) }),
        [`${root("repeat")}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "repeat", hooks: Array.from({ length: 2000 }, () => "./h.json") }),
        [`${root("repeat")}/h.json`]: JSON.stringify({ hooks: { SessionStart: [{ hooks: Array.from({ length: 50 }, () => ({ type: "command", command: "true" })) }] } })
      }, {}, undefined, { [`${root("linked")}/intro.md`]: "../../../../../../../../outside/secret.txt" })
      const plugins = inventory.items.filter((item) => item.kind === "plugin").map((item) => [item.name, item.kind === "plugin" ? item.sessionStartHooks : null, item.alwaysOnTokens])
      expect(plugins).toEqual([["linked", 1, 0], ["flood", 1, 0], ["repeat", 50, 0]])
      // 8 scripts and 2 words each at most: the flood adds a few dozen watched paths, not 900,000.
      expect(watched.filter((path) => path.includes("/flood/")).length).toBeLessThan(100)
    }))

  it.effect("Gemini CLI: its own prompt entries (<skill> with its location and activate_skill's enum, <subagent>); commands cost nothing until used", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanTree({
        "home/u/.gemini/settings.json": "{}",
        "home/u/.gemini/skills/deploy/SKILL.md": markdown({ name: "deploy", description: "Deploys the service to staging" }, "Run the deploy script.\n"),
        "home/u/.gemini/agents/scout.md": markdown({ name: "scout", description: "Finds the files a change touches" }, "You search the code.\n"),
        "home/u/.gemini/commands/hello.toml": "prompt = \"Say hello\"\n"
      })
      const ledger = contextLedger(inventory, { by: "item", host: "gemini" })
      const root = rowsOf(ledger)[0]!.path.slice(0, rowsOf(ledger)[0]!.path.indexOf("/home/u/"))
      expect(rowsOf(ledger).map((row) => [row.kind, row.name, row.kind === "skill" ? "the entry's" : row.alwaysOnTokens, row.onInvokeTokens])).toEqual(GEMINI_ITEMS)
      // What the skill's figure counts: the entry with the SKILL.md path, and the name in the tool's enum and hint.
      expect(rowsOf(ledger)[0]!.alwaysOnTokens).toBe(estimateTextTokens(
        `  <skill>\n    <name>deploy</name>\n    <description>Deploys the service to staging</description>\n    <location>${root}/home/u/.gemini/skills/deploy/SKILL.md</location>\n  </skill>\n'deploy', "deploy",`
      ))
      expect(ledger.totals.map((total) => total.estimate)).toEqual([
        "o200k tokens, tool-map's estimate (the catalog's estimator) of Gemini CLI's own prompt entries (0.61.0: <skill> and <subagent> entries); MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one"
      ])
    }))

  it.effect("the installed Claude Code's own agents and skills are items of scope builtin; over the budget, a plugin's skills save about nothing when it is off (issue 28, points 1 and 4)", () =>
    Effect.gen(function* () {
      const plugin = "home/u/.claude/plugins/cache/mkt/kit/1.0.0"
      const skill = (name: string) => markdown({ name, description: "d".repeat(92) }, "Body.\n")
      const { inventory } = yield* scanTree({
        // `claude` on PATH, the binary of the npm package @anthropic-ai/claude-code 2.1.332.
        "opt/cc/node_modules/.bin/claude": "#!/bin/sh\n",
        "opt/cc/node_modules/@anthropic-ai/claude-code/package.json": JSON.stringify({ name: "@anthropic-ai/claude-code", version: "2.1.332" }),
        "home/u/.claude/settings.json": JSON.stringify({ enabledPlugins: { "kit@mkt": true } }),
        "home/u/.claude/plugins/installed_plugins.json": JSON.stringify({ version: 2, plugins: { "kit@mkt": [{ scope: "user", installPath: `/${plugin}`, version: "1.0.0" }] } }),
        [`${plugin}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "kit" }),
        [`${plugin}/skills/k1/SKILL.md`]: skill("k1"),
        [`${plugin}/skills/k2/SKILL.md`]: skill("k2"),
        "home/u/.claude/skills/u1/SKILL.md": skill("u1"),
        "home/u/.claude/skills/u2/SKILL.md": skill("u2")
      }, { env: { PATH: "/opt/cc/node_modules/.bin:/usr/bin", SLASH_COMMAND_TOOL_CHAR_BUDGET: "6337" } })
      const builtin = inventory.items.filter((item) => item.scope === "builtin")
      expect(builtin.map((item) => [item.kind, item.name, item.path, item.alwaysOnTokens])).toEqual([
        ["agent", "claude", "/opt/cc/node_modules/.bin/claude", 33],
        ["agent", "Explore", "/opt/cc/node_modules/.bin/claude", 187],
        ["agent", "general-purpose", "/opt/cc/node_modules/.bin/claude", 77],
        ["agent", "Plan", "/opt/cc/node_modules/.bin/claude", 91],
        ["agent", "statusline-setup", "/opt/cc/node_modules/.bin/claude", 28],
        ...HOST_OWN.skills.map((name) => ["skill", name, "/opt/cc/node_modules/.bin/claude", expect.any(Number)])
      ])
      const ledger = contextLedger(inventory, { by: "plugin", host: "claude-code" })
      // 6,337 − the host's own 6,077 leaves 260 characters for `- u1: d…` (98), `- u2: d…` (98), `- kit:k1: d…` (102),
      // `- kit:k2: d…` (102): all by name first (4 + 4 + 8 + 8 + 3 newlines = 27), then u1's and u2's descriptions come
      // back (2 × 94; 45 left), kit's do not fit: 215 characters, kit's share its two name lines (2 × 2 tokens).
      // Without kit the user's two lines fit whole (197): switching kit off saves 18 characters, 5 tokens.
      expect(ledger.rows).toEqual([
        { host: "claude-code", group: "(no plugin)", items: 20, alwaysOnTokens: expect.any(Number), onInvokeTokens: expect.any(Number), unknown: 0 },
        { host: "claude-code", group: "kit@mkt", items: 3, alwaysOnTokens: 4, onInvokeTokens: 2, unknown: 0, offSavesTokens: 5 }
      ])
      expect(ledger.totals[0]!.estimate.endsWith("; Claude Code's own items (2.1.332: 5 built-in agents, 13 skills) are rows of scope builtin")).toBe(true)
      expect(ledger.totals[0]!.hostOwn).toBeUndefined()
    }))

  it.effect("the conformance fixture's plugins, per plugin (a real-looking home)", () =>
    Effect.gen(function* () {
      const { files, links } = claudeCodeFixture({ home: "/home/u", homeKey: "home/u", projectKey: "work/proj", parentKey: "work" })
      const { inventory } = yield* scanTree({ ...files, "work/proj/.git/HEAD": "ref: refs/heads/main\n" }, {}, undefined, links)
      expect(contextLedger(inventory, { by: "plugin", host: "claude-code" }).rows).toEqual(FIXTURE_BY_PLUGIN)
    }))
})

/**
 * a, b and c cost `<name> <80 x>`, 82 characters, 21 tokens; over the budget of 6,277 characters,
 * 200 once Claude Code's own skills took their 6,077, c keeps only its name line `- c` (1 token). rev: `- rev: Reviews code (Tools: All tools)` (the session's
 * agent line, issue 28 point 3: an agent's when_to_use is not in it); ship:
 * `ship Ship it`; CLAUDE.md its whole text. Codex: o200k. nodesc has an empty description:
 * Claude Code does not load it. MCP servers: unknown.
 */
const ITEMS = [
  ["claude-code", "skill", "a", 21, 3],
  ["claude-code", "skill", "b", 21, 3],
  ["claude-code", "agent", "rev", 10, 10],
  ["claude-code", "instructions", "CLAUDE.md", 8, 0],
  ["codex", "instructions", "AGENTS.md", 6, 0],
  ["codex", "skill", "lint", 5, 4],
  ["claude-code", "command", "ship", 3, 9],
  ["claude-code", "skill", "c", 1, 3],
  ["claude-code", "mcpServer", "notion", null, null],
  ["codex", "mcpServer", "gh", null, null]
]
const TOTALS = [
  {
    host: "claude-code",
    estimate: "Claude Code's own projection: characters / 4 of the texts it counts (claude plugin details, 2.1.332, offline); MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one; model assumed: claude-sonnet-4-6 (200,000-token context, Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)): skill listing within 6,277 characters (SLASH_COMMAND_TOOL_CHAR_BUDGET); Claude Code's own items (no installed version found: 2.1.332's assumed, 5 built-in agents, 13 skills) add ~1935 tok, not in the total",
    hostOwn: HOST_OWN,
    model: { model: "claude-sonnet-4-6", source: "Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)", setting: null, contextWindow: 200000, skillListingBudget: 6277 },
    items: 7, alwaysOnTokens: 64, onInvokeTokens: 28, unknown: 1 },
  { host: "codex", estimate: "o200k tokens, tool-map's estimate (the catalog's estimator) of a \"name: description\" line per skill and agent, Codex's own listing format not verified; MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one", items: 3, alwaysOnTokens: 11, onInvokeTokens: 4, unknown: 1 }
]
const BY_SOURCE = [{ host: "claude-code", group: "user", items: 7, alwaysOnTokens: 64, onInvokeTokens: 28, unknown: 1 }]
/**
 * `claude plugin details` (2.1.332) on the same files projects pr-review-toolkit ~316, kit ~94 and
 * local-kit ~13 tokens; kit's 108 include three agents the session loads and the projection does
 * not count (k-upper.MD, sub/k-nested.md, .hidden/k-hidden.md: 20 tokens), and leave out the
 * command k-cmd-broken.md (9 tokens): its frontmatter does not parse, so it has no description of
 * its own and the session does not list it (issue 28, point 5; `rve` of the 2.1.332 bundle).
 * Agents cost the session's line `- <plugin>:<name>: <description> (Tools: …)` (issue 28, point
 * 3), not the `plugin details` text: pr-review-toolkit 381 (317 before), kit 248 (108), the user's
 * and project's items 208 (111), local-kit 21 (13).
 */
const FIXTURE_BY_PLUGIN = [
  // Within the budget, switching a plugin off saves its items' figures and the newlines between its listing lines.
  { host: "claude-code", group: "pr-review-toolkit@claude-code-plugins", items: 8, alwaysOnTokens: 381, onInvokeTokens: 51, unknown: 0, offSavesTokens: 382 },
  { host: "claude-code", group: "kit@mkt", items: 25, alwaysOnTokens: 248, onInvokeTokens: 104, unknown: 0, offSavesTokens: 250 },
  { host: "claude-code", group: "(no plugin)", items: 21, alwaysOnTokens: 208, onInvokeTokens: 83, unknown: 0 },
  { host: "claude-code", group: "local-kit@dev", items: 2, alwaysOnTokens: 21, onInvokeTokens: 4, unknown: 0, offSavesTokens: 21 }
]
