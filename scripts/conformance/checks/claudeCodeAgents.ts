import * as fs from "node:fs"
import * as path from "node:path"
import { type Check, type CheckContext, succeeded, toolMapList, toolMapQuery, withSandbox } from "../check.js"
import { claudeCodeFixture, FIXTURE_PLUGINS } from "../fixtures/claudeCode.js"
import type { Sandbox } from "../sandbox.js"
import { claudeSession, detailsNames } from "./claudeCode.js"
import { ledgerSession, mainRequest, projected, requestChars, withClaude } from "./claudeLedger.js"

/**
 * Issue 12, findings 2 and 3: the agents, skills and plugins Claude Code loads from a HOME full of
 * frontmatter that strict YAML refuses (fixtures/claudeCode.ts), asked of `claude` itself and of
 * tool-map. Host answers as of 2.1.332; where they differ from the docs, the host wins.
 */

/** Lays the fixture out in a fresh sandbox and runs `body` there. */
const withFixture = <A>(context: CheckContext, body: (sandbox: Sandbox) => A): A =>
  withSandbox(context, (sandbox) => {
    const tree = claudeCodeFixture({ home: sandbox.home, homeKey: "home", projectKey: "project", parentKey: "" })
    for (const [key, text] of Object.entries(tree.files)) sandbox.write(key, text)
    for (const [key, target] of Object.entries(tree.links)) {
      const link = path.join(sandbox.root, key)
      fs.mkdirSync(path.dirname(link), { recursive: true })
      fs.symlinkSync(target, link)
    }
    return body(sandbox)
  })

/** How far tool-map's figure of a plugin may be from what a session measures (issue 14's tolerance). */
const LEDGER_TOLERANCE = 0.15

interface ToolMapItem {
  readonly host: string
  readonly kind: string
  readonly name: string
  readonly path: string
  readonly plugin: string | null
  readonly version?: string | null
  readonly marketplace?: string | null
  readonly enabled: boolean
}

/** The name Claude Code gives an agent: a plugin's agents are `<plugin>:<name>`. */
const hostAgentName = (item: ToolMapItem): string => (item.plugin === null ? item.name : `${item.plugin.slice(0, item.plugin.lastIndexOf("@"))}:${item.name}`)

const list = (names: ReadonlyArray<string>): string => (names.length === 0 ? "(none)" : [...names].sort().join(", "))

/** The agents a `claude -p` session start lists (its `init` event), without the ones built into the host. */
const sessionAgents = (context: CheckContext, sandbox: Sandbox, builtIn: ReadonlySet<string>): ReadonlyArray<string> =>
  (claudeSession(context, sandbox).init.agents ?? []).filter((agent) => !builtIn.has(agent))

/** The host's built-in agents: what a session start lists in an empty HOME (they vary with the version and the environment). */
const builtInAgents = (context: CheckContext): ReadonlySet<string> =>
  withSandbox(context, (sandbox) => new Set(sessionAgents(context, sandbox, new Set())))

/** tool-map's diagnostics of the bundle written in the sandbox (tools.json under its data dir). */
const toolMapDiagnostics = (sandbox: Sandbox): ReadonlyArray<{ readonly path: string | null; readonly message: string }> =>
  (JSON.parse(fs.readFileSync(path.join(sandbox.root, "data", "tools.json"), "utf8")) as {
    readonly agentHosts: { readonly diagnostics: ReadonlyArray<{ readonly path: string | null; readonly message: string }> }
  }).agentHosts.diagnostics

interface ValidationFile {
  readonly file?: string
  readonly errors?: ReadonlyArray<{ readonly message?: string }>
}

/**
 * The files whose frontmatter `claude plugin validate --json DIR` says fails even after the
 * host's second reading ("YAML frontmatter failed to parse"), relative to DIR; and the files
 * for which tool-map says Claude Code reads none of the fields of YAML that fails.
 */
