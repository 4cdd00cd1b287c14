import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { markdown, writeTree } from "../../../../bench/hostGenerators.js"
import { AgentHostFiles, defaultHostFileLimits, type HostFilesScope } from "../../../../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { AgentHostScanner } from "../../../../src/inventory/discover/AgentHostScanner.js"
import { FrontmatterParser } from "../../../../src/inventory/discover/FrontmatterParser.js"
import { SyncNodeFileSystemLayer } from "../../../../src/platform/SyncNodeFileSystem.js"
import { MachineEnvironment } from "../../../../src/services/MachineEnvironment.js"

/** The two ways of reading: the ordinary FileSystem read concurrently, and the CLI's synchronous one read one by one. */
const MODES = [
  ["AgentHostFiles.layer over the platform FileSystem", AgentHostFiles.layer.pipe(Layer.provideMerge(NodeFileSystem.layer))],
  ["AgentHostFiles.layerSync over the synchronous FileSystem", AgentHostFiles.layerSync.pipe(Layer.provideMerge(SyncNodeFileSystemLayer))]
] as const

const BIG = 256 * 1024 + 1

/**
 * A home with items of every host, links (to a file, a folder and a loop), a file over the
 * markdown cap, a FIFO, an invalid config and a folder shared by several hosts.
 */
const writeHome = (root: string) =>
  Effect.gen(function* () {
    const home = NodePath.join(root, "home")
    yield* writeTree(home, {
      ".claude/skills/alpha/SKILL.md": markdown({ name: "alpha", description: "Alpha skill" }),
      ".claude/skills/alpha/scripts/run.sh": "echo\n",
      ".claude/skills/beta/SKILL.md": markdown({ name: "beta", description: "Beta skill" }),
      ".claude/agents/reviewer.md": markdown({ name: "reviewer", description: "Reviews", tools: ["Read", "Grep"] }),
      ".claude/agents/sub/nested.md": markdown({ name: "nested", description: "In a subfolder" }),
      ".claude/agents/big.md": `---\nname: big\ndescription: Big\n---\n${"x".repeat(BIG)}\n`,
      ".claude/commands/ship.md": markdown({ description: "Ships" }),
      ".claude/settings.json": `{"permissions": {"deny": ["mcp__gone"]}}`,
      ".claude.json": `{"mcpServers": {"user-srv": {"command": "user-srv"}}}`,
      ".agents/skills/shared/SKILL.md": markdown({ name: "shared", description: "In the shared folder" }),
      ".codex/config.toml": `[mcp_servers.codex-srv]\ncommand = "codex-srv"\n`,
      ".codex/prompts/fix.md": markdown({ description: "Fixes" }),
      ".gemini/settings.json": `{ // a comment\n "mcpServers": {"gemini-srv": {"command": "gemini-srv"},}}`,
      ".gemini/commands/plan.toml": `description = "Plans"\nprompt = "Plan it"\n`,
      ".config/opencode/opencode.json": `{"mcp": {"oc-srv": {"type": "local", "command": ["oc-srv"]}}, "agent": {"helper": {"description": "Helps"}}}`,
      ".config/opencode/agent/writer.md": markdown({ description: "Writes" }),
      ".cursor/mcp.json": `{"mcpServers": {"cursor-srv": {"command": "cursor-srv"}`,
      "work/proj/.git/HEAD": "ref\n",
      "work/proj/.mcp.json": `{"mcpServers": {"proj-srv": {"command": "proj-srv"}}}`,
      "work/proj/AGENTS.md": "# Rules\n\nBe brief.\n"
    })
    fs.symlinkSync("reviewer.md", NodePath.join(home, ".claude/agents/alias.md"))
    fs.symlinkSync("..", NodePath.join(home, ".claude/agents/sub/up"))
    fs.symlinkSync(".", NodePath.join(home, ".claude/agents/self"))
    fs.symlinkSync("../skills/beta", NodePath.join(home, ".claude/skills/gamma"))
    execFileSync("mkfifo", [NodePath.join(home, ".claude/agents/pipe.md")])
    return home
  })

/** The scan of `home` over `files` (and the FileSystem it reads), as the CLI runs it. */
const scanOver = (home: string, files: (typeof MODES)[number][1]) =>
  Effect.flatMap(AgentHostScanner, (scanner) => scanner.scan).pipe(
    Effect.provide(
      AgentHostScanner.layer.pipe(
        Layer.provide(Layer.mergeAll(files, FrontmatterParser.layer, MachineEnvironment.layerTest({ homedir: home, cwd: NodePath.join(home, "work/proj"), os: "linux", env: {} })))
      )
    )
  )

