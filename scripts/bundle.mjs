// Builds the CLI that `package.json` installs as `tool-map` (see bench/startup.ts for the figures):
//
//   dist/tool-map.bundle.cjs    the whole CLI (dist/bin.js and its dependencies) as one minified
//                               script, wrapped as a CommonJS function expression;
//   dist/tool-map.bundle.cache  V8's code cache of that script, made here after warm runs of the
//                               no-op commands and a scan, so that a run deserializes compiled
//                               bytecode instead of parsing and compiling a megabyte of JavaScript
//                               (Node 20 has no module compile cache);
//   dist/tool-map.mcp.cjs       the entry of plain `tool-map mcp` (src/cli/mcpMain.ts): the inventory
//   dist/tool-map.mcp.cache     server without @effect/cli's command tree, its cache made after a warm
//                               run up to its initialize answer (an agent host waits for it, issue 10);
//   dist/tool-map.gateway.cjs   the entry of the gateway's lines, `mcp` with --gateway, --host, --servers,
//   dist/tool-map.gateway.cache --agent (src/cli/gatewayMain.ts): in a script of its own so that plain
//                               `mcp` does not compile the catalog's code; its cache made after a warm
//                               run over no server; any other `mcp` line is handed over to the whole CLI;
//   dist/tool-map.everyday.cjs  the entry of the everyday commands (src/cli/everydayMain.ts): `query
//   dist/tool-map.everyday.cache which NAME` and a no-op `scan --if-stale` answered without
//                               @effect/cli's command tree, the scan, the catalog or the MCP SDK
//                               (issue 15: a fifth of the code to compile and evaluate); any other
//                               line, or one that needs the scan, is handed over to the whole CLI;
//   dist/tool-map.cjs           the launcher (the package's bin): compiles the script with the
//                               cache of its command and calls it. CommonJS, because an ES module entry starts
//                               Node's ESM loader first (about 10 ms of every run). It only reads;
//                               a missing or rejected cache (another Node or V8 flags) costs
//                               speed, never correctness.
//
// `node scripts/bundle.mjs --warm CACHE cli|mcp|gateway|everyday` is the child that makes a cache (internal).
// TOOL_MAP_METAFILE=PATH also writes esbuild's metafile there (which modules fill the bundle).
import { build, transformSync } from "esbuild"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Script } from "node:vm"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const DIST = path.join(ROOT, "dist")
const SCRIPT = path.join(DIST, "tool-map.bundle.cjs")
const CACHE = path.join(DIST, "tool-map.bundle.cache")
const MCP_SCRIPT = path.join(DIST, "tool-map.mcp.cjs")
const MCP_CACHE = path.join(DIST, "tool-map.mcp.cache")
const GATEWAY_SCRIPT = path.join(DIST, "tool-map.gateway.cjs")
const GATEWAY_CACHE = path.join(DIST, "tool-map.gateway.cache")
const EVERYDAY_SCRIPT = path.join(DIST, "tool-map.everyday.cjs")
const EVERYDAY_CACHE = path.join(DIST, "tool-map.everyday.cache")
const LAUNCHER = path.join(DIST, "tool-map.cjs")
/** Files of earlier builds that would otherwise linger in dist/. */
const OBSOLETE = ["tool-map.mjs", "tool-map.cache", "tool-map.bundle.mcp.cache"].map((name) => path.join(DIST, name))

/** The parameters the launcher passes to the script (CommonJS's, so that `require` works). */
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {"
const WRAPPER_TAIL = "\n})"

/** Compiles a script exactly as the launcher does; the cache only fits this exact source and these options. */
const compile = (file, cachedData) =>
  new Script(fs.readFileSync(file, "latin1"), { filename: file, cachedData })

/** Runs a compiled script's function as the launcher does: its exports. */
const run = (script, file) => {
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(file), module, file, DIST)
  return module.exports
}

