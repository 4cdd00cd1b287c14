// The package as a user gets it (issue 15, point 8): `npm pack` of the built tree, `npm i -g`
// of the tarball into a throw-away prefix (--prefer-offline: from the npm cache where it can), the installed bin run
// for real, the installed size, and `require()` / `import()` of the library from a project that
// installed the tarball and brings the Effect peers.
import { spawnSync, type SpawnSyncReturns } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, writeExecutable } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  readonly name: string
  readonly version: string
  readonly scripts: Readonly<Record<string, string>>
  readonly dependencies: Readonly<Record<string, string>>
  readonly peerDependencies: Readonly<Record<string, string>>
}

/** The most a global install of the CLI may take on disk. */
const MAX_INSTALL_BYTES = 15 * 1024 * 1024

/** The lifecycle scripts npm runs when it installs a package. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"]

/** Runs npm (the one next to this node) with the given arguments; fails the test on a non-zero exit. */
const npm = (args: ReadonlyArray<string>, cwd: string): string => {
  const result = spawnSync("npm", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
    timeout: 60_000
  })
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return result.stdout
}

/** Bytes of every file under `dir` (links counted as links, not followed). */
const diskBytes = (dir: string): number => {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    const stat = fs.lstatSync(file)
    total += entry.isDirectory() ? diskBytes(file) : stat.size
  }
  return total
}

/** Every package directory under a node_modules dir (scoped ones included). */
const packagesIn = (modules: string): ReadonlyArray<string> =>
  fs.readdirSync(modules).filter((name) => !name.startsWith(".")).flatMap((name) =>
    name.startsWith("@")
      ? fs.readdirSync(path.join(modules, name)).map((scoped) => path.join(modules, name, scoped))
      : [path.join(modules, name)]
  ).flatMap((dir) => {
    const nested = path.join(dir, "node_modules")
    return [dir, ...(fs.existsSync(nested) ? packagesIn(nested) : [])]
  })

const run = (file: string, args: ReadonlyArray<string>, env: Record<string, string>, cwd: string): SpawnSyncReturns<string> =>
  spawnSync(file, args, { env, cwd, encoding: "utf8", timeout: 60_000 })