describe("AgentHostFiles: one finding on both file systems", () => {
  it.scoped("a scan over each layer finds the same items, roots, diagnostics and watched paths", () =>
    Effect.gen(function* () {
      const root = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "tool-map-host-files-" })
      const home = yield* writeHome(root)
      const [ordinary, sync] = yield* Effect.forEach(MODES, ([, layer]) => scanOver(home, layer))
      expect(sync!.inventory).toEqual(ordinary!.inventory)
      expect(sync!.watched).toEqual(ordinary!.watched)

      const at = (path: string) => path.replace(home, "~")
      const claude = ordinary!.inventory.items.filter((item) => item.host === "claude-code")
      expect(claude.filter((item) => item.kind === "agent").map((item) => [item.name, at(item.path)])).toEqual([
        ["reviewer", "~/.claude/agents/alias.md"],
        ["reviewer", "~/.claude/agents/reviewer.md"],
        ["nested", "~/.claude/agents/sub/nested.md"]
      ])
      expect(claude.filter((item) => item.kind === "skill").map((item) => [item.name, at(item.path)])).toEqual([
        ["alpha", "~/.claude/skills/alpha/SKILL.md"],
        ["beta", "~/.claude/skills/beta/SKILL.md"],
        ["beta", "~/.claude/skills/gamma/SKILL.md"]
      ])
      expect(ordinary!.inventory.diagnostics.map((diagnostic) => [diagnostic.source, diagnostic.path === null ? null : at(diagnostic.path), diagnostic.line, diagnostic.message])).toEqual([
        ["agent-hosts/claude-code", "~/.claude/agents/big.md", null, `file is ${BIG + 36} bytes, over the 262144-byte cap`],
        ["agent-hosts/claude-code", "~/.claude/agents/pipe.md", null, "not a regular file"],
        ["agent-hosts/cursor", "~/.cursor/mcp.json", 1, "invalid JSON"]
      ])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("each method returns the same value and findings on both file systems", () =>
    Effect.gen(function* () {
      const root = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "tool-map-host-files-" })
      const home = yield* writeHome(root)
      const parser = yield* Effect.provide(FrontmatterParser, FrontmatterParser.layer)
      const on: HostFilesScope = { path: NodePath.posix, limits: defaultHostFileLimits, parser }
      const claude = NodePath.join(home, ".claude")
      const reads = (files: AgentHostFiles["Type"]) =>
        Effect.all([
          files.filesWithExtension(on, NodePath.join(claude, "agents"), "agents", true),
          files.filesNamed(on, NodePath.join(claude, "skills"), "SKILL.md", { role: "skills", dot: false }),
          files.listDir(on, NodePath.join(claude, "agents"), null),
          files.readMarkdownEach(on, ["reviewer.md", "big.md", "pipe.md", "gone.md"].map((name) => NodePath.join(claude, "agents", name))),
          files.readJson(on, NodePath.join(home, ".cursor/mcp.json"), "cursor MCP", { jsonc: false }),
          files.readToml(on, NodePath.join(home, ".codex/config.toml"), "codex config"),
          files.probe(on, NodePath.join(claude, "agents/pipe.md"))
        ])
      const [ordinary, sync] = yield* Effect.forEach(MODES, ([, layer]) => Effect.provide(Effect.flatMap(AgentHostFiles, reads), layer))
      expect(sync).toEqual(ordinary)

      const [agents, skills, listed, markdowns, cursor, codex, fifo] = ordinary!
      const at = (path: string) => path.replace(home, "~")
      expect(agents.value.map(at)).toEqual(["~/.claude/agents/alias.md", "~/.claude/agents/big.md", "~/.claude/agents/pipe.md", "~/.claude/agents/reviewer.md", "~/.claude/agents/sub/nested.md"])
      expect(agents.findings.roots.map((found) => [at(found.path), found.role, found.status])).toEqual([["~/.claude/agents", "agents", "ok"]])
      expect(skills.value.map(at)).toEqual(["~/.claude/skills/alpha/SKILL.md", "~/.claude/skills/beta/SKILL.md"])
      expect(Option.map(listed.value, (entries) => entries.map((entry) => [entry.name, entry.isFile, entry.isDirectory]))).toEqual(
        Option.some([["alias.md", true, false], ["big.md", true, false], ["pipe.md", false, false], ["reviewer.md", true, false], ["self", false, true], ["sub", false, true]])
      )
      expect(markdowns.value.map(Option.map((read) => read.doc.fields["name"]))).toEqual([Option.some("reviewer"), Option.none(), Option.none(), Option.none()])
      expect(markdowns.findings.problems.map((problem) => [at(problem.path ?? ""), problem.message])).toEqual([
        ["~/.claude/agents/big.md", `file is ${BIG + 36} bytes, over the 262144-byte cap`],
        ["~/.claude/agents/pipe.md", "not a regular file"]
      ])
      expect(Option.isNone(cursor.value)).toBe(true)
      expect(cursor.findings.roots.map((found) => [at(found.path), found.status, found.reason])).toEqual([["~/.cursor/mcp.json", "invalid", "invalid JSON"]])
      expect(Option.map(codex.value, (read) => read.value)).toEqual(Option.some({ mcp_servers: { "codex-srv": { command: "codex-srv" } } }))
      expect(fifo).toEqual({ value: { _tag: "other" }, findings: { roots: [], problems: [], watched: [NodePath.join(claude, "agents/pipe.md")] } })
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
