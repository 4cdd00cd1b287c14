import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { session } from "../../examples/minimal-host/main.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"

const TRANSCRIPT = [
  "allow: tools_ls, tools_load, tools_unload, tools_find, tools_route, skills_find, skills_route, bash, read",
  "",
  "> tools_ls /",
  "/  categories. * = loaded (callable now), ! = high risk (load it on its own), [denied] = loaded but hidden by the host. tools_ls with a query searches everything.",
  "  code/   3 tools  0 loaded  ~114 tok  Source hosting and code review",
  "  files/  1 tool   0 loaded  ~29 tok   Local files and directories",
  "  pinned, always loaded: bash, read",
  "",
  "> tools_ls /code/github",
  "/code/github/",
  "      create_issue       ~43 tok  Create an issue in a GitHub repository.",
  "   !  delete_repository  ~36 tok  Delete a GitHub repository for good.",
  "      search_code        ~35 tok  Search code across GitHub repositories.",
  "",
  "> tools_load /code/github",
  "Loaded 2 tool(s), ~78 tok; callable from your next step:",
  "  mcp__github__create_issue",
  "  mcp__github__search_code",
  "/code/github: high-risk tools left out (delete_repository); load them one by one",
  "",
  "> fs_tree (hidden, called directly)",
  "ran fs_tree {\"path\":\".\"}",
  "",
  "> mcp__github__delete_repository (high risk, called directly)",
  "\"mcp__github__delete_repository\" is high risk and is not loaded. Load it first with tools_load([\"mcp__github__delete_repository\"]), which asks for approval.",
  "",
  "> tools_load mcp__github__delete_repository (through the risk gate)",
  "Loaded 1 tool(s), ~36 tok; callable from your next step:",
  "  mcp__github__delete_repository",
  "",
  "allow: tools_ls, tools_load, tools_unload, tools_find, tools_route, skills_find, skills_route, bash, read, mcp__github__create_issue, mcp__github__search_code, fs_tree, mcp__github__delete_repository",
  "",
  "> tools_unload all",
  "Unloaded 4 tool(s):",
  "  mcp__github__create_issue",
  "  mcp__github__search_code",
  "  fs_tree",
  "  mcp__github__delete_repository",
  "",
  "allow: tools_ls, tools_load, tools_unload, tools_find, tools_route, skills_find, skills_route, bash, read"
].join("\n")

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

describe("examples/minimal-host", () => {
  it.live("runs a whole session with the catalog embedded", () =>
    Effect.gen(function*() {
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped()
      expect(yield* session(dir)).toBe(TRANSCRIPT)
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({})))))

  it("runs end to end with `npx tsx examples/minimal-host/main.ts`", () => {
    const result = spawnSync(process.execPath, [NodePath.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "examples/minimal-host/main.ts"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000
    })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    expect(result.stdout).toBe(`${TRANSCRIPT}\n`)
  })

  it("imports tool-map only through its public API (src/index.ts)", () => {
    const dir = NodePath.join(ROOT, "examples/minimal-host")
    const imports = fs.readdirSync(dir).filter((name) => name.endsWith(".ts")).flatMap((name) =>
      [...fs.readFileSync(NodePath.join(dir, name), "utf8").matchAll(/from "(\.[^"]+)"/g)].map((match) => `${name}: ${match[1]}`)
    )
    expect(imports.sort()).toEqual([
      "host.ts: ../../src/index.js",
      "main.ts: ../../src/index.js",
      "main.ts: ./host.js",
      "main.ts: ./plugin.js",
      "plugin.ts: ../../src/index.js",
      "plugin.ts: ./host.js"
    ])
  })
})
