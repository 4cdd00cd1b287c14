import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import * as NodePath from "node:path"
import { markdown, type Tree, writeTree } from "../../bench/hostGenerators.js"
import { runCliOver } from "../cli/inProcess.js"
import { Bundle } from "../../src/inventory/bundle/Bundle.js"
import { BundleWriter } from "../../src/inventory/bundle/BundleWriter.js"
import { AgentHostScanner } from "../../src/inventory/discover/AgentHostScanner.js"
import { AgentHostFiles } from "../../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { FrontmatterParser } from "../../src/inventory/discover/FrontmatterParser.js"
import { IdentityReader } from "../../src/inventory/discover/IdentityReader.js"
import { Walker } from "../../src/inventory/discover/Walker.js"
import { VersionProbe } from "../../src/inventory/probe/VersionProbe.js"
import { ScanProgress } from "../../src/inventory/ScanProgress.js"
import { inventoryLayerOver } from "../../src/layers/CoreLayer.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"

/**
 * Canaries planted in every string position of every host format, as secrets of every shape the
 * rule knows: no output of tool-map (the bundle's three files, every query as a table and as
 * `--json`, `export claude-v1`, what the scan printed) may hold one. A canary's id is twelve
 * letters from g to z, so it cannot occur by chance in a hex digest.
 */

const secret = (id: string) => `CANARY_SECRET_${id}`

/** Secrets as they are written in text: flags, assignments, defaults, URLs, headers, labels, tokens. */
const TEXT_SHAPES: ReadonlyArray<(id: string) => string> = [
  (id) => `--api-key ${secret(id)}`,
  (id) => `--password=${secret(id)}`,
  (id) => `API_TOKEN=${secret(id)}`,
  (id) => `export DB_PASSWORD=${secret(id)}`,
  (id) => `\${DB_PASSWORD:-${secret(id)}}`,
  (id) => `https://${secret(id)}@github.com/o/r.git`,
  (id) => `postgres://admin:${secret(id)}@db/x`,
  (id) => `Authorization: Bearer ${secret(id)}`,
  (id) => `-H "X-Auth-Key: ${secret(id)}"`,
  (id) => `--header=X-Auth: ${secret(id)}`,
  (id) => `Cookie: sid=${secret(id)}`,
  (id) => `password: ${secret(id)}`,
  (id) => `password:${secret(id)}`,
  (id) => `ghp_CANARYSECRET${id}`,
  (id) => `sk-CANARYSECRET${id}`,
  (id) => `Bash(export API_TOKEN=${secret(id)})`,
  (id) => `Bash(mysql --password=${secret(id)})`,
  (id) => `srv --api-key=${secret(id)}`
]

/** Secrets a file or directory name can hold (no `/`, no blank). */
const NAME_SHAPES: ReadonlyArray<(id: string) => string> = [
  (id) => `ghp_CANARYSECRET${id}`,
  (id) => `x--api-key=${secret(id)}`,
  (id) => `API_TOKEN=${secret(id)}`,
  (id) => `sk-CANARYSECRET${id}`
]

/** One case: the canary's id, and for each position the shape planted there and the text around it. */
interface Planting {
  readonly id: string
  readonly text: ReadonlyArray<readonly [number, string, string]>
  readonly names: ReadonlyArray<number>
}

const POSITIONS = 40

const planting: fc.Arbitrary<Planting> = fc.record({
  id: fc.stringMatching(/^[g-z]{12}$/),
  text: fc.array(
    fc.tuple(fc.nat({ max: TEXT_SHAPES.length - 1 }), fc.constantFrom("", "run ", "see: "), fc.constantFrom("", " now", ", then")),
    { minLength: POSITIONS, maxLength: POSITIONS }
  ),
  names: fc.array(fc.nat({ max: NAME_SHAPES.length - 1 }), { minLength: POSITIONS, maxLength: POSITIONS })
})

/** The planted text at text position `index` and the planted name at name position `index`. */
const planter = (p: Planting) => ({
  v: (index: number) => {
    const [shape, before, after] = p.text[index % POSITIONS]!
    return `${before}${TEXT_SHAPES[shape]!(p.id)}${after}`
  },
  n: (index: number) => NAME_SHAPES[p.names[index % POSITIONS]!]!(p.id),
  bare: secret(p.id)
})

type Planter = ReturnType<typeof planter>

/** A host format: the files it plants (paths under the machine's root) and how many string positions it covers. */
interface Family {
  readonly name: string
  readonly positions: number
  readonly tree: (plant: Planter, root: string) => Tree
}

const HOME = "home/u"
const PROJECT = "work/proj"