/**
 * `import { Effect, Schema } from "effect"` binds the barrel's namespace objects, which keep every
 * export of every module alive. Rewritten to `import * as Effect from "effect/Effect"`, esbuild
 * sees each member used and drops the rest: half of Effect, less to evaluate at each start.
 * Only names the barrel re-exports as `export * as Name from "./Name.js"` are rewritten.
 */
const barrelNamespaces = (pkg) => {
  const index = fs.readFileSync(path.join(ROOT, "node_modules", pkg, "dist", "esm", "index.js"), "utf8")
  return new Map([...index.matchAll(/^export \* as (\w+) from "\.\/(\w+)\.js"/gm)].map((match) => [match[1], match[2]]))
}

const barrelImports = {
  name: "barrel-imports",
  setup(pluginBuild) {
    const barrels = new Map(["effect", "@effect/cli", "@effect/platform"].map((pkg) => [pkg, barrelNamespaces(pkg)]))
    const distFile = new RegExp(`^${DIST.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[\\\\/].*\\.js$`)
    pluginBuild.onLoad({ filter: distFile }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8")
      const contents = text.replace(/^import \{([^}]*)\} from "(effect|@effect\/cli|@effect\/platform)";?$/gm, (statement, names, pkg) => {
        const namespaces = barrels.get(pkg)
        const rewritten = []
        for (const spec of names.split(",").map((name) => name.trim()).filter((name) => name !== "")) {
          const [name, alias] = spec.split(/\s+as\s+/)
          const module = namespaces.get(name)
          if (module === undefined) return statement
          rewritten.push(`import * as ${alias ?? name} from "${pkg}/${module}";`)
        }
        return rewritten.join(" ")
      })
      return { contents, loader: "js" }
    })
  }
}

/** The launcher of tool-map VERSION (src/version.ts, which it prints for `--version`). */
const launcherSource = (version) => `#!/usr/bin/env node
"use strict"
// tool-map's launcher, written by scripts/bundle.mjs: runs tool-map.bundle.cjs (the whole CLI),
// tool-map.everyday.cjs (query which, scan --if-stale), tool-map.mcp.cjs (plain \`mcp\`) or
// tool-map.gateway.cjs (\`mcp\` with gateway flags) with the V8 code cache made for it at build time.
// Without the cache, or when V8 rejects it (another Node), the script is compiled from source as
// usual. Reads only. \`--version\` alone it answers itself (issue 15: no script to compile).
// SIGINT/SIGTERM before the CLI's runtime listens exits 130, not by the signal (143); the
// scripts' src/cli/earlySignals.ts finds this handler under the same key and takes it over.
const interrupted = () => process.exit(130)
globalThis[Symbol.for("tool-map/earlySignals")] = interrupted
process.on("SIGINT", interrupted)
process.on("SIGTERM", interrupted)
const { readFileSync, writeSync } = require("node:fs")
const { join } = require("node:path")
const { Script } = require("node:vm")

/** Compiles NAME.cjs with the code cache CACHE and runs it: its exports. */
const run = (name, cache) => {
  const script = join(__dirname, name + ".cjs")
  let cachedData
  try {
    cachedData = readFileSync(join(__dirname, cache))
  } catch {
    cachedData = undefined
  }
  const bundle = { exports: {} }
  new Script(readFileSync(script, "latin1"), { filename: script, cachedData })
    .runInThisContext()(bundle.exports, require, bundle, script, __dirname)
  return bundle.exports
}

/** True when TEXT went to stdout whole; a failed write (a closed pipe, a full disk) is the whole CLI's to report. */
const written = (text) => {
  try {
    return writeSync(1, text) === Buffer.byteLength(text)
  } catch {
    return false
  }
}

const VERSION_LINE = ${JSON.stringify(`${version}\n`)}
const args = process.argv.slice(2)
const whole = () => run("tool-map.bundle", "tool-map.bundle.cache")
const GATEWAY_FLAGS = ["--gateway", "--host", "--servers", "--agent"]
/** The lines the other entries may answer (each decides, and hands the others over to the whole CLI). */
const route = () => {
  if ((args[0] === "scan" && args.includes("--if-stale")) || (args[0] === "query" && args[1] === "which")) {
    run("tool-map.everyday", "tool-map.everyday.cache").main(process.argv, whole)
  } else if (args[0] === "mcp" && args.length === 1) {
    run("tool-map.mcp", "tool-map.mcp.cache").main(process.argv, whole)
  } else if (args[0] === "mcp" && args.every((arg) => !arg.startsWith("-") || GATEWAY_FLAGS.includes(arg))) {
    run("tool-map.gateway", "tool-map.gateway.cache").main(process.argv, whole)
  } else whole()
}
if (!(args.length === 1 && args[0] === "--version" && written(VERSION_LINE))) route()
`

