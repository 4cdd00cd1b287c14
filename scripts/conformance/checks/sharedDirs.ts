import * as path from "node:path"
import { type Check, type CheckContext, stripAnsi, succeeded, toolMapList, withSandbox } from "../check.js"
import type { HostName } from "../hosts.js"
import type { RunOptions, Sandbox } from "../sandbox.js"

/**
 * Issue 12, findings 4 to 6: which skill, agent and MCP server files opencode, Gemini CLI and
 * Codex really load from a HOME with items in every folder they may read (the shared
 * `~/.claude/skills` and `~/.agents/skills` included), in trusted and untrusted folders; the
 * hosts' own listings against tool-map's queries on the same HOME.
 */

interface ToolMapItem {
  readonly host: string
  readonly kind: string
  readonly name: string
  readonly path: string
  readonly enabled: boolean
  readonly shadowedBy: string | null
}

const skill = (name: string, description = `The ${name} skill.`) => `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`
const agent = (description: string) => `---\ndescription: ${description}\nmode: subagent\n---\nPrompt.\n`

/** Writes `files` (paths under the sandbox's root) into the sandbox. */
const lay = (sandbox: Sandbox, files: Readonly<Record<string, string>>) => {
  for (const [file, text] of Object.entries(files)) sandbox.write(file, text)
}

/** Sorted lines, one per item, or `(none)`. */
const lines = (entries: ReadonlyArray<string>): string => (entries.length === 0 ? "(none)" : [...entries].sort().join("\n"))

/** A path in the sandbox as `~/…` or `<project>/…`, so both answers read the same. */
const short = (sandbox: Sandbox, file: string): string =>
  file.startsWith(`${sandbox.project}/`) ? `<project>/${file.slice(sandbox.project.length + 1)}` : file.startsWith(`${sandbox.home}/`) ? `~/${file.slice(sandbox.home.length + 1)}` : file

/** What `tool-map query KIND … --json` prints in the sandbox, run in `options.cwd` with `options.env`. */
const query = (context: CheckContext, sandbox: Sandbox, args: ReadonlyArray<string>, options: RunOptions = {}): ReadonlyArray<ToolMapItem> =>
  toolMapList<ToolMapItem>(context, sandbox, args, options)

/** tool-map's items of `kind` that `host` loads (enabled, not shadowed): skills as `name path` lines, agents by name. */
const loadedItems = (context: CheckContext, sandbox: Sandbox, kind: "skills" | "agents", host: HostName, options: RunOptions = {}): string =>
  lines(query(context, sandbox, [kind, "--host", host], options).map((item) => (kind === "agents" ? item.name : `${item.name} ${short(sandbox, item.path)}`)))

/** Skills in every folder opencode 1.18.33 reads, names unique, some the docs forbid but the host loads. */
const OPENCODE_SKILLS: Readonly<Record<string, string>> = {
  "home/.claude/skills/alpha/SKILL.md": skill("alpha"),
  "home/.claude/skills/nested/deep/SKILL.md": skill("deep"),
  "home/.claude/skills/mismatch/SKILL.md": skill("other-name"),
  "home/.claude/skills/Bad_Name/SKILL.md": skill("Bad_Name"),
  "home/.claude/skills/noname/SKILL.md": "---\ndescription: no name\n---\nBody.\n",
  "home/.claude/skills/loose.md": skill("loose"),
  "home/.claude/skills/.hidden/SKILL.md": skill("hidden-claude"),
  "home/.agents/skills/beta/SKILL.md": skill("beta"),
  "home/.config/opencode/opencode.json": "{}\n",
  "home/.config/opencode/skills/gamma/SKILL.md": skill("gamma"),
  "home/.config/opencode/skills/.hidden/SKILL.md": skill("hidden-opencode"),
  "home/.config/opencode/skill/single/SKILL.md": skill("single"),
  "home/.opencode/skills/home-opencode/SKILL.md": skill("home-opencode"),
  "project/.claude/skills/project-claude/SKILL.md": skill("project-claude"),
  "project/.agents/skills/project-agents/SKILL.md": skill("project-agents"),
  "project/.opencode/skills/project-opencode/SKILL.md": skill("project-opencode"),
  "project/sub/.claude/skills/nearer/SKILL.md": skill("nearer")
}