const FAMILIES: ReadonlyArray<Family> = [
  {
    name: "Claude Code agents, commands, skills",
    positions: 18,
    tree: ({ v, n }) => ({
      [`${HOME}/.claude/agents/${n(0)}.md`]: markdown({ name: v(0), description: v(1), tools: [v(2), "Read"], disallowedTools: v(3), model: v(4), mcpServers: [v(5)] }),
      [`${HOME}/.claude/agents/plain.md`]: markdown({ name: "plain", description: v(6), tools: `${v(7)}, Grep` }),
      [`${HOME}/.claude/commands/${n(1)}.md`]: markdown({ description: v(8), "argument-hint": v(9), "allowed-tools": v(10), model: v(11) }),
      [`${HOME}/.claude/commands/body-only.md`]: `# ${v(12)}\n\n${v(13)}\n`,
      [`${HOME}/.claude/skills/${n(2)}/SKILL.md`]: markdown({ name: v(14), description: v(15), "allowed-tools": v(16) }),
      [`${HOME}/.claude/skills/helper/SKILL.md`]: `---\ndescription: helps\n---\n${v(17)}\n`
    })
  },
  {
    name: "Claude Code MCP servers (.mcp.json, ~/.claude.json) and plugins",
    positions: 16,
    tree: ({ v, n, bare }, root) => {
      const installPath = NodePath.join(root, HOME, ".claude/plugins/cache/m", n(3), "1.0.0")
      return {
        [`${PROJECT}/.mcp.json`]: JSON.stringify({
          mcpServers: {
            [v(0)]: { command: v(1), args: [v(2), "--api-key", bare, "sh", "-c", v(3)], env: { API_KEY: v(4) }, headers: { Authorization: v(5) } },
            remote: { type: "http", url: `https://h.example/${v(6)}?token=${bare}`, headers: { "X-Key": v(7) } }
          }
        }),
        [`${HOME}/.claude.json`]: JSON.stringify({
          mcpServers: { user: { command: "npx", args: [v(8)] } },
          projects: { [NodePath.join(root, PROJECT)]: { mcpServers: { local: { command: v(9) } } } }
        }),
        [`${HOME}/.claude/settings.json`]: JSON.stringify({ enabledPlugins: { [`${n(3)}@m`]: true, [`${v(10)}@m`]: true } }),
        [`${HOME}/.claude/plugins/installed_plugins.json`]: JSON.stringify({
          version: 2,
          plugins: { [`${n(3)}@m`]: [{ scope: "project", installPath, version: v(11), projectPath: v(12) }] }
        }),
        [`${HOME}/.claude/plugins/known_marketplaces.json`]: JSON.stringify({ m: { installLocation: v(13) } }),
        [`${NodePath.relative(root, installPath)}/.claude-plugin/plugin.json`]: JSON.stringify({ name: n(3), description: v(14) }),
        [`${NodePath.relative(root, installPath)}/agents/p.md`]: markdown({ description: v(15) })
      }
    }
  },
  {
    name: "Codex config.toml, agents, prompts",
    positions: 12,
    tree: ({ v, n, bare }) => ({
      [`${HOME}/.codex/config.toml`]: [
        `[mcp_servers.${JSON.stringify(v(0))}]`,
        `command = ${JSON.stringify(v(1))}`,
        `args = [${JSON.stringify(v(2))}, "--token", ${JSON.stringify(bare)}]`,
        `env = { API_KEY = ${JSON.stringify(v(3))} }`,
        `[mcp_servers.remote]`,
        `url = ${JSON.stringify(`https://${v(4)}`)}`,
        `http_headers = { Authorization = ${JSON.stringify(v(5))} }`
      ].join("\n"),
      [`${HOME}/.codex/agents/${n(4)}.toml`]: `name = ${JSON.stringify(v(6))}\ndescription = ${JSON.stringify(v(7))}\nmodel = ${JSON.stringify(v(8))}\n`,
      [`${HOME}/.codex/prompts/${n(5)}.md`]: markdown({ description: v(9), "argument-hint": v(10) }, `${v(11)}\n`)
    })
  },
  {
    name: "Cursor mcp.json and rules",
    positions: 6,
    tree: ({ v, n }) => ({
      [`${HOME}/.cursor/mcp.json`]: JSON.stringify({ mcpServers: { [v(0)]: { command: v(1), args: [v(2)] }, r: { url: v(3) } } }),
      [`${PROJECT}/.cursor/rules/${n(6)}.mdc`]: markdown({ description: v(4) }),
      [`${PROJECT}/.cursorrules`]: `${v(5)}\n`
    })
  },
  {
    name: "Gemini settings.json, commands TOML, agents",
    positions: 10,
    tree: ({ v, n }) => ({
      [`${HOME}/.gemini/settings.json`]: `{\n  // user settings\n  "mcpServers": ${JSON.stringify({ [v(0)]: { command: v(1), args: [v(2)], headers: { Authorization: v(3) } }, h: { httpUrl: v(4) } })}\n}\n`,
      [`${HOME}/.gemini/commands/${n(7)}.toml`]: `description = ${JSON.stringify(v(5))}\nprompt = ${JSON.stringify(v(6))}\n`,
      [`${HOME}/.gemini/commands/sub/plain.toml`]: `description = ${JSON.stringify(v(7))}\nprompt = "p"\n`,
      [`${HOME}/.gemini/agents/${n(8)}.md`]: markdown({ name: v(8), description: v(9) })
    })
  },
  {
    name: "opencode opencode.json and agents",
    positions: 16,
    tree: ({ v, n }) => ({
      [`${HOME}/.config/opencode/opencode.json`]: `{\n  // global\n  ${JSON.stringify({
        mcp: {
          [v(0)]: { type: "local", command: [v(1), v(2)], environment: { TOKEN: v(3) } },
          r: { type: "remote", url: v(4), headers: { Authorization: v(5) } }
        },
        agent: { [v(6)]: { description: v(7), model: v(8), tools: { [v(9)]: false } } },
        command: { [v(10)]: { description: v(11), model: v(12), template: v(13) } }
      }).slice(1, -1)},\n}\n`,
      [`${HOME}/.config/opencode/agent/${n(9)}.md`]: markdown({ description: v(14), tools: v(15) })
    })
  },
  {
    name: "malformed files (their diagnostics)",
    positions: 8,
    tree: ({ v, bare }) => ({
      [`${PROJECT}/.mcp.json`]: `{"mcpServers": {"a": {"command": ${JSON.stringify(v(0))}, ${bare}`,
      [`${HOME}/.config/opencode/opencode.json`]: `{ "mcp": { ${JSON.stringify(v(1))}: [ ${bare} }`,
      [`${HOME}/.codex/config.toml`]: `[mcp_servers.a]\ncommand = ${JSON.stringify(v(2))}\nargs = [ ${bare}\n`,
      [`${HOME}/.gemini/commands/bad.toml`]: `description = "${bare}\nprompt = 1\n`,
      [`${HOME}/.claude/agents/tag.md`]: `---\nname: !${bare} ${JSON.stringify(v(3))}\n---\n`,
      [`${HOME}/.claude/agents/escape.md`]: `---\nname: "${bare} \\q"\ndescription: ${JSON.stringify(v(4))}\n---\n`,
      [`${HOME}/.claude/agents/indent.md`]: `---\nname: ${bare}\n\ttools: ${JSON.stringify(v(5))}\n---\n`,
      // Claude Code's second reading quotes a one-line `[x, …`: on two lines the list fails for it too.
      [`${HOME}/.claude/commands/flow.md`]: `---\nallowed-tools: [${bare},\n  ${JSON.stringify(v(6))}\n---\n${v(7)}\n`
    })
  },
  {
    // Files Claude Code reads although they are not valid YAML (issue 12, finding 2): the host's
    // second reading with values quoted, and plugin agents that load with none of their fields.
    name: "Claude Code frontmatter the host reads after all",
    positions: 12,
    tree: ({ v, n }, root) => {
      const installPath = NodePath.join(root, HOME, ".claude/plugins/cache/m/kit/1.0.0")
      const plugin = NodePath.relative(root, installPath)
      return {
        [`${HOME}/.claude/agents/retried.md`]: `---\nname: retried\ndescription: Use when: ${v(0)}\ntools: ${v(1)}, Read: all\nmodel: ${v(2)}: x\n---\n${v(3)}\n`,
        [`${HOME}/.claude/commands/${n(0)}.md`]: `---\ndescription: Run: ${v(4)}\nargument-hint: [${v(5)}\n---\n${v(6)}\n`,
        [`${HOME}/.claude/settings.json`]: JSON.stringify({ enabledPlugins: { "kit@m": true } }),
        [`${HOME}/.claude/plugins/installed_plugins.json`]: JSON.stringify({ version: 2, plugins: { "kit@m": [{ scope: "user", installPath, version: "1.0.0" }] } }),
        [`${plugin}/agents/${n(1)}.md`]: `---\nname: broken\ndescription: ${v(7)}\n<example>\n---\n`,
        [`${plugin}/agents/${n(2)}/nested.md`]: `---\nname: [${JSON.stringify(v(8))}, x]\ndescription: ${JSON.stringify(v(9))}\n---\n`,
        [`${plugin}/agents/unclosed.md`]: `---\nname: ${JSON.stringify(v(10))}\n${v(11)}\n`
      }
    }
  },
  {
    name: "identity (~/.gitconfig, ~/.ssh file names)",
    positions: 3,
    tree: ({ v, n }) => ({
      [`${HOME}/.gitconfig`]: `[user]\n\tname = ${v(0)}\n\temail = ${v(1)}\n`,
      [`${HOME}/.ssh/${n(12)}`]: "key\n",
      [`${HOME}/.ssh/id_ed25519.pub`]: "ssh-ed25519 AAAA\n",
      [`${HOME}/.claude/agents/a.md`]: markdown({ name: "a", description: v(2) })
    })
  },
  {
    name: "PATH dirs and executables",
    positions: 2,
    tree: () => ({})
  }
]