const writeAtomically = (file, text, mode = 0o644) => {
  const partial = `${file}.partial`
  fs.writeFileSync(partial, text, { encoding: "latin1", mode })
  fs.chmodSync(partial, mode)
  fs.renameSync(partial, file)
}

/**
 * The tiny schemas file of the warm catalog commands, in the warm machine's dir (see
 * makeWarmMachine; the catalog files go to its PLUGIN_DATA, never the user's data dir).
 */
const WARM_SCHEMAS = "$WARM/schemas.json"

/** A few tool schemas for the warm catalog commands: MCP tools of two servers and a built-in. */
const warmSchemas = () => JSON.stringify([
  ...["read_file", "write_file", "list_directory"].map((name) => ({
    name: `mcp__filesystem__${name}`,
    description: `The ${name.replace("_", " ")} tool. Works on one path.`,
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    annotations: { readOnlyHint: name !== "write_file" }
  })),
  ...["list_issues", "create_issue"].map((name) => ({
    name: `mcp__github__${name}`,
    description: `GitHub: ${name.replace("_", " ")}.`,
    inputSchema: { type: "object", properties: { repo: { type: "string" }, state: { enum: ["open", "closed"] } } }
  })),
  { name: "Bash", description: "Runs a shell command.", inputSchema: { type: "object", properties: { command: { type: "string" } } } }
])

/** The commands run (in one process, one after the other) before the cache is taken. */
const WARM_COMMANDS = [
  ["scan", "--force", "--quiet"],
  ["scan", "--force", "--json"],
  ["scan", "--if-stale", "--quiet"],
  ["scan", "--if-stale", "--json"],
  ["query", "which", "git"],
  ["query", "which", "git", "--json"],
  ["query", "tools", "--name", "g*"],
  ["query", "versions", "--json"],
  // The catalog: a first listing keeps the schemas, later ones reuse the kept snapshot.
  ["catalog", "ls", "/", "--schemas", WARM_SCHEMAS],
  ["catalog", "ls", "/", "--schemas", WARM_SCHEMAS],
  ["catalog", "ls", "--query", "read file", "--schemas", WARM_SCHEMAS],
  ["catalog", "ls", "/"],
  ["catalog", "ls", "/", "--json"]
]

/** The runs before the everyday entry's cache is taken (over the bundle of the warm-up scan: no hand-over). */
const WARM_EVERYDAY_COMMANDS = [
  ["scan", "--if-stale", "--quiet"],
  ["scan", "--if-stale", "--json"],
  ["scan", "--if-stale"],
  ["query", "which", "git"],
  ["query", "which", "git", "--json"]
]

/** The run before the MCP cache is taken: the server reads MCP_WARM_INPUT on stdin, answers it and ends with stdin. */
const WARM_MCP_COMMANDS = [["mcp"]]

/** The same for the gateway's cache, over a servers file with no server (nothing is started). */
const WARM_GATEWAY_COMMANDS = [["mcp", "--servers", "$WARM/servers.json"]]