/** `opencode debug skill` (1.18.33): a JSON array of `{ name, description, location, content }`; its built-in skill left out. */
const opencodeSkills = (context: CheckContext, sandbox: Sandbox, options: RunOptions): string => {
  const listed = JSON.parse(
    succeeded("opencode debug skill", context.runHost(sandbox, "opencode", ["debug", "skill"], options)).stdout
  ) as ReadonlyArray<{ readonly name: string; readonly location: string }>
  return lines(listed.filter((entry) => entry.location !== "<built-in>").map((entry) => `${entry.name} ${short(sandbox, entry.location)}`))
}

/** The agents opencode 1.18.33 ships: `opencode agent list` shows them beside the configured ones. */
const OPENCODE_BUILT_IN_AGENTS = new Set(["build", "compaction", "explore", "general", "plan", "summary", "title"])

/** `opencode agent list` (1.18.33): a `NAME (MODE)` line per agent, its permissions below. */
const opencodeAgents = (context: CheckContext, sandbox: Sandbox, cwd: string): string => {
  const listed = succeeded("opencode agent list", context.runHost(sandbox, "opencode", ["agent", "list"], { cwd }))
  return lines(
    stripAnsi(listed.stdout)
      .split("\n")
      .flatMap((line) => /^(\S+) \((?:primary|subagent|all)\)$/.exec(line)?.slice(1, 2) ?? [])
      .filter((name) => !OPENCODE_BUILT_IN_AGENTS.has(name))
  )
}

/** The status word after a server's name in `opencode mcp list` (1.18.33): `●  ✗ NAME failed`, `●  ○ NAME disabled`. */
const opencodeServerStates = (stdout: string): string =>
  lines(
    stripAnsi(stdout).split("\n").flatMap((row) => {
      const match = /^\S+\s+\S+\s+(\S+)\s+(\S+)\s*$/.exec(row.trim())
      return match === null ? [] : [`${match[1]}: ${match[2] === "disabled" ? "disabled" : "loaded"}`]
    })
  )

/**
 * tool-map's MCP servers of `host` (every one, disabled included) as `NAME: loaded|disabled`, the
 * shadowed left out; a name whose every entry is off is one line, as the host lists it once.
 */
const toolMapServerStates = (context: CheckContext, sandbox: Sandbox, host: HostName): string =>
  lines([
    ...new Set(
      query(context, sandbox, ["mcp", "--all", "--host", host])
        .filter((item) => item.shadowedBy === null)
        .map((item) => `${item.name}: ${item.enabled ? "loaded" : "disabled"}`)
    )
  ])

/** Skills for Gemini CLI: its own folders, the shared ones, and one it never reads (~/.claude/skills). */
const GEMINI_SKILLS: Readonly<Record<string, string>> = {
  "home/.gemini/settings.json": "{}\n",
  "home/.gemini/skills/gemini-user/SKILL.md": skill("gemini-user"),
  "home/.gemini/skills/SKILL.md": skill("gemini-root"),
  "home/.gemini/skills/deep/too/SKILL.md": skill("too-deep"),
  "home/.gemini/skills/no-description/SKILL.md": "---\nname: no-description\n---\nBody.\n",
  "home/.agents/skills/agents-user/SKILL.md": skill("agents-user"),
  "home/.claude/skills/claude-only/SKILL.md": skill("claude-only"),
  "project/.gemini/skills/gemini-project/SKILL.md": skill("gemini-project"),
  "project/.agents/skills/agents-project/SKILL.md": skill("agents-project")
}

/** `gemini skills list` (0.61.0): `NAME [Enabled]` lines, each with its Description and Location below. */
const geminiSkills = (context: CheckContext, sandbox: Sandbox): string => {
  const listed = succeeded("gemini skills list", context.runHost(sandbox, "gemini", ["skills", "list"]))
  const rows = stripAnsi(`${listed.stdout}\n${listed.stderr}`).split("\n")
  const found: Array<string> = []
  rows.forEach((row, index) => {
    const name = /^(\S+) \[Enabled\]$/.exec(row)?.[1]
    const location = rows.slice(index + 1, index + 4).map((next) => /^\s+Location:\s+(.+)$/.exec(next)?.[1]).find((value) => value !== undefined)
    if (name !== undefined && location !== undefined) found.push(`${name} ${short(sandbox, location.trim())}`)
  })
  return lines(found)
}