const yamlFailures = (context: CheckContext, sandbox: Sandbox, dir: string, skip: ReadonlyArray<string> = []) => {
  // Exit 1 is the validator's "fails" answer, not a failure of the command.
  const result = context.runHost(sandbox, "claude", ["plugin", "validate", "--json", dir])
  if (result.status !== 0 && result.status !== 1) succeeded("claude plugin validate", result)
  const report = JSON.parse(result.stdout) as { readonly contents: ReadonlyArray<ValidationFile> }
  const host = report.contents
    .filter((file) => (file.errors ?? []).some((error) => (error.message ?? "").startsWith("YAML frontmatter failed to parse")))
    .map((file) => path.relative(dir, file.file ?? ""))
  toolMapQuery(context, sandbox, ["agents"])
  const toolMap = toolMapDiagnostics(sandbox)
    .filter((diagnostic) => diagnostic.path !== null && diagnostic.path.startsWith(`${dir}/`))
    .filter((diagnostic) => !skip.some((folder) => diagnostic.path!.startsWith(path.join(dir, folder, "/"))))
    .filter((diagnostic) => diagnostic.message.startsWith("invalid YAML") && diagnostic.message.includes("reads none of its fields"))
    .map((diagnostic) => path.relative(dir, diagnostic.path!))
  return { toolMap: list(toolMap), host: list(host) }
}

const installDir = (sandbox: Sandbox, plugin: (typeof FIXTURE_PLUGINS)[number]) =>
  path.join(sandbox.home, ".claude", "plugins", "cache", plugin.marketplace, plugin.name, plugin.version)