/** The warm MCP child's stdin: an MCP client's initialize request. */
const MCP_WARM_INPUT = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "tool-map-build", version: "1" } }
})}\n`

/** A small fake machine for the warm runs: one PATH dir with a probe-able `git`, an empty home. */
const makeWarmMachine = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tool-map-warm-")))
  const bin = path.join(dir, "bin")
  const home = path.join(dir, "home")
  fs.mkdirSync(bin)
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(bin, "git"), "#!/bin/sh\necho 'git version 2.45.0'\n", { mode: 0o755 })
  fs.writeFileSync(path.join(bin, "tool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  fs.writeFileSync(path.join(dir, "schemas.json"), warmSchemas())
  fs.writeFileSync(path.join(dir, "servers.json"), JSON.stringify({ mcpServers: {} }))
  const env = { PATH: bin, HOME: home, PLUGIN_DATA: path.join(dir, "data"), LANG: "C.UTF-8" }
  return { dir, env }
}

/** The script of each cache. */
const SCRIPT_OF = { cli: SCRIPT, mcp: MCP_SCRIPT, gateway: GATEWAY_SCRIPT, everyday: EVERYDAY_SCRIPT }

/** The warm child: runs WARM_COMMANDS (WARM_MCP_COMMANDS for `mcp`, WARM_GATEWAY_COMMANDS for `gateway`, WARM_EVERYDAY_COMMANDS for `everyday`) through the compiled script, then writes its code cache. */
const warm = (cacheFile, which) => {
  const file = SCRIPT_OF[which]
  const script = compile(file, undefined)
  const dir = path.dirname(process.env.PLUGIN_DATA)
  const commands = { mcp: WARM_MCP_COMMANDS, gateway: WARM_GATEWAY_COMMANDS, everyday: WARM_EVERYDAY_COMMANDS, cli: WARM_COMMANDS }[which].map((args) => args.map((arg) => arg.replace("$WARM", dir)))
  let written = false
  const next = () => {
    if (commands.length === 0) {
      if (!written) fs.writeFileSync(cacheFile, script.createCachedData())
      written = true
      return
    }
    process.argv = [process.argv[0], LAUNCHER, ...commands.shift()]
    const exports = run(script, file)
    if (which !== "cli") {
      exports.main(process.argv, () => {
        throw new Error(`the ${which} entry handed \`${process.argv.slice(2).join(" ")}\` over during its warm-up`)
      })
    }
  }
  // A command ends with `process.exit()` once its output is written (src/bin.ts), or by
  // running out of work: either way the next one starts, and a failure ends the warm-up.
  const exit = process.exit.bind(process)
  process.exit = (code) => {
    const status = code ?? process.exitCode ?? 0
    if (status !== 0) return exit(status)
    setImmediate(next)
  }
  process.on("beforeExit", () => {
    if ((process.exitCode ?? 0) === 0) next()
  })
  next()
}

/**
 * The library's modules (what `import "tool-map"` loads; the bundles above were made from them)
 * without comments and spaces, names kept: the install's size limit (15 MiB) is spent on the
 * bundles and their code caches, and the API's documentation lives in the `.d.ts` files, which
 * keep their comments. Their source maps no longer fit and are not packed: removed.
 */
const compactLibrary = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) compactLibrary(file)
    else if (entry.name.endsWith(".js")) {
      const { code } = transformSync(fs.readFileSync(file, "utf8"), {
        minifyWhitespace: true,
        minifySyntax: true,
        format: "esm",
        target: "node20",
        loader: "js",
        legalComments: "none"
      })
      writeAtomically(file, code)
      fs.rmSync(`${file}.map`, { force: true })
    }
  }
}

