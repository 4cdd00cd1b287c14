import { AgentHostFiles } from "../../src/inventory/discover/agentHosts/index.js"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { markdown } from "../../bench/hostGenerators.js"
import { configHash } from "../../src/inventory/discover/agentHosts/mcpLaunch.js"
import { FrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"
import { Walker } from "../../src/inventory/discover/Walker.js"
import { hostServers } from "../../src/mcp/gateway/hostServers.js"
import { Snapshots, snapshotsDirOf } from "../../src/services/ToolSnapshots.js"
import { ScanProgress } from "../../src/inventory/ScanProgress.js"
import { inventoryLayerOver } from "../../src/layers/CoreLayer.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"
import { runCliOver, scanServicesWith } from "./inProcess.js"

/** The model the ledger assumes without a `model` setting (issue 28, point 1). */
const HOST_OWN = {
  version: "2.1.332",
  agents: ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
  skills: ["claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help", "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config", "workflow-authoring"],
  alwaysOnTokens: 1935
}
const MODEL = { model: "claude-sonnet-4-6", source: "Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)", setting: null, contextWindow: 200000, skillListingBudget: 8000 }

/**
 * `query context` and `query changes` (issue 14) through the CLI, on a machine in a temp dir: the
 * real walker over `root/bin1:root/bin2`, the agent hosts under `root/home`, the working
 * directory `root/proj`, the bundle in `root/data`. Scans run without version probes.
 */
const environmentIn = (root: string) =>
  MachineEnvironment.layerTest({
    os: "linux",
    env: { PATH: `${root}/bin1:${root}/bin2`, HOME: `${root}/home`, PLUGIN_DATA: `${root}/data` },
    homedir: `${root}/home`,
    cwd: `${root}/proj`
  })

const machineIn = (root: string) =>
  inventoryLayerOver(scanServicesWith(Walker.layer)).pipe(
    Layer.provideMerge(Layer.merge(environmentIn(root), ScanProgress.silent)),
    Layer.provideMerge(NodeContext.layer)
  )

const run = (root: string, ...args: ReadonlyArray<string>) => runCliOver(machineIn(root), args)

/** Writes files (relative to `root`); an entry under bin1/ or bin2/ is made executable. */
const write = (root: string, files: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const [file, text] of Object.entries(files)) {
      const path = NodePath.join(root, file)
      yield* fs.makeDirectory(NodePath.dirname(path), { recursive: true })
      yield* fs.writeFileString(path, text)
      if (/^bin\d\//.test(file)) yield* fs.chmod(path, 0o755)
    }
  })

const FIRST = {
  "bin1/gh": "#!/bin/sh\n",
  "bin2/node": "#!/bin/sh\n",
  "bin1/old": "#!/bin/sh\n",
  "proj/.git/HEAD": "ref: refs/heads/main\n",
  "home/.claude/skills/review/SKILL.md": markdown({ name: "review", description: "Review a pull request against the team's checklist", when_to_use: "when asked for a review" }, "# Review\n\nRead the diff, then check each point of the list.\n"),
  "home/.claude/agents/planner.md": markdown({ name: "planner", description: "Plans a change before any code is written", tools: "Read, Grep" }, "You plan. Never edit files.\n"),
  "home/.claude/commands/ship.md": markdown({ description: "Ship the branch" }, "Run the tests, then push.\n"),
  "home/.claude/CLAUDE.md": "# House rules\n\nAlways run the tests before a commit. Never push to main.\n",
  "home/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["-y", "notion-mcp"], env: { NOTION_KEY: "x" } } } })
}

