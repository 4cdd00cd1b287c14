import { FileSystem } from "@effect/platform"
import { SystemError } from "@effect/platform/Error"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, FastCheck as fc, Layer } from "effect"
import * as NodePath from "node:path"
import { AgentHostFiles } from "../src/inventory/discover/agentHosts/AgentHostFiles.js"
import { type AgentHostScanResult, AgentHostScanner } from "../src/inventory/discover/AgentHostScanner.js"
import { FrontmatterParser } from "../src/inventory/discover/FrontmatterParser.js"
import type { MachineEnvironmentShape } from "../src/inventory/domain/machine.js"
import { MachineEnvironment } from "../src/services/MachineEnvironment.js"

/** A file tree: relative path to content (a string, or bytes for binary and invalid UTF-8). */
export type Tree = Readonly<Record<string, string | Uint8Array>>

/** Writes a tree under `root` (directories made as needed). */
export const writeTree = (root: string, tree: Tree): Effect.Effect<void, unknown, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dirs = new Set(Object.keys(tree).map((file) => NodePath.dirname(NodePath.join(root, file))))
    yield* Effect.forEach(dirs, (dir) => fs.makeDirectory(dir, { recursive: true }), { concurrency: 8, discard: true })
    yield* Effect.forEach(
      Object.entries(tree),
      ([file, content]) =>
        typeof content === "string" ? fs.writeFileString(NodePath.join(root, file), content) : fs.writeFile(NodePath.join(root, file), content),
      { concurrency: 32, discard: true }
    )
  })

/**
 * A FileSystem in which every absolute POSIX path is read under `root` (a chroot for tests):
 * readers see `/home/u/.claude/…` and `/etc/claude-code/…` while the files live in a temp dir,
 * so the inventory holds the same paths on every run. `fault` can fail chosen reads.
 */
export const rootedFileSystem = (
  root: string,
  fault: (op: "stat" | "readDirectory" | "readFile", path: string) => boolean = () => false
): Layer.Layer<FileSystem.FileSystem> =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) => {
      const map = (path: string) => NodePath.join(root, path)
      const denied = (method: string, path: string) =>
        Effect.fail(new SystemError({ reason: "PermissionDenied", module: "FileSystem", method, pathOrDescriptor: path }))
      return {
        ...fs,
        stat: (path: string) => (fault("stat", path) ? denied("stat", path) : fs.stat(map(path))),
        readDirectory: (path: string, options?: FileSystem.ReadDirectoryOptions) =>
          fault("readDirectory", path) ? denied("readDirectory", path) : fs.readDirectory(map(path), options),
        readFile: (path: string) => (fault("readFile", path) ? denied("readFile", path) : fs.readFile(map(path))),
        // Readers open files through the shared bounded read: a "readFile" fault fails the open.
        open: (path: string, options?: FileSystem.OpenFileOptions) => (fault("readFile", path) ? denied("open", path) : fs.open(map(path), options)),
        readLink: (path: string) => fs.readLink(map(path)),
        exists: (path: string) => fs.exists(map(path))
      } satisfies FileSystem.FileSystem
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))

/** A frontmatter block from fields (values written as YAML flow scalars). */
export const markdown = (fields: Readonly<Record<string, string | boolean | number | ReadonlyArray<string>>>, body = "Body.\n"): string => {
  const lines = Object.entries(fields).map(([key, value]) =>
    Array.isArray(value) ? `${key}: [${value.map((entry) => JSON.stringify(entry)).join(", ")}]` : `${key}: ${typeof value === "string" ? JSON.stringify(value) : String(value)}`
  )
  return `---\n${lines.join("\n")}\n---\n${body}`
}

/** One generated item of a Claude Code home. */
export interface GeneratedItem {
  readonly kind: "agent" | "skill" | "command"
  readonly name: string
  readonly file: string
  readonly tools: ReadonlyArray<string> | null
  readonly model: string | null
  readonly background: boolean
  readonly description: string
}

const TOOL_POOL = ["Read", "Grep", "Glob", "Bash", "Write", "Edit", "WebFetch", "WebSearch", "Bash(git diff:*)"]
const MODELS = ["opus", "sonnet", "haiku", null] as const

/**
 * A deterministic Claude Code home of `count` agents, skills and commands (a third each) under
 * `<home>/.claude`, with unique names; the bench and the properties build on it.
 */
