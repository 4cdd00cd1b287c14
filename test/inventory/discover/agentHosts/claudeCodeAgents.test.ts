import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { scanTree } from "../../../../bench/hostGenerators.js"
import { CLAUDE_CODE_FIXTURE_AGENTS, claudeCodeFixture } from "../../../../scripts/conformance/fixtures/claudeCode.js"
import { type AgentHostItem, type AgentItem, isEffective } from "../../../../src/inventory/domain/agentHosts.js"
import { summarizeAgentHosts } from "../../../../src/inventory/render/agentHosts.js"

/**
 * The conformance fixture (scripts/conformance/fixtures/claudeCode.ts) read by tool-map: the
 * agents must be the ones `claude` 2.1.332 lists at a session start on the same files (the
 * `agents-loaded` conformance check asks the host; CLAUDE_CODE_FIXTURE_AGENTS is its answer).
 */

const HOME = "/home/u"
const KIT = `${HOME}/.claude/plugins/cache/mkt/kit/1.0.0`
const TOOLKIT = `${HOME}/.claude/plugins/cache/claude-code-plugins/pr-review-toolkit/1.0.0`

const scanFixture = () => {
  const { files, links } = claudeCodeFixture({ home: HOME, homeKey: "home/u", projectKey: "work/proj", parentKey: "work" })
  // The project is a git repository, as the conformance sandbox's is.
  return Effect.map(scanTree({ ...files, "work/proj/.git/HEAD": "ref: refs/heads/main\n" }, {}, undefined, links), (result) => result.inventory)
}

/** Claude Code's name of an agent: a plugin's agents are `<plugin>:<name>`. */
const hostName = (item: AgentHostItem) => (item.plugin === null ? item.name : `${item.plugin.slice(0, item.plugin.indexOf("@"))}:${item.name}`)

const agentAt = (items: ReadonlyArray<AgentHostItem>, path: string) => {
  const found = items.find((item) => item.kind === "agent" && item.path === path)
  if (found === undefined || found.kind !== "agent") throw new Error(`no agent at ${path}`)
  return found as AgentItem
}