/** The state `gemini mcp list` (0.61.0) gives each server: `✓ NAME: COMMAND (stdio) - Connected`, `- Disabled`. */
const geminiServerStates = (context: CheckContext, sandbox: Sandbox): string => {
  const listed = succeeded("gemini mcp list", context.runHost(sandbox, "gemini", ["mcp", "list"]))
  return lines(
    stripAnsi(`${listed.stdout}\n${listed.stderr}`).split("\n").flatMap((row) => {
      const match = /^\S+\s+([^:\s]+): .* - (\S+)$/.exec(row.trim())
      return match === null ? [] : [`${match[1]}: ${match[2] === "Disabled" ? "disabled" : "loaded"}`]
    })
  )
}

/** A user-level and a workspace-level server for Gemini CLI (commands that exit at once: no server is left running). */
const GEMINI_SERVERS: Readonly<Record<string, string>> = {
  "home/.gemini/settings.json": `${JSON.stringify({ mcpServers: { "user-srv": { command: "/bin/false" } } }, null, 2)}\n`,
  "project/.gemini/settings.json": `${JSON.stringify({ mcpServers: { "project-srv": { command: "/bin/false" } } }, null, 2)}\n`
}

/** `codex mcp list --json` (0.171.0): `[{ name, enabled, … }]`. */
const codexServerStates = (context: CheckContext, sandbox: Sandbox): string => {
  const listed = JSON.parse(
    succeeded("codex mcp list --json", context.runHost(sandbox, "codex", ["mcp", "list", "--json"])).stdout
  ) as ReadonlyArray<{ readonly name: string; readonly enabled: boolean }>
  return lines(listed.map((server) => `${server.name}: ${server.enabled ? "loaded" : "disabled"}`))
}