export const claudeCodeAgentChecks: ReadonlyArray<Check> = [
  {
    id: "agents-loaded",
    host: "claude",
    title: "the agents a claude -p session start loads from the fixture HOME (user, project, three plugins, one of a directory marketplace) = tool-map query agents",
    run: (context) => {
      const builtIn = builtInAgents(context)
      return withFixture(context, (sandbox) => {
        const items = toolMapList<ToolMapItem>(context, sandbox, ["agents"]).filter((item) => item.host === "claude-code")
        return { toolMap: list(items.map(hostAgentName)), host: list(sessionAgents(context, sandbox, builtIn)) }
      })
    }
  },
  {
    id: "agents-duplicate-winner",
    host: "claude",
    title: "agents sharing a name: the file claude -p's debug log calls active = the file of tool-map's loaded agent of that name",
    run: (context) =>
      withFixture(context, (sandbox) => {
        const log = path.join(sandbox.root, "debug.log")
        context.runHost(sandbox, "claude", ["-p", "hello", "--debug-file", log, "--output-format", "stream-json", "--verbose"])
        // 2.1.332 logs `[agents] Duplicate agent name 'NAME' (SOURCE): PATHS — active: PATH`.
        const active = [...fs.readFileSync(log, "utf8").matchAll(/Duplicate agent name '([^']+)' \([^)]*\): .* — active: (\S+)/g)].map(
          ([, name, file]) => `${name}: ${path.relative(sandbox.root, file!)}`
        )
        const items = toolMapList<ToolMapItem>(context, sandbox, ["agents"]).filter((item) => item.host === "claude-code")
        const named = new Set(active.map((line) => line.slice(0, line.indexOf(":"))))
        const toolMap = items.filter((item) => named.has(item.name)).map((item) => `${item.name}: ${path.relative(sandbox.root, item.path)}`)
        return { toolMap: list(toolMap), host: list(active) }
      })
  },
  ...FIXTURE_PLUGINS.map((plugin): Check => ({
    id: `plugin-details-${plugin.name}`,
    host: "claude",
    title: `claude plugin details ${plugin.id}: Skills (its skills and commands) and Agents = tool-map's items of the plugin`,
    run: (context) =>
      withFixture(context, (sandbox) => {
        const details = succeeded(`claude plugin details ${plugin.id}`, context.runHost(sandbox, "claude", ["plugin", "details", plugin.id]))
        const ofPlugin = (kind: string) =>
          toolMapList<ToolMapItem>(context, sandbox, [kind]).filter((item) => item.host === "claude-code" && item.plugin === plugin.id)
        const agentsDir = path.join(installDir(sandbox, plugin), "agents")
        // `plugin details` (2.1.332) lists the files agents/*.md by file name (not through links,
        // not in subfolders), unlike a session, which loads every agent the check above lists.
        const agentFiles = ofPlugin("agents")
          .filter((item) => path.dirname(item.path) === agentsDir && item.path.endsWith(".md") && !fs.lstatSync(item.path).isSymbolicLink())
          .map((item) => path.basename(item.path, ".md"))
        // Claude Code counts a plugin's commands among its skills (finding 3).
        const skills = [...ofPlugin("skills"), ...ofPlugin("commands")].map((item) => item.name)
        const line = (skillNames: ReadonlyArray<string>, agentNames: ReadonlyArray<string>) =>
          `skills (${skillNames.length}): ${list(skillNames)}; agents (${agentNames.length}): ${list(agentNames)}`
        return {
          toolMap: line(skills, agentFiles),
          host: line(detailsNames(details.stdout, "Skills"), detailsNames(details.stdout, "Agents"))
        }
      })
  })),
  {
    id: "plugin-list-fixture",
    host: "claude",
    title: "claude plugin list --json (the fixture's plugins: id, version, enabled) = tool-map query plugins",
    run: (context) =>
      withFixture(context, (sandbox) => {
        const listed = JSON.parse(succeeded("claude plugin list --json", context.runHost(sandbox, "claude", ["plugin", "list", "--json"])).stdout) as ReadonlyArray<{
          readonly id: string
          readonly version: string
          readonly enabled: boolean
        }>
        // The host's own built-in plugins (`…@builtin`) have no files in the HOME.
        const host = listed.filter((plugin) => !plugin.id.endsWith("@builtin")).map((plugin) => `${plugin.id} ${plugin.version} ${plugin.enabled ? "enabled" : "disabled"}`)
        const toolMap = toolMapList<ToolMapItem>(context, sandbox, ["plugins"])
          .filter((item) => item.host === "claude-code")
          .map((item) => `${item.name}@${item.marketplace ?? "(none)"} ${item.version ?? "(no version)"} ${item.enabled ? "enabled" : "disabled"}`)
        return { toolMap: list(toolMap), host: list(host) }
      })
  },
  ...FIXTURE_PLUGINS.map((plugin): Check => ({
    id: `validate-yaml-${plugin.name}`,
    host: "claude",
    title: `claude plugin validate --json on ${plugin.id}'s install dir: the files whose YAML fails even for Claude Code = tool-map's diagnostics`,
    run: (context) => withFixture(context, (sandbox) => yamlFailures(context, sandbox, installDir(sandbox, plugin)))
  })),
  ...[...FIXTURE_PLUGINS.map((plugin) => plugin.id), "local-kit@dev"].map((id): Check => ({
    id: `ledger-${id.slice(0, id.indexOf("@"))}`,
    host: "claude",
    title: `a claude -p session on the fixture HOME: how much the first request shrinks with ${id} switched off (chars/4) = what tool-map query context --by plugin says switching it off saves, within ${LEDGER_TOLERANCE * 100}% (issue 28: the session, not plugin details' projection, is the measure)`,
    run: (context) =>
      withFixture(context, (sandbox) => {
        const figure = toolMapQuery<{ readonly rows: ReadonlyArray<{ readonly group: string; readonly alwaysOnTokens: number; readonly offSavesTokens?: number }> }>(
          context, sandbox, ["context", "--host", "claude-code", "--by", "plugin"], withClaude(context)
        ).rows.find((row) => row.group === id)
        const mine = figure?.offSavesTokens ?? figure?.alwaysOnTokens ?? 0
        const short = id.slice(0, id.indexOf("@"))
        const all = requestChars(mainRequest(ledgerSession(context, sandbox, `ledger-${short}-all.jsonl`), `${id} on`))
        const settingsFile = path.join(sandbox.home, ".claude", "settings.json")
        const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as { enabledPlugins?: Record<string, boolean> }
        fs.writeFileSync(settingsFile, `${JSON.stringify({ ...settings, enabledPlugins: { ...settings.enabledPlugins, [id]: false } }, null, 2)}\n`)
        const without = requestChars(mainRequest(ledgerSession(context, sandbox, `ledger-${short}-off.jsonl`), `${id} off`))
        const measured = projected(all - without)
        const off = measured === 0 ? (mine === 0 ? 0 : 1) : (mine - measured) / measured
        process.stderr.write(`conformance: ${id}: the first request shrinks by ${measured} (chars/4) with it off; tool-map says ${mine} (${off >= 0 ? "+" : ""}${(off * 100).toFixed(1)}%)\n`)
        return {
          toolMap: Math.abs(off) <= LEDGER_TOLERANCE ? `saves ~${measured} tok` : `saves ~${mine} tok (${(off * 100).toFixed(1)}% off)`,
          host: `saves ~${measured} tok`
        }
      })
  })),
  {
    id: "validate-yaml-user",
    host: "claude",
    title: "claude plugin validate --json ~/.claude: the user files whose YAML fails even for Claude Code = tool-map's diagnostics",
    // The validator reads the settings folders of ~/.claude, not the plugins installed under it.
    run: (context) => withFixture(context, (sandbox) => yamlFailures(context, sandbox, path.join(sandbox.home, ".claude"), ["plugins"]))
  }
]