describe("Claude Code agents as the host loads them (issue 12, finding 2; claude 2.1.332)", () => {
  it.effect("the loaded agents are exactly the host's: user, project and both plugins", () =>
    Effect.gen(function* () {
      const inventory = yield* scanFixture()
      const loaded = inventory.items.filter((item) => item.host === "claude-code" && item.kind === "agent" && isEffective(item))
      expect(loaded.map(hostName).sort()).toEqual(CLAUDE_CODE_FIXTURE_AGENTS)
      // Files of one folder with one name: the path that sorts last wins, a symbolic link too.
      const winner = (name: string) =>
        inventory.items.filter((item) => item.kind === "agent" && item.name === name).map((item) => [item.path.slice(HOME.length), item.shadowedBy === null])
      expect(winner("u-dup")).toEqual([["/.claude/agents/dup-a.md", false], ["/.claude/agents/dup-b.md", true]])
      expect(winner("u-colon")).toEqual([["/.claude/agents/u-colon.md", false], ["/.claude/agents/u-link.md", true]])
      // A link inside a plugin's agents folder is not followed; a user folder link is.
      expect(inventory.items.some((item) => item.path === `${KIT}/agents/k-link.md`)).toBe(false)
      expect(agentAt(inventory.items, `${HOME}/.claude/agents/linkdir/u-via-dirlink.md`).name).toBe("u-via-dirlink")
      // A directory marketplace's plugin is read from that directory; its cached copy is not read.
      expect(agentAt(inventory.items, `${HOME}/dev-market/plugins/local-kit/agents/only-folder.md`).plugin).toBe("local-kit@dev")
      expect(inventory.items.some((item) => item.name === "only-cache")).toBe(false)
      const plugin = inventory.items.find((item) => item.kind === "plugin" && item.plugin === "local-kit@dev")
      expect(plugin?.path).toBe(`${HOME}/dev-market/plugins/local-kit`)
    }))

  it.effect("project folders: from the working directory up to its git root, or up to the root when there is none; never the home", () =>
    Effect.gen(function* () {
      const agent = (name: string) => `---\nname: ${name}\ndescription: d\n---\n`
      const tree = {
        "work/.claude/agents/above.md": agent("above"),
        "work/proj/.claude/agents/root.md": agent("root"),
        "work/proj/sub/.claude/agents/sub.md": agent("sub"),
        "home/u/.claude/agents/mine.md": agent("mine")
      }
      const names = (files: Record<string, string>, cwd: string) =>
        Effect.map(scanTree(files, { cwd }), ({ inventory }) => inventory.items.filter((item) => item.kind === "agent").map((item) => `${item.scope}:${item.name}`))
      expect(yield* names({ ...tree, "work/proj/.git/HEAD": "ref\n" }, "/work/proj/sub")).toEqual(["project:sub", "project:root", "user:mine"])
      expect(yield* names(tree, "/work/proj/sub")).toEqual(["project:sub", "project:root", "project:above", "user:mine"])
      // In the home, its own .claude is the user's, and nothing above the home is a project.
      expect(yield* names({ ...tree, "home/.claude/agents/x.md": agent("over-home"), "home/u/w/.claude/agents/w.md": agent("w") }, "/home/u/w")).toEqual([
        "project:w",
        "user:mine"
      ])
    }))

  it.effect("what each file gives: fields read after the host's retry, repeated keys, tags; a plugin agent whose YAML fails loads bare", () =>
    Effect.gen(function* () {
      const { items } = yield* scanFixture()
      const fields = (path: string) => {
        const agent = agentAt(items, path)
        return [agent.name, agent.description, agent.tools, agent.model]
      }
      expect(fields(`${HOME}/.claude/agents/u-colon.md`)).toEqual(["u-colon", "Use when: X", null, null])
      expect(fields(`${HOME}/.claude/agents/u-tabs.md`)).toEqual(["u-tabs", "tabs", ["Read"], null])
      expect(fields(`${HOME}/.claude/agents/u-dupkey.md`)).toEqual(["u-dupkey", "second", null, null])
      expect(fields(`${HOME}/.claude/agents/u-tag.md`)).toEqual(["u-tag-name", "hello", null, null])
      expect(fields(`${HOME}/.claude/agents/u-alias.md`)).toEqual(["u-alias", "hi", null, "hi"])
      expect(fields(`${HOME}/.claude/agents/u-value-colon.md`)).toEqual(["u-ncr", "d", null, "sonnet: fast"])
      // The block ends at the first `---`, even inside a value.
      expect(fields(`${HOME}/.claude/agents/u-midfence.md`)).toEqual(["u-midfence", "a", null, null])
      expect(fields(`${KIT}/agents/k-broken.md`)).toEqual(["k-broken", null, null, null])
      expect(fields(`${KIT}/agents/k-listname.md`)).toEqual(["a,b", "x", null, null])
      expect(fields(`${KIT}/agents/sub/k-nested.md`)).toEqual(["sub:k-nested", "in a subfolder", null, null])
      expect(fields(`${KIT}/agents/k-upper.MD`)).toEqual(["k-upper", "upper-case extension", null, null])
      expect(fields(`${TOOLKIT}/agents/code-simplifier.md`)).toEqual(["code-simplifier", null, null, null])
      const reviewer = agentAt(items, `${TOOLKIT}/agents/code-reviewer.md`)
      // Quoted by the retry, the value keeps its `\n` as two characters, as in the host.
      expect([reviewer.description, reviewer.model]).toEqual([
        "Use this agent when you need a review of code against the project's guidelines. Examples:\\n\\n<example>\\nContext: A change was made.\\nuser: \"Check the code against the project's guidelines\"\\nassistant: \"I'll use the code-reviewer agent.\"\\n</example>",
        "opus"
      ])
    }))

  it.effect("a diagnostic for every file where strict YAML and the host part ways, saying what the host does", () =>
    Effect.gen(function* () {
      const inventory = yield* scanFixture()
      const of = (path: string) => inventory.diagnostics.filter((diagnostic) => diagnostic.path === path).map((diagnostic) => [diagnostic.line, diagnostic.message])
      const user = (file: string) => of(`${HOME}/.claude/agents/${file}`)
      expect(user("u-colon.md")).toEqual([
        [3, "invalid YAML: Nested mappings are not allowed in compact mappings; Claude Code reads it after quoting the values of its top-level `key: value` lines"]
      ])
      expect(user("u-broken.md")).toEqual([
        [4, "invalid YAML: Implicit map keys need to be followed by map values; Claude Code reads none of its fields and does not load the agent"]
      ])
      expect(user("u-crlf.md")).toEqual([
        [3, "invalid YAML: Nested mappings are not allowed in compact mappings; Claude Code reads none of its fields and does not load the agent"]
      ])
      expect(user("u-unclosed.md")).toEqual([[1, "unclosed frontmatter: no `---` closes the opening one; Claude Code reads none of its fields and does not load the agent"]])
      expect(user("u-noname.md")).toEqual([[null, "no `name` string in the frontmatter: Claude Code reads the file as a reference document, not an agent"]])
      expect(user("u-numname.md")).toEqual([[null, "no `name` string in the frontmatter: Claude Code reads the file as a reference document, not an agent"]])
      expect(user("u-nodesc.md")).toEqual([[null, "no `description` string in the frontmatter: Claude Code does not load the agent"]])
      expect(user("u-numdesc.md")).toEqual([[null, "no `description` string in the frontmatter: Claude Code does not load the agent"]])
      expect(user("u-emptydesc.md")).toEqual([[null, "no `description` string in the frontmatter: Claude Code does not load the agent"]])
      expect(user("u-colonname.md")).toEqual([[null, "`name` holds \":\" (kept for plugin agents): Claude Code does not load the agent"]])
      expect(user("u-dashname.md")).toEqual([[null, "`name` starts with \"-\": Claude Code does not load the agent"]])
      expect(user("u-long.md")).toEqual([[null, "`name` is over 256 characters: Claude Code does not load the agent"]])
      // An upper-case `.MD` in a settings folder is not an agent file for the host: not read at all.
      expect(user("u-upper.MD")).toEqual([])
      expect(of(`${KIT}/agents/k-broken.md`)).toEqual([
        [4, "invalid YAML: Implicit map keys need to be followed by map values; Claude Code reads none of its fields and loads the agent as \"k-broken\""]
      ])
      expect(of(`${KIT}/agents/k-unclosed.md`)).toEqual([
        [1, "unclosed frontmatter: no `---` closes the opening one; Claude Code reads none of its fields and loads the agent as \"k-unclosed\""]
      ])
      expect(of(`${KIT}/agents/k-numname.md`)).toEqual([[null, "field `name` is not a string; Claude Code names the agent \"42\""]])
      expect(of(`${KIT}/commands/k-cmd-broken.md`)).toEqual([
        [3, "invalid YAML: Implicit map keys need to be followed by map values; Claude Code reads none of its fields and loads the command"]
      ])
    }))

  it.effect("the summary counts the plugins' commands among the skills (finding 3)", () =>
    Effect.gen(function* () {
      const inventory = yield* scanFixture()
      expect(summarizeAgentHosts(inventory, 6144)[0]).toBe("- Claude Code: 47/49 agents, 6 skills (4 from commands/), 3 plugins loaded; 36 diagnostics")
    }))
})