/** The machine: agent-host files on disk under `root`, PATH entries (planted names) in the walker's memory. */
const machineIn = (root: string, plant: Planter) =>
  inventoryLayerOver(Layer.mergeAll(
    Walker.layerTest({
      nodes: {
        [`/opt/${plant.n(10)}/bin/${plant.n(11)}`]: { type: "file", mode: 0o755 },
        [`/opt/${plant.n(10)}/bin/git`]: { type: "file", mode: 0o755 }
      }
    }),
    VersionProbe.layer,
    IdentityReader.layer,
    AgentHostScanner.layer.pipe(Layer.provide(FrontmatterParser.layer), Layer.provideMerge(AgentHostFiles.layer)),
    Bundle.layer,
    BundleWriter.layer
  )).pipe(
    Layer.provideMerge(Layer.merge(
      MachineEnvironment.layerTest({
        os: "linux",
        env: { PATH: `/opt/${plant.n(10)}/bin`, HOME: NodePath.join(root, HOME), PLUGIN_DATA: NodePath.join(root, "data") },
        homedir: NodePath.join(root, HOME),
        cwd: NodePath.join(root, PROJECT)
      }),
      ScanProgress.silent
    )),
    Layer.provideMerge(NodeContext.layer)
  )

/** Every command whose output is checked, after the scan. */
const QUERIES: ReadonlyArray<ReadonlyArray<string>> = [
  ...[["tools"], ["agents", "--all"], ["skills"], ["commands"], ["mcp"], ["plugins"], ["versions"], ["stale"]].flatMap((query) => [
    ["query", ...query],
    ["query", ...query, "--json"]
  ]),
  ["query", "changes"],
  ["query", "changes", "--json"],
  ["export", "claude-v1"]
]