const main = async () => {
  // First of all: V8 matches a cache to its script by length only, so a run must never see the
  // new script next to the old cache.
  fs.rmSync(CACHE, { force: true })
  fs.rmSync(MCP_CACHE, { force: true })
  fs.rmSync(GATEWAY_CACHE, { force: true })
  fs.rmSync(EVERYDAY_CACHE, { force: true })
  const result = await build({
    entryPoints: {
      "tool-map.bundle": path.join(DIST, "bin.js"),
      "tool-map.everyday": path.join(DIST, "cli", "everydayMain.js"),
      "tool-map.mcp": path.join(DIST, "cli", "mcpMain.js"),
      "tool-map.gateway": path.join(DIST, "cli", "gatewayMain.js")
    },
    outdir: DIST,
    outExtension: { ".js": ".cjs" },
    write: false,
    bundle: true,
    minify: process.env.TOOL_MAP_NO_MINIFY === undefined, // set TOOL_MAP_NO_MINIFY=1 for readable CPU profiles
    platform: "node",
    target: "node20",
    format: "cjs",
    charset: "ascii",
    mainFields: ["module", "main"],
    plugins: [barrelImports],
    logLevel: "warning",
    metafile: process.env.TOOL_MAP_METAFILE !== undefined // a path: where to write esbuild's metafile (what the bundle holds)
  })
  if (process.env.TOOL_MAP_METAFILE !== undefined) fs.writeFileSync(process.env.TOOL_MAP_METAFILE, JSON.stringify(result.metafile))
  for (const output of result.outputFiles) {
    const bundled = output.text.replace(/^#!.*\n/, "")
    const name = path.basename(output.path)
    if (/\bimport\(/.test(bundled)) throw new Error(`${name} contains a dynamic import(), which the vm.Script launcher cannot run`)
    // Each file is swapped in whole: a run during a build sees the old or the new one.
    writeAtomically(output.path, `${WRAPPER_HEAD}${bundled}${WRAPPER_TAIL}`)
  }
  compactLibrary(DIST)
  const { TOOL_MAP_VERSION } = await import(pathToFileURL(path.join(DIST, "version.js")).href)
  writeAtomically(LAUNCHER, launcherSource(TOOL_MAP_VERSION), 0o755)
  for (const file of OBSOLETE) fs.rmSync(file, { force: true })

  // The cache must be made, and is checked, under the V8 flags a user's `node` runs with: no
  // NODE_OPTIONS, no execArgv. A bundle on disk is needed first (the warm runs query it).
  const machine = makeWarmMachine()
  const env = { ...machine.env }
  try {
    const scan = spawnSync(process.execPath, [LAUNCHER, "scan", "--quiet", "--no-probes"], { env, encoding: "utf8" })
    if (scan.status !== 0) throw new Error(`the warm-up scan failed (exit ${scan.status}): ${scan.stderr}`)
    for (const [cache, which, input] of [
      [CACHE, "cli", undefined],
      [MCP_CACHE, "mcp", MCP_WARM_INPUT],
      [GATEWAY_CACHE, "gateway", MCP_WARM_INPUT],
      [EVERYDAY_CACHE, "everyday", undefined]
    ]) {
      const partial = `${cache}.partial`
      fs.rmSync(partial, { force: true })
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--warm", partial, which], { env, encoding: "utf8", input })
      if (child.status !== 0 || !fs.existsSync(partial)) {
        fs.rmSync(partial, { force: true })
        throw new Error(`the code-cache warm-up (${which}) failed (exit ${child.status}): ${child.stderr}`)
      }
      fs.renameSync(partial, cache)
      const check = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--check", cache, SCRIPT_OF[which]], { env, encoding: "utf8" })
      if (check.stdout.trim() !== "accepted") {
        fs.rmSync(cache, { force: true })
        throw new Error(`V8 rejected the code cache just made (${which}: ${check.stdout.trim()} ${check.stderr})`)
      }
    }
  } finally {
    fs.rmSync(machine.dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === "--warm") {
  // Runs the CLI for real: only ever against the throw-away machine of makeWarmMachine().
  const data = process.env.PLUGIN_DATA ?? ""
  if (path.basename(data) !== "data" || !path.basename(path.dirname(data)).startsWith("tool-map-warm-")) {
    throw new Error("--warm is internal to scripts/bundle.mjs (it runs the CLI against PLUGIN_DATA)")
  }
  warm(process.argv[3], process.argv[4])
}
else if (process.argv[2] === "--check") console.log(compile(process.argv[4], fs.readFileSync(process.argv[3])).cachedDataRejected ? "rejected" : "accepted")
else await main()