describe("query context: the always-on ledger (issue 14)", () => {
  it.scopedLive("per item, largest first, with the host's totals; --by plugin, source and host sum them", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "ledger-cli-" })
      yield* write(root, FIRST)
      expect((yield* run(root, "scan", "--no-probes", "--quiet")).code).toBe(0)
      const items = yield* run(root, "query", "context", "--json")
      expect(items.code).toBe(0)
      expect(JSON.parse(items.stdout)).toEqual({ stale: false, staleReason: null, ...ledgerByItem(root) })
      const text = yield* run(root, "query", "context", "--host", "claude-code")
      expect(text.stdout.split("\n")).toEqual([
        "always-on  on-invoke  host         kind          scope  plugin  name",
        "---------  ---------  -----------  ------------  -----  ------  ---------",
        "~20 tok    ~15 tok    claude-code  skill         user           review",
        "~18 tok    ~0 tok     claude-code  instructions  user           CLAUDE.md",
        "~18 tok    ~7 tok     claude-code  agent         user           planner",
        "~5 tok     ~6 tok     claude-code  command       user           ship",
        "unknown    unknown    claude-code  mcpServer     user           notion",
        "",
        "Claude Code: ~61 tok in every session, ~28 tok more when all 5 items are used (1 unknown: MCP servers without a tool snapshot yet (`tool-map catalog snapshot --host claude-code` takes one), or items of a bundle older than the ledger)",
        "Claude Code figures: Claude Code's own projection: characters / 4 of the texts it counts (claude plugin details, 2.1.332, offline); MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one; model assumed: claude-sonnet-4-6 (200,000-token context, Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)): skill listing within 8,000 characters; Claude Code's own items (no installed version found: 2.1.332's assumed, 5 built-in agents, 13 skills) add ~1935 tok, not in the total."
      ])
      const byPlugin = yield* run(root, "query", "context", "--by", "plugin", "--host", "claude-code")
      // What switching a plugin off saves is a plugin's figure: blank for the items of no plugin.
      expect(byPlugin.stdout.split("\n").slice(0, 3)).toEqual([
        "always-on  saved if off  on-invoke  items  unknown  host         plugin",
        "---------  ------------  ---------  -----  -------  -----------  -----------",
        "~61 tok                  ~28 tok    5      1        claude-code  (no plugin)"
      ])
      const byHost = yield* run(root, "query", "context", "--by", "host", "--json")
      expect(JSON.parse(byHost.stdout).rows).toEqual([{ host: "claude-code", group: "claude-code", items: 5, alwaysOnTokens: 61, onInvokeTokens: 28, unknown: 1 }])
    }).pipe(Effect.provide(NodeContext.layer)))
})