/** Every output of tool-map on a machine planted with `plant`, by name. */
const outputsOf = (family: Family, plant: Planter) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "tool-map-canary-" })
    yield* writeTree(root, { [`${PROJECT}/.git/HEAD`]: "ref\n", ...family.tree(plant, root) })
    const layer = machineIn(root, plant)
    const run = (args: ReadonlyArray<string>) =>
      Effect.map(runCliOver(layer, args), ({ code, stdout, stderr }) => [args.join(" "), `exit ${code}\n${stdout}\n${stderr}`] as const)
    const scan = yield* run(["scan", "--no-probes"])
    // A second scan: its bundle has the history, the digests of both generations.
    const rescan = yield* run(["scan", "--no-probes", "--force"])
    const files = yield* Effect.forEach(["tools.json", "tools.md", "tools.summary.md", "tools.history.json"], (file) =>
      Effect.map(fs.readFileString(NodePath.join(root, "data", file)), (text) => [file, text] as const))
    const queries = yield* Effect.forEach(QUERIES, run)
    return [scan, rescan, ...files, ...queries]
  }).pipe(Effect.scoped)

/** Where the canary shows, with a little text around it: empty when it shows nowhere. */
const leaks = (outputs: ReadonlyArray<readonly [string, string]>, id: string) =>
  outputs.flatMap(([name, text]) => {
    const at = text.indexOf(id)
    return at === -1 ? [] : [[name, text.slice(Math.max(0, at - 60), at + 30)] as const]
  })

/** Cases tried per family in one run of this file (see the README's hardening table). */
const RUNS_PER_FAMILY = 5

describe("no planted canary reaches any output", () => {
  const tried = new Map<string, number>()
  // Each family that ran (all of them, unless a filter picked some) tried every case it was given.
  afterAll(() => {
    expect(tried.size).toBeGreaterThan(0)
    expect([...tried].filter(([, count]) => count !== RUNS_PER_FAMILY)).toEqual([])
  })
  for (const family of FAMILIES) {
    it.scopedLive.prop(
      `${family.name} (${family.positions} positions)`,
      [planting],
      ([p]) =>
        Effect.gen(function* () {
          tried.set(family.name, (tried.get(family.name) ?? 0) + 1)
          const plant = planter(p)
          const outputs = yield* outputsOf(family, plant)
          expect(leaks(outputs, p.id)).toEqual([])
          // The planted files were read: the scan found items (or, for PATH, tools) to render.
          expect(outputs.find(([name]) => name === "tools.json")?.[1]).toContain("[redacted]")
        }).pipe(Effect.provide(NodeContext.layer)),
      { timeout: 120_000, fastCheck: { numRuns: RUNS_PER_FAMILY } }
    )
  }
})