describe("the packed and installed package", () => {
  let temp: ReturnType<typeof makeTempDir>
  let tarball: string
  let packed: ReadonlyArray<string>
  let prefix: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-install-")
    // The tree is built already (requireBuiltCli): pack it without running prepack's build again.
    const report = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", temp.dir], ROOT)) as ReadonlyArray<{
      readonly filename: string
      readonly files: ReadonlyArray<{ readonly path: string }>
    }>
    tarball = path.join(temp.dir, report[0]!.filename)
    packed = report[0]!.files.map((file) => file.path)
    prefix = path.join(temp.dir, "prefix")
    npm(["install", "--global", "--prefix", prefix, "--prefer-offline", tarball], temp.dir)
  }, 120_000)
  afterAll(() => temp?.remove())

  it("packs the built CLI, the library with its types, the license and the readme; no source maps, nor the front ends' modules the bundle holds", () => {
    expect(path.basename(tarball)).toBe(`${pkg.name}-${pkg.version}.tgz`)
    for (const file of ["package.json", "LICENSE", "README.md", "dist/tool-map.cjs", "dist/tool-map.bundle.cjs", "dist/tool-map.bundle.cache", "dist/index.js", "dist/index.d.ts"]) {
      expect(packed).toContain(file)
    }
    expect(packed.filter((file) => file.endsWith(".map") || /^(src|test|dist\/cli|dist\/mcp)\//.test(file) || file.startsWith("dist/bin."))).toEqual([])
    // Every relative import of a packed module is packed too (the library never reaches a left-out front end).
    const unresolved = packed.filter((file) => file.endsWith(".js")).flatMap((file) => {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8")
      return [...text.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+)"/g)]
        .map((match) => path.posix.join(path.posix.dirname(file), match[1]!))
        .filter((target) => !packed.includes(target))
        .map((target) => `${file} -> ${target}`)
    })
    expect(unresolved).toEqual([])
  })

  it("builds before packing, so an unbuilt tree never packs without its bin", () => {
    expect(pkg.scripts.prepack).toBe("npm run build")
    // The bin is written by the bundle step (the whole script is checked in test/packaging/readme.test.ts).
    expect(pkg.scripts.build.endsWith("&& node scripts/bundle.mjs")).toBe(true)
  })

  it("installs globally in at most 15 MB, the Effect peers left to library users, with no install script anywhere", () => {
    const bytes = diskBytes(prefix)
    console.log(`installed size: ${bytes} bytes (${(bytes / 1024 / 1024).toFixed(2)} MiB) in ${prefix}`)
    expect(bytes).toBeLessThanOrEqual(MAX_INSTALL_BYTES)
    const installed = packagesIn(path.join(prefix, "lib", "node_modules"))
    const names = installed.map((dir) => (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name: string }).name).sort()
    expect(names).toEqual([pkg.name, ...Object.keys(pkg.dependencies)].sort())
    for (const dir of installed) {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { scripts?: Record<string, string> }
      expect(INSTALL_SCRIPTS.filter((script) => manifest.scripts?.[script] !== undefined)).toEqual([])
      expect(fs.existsSync(path.join(dir, "binding.gyp"))).toBe(false)
    }
  })

  it("runs the installed bin: --version, and a real query of a fake machine", () => {
    const bin = path.join(prefix, "bin", "tool-map")
    const machine = path.join(temp.dir, "machine")
    const tools = path.join(machine, "bin")
    writeExecutable(path.join(tools, "tm-installed-probe"))
    fs.mkdirSync(path.join(machine, "home"))
    // The bin is `#!/usr/bin/env node`: this node's directory comes after the fake tools.
    const env = {
      HOME: path.join(machine, "home"),
      PATH: [tools, path.dirname(process.execPath)].join(":"),
      PLUGIN_DATA: path.join(machine, "data"),
      LANG: "C.UTF-8"
    }
    const version = run(bin, ["--version"], env, machine)
    expect([version.status, version.stdout, version.stderr]).toEqual([0, `${pkg.version}\n`, ""])
    const which = run(bin, ["query", "which", "tm-installed-probe", "--json"], env, machine)
    expect(which.stderr).toBe("")
    expect(which.status).toBe(0)
    const answer = JSON.parse(which.stdout) as { winner: string; copies: ReadonlyArray<{ path: string; wins: boolean }> }
    expect(answer.winner).toBe(path.join(tools, "tm-installed-probe"))
    expect(answer.copies.map((copy) => [copy.path, copy.wins])).toEqual([[path.join(tools, "tm-installed-probe"), true]])
  })

  it("is a library that require() and import() load alike, in a project that brings the peers", () => {
    const project = path.join(temp.dir, "project")
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "host-plugin", version: "1.0.0", private: true }))
    npm(["install", "--prefer-offline", "--no-save", tarball], project)
    // The peers, as the project's own: this checkout's copies (the versions package.json asks for).
    for (const peer of Object.keys(pkg.peerDependencies)) {
      const link = path.join(project, "node_modules", peer)
      fs.mkdirSync(path.dirname(link), { recursive: true })
      fs.symlinkSync(path.join(ROOT, "node_modules", peer), link, "dir")
    }
    const env = { PATH: path.dirname(process.execPath), HOME: project }
    const script = (load: string) =>
      `${load}.then((lib) => { const c = lib.Catalog.buildCatalog([{ name: "mcp__github__create_issue", description: "Create an issue.", inputSchema: { type: "object" } }]); console.log(JSON.stringify([Object.keys(lib).sort(), c.tools.map((t) => t.path)])) })`
    const expected = `${JSON.stringify([["Catalog", "Errors", "Host", "Inventory", "Testing"], ["/code/github/create_issue"]])}\n`
    const required = run(process.execPath, ["-e", script("Promise.resolve(require(\"tool-map\"))")], env, project)
    expect([required.stdout, required.stderr, required.status]).toEqual([expected, "", 0])
    const imported = run(process.execPath, ["--input-type=module", "-e", script("import(\"tool-map\")")], env, project)
    expect([imported.stdout, imported.stderr, imported.status]).toEqual([expected, "", 0])
  })
})