/** Two tools as a server lists them. */
const NOTES_TOOLS = [
  { name: "search", description: "Search the notes for a phrase", inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
  {
    name: "fetch_page",
    description: "Fetch one page of a note by its id",
    inputSchema: { type: "object", properties: { id: { type: "string", description: "The note's id" }, page: { type: "integer", minimum: 1 } }, required: ["id"] }
  }
]

describe("query context: MCP servers' tool schemas from the gateway's snapshots (issue 14)", () => {
  it.scopedLive("unknown without a snapshot; once the gateway kept one under the key it starts the server by, its tools' o200k estimate, less the tools the entry leaves out", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "ledger-snap-" })
      yield* write(root, {
        "proj/.git/HEAD": "ref: refs/heads/main\n",
        "home/.claude.json": JSON.stringify({ mcpServers: { notes: { command: "npx", args: ["-y", "notes-mcp", "--root", "${HOME}/notes"], env: { NOTES_KEY: "k" } } } }),
        "home/.codex/config.toml": "[mcp_servers.notes]\ncommand = \"npx\"\nargs = [\"-y\", \"notes-mcp\"]\ndisabled_tools = [\"fetch_page\"]\n"
      })
      expect((yield* run(root, "scan", "--no-probes", "--quiet")).code).toBe(0)
      const before = JSON.parse((yield* run(root, "query", "context", "--json")).stdout)
      expect(before.rows.map((r: { readonly host: string; readonly alwaysOnTokens: number | null }) => [r.host, r.alwaysOnTokens])).toEqual([["claude-code", null], ["codex", null]])

      // The gateway's own way: the servers each host would start here, their keys, its snapshot store.
      const started = yield* Effect.forEach(["claude-code", "codex"] as const, (host) => hostServers(host)).pipe(
        Effect.provide(Layer.mergeAll(FrontmatterParser.layer, environmentIn(root), AgentHostFiles.layer))
      )
      const configs = started.flatMap((found) => found.servers)
      expect(configs.map((config) => config._tag === "Stdio" && [config.command, ...config.args].join(" "))).toEqual([
        `npx -y notes-mcp --root ${root}/home/notes`,
        "npx -y notes-mcp"
      ])
      yield* Effect.forEach(configs, (config) =>
        Effect.flatMap(Snapshots, (snapshots) =>
          snapshots.write({ server: config.name, configHash: configHash(config), takenAt: "2026-12-02T16:00:00.000Z", tools: NOTES_TOOLS })
        )).pipe(Effect.provide(Snapshots.layer(snapshotsDirOf(NodePath.join(root, "data")))))

      // A new snapshot is a watched change: --if-stale scans again.
      const again = yield* run(root, "scan", "--no-probes", "--if-stale", "--json")
      expect(again.code).toBe(0)
      expect(JSON.parse(again.stdout)).toMatchObject({ skipped: false, rescanReason: `${root}/data/gateway/snapshots appeared` })
      // search 34 and fetch_page 59 o200k tokens by the catalog's estimator; Codex's entry leaves fetch_page out.
      const after = JSON.parse((yield* run(root, "query", "context", "--json")).stdout)
      expect(after).toEqual({
        stale: false,
        staleReason: null,
        by: "item",
        rows: [
          { host: "claude-code", kind: "mcpServer", name: "notes", scope: "user", plugin: null, alwaysOnTokens: 93, onInvokeTokens: null, id: `claude-code:mcpServer:user:${root}/home/.claude.json#notes`, path: `${root}/home/.claude.json` },
          { host: "codex", kind: "mcpServer", name: "notes", scope: "user", plugin: null, alwaysOnTokens: 34, onInvokeTokens: null, id: `codex:mcpServer:user:${root}/home/.codex/config.toml#notes`, path: `${root}/home/.codex/config.toml` }
        ],
        totals: [
          { host: "claude-code", estimate: "Claude Code's own projection: characters / 4 of the texts it counts (claude plugin details, 2.1.332, offline); MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one; model assumed: claude-sonnet-4-6 (200,000-token context, Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)): skill listing within 8,000 characters; Claude Code's own items (no installed version found: 2.1.332's assumed, 5 built-in agents, 13 skills) add ~1935 tok, not in the total", model: MODEL, hostOwn: HOST_OWN, items: 1, alwaysOnTokens: 93, onInvokeTokens: 0, unknown: 0 },
          { host: "codex", estimate: "o200k tokens, tool-map's estimate (the catalog's estimator) of a \"name: description\" line per skill and agent, Codex's own listing format not verified; MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one", items: 1, alwaysOnTokens: 34, onInvokeTokens: 0, unknown: 0 }
        ]
      })
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("query changes: drift between two scans (issue 14)", () => {
  it.scopedLive("a scan, changes to PATH dirs, skills and MCP configs, a second scan: the change count, the summary line and the exact changes", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "drift-cli-" })
      yield* write(root, FIRST)
      const first = yield* run(root, "scan", "--no-probes")
      expect(first.stdout.split("\n")[1]).toBe("No earlier scan to compare with.")
      const firstGeneration = JSON.parse(yield* fs.readFileString(NodePath.join(root, "data", "tools.json"))).generation as string
      // A first scan has no earlier generation: no history file yet.
      expect((yield* fs.readDirectory(NodePath.join(root, "data"))).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
      const none = yield* run(root, "query", "changes", "--json")
      expect(JSON.parse(none.stdout)).toEqual({
        stale: false,
        staleReason: null,
        since: null,
        current: { number: 1, generation: firstGeneration, generatedAt: expect.any(String), committedAt: expect.any(String) },
        count: 0,
        note: "the history keeps no generation that differs from this one (it is the first scan here, every scan since found the same, or the bundle was written before tool-map kept a history); the next scan that finds a change will be compared with it"
      })

      // A new MCP server in the project, an env name more for one of the user's, a node earlier
      // on PATH, a tool gone and one new, a skill edited, an agent added.
      yield* fs.remove(NodePath.join(root, "bin1/old"))
      yield* write(root, {
        "bin1/node": "#!/bin/sh\n",
        "bin2/new": "#!/bin/sh\n",
        "proj/.mcp.json": JSON.stringify({ mcpServers: { exfil: { command: "curl", args: ["https://example.invalid"] } } }),
        "home/.claude.json": JSON.stringify({ mcpServers: { notion: { command: "npx", args: ["-y", "notion-mcp"], env: { NOTION_KEY: "x", EXTRA: "y" } } } }),
        "home/.claude/skills/review/SKILL.md": markdown({ name: "review", description: "Review a pull request" }, "Check it.\n"),
        "home/.claude/agents/tester.md": markdown({ name: "tester", description: "Writes tests" })
      })
      const second = yield* run(root, "scan", "--no-probes", "--json")
      const scanned = JSON.parse(second.stdout)
      expect(scanned.changes).toEqual({
        since: firstGeneration,
        count: 7,
        summary: "1 MCP server added, 1 MCP server changed, 1 tool added, 1 tool removed, 1 tool moved, 1 agent-host item added, 1 item's content changed"
      })
      const summary = yield* fs.readFileString(NodePath.join(root, "data", "tools.summary.md"))
      expect(summary.split("\n").find((line) => line.startsWith("Changed since last scan"))).toMatch(
        /^Changed since last scan \(\d{4}-\d\d-\d\dT[\d:.]+Z\): 1 MCP server added, 1 MCP server changed, 1 tool added, 1 tool removed, 1 tool moved, 1 agent-host item added, 1 item's content changed\. Ask: `tool-map query changes`\.$/
      )
      const changes = yield* run(root, "query", "changes", "--json")
      expect(changes.code).toBe(0)
      const answer = JSON.parse(changes.stdout)
      expect({ ...answer, since: answer.since.generation, current: answer.current.generation }).toEqual({
        stale: false,
        staleReason: null,
        since: firstGeneration,
        current: scanned.generation,
        asked: null,
        mcpServers: {
          added: [{ host: "claude-code", kind: "mcpServer", name: "exfil", id: `claude-code:mcpServer:project:${root}/proj/.mcp.json#exfil`, command: "curl https://example.invalid", url: null, envVars: [] }],
          changed: [{
            host: "claude-code",
            kind: "mcpServer",
            name: "notion",
            id: `claude-code:mcpServer:user:${root}/home/.claude.json#notion`,
            fields: ["env"],
            before: { command: "npx -y notion-mcp", url: null, envVars: ["NOTION_KEY"] },
            after: { command: "npx -y notion-mcp", url: null, envVars: ["EXTRA", "NOTION_KEY"] }
          }],
          removed: []
        },
        tools: {
          added: [{ name: "new", path: `${root}/bin2/new` }],
          removed: [{ name: "old", path: `${root}/bin1/old` }],
          moved: [{ name: "node", from: `${root}/bin2/node`, to: `${root}/bin1/node` }],
          versionChanged: []
        },
        items: {
          added: [{ host: "claude-code", kind: "agent", name: "tester", id: `claude-code:agent:user:${root}/home/.claude/agents/tester.md` }],
          removed: [],
          enabled: [],
          disabled: [],
          contentChanged: [{ host: "claude-code", kind: "skill", name: "review", id: `claude-code:skill:user:${root}/home/.claude/skills/review/SKILL.md` }]
        },
        count: 7
      })
      const text = yield* run(root, "query", "changes")
      expect(text.stdout.split("\n").slice(1)).toEqual([
        "MCP servers added (1):",
        `  + claude-code mcpServer exfil (claude-code:mcpServer:project:${root}/proj/.mcp.json#exfil): curl https://example.invalid`,
        "MCP servers changed (1):",
        `  ~ claude-code mcpServer notion (claude-code:mcpServer:user:${root}/home/.claude.json#notion): env: npx -y notion-mcp [env: NOTION_KEY] -> npx -y notion-mcp [env: EXTRA, NOTION_KEY]`,
        "Tools added (1):",
        `  + new ${root}/bin2/new`,
        "Tools removed (1):",
        `  - old ${root}/bin1/old`,
        "Tools moved (another file wins) (1):",
        `  ~ node ${root}/bin2/node -> ${root}/bin1/node`,
        "Agent-host items added (1):",
        `  + claude-code agent tester (claude-code:agent:user:${root}/home/.claude/agents/tester.md)`,
        "Content changed (1):",
        `  ~ claude-code skill review (claude-code:skill:user:${root}/home/.claude/skills/review/SKILL.md)`
      ])
      // The previous generation named, by id or number: the same answer as the default, and what was asked.
      const byId = JSON.parse((yield* run(root, "query", "changes", "--since", firstGeneration, "--json")).stdout)
      expect([{ ...byId, asked: null }, byId.asked]).toEqual([answer, { since: firstGeneration, generation: 1 }])
      expect(JSON.parse((yield* run(root, "query", "changes", "--since", "1", "--json")).stdout)).toEqual({ ...answer, asked: { since: "1", generation: 1 } })
      // Its own generation: nothing changed since; an id not kept: a usage error naming the oldest kept.
      expect(JSON.parse((yield* run(root, "query", "changes", "--since", scanned.generation, "--json")).stdout).count).toBe(0)
      const unknown = yield* run(root, "query", "changes", "--since", "20200101T000000Z-00000000")
      expect(unknown.code).toBe(2)
      expect(unknown.stderr).toContain(`--since 20200101T000000Z-00000000: no kept generation has this id; the oldest kept is generation 1 (committed ${answer.since.committedAt}).`)
      // The typed word is cleaned on its own: a path ending in "passwd" does not redact the message's next word,
      // and a secret typed there is still redacted.
      const passwd = yield* run(root, "query", "changes", "--since", "../../etc/passwd")
      expect(passwd.stderr).toContain("--since ../../etc/passwd: not a generation number, a duration, a date, a time or a generation id.")
      const secret = yield* run(root, "query", "changes", "--since", "--api-key=X1SECRET")
      expect([secret.code, secret.stderr.includes("X1SECRET"), secret.stderr.includes("--api-key=[redacted]")]).toEqual([2, false, true])
      // A third scan with nothing changed: its summary compares with the second, and it pushes
      // nothing out of the history: `query changes` still shows the last change, since the first.
      const third = JSON.parse((yield* run(root, "scan", "--no-probes", "--json")).stdout)
      expect(third.changes).toEqual({ since: scanned.generation, count: 0, summary: null })
      const after = JSON.parse((yield* run(root, "query", "changes", "--json")).stdout)
      expect({ ...after, current: after.current.generation }).toEqual({ ...answer, current: third.generation })
      expect(after.current.number).toBe(3)

      // The history is a file of the bundle's own, tagged with the generation it belongs to; tools.json,
      // which every query and --if-stale reads, does not carry it.
      const data = NodePath.join(root, "data")
      expect((yield* fs.readDirectory(data)).sort()).toEqual(["tools.history.json", "tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
      expect(Object.keys(JSON.parse(yield* fs.readFileString(NodePath.join(data, "tools.json"))))).not.toContain("previous")
      const historyFile = NodePath.join(data, "tools.history.json")
      const history = JSON.parse(yield* fs.readFileString(historyFile))
      expect([Object.keys(history), history.generation, history.number, history.entries.map((entry: { number: number }) => entry.number)]).toEqual([
        ["format", "generation", "generatedAt", "number", "committedAt", "entries"],
        third.generation,
        3,
        [2, 1]
      ])
      // A history of another generation (an older tool-map wrote the bundle since) is not this bundle's.
      yield* fs.writeFileString(historyFile, JSON.stringify({ ...history, generation: firstGeneration }))
      expect(JSON.parse((yield* run(root, "query", "changes", "--json")).stdout)).toMatchObject({ since: null, current: { number: 1, generation: third.generation }, count: 0 })
      // One that is no history at all is an error naming it (exit 4), and no other query reads it.
      yield* fs.writeFileString(historyFile, "{\"generation\": 1}")
      const corrupt = yield* run(root, "query", "changes", "--json")
      expect([corrupt.code, corrupt.stdout, corrupt.stderr.trim()]).toEqual([
        4,
        "",
        `tool-map: Cannot read the tool-map bundle at ${historyFile}: it is not the history of a tool-map bundle (corrupt or from an incompatible version); the next \`tool-map scan\` starts a new one`
      ])
      expect((yield* run(root, "query", "tools", "--json")).code).toBe(0)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("query mcp: readiness without connecting (issue 14)", () => {
  it.scopedLive("a command missing, present, shadowed on PATH, given by path; uvx packages installed, cached or not; a script present or not; env names set or not; an insecure url", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "ready-cli-" })
      yield* write(root, {
        "bin1/node": "#!/bin/sh\n",
        "bin2/node": "#!/bin/sh\n",
        "bin2/uvx": "#!/bin/sh\n",
        "proj/.git/HEAD": "ref: refs/heads/main\n",
        "proj/srv/main.js": "",
        // uv: mcp-server-git installed as a tool, mcp-server-fetch's wheel unpacked in the cache.
        "home/.local/share/uv/tools/mcp-server-git/pyvenv.cfg": "",
        "home/.cache/uv/archive-v0/Xy12ab/mcp_server_fetch-1.2.0.dist-info/METADATA": "",
        "home/.claude.json": JSON.stringify({
          mcpServers: {
            absent: { command: "bunx", args: ["some-server"] },
            git: { command: "uvx", args: ["mcp-server-git", "--repository", "."] },
            fetch: { command: "uvx", args: ["--from", "mcp_server_fetch==1.2.0", "mcp-server-fetch"] },
            time: { command: "uvx", args: ["mcp-server-time"] },
            script: { command: "node", args: ["./srv/main.js"] },
            noscript: { command: "node", args: ["./srv/gone.js"] },
            shadowed: { command: "node", args: ["s.js"] },
            bypath: { command: `${root}/bin2/node` },
            nokey: { command: "node", env: { KEY: "${API_KEY}", H: "${HOME}", D: "${MAYBE:-x}" } },
            haskey: { command: "node", env: { H: "${HOME}" } },
            plain: { type: "http", url: "http://mcp.example.com/mcp" }
          }
        })
      })
      expect((yield* run(root, "scan", "--no-probes", "--quiet")).code).toBe(0)
      const listed = (JSON.parse((yield* run(root, "query", "mcp", "--json")).stdout) as { readonly mcp: ReadonlyArray<{ readonly name: string; readonly readiness: unknown }> }).mcp
      expect(Object.fromEntries(listed.map((server) => [server.name, server.readiness]))).toEqual({
        absent: { ready: "missing command", resolvedCommand: null, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        git: { ready: "ok", resolvedCommand: `${root}/bin2/uvx`, version: null, missingEnv: [], npxPackage: null, uvxPackage: "mcp-server-git", cached: true },
        fetch: { ready: "ok", resolvedCommand: `${root}/bin2/uvx`, version: null, missingEnv: [], npxPackage: null, uvxPackage: "mcp-server-fetch", cached: true },
        time: { ready: "first start downloads mcp-server-time", resolvedCommand: `${root}/bin2/uvx`, version: null, missingEnv: [], npxPackage: null, uvxPackage: "mcp-server-time", cached: false },
        script: { ready: "ok", resolvedCommand: `${root}/bin1/node`, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        noscript: { ready: "missing script ./srv/gone.js", resolvedCommand: `${root}/bin1/node`, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        shadowed: { ready: "ok", resolvedCommand: `${root}/bin1/node`, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        bypath: { ready: "ok", resolvedCommand: `${root}/bin2/node`, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        nokey: { ready: "missing env API_KEY", resolvedCommand: `${root}/bin1/node`, version: null, missingEnv: ["API_KEY"], npxPackage: null, uvxPackage: null, cached: null },
        haskey: { ready: "ok", resolvedCommand: `${root}/bin1/node`, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null },
        plain: { ready: "insecure url", resolvedCommand: null, version: null, missingEnv: [], npxPackage: null, uvxPackage: null, cached: null }
      })
      const table = (yield* run(root, "query", "mcp")).stdout.split("\n")
      expect(table[0]).toMatch(/^name +host +scope +transport +command \/ url +env vars +ready +state +file$/)
      expect(table.find((line) => line.startsWith("nokey"))).toMatch(/ missing env API_KEY +loaded /)
      const summary = yield* fs.readFileString(NodePath.join(root, "data", "tools.summary.md"))
      expect(summary.split("\n").find((line) => line.startsWith("- MCP servers that will not start"))).toBe(
        "- MCP servers that will not start: 4 of 11: absent (claude-code: missing command), noscript (claude-code: missing script ./srv/gone.js), nokey (claude-code: missing env API_KEY), plain (claude-code: insecure url). Ask: `tool-map query mcp`."
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})

const row = (root: string, kind: string, name: string, file: string, alwaysOnTokens: number | null, onInvokeTokens: number | null, entry = "") => ({
  host: "claude-code",
  kind,
  name,
  scope: "user",
  plugin: null,
  alwaysOnTokens,
  onInvokeTokens,
  id: `claude-code:${kind}:user:${root}/home/${file}${entry}`,
  path: `${root}/home/${file}`
})

/**
 * Claude Code's projection, characters / 4: the skill `review Review a pull request against the
 * team's checklist when asked for a review` (81 characters), CLAUDE.md's whole text, the agent
 * `planner Plans a change before any code is written`, the command `ship Ship the branch`.
 */
const ledgerByItem = (root: string) => ({
  by: "item",
  rows: [
    row(root, "skill", "review", ".claude/skills/review/SKILL.md", 20, 15),
    row(root, "instructions", "CLAUDE.md", ".claude/CLAUDE.md", 18, 0),
    // `- planner: Plans a change before any code is written (Tools: Read, Grep)` (issue 28, point 3)
    row(root, "agent", "planner", ".claude/agents/planner.md", 18, 7),
    row(root, "command", "ship", ".claude/commands/ship.md", 5, 6),
    row(root, "mcpServer", "notion", ".claude.json", null, null, "#notion")
  ],
  totals: [{ host: "claude-code", estimate: "Claude Code's own projection: characters / 4 of the texts it counts (claude plugin details, 2.1.332, offline); MCP servers: o200k estimate of the tool schemas in the gateway's snapshot, unknown without one; model assumed: claude-sonnet-4-6 (200,000-token context, Claude Code's default for an API key (sonnet; a claude.ai plan may default to opus)): skill listing within 8,000 characters; Claude Code's own items (no installed version found: 2.1.332's assumed, 5 built-in agents, 13 skills) add ~1935 tok, not in the total", model: MODEL, hostOwn: HOST_OWN, items: 5, alwaysOnTokens: 61, onInvokeTokens: 28, unknown: 1 }]
})