export const claudeHome = (count: number, seed = 1): { readonly tree: Tree; readonly items: ReadonlyArray<GeneratedItem> } => {
  const tree: Record<string, string> = {}
  const items: Array<GeneratedItem> = []
  let state = seed
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state
  }
  for (let index = 0; index < count; index++) {
    const kind = (["agent", "skill", "command"] as const)[index % 3]!
    const name = `${kind}-${index}`
    const tools = next() % 5 === 0 ? null : TOOL_POOL.filter(() => next() % 3 === 0)
    const model = MODELS[next() % MODELS.length] ?? null
    const background = next() % 4 === 0
    const description = `Generated ${kind} ${index}${next() % 3 === 0 ? " for code review" : ""}.`
    const fields: Record<string, string | boolean | ReadonlyArray<string>> = { name, description }
    if (kind === "agent") {
      if (tools !== null) fields["tools"] = tools.join(", ")
      if (model !== null) fields["model"] = model
      if (background) fields["background"] = true
    } else if (tools !== null) {
      fields["allowed-tools"] = tools
    }
    const file = kind === "agent" ? `.claude/agents/${name}.md` : kind === "skill" ? `.claude/skills/${name}/SKILL.md` : `.claude/commands/${name}.md`
    tree[file] = markdown(kind === "command" ? { description } : fields)
    items.push({ kind, name, file, tools: kind === "command" ? null : tools, model: kind === "agent" ? model : null, background: kind === "agent" && background, description })
  }
  return { tree, items }
}

/** Hostile frontmatter files that must each become a diagnostic, never an item or a crash. */
export const HOSTILE_FILES: ReadonlyArray<readonly [string, string | Uint8Array]> = [
  ["billion-laughs", `---\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n---\n`],
  ["deep-nesting", `---\nname: x\ntools: ${"[".repeat(5000)}${"]".repeat(5000)}\n---\n`],
  ["js-function", "---\nname: x\ntools: !!js/function 'function () { return 1 }'\n---\n"],
  ["unclosed", "---\nname: x\n"],
  ["nul-bytes", "---\nname: x\n---\n\u0000\u0000"],
  ["invalid-utf8", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x6e, 0x3a, 0x20, 0xff, 0xfe, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a])],
  ["list-frontmatter", "---\n- a\n- b\n---\n"],
  ["duplicate-keys", "---\nname: x\nname: y\n---\n"]
]

/** Arbitrary Claude Code homes for properties: sizes up to `max`, each name unique, some hostile files. */
export const arbitraryClaudeHome = (max: number) =>
  fc.record({
    count: fc.integer({ min: 0, max }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    hostile: fc.subarray(HOSTILE_FILES.map(([name]) => name))
  })

/** The home, working directory and OS of fixture scans (virtual paths under the rooted FS). */
export const FIXTURE_ENV: Partial<MachineEnvironmentShape> = { homedir: "/home/u", cwd: "/work/proj", os: "linux", env: {} }

/**
 * Writes `tree` into a fresh temp dir and scans it as the file system root: paths in the result
 * are the virtual ones (`/home/u/...`). `fault` fails chosen reads with PermissionDenied; `links`
 * are symbolic links (tree path to a relative target) made after the files.
 */
export const scanTree = (
  tree: Tree,
  env: Partial<MachineEnvironmentShape> = {},
  fault?: (op: "stat" | "readDirectory" | "readFile", path: string) => boolean,
  links: Readonly<Record<string, string>> = {}
): Effect.Effect<AgentHostScanResult, unknown> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "tool-map-hosts-" })
    yield* writeTree(root, tree)
    for (const [link, target] of Object.entries(links)) {
      yield* fs.makeDirectory(NodePath.dirname(NodePath.join(root, link)), { recursive: true })
      yield* fs.symlink(target, NodePath.join(root, link))
    }
    const layers = AgentHostScanner.layer.pipe(
      Layer.provide(AgentHostFiles.layer),
      Layer.provide(Layer.mergeAll(rootedFileSystem(root, fault), MachineEnvironment.layerTest({ ...FIXTURE_ENV, ...env }), FrontmatterParser.layer))
    )
    return yield* Effect.flatMap(AgentHostScanner, (scanner) => scanner.scan).pipe(Effect.provide(layers))
  }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))