export const sharedDirChecks: ReadonlyArray<Check> = [
  {
    id: "opencode-skills",
    host: "opencode",
    title: "skills in ~/.claude, ~/.agents, the config folders and the project's (cwd one below the git root): opencode debug skill = tool-map query skills --host opencode",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, OPENCODE_SKILLS)
        const cwd = path.join(sandbox.project, "sub")
        sandbox.write("project/sub/.keep", "")
        return { toolMap: loadedItems(context, sandbox, "skills", "opencode", { cwd }), host: opencodeSkills(context, sandbox, { cwd }) }
      })
  },
  {
    id: "opencode-skills-no-claude",
    host: "opencode",
    title: "the same HOME with OPENCODE_DISABLE_CLAUDE_CODE_SKILLS=1: opencode debug skill = tool-map",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, OPENCODE_SKILLS)
        const env = { OPENCODE_DISABLE_CLAUDE_CODE_SKILLS: "1" }
        return { toolMap: loadedItems(context, sandbox, "skills", "opencode", { env }), host: opencodeSkills(context, sandbox, { env }) }
      })
  },
  {
    id: "opencode-agents",
    host: "opencode",
    title: "agents in agent/, agents/ (nested), mode/ of the config folders, ~/.opencode, two .opencode levels, and ~/.claude/agents: opencode agent list = tool-map query agents --host opencode",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, {
          "home/.config/opencode/agent/a1.md": agent("global a1"),
          "home/.config/opencode/agents/sub/a2.md": agent("global nested a2"),
          "home/.config/opencode/mode/m1.md": agent("a mode"),
          "home/.config/opencode/agent/unclosed.md": "---\ndescription: \"unclosed\n---\nx\n",
          "home/.claude/agents/claude-agent.md": agent("Claude Code's, not opencode's"),
          "home/.opencode/agent/home-agent.md": agent("home .opencode"),
          "project/.opencode/agent/dup.md": agent("root dup"),
          "project/sub/.opencode/agent/dup.md": agent("sub dup"),
          "project/sub/.opencode/agents/a4.md": agent("sub a4")
        })
        const cwd = path.join(sandbox.project, "sub")
        return { toolMap: loadedItems(context, sandbox, "agents", "opencode", { cwd }), host: opencodeAgents(context, sandbox, cwd) }
      })
  },
  {
    id: "opencode-mcp-states",
    host: "opencode",
    title: "servers in the global and the project opencode.json, one enabled: false: opencode mcp list = tool-map's states",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, {
          "home/.config/opencode/opencode.json": `${JSON.stringify({ mcp: { "on-srv": { type: "local", command: ["/bin/false"] }, "off-srv": { type: "local", command: ["/bin/false"], enabled: false } } })}\n`,
          "project/opencode.json": `${JSON.stringify({ mcp: { "proj-srv": { type: "local", command: ["/bin/false"] }, "on-srv": { type: "local", command: ["/bin/false"], enabled: false } } })}\n`
        })
        const listed = succeeded("opencode mcp list", context.runHost(sandbox, "opencode", ["mcp", "list"]))
        return { toolMap: toolMapServerStates(context, sandbox, "opencode"), host: opencodeServerStates(`${listed.stdout}\n${listed.stderr}`) }
      })
  },
  {
    id: "gemini-skills-untrusted",
    host: "gemini",
    title: "skills in ~/.gemini, ~/.agents, ~/.claude and the project's, folder never trusted: gemini skills list = tool-map query skills --host gemini",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, GEMINI_SKILLS)
        return { toolMap: loadedItems(context, sandbox, "skills", "gemini"), host: geminiSkills(context, sandbox) }
      })
  },
  {
    id: "gemini-skills-trusted",
    host: "gemini",
    title: "the same skills, the project trusted in ~/.gemini/trustedFolders.json: gemini skills list = tool-map",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, GEMINI_SKILLS)
        sandbox.write("home/.gemini/trustedFolders.json", `${JSON.stringify({ [sandbox.project]: "TRUST_FOLDER" })}\n`)
        return { toolMap: loadedItems(context, sandbox, "skills", "gemini"), host: geminiSkills(context, sandbox) }
      })
  },
  {
    id: "gemini-mcp-untrusted",
    host: "gemini",
    title: "a user and a workspace server, folder never trusted: gemini mcp list's Disabled = tool-map's enabled: false",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, GEMINI_SERVERS)
        return { toolMap: toolMapServerStates(context, sandbox, "gemini"), host: geminiServerStates(context, sandbox) }
      })
  },
  {
    id: "gemini-mcp-trust-parent",
    host: "gemini",
    title: "the same servers, TRUST_PARENT on a child of the project: gemini mcp list = tool-map",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, GEMINI_SERVERS)
        sandbox.write("home/.gemini/trustedFolders.json", `${JSON.stringify({ [path.join(sandbox.project, "child")]: "TRUST_PARENT" })}\n`)
        return { toolMap: toolMapServerStates(context, sandbox, "gemini"), host: geminiServerStates(context, sandbox) }
      })
  },
  {
    id: "gemini-mcp-do-not-trust",
    host: "gemini",
    title: "the same servers, the parent trusted but the project DO_NOT_TRUST (the longer rule wins): gemini mcp list = tool-map",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        lay(sandbox, GEMINI_SERVERS)
        sandbox.write("home/.gemini/trustedFolders.json", `${JSON.stringify({ [sandbox.root]: "TRUST_FOLDER", [sandbox.project]: "DO_NOT_TRUST" })}\n`)
        return { toolMap: toolMapServerStates(context, sandbox, "gemini"), host: geminiServerStates(context, sandbox) }
      })
  },
  {
    id: "codex-mcp-states",
    host: "codex",
    title: "servers in ~/.codex/config.toml, one enabled = false: codex mcp list --json = tool-map's states",
    run: (context) =>
      withSandbox(context, (sandbox) => {
        sandbox.write("home/.codex/config.toml", `[mcp_servers.on-srv]\ncommand = "/bin/false"\n\n[mcp_servers.off-srv]\ncommand = "/bin/false"\nenabled = false\n`)
        return { toolMap: toolMapServerStates(context, sandbox, "codex"), host: codexServerStates(context, sandbox) }
      })
  }
]
