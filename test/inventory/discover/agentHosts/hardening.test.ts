import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { FIXTURE_ENV, markdown, rootedFileSystem, type Tree, writeTree } from "../../../../bench/hostGenerators.js"
import { AgentHostScanner } from "../../../../src/inventory/discover/AgentHostScanner.js"
import { FrontmatterParser } from "../../../../src/inventory/discover/FrontmatterParser.js"
import { AgentHostFiles } from "../../../../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { MAX_JSONC_DEPTH } from "../../../../src/inventory/discover/agentHosts/configText.js"
import { MachineEnvironment } from "../../../../src/services/MachineEnvironment.js"

/** Scans `tree` written under a temp root, with `links` (path → target, as `ln -s target path`) made after it. */
const scanWithLinks = (tree: Tree, links: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function* () {
    const files = yield* FileSystem.FileSystem
    const root = yield* files.makeTempDirectoryScoped({ prefix: "tool-map-hosts-hard-" })
    yield* writeTree(root, tree)
    for (const [path, target] of links) fs.symlinkSync(target, NodePath.join(root, path))
    const layers = AgentHostScanner.layer.pipe(
      Layer.provide(AgentHostFiles.layer),
      Layer.provide(Layer.mergeAll(rootedFileSystem(root), MachineEnvironment.layerTest(FIXTURE_ENV), FrontmatterParser.layer))
    )
    return yield* Effect.flatMap(AgentHostScanner, (scanner) => scanner.scan).pipe(Effect.provide(layers))
  }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

describe("agent-host readers on hostile trees", () => {
  it.effect("symlink loops in an agents dir (links to . and to a parent) add no phantom agents", () =>
    Effect.gen(function* () {
      const agents = "home/u/.claude/agents"
      const links = [
        ...Array.from({ length: 10 }, (_, index) => [`${agents}/l${index}`, "."] as const),
        [`${agents}/sub/up`, ".."] as const
      ]
      const started = Date.now()
      const { inventory } = yield* scanWithLinks({
        [`${agents}/solo.md`]: markdown({ name: "solo", description: "the only agent" }),
        [`${agents}/sub/nested.md`]: markdown({ name: "nested", description: "in a subfolder" })
      }, links)
      expect(inventory.items.filter((item) => item.kind === "agent").map((item) => [item.name, item.path])).toEqual([
        ["solo", "/home/u/.claude/agents/solo.md"],
        ["nested", "/home/u/.claude/agents/sub/nested.md"]
      ])
      expect(Date.now() - started).toBeLessThan(5_000)
    }))

  it.effect("__proto__ as a server name is a server like any other in every config dialect", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanWithLinks({
        "work/proj/.git/HEAD": "ref\n",
        // Written as text: an object literal with a __proto__ key sets its prototype instead.
        "work/proj/.mcp.json": `{"mcpServers": {"__proto__": {"command": "claude-srv"}, "other": {"command": "other"}}}`,
        "home/u/.gemini/settings.json": `{ // comment\n "mcpServers": {"__proto__": {"command": "gemini-srv"}, "other": {"command": "other"}}}`,
        "home/u/.config/opencode/opencode.json": `{"mcp": {"__proto__": {"type": "local", "command": ["opencode-srv"]}, "other": {"type": "local", "command": ["other"]}}}`,
        "home/u/.cursor/mcp.json": `{"mcpServers": {"__proto__": {"command": "cursor-srv"}, "other": {"command": "other"}}}`,
        "home/u/.codex/config.toml": `[mcp_servers.__proto__]\ncommand = "codex-srv"\n[mcp_servers.other]\ncommand = "other"\n`
      }, [])
      expect(inventory.items.filter((item) => item.kind === "mcpServer" && item.name === "__proto__").map((item) => [item.host, item.kind === "mcpServer" ? item.command : null])).toEqual([
        ["claude-code", "claude-srv"],
        ["codex", "codex-srv"],
        ["cursor", "cursor-srv"],
        ["gemini", "gemini-srv"],
        ["opencode", "opencode-srv"]
      ])
    }))

  it.effect("a 4,700-deep value in opencode.json is one diagnostic; the rest of the file still yields its items", () =>
    Effect.gen(function* () {
      const { inventory } = yield* scanWithLinks({
        "home/u/.config/opencode/opencode.json": `{\n"agent": {\n"deep": {"description": "Deep", "tools": ${deep(4700)}},\n"plain": {"description": "Plain"}\n},\n"mcp": {"srv": {"type": "local", "command": ["srv"]}},\n"command": {"ship": {"description": "Ships"}}\n}\n`
      }, [])
      const opencode = inventory.items.filter((item) => item.host === "opencode")
      expect(opencode.map((item) => [item.kind, item.name])).toEqual([["mcpServer", "srv"], ["agent", "deep"], ["agent", "plain"], ["command", "ship"]])
      expect(inventory.diagnostics.filter((diagnostic) => diagnostic.source === "agent-hosts/opencode").map((diagnostic) => [diagnostic.path, diagnostic.line, diagnostic.message])).toEqual([
        ["/home/u/.config/opencode/opencode.json", 3, `a value nests deeper than ${MAX_JSONC_DEPTH} levels; it is read as null`]
      ])
    }))
})
