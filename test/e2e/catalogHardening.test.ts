/**
 * Hostile inputs to `tool-map catalog` and the gateway through the built CLI (issue 11, items
 * 11, 13, 18 and 22): a tool nested past the cap, FIFOs, `/dev/zero` and oversized files where
 * the catalog keeps its data, tool names made of terminal escapes, a corrupt state file.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli } from "../support/cli.js"
import { textOf } from "../mcp/gateway/harness.js"

/** How a run of the built CLI ended, and how long it took. */
interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Runs the built CLI; a run still going after `timeoutMs` is killed (status null). */
const run = (args: ReadonlyArray<string>, home: string, timeoutMs = 20_000): Run => {
  const started = performance.now()
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { HOME: home, PATH: "/usr/bin:/bin", LANG: "C" },
    cwd: home,
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL"
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: performance.now() - started }
}

/** True when jq takes the text as JSON (it rejects a lone surrogate's escape, which JSON.parse takes). */
const jqAccepts = (text: string) => spawnSync("jq", ["-e", "."], { input: text, encoding: "utf8" }).status === 0

const tool = (name: string, description = "A tool.", inputSchema: unknown = { type: "object" }) => ({ name, description, inputSchema })

describe("tool-map catalog on hostile inputs, built CLI", () => {
  const temp = makeTempDir("tool-map-catalog-hardening-")
  afterAll(temp.remove)
  let n = 0
  /** A fresh home, its catalog dir, and a schemas file of two plain tools in it. */
  const home = () => {
    const dir = path.join(temp.dir, `home-${n++}`)
    fs.mkdirSync(dir, { recursive: true })
    const schemas = path.join(dir, "tools.json")
    fs.writeFileSync(schemas, JSON.stringify([tool("mcp__gh__create_issue", "Create an issue."), tool("bash", "Run a command.")]))
    return { dir, schemas, catalog: path.join(dir, ".local", "share", "tool-map", "catalog") }
  }

  beforeAll(() => requireBuiltCli())

  it("a tool nested 20,000 levels deep is an input error naming the file, the tool and the cap (it crashed with exit 70)", () => {
    const h = home()
    const deep = path.join(h.dir, "deep.json")
    const schema = `${"{\"type\":\"object\",\"properties\":{\"a\":".repeat(10_000)}{}${"}}".repeat(10_000)}`
    fs.writeFileSync(deep, `[{"name":"ok","inputSchema":{}},{"name":"deep_tool","inputSchema":${schema}}]`)
    const result = run(["catalog", "ls", "--schemas", deep], h.dir)
    expect([result.status, result.stdout, result.stderr]).toEqual([
      6,
      "",
      `tool-map: The tool schemas file ${deep} cannot be used: at [1]: the tool deep_tool nests deeper than 256 levels of arrays and objects.\n`
    ])
  })

  it("a --schemas file over the cap fails at once from its size, without reading it (it took 15 s and 1.6 GB)", () => {
    const h = home()
    const big = path.join(h.dir, "big.json")
    fs.writeFileSync(big, "")
    fs.truncateSync(big, 1536 * 1024 * 1024)
    const result = run(["catalog", "ls", "--schemas", big], h.dir)
    expect([result.status, result.stderr]).toEqual([
      6,
      `tool-map: The tool schemas file ${big} cannot be used: it is 1610612736 bytes, over the 268435456-byte cap.\n`
    ])
    expect(result.ms).toBeLessThan(5_000)
  })

  /** The catalog's data files, each replaced by something that is not a regular file, and what a listing says of it. */
  const dataFiles = ["state/cli.json", "definitions.json", "settings.json", "manifest.json", "schemas.facts.json", "schemas.json"] as const

  for (const kind of ["a FIFO", "a link to /dev/zero"] as const) {
    it(`${kind} at each catalog data file: the listing ends at once, says what it kept aside, and the next run is clean (it hung until SIGKILL)`, () => {
      const h = home()
      expect(run(["catalog", "load", "gh", "--schemas", h.schemas], h.dir).status).toBe(0)
      const type = kind === "a FIFO" ? "fifo" : "character device"
      for (const file of dataFiles) {
        const at = path.join(h.catalog, file)
        fs.rmSync(at, { force: true })
        if (kind === "a FIFO") spawnSync("mkfifo", [at])
        else fs.symlinkSync("/dev/zero", at)
        // The snapshot is only read without --schemas: it is then the input, and refused as such.
        const result = run(["catalog", "ls", "gh", ...(file === "schemas.json" ? [] : ["--schemas", h.schemas])], h.dir)
        const kept = fs.readdirSync(path.dirname(at)).find((name) => name.startsWith(`${path.basename(at)}.corrupt-`))
        const keptAt = path.join(path.dirname(at), kept ?? "(none)")
        const stderr = result.stderr.replace(/\.corrupt-[0-9TZ-]+/g, ".corrupt-TIME")
        const reason = `it is not a regular file (${type})`
        switch (file) {
          case "state/cli.json":
            expect([result.status, stderr]).toEqual([
              0,
              `tool-map: warning: The state file ${at} of agent cli is not valid (${reason}); it was kept as ${at}.corrupt-TIME and the agent starts with nothing loaded\n`
            ])
            break
          case "definitions.json":
          case "settings.json":
            expect([result.status, stderr]).toEqual([0, `tool-map: warning: ${at} is not valid (${reason}); it was kept as ${at}.corrupt-TIME\n`])
            break
          case "manifest.json":
          case "schemas.facts.json":
            // Caches: not read, written again.
            expect([result.status, stderr, kept]).toEqual([0, "", undefined])
            expect(fs.lstatSync(at).isFile()).toBe(true)
            break
          case "schemas.json":
            expect([result.status, stderr]).toEqual([
              6,
              `tool-map: The tool schemas file ${at} cannot be used: it is not valid (${reason}) and was kept as ${at}.corrupt-TIME; pass --schemas FILE.\n`
            ])
            break
        }
        if (kept !== undefined) expect(kind === "a FIFO" ? fs.lstatSync(keptAt).isFIFO() : fs.readlinkSync(keptAt)).toBe(kind === "a FIFO" ? true : "/dev/zero")
        expect(result.ms).toBeLessThan(10_000)
        const again = run(["catalog", "ls", "gh", "--schemas", h.schemas], h.dir)
        expect([again.status, again.stderr]).toEqual([0, ""])
      }
    }, 120_000)
  }

  it("tool names made of escapes reach the terminal neutralized, --json stays valid for jq, a 5,000-character name is cut in tables", () => {
    const h = home()
    const hostile = path.join(h.dir, "hostile.json")
    fs.writeFileSync(hostile, JSON.stringify([
      tool("mcp__evil__csi\u001b[2J\u001b[31mred"),
      tool("mcp__evil__osc\u001b]0;pwned\u0007title"),
      tool("mcp__evil__bidi\u202eexe.txt"),
      tool("mcp__evil__nul\u0000line\nbreak"),
      tool("mcp__evil__lone\ud800half"),
      tool(`mcp__evil__${"w".repeat(5000)}`)
    ]))
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f\u202e]|[\ud800-\udbff](?![\udc00-\udfff])/
    const runs = [
      run(["catalog", "ls", "/uncategorized/evil", "--schemas", hostile], h.dir),
      run(["catalog", "ls", "--query", "evil"], h.dir),
      run(["catalog", "load", "evil", "nope\u001b[2J"], h.dir),
      run(["catalog", "unload", "all"], h.dir),
      run(["catalog", "diff"], h.dir)
    ]
    for (const result of runs) expect([result.stdout, result.stderr].join("\n")).not.toMatch(raw)
    expect(runs.map((result) => result.status)).toEqual([0, 0, 1, 0, 0])
    expect(runs[2]!.stderr).toBe("tool-map: Not found in the catalog: nope\uFFFD[2J; search with `tool-map catalog ls --query WORDS`.\n")
    const widest = Math.max(...runs[0]!.stdout.split("\n").map((line) => line.length))
    expect(widest).toBe(6 + 80 + 2 + "~790 tok".length + 2 + "A tool.".length)
    for (const args of [["ls", "/uncategorized/evil"], ["ls", "--query", "evil"], ["load", "evil"], ["unload", "all"], ["diff"]]) {
      const json = run(["catalog", ...args, "--json"], h.dir)
      expect([json.status, jqAccepts(json.stdout)]).toEqual([0, true])
    }
    const names = JSON.parse(run(["catalog", "ls", "/uncategorized/evil", "--json"], h.dir).stdout).tools.map((entry: { readonly name: string }) => entry.name)
    expect(names).toContain("mcp__evil__lone\uFFFDhalf")
    expect(names).toContain("mcp__evil__nul\u0000line\nbreak")
  })

  it("a corrupt agent state file is kept aside and the reset said on stderr and in --json", () => {
    const h = home()
    expect(run(["catalog", "load", "gh", "--schemas", h.schemas], h.dir).status).toBe(0)
    const state = path.join(h.catalog, "state", "cli.json")
    fs.writeFileSync(state, "{\"version\":1,")
    const result = run(["catalog", "ls", "gh", "--json"], h.dir)
    const kept = fs.readdirSync(path.dirname(state)).filter((name) => name.startsWith("cli.json.corrupt-"))
    expect(kept.length).toBe(1)
    const keptAt = path.join(path.dirname(state), kept[0]!)
    expect(fs.readFileSync(keptAt, "utf8")).toBe("{\"version\":1,")
    const warnings = JSON.parse(result.stdout).warnings as ReadonlyArray<{ readonly kind: string; readonly subject: string; readonly message: string }>
    expect(warnings.map((warning) => [warning.kind, warning.subject])).toEqual([["corrupt-file", state]])
    expect(warnings[0]!.message).toMatch(
      new RegExp(`^The state file ${state} of agent cli is not valid \\(it is not JSON \\(.*\\)\\); it was kept as ${keptAt} and the agent starts with nothing loaded$`)
    )
    expect([result.status, result.stderr]).toEqual([0, `tool-map: warning: ${warnings[0]!.message}\n`])
  })
})

describe("the gateway on a downstream tool nested past the cap, built CLI", () => {
  const temp = makeTempDir("tool-map-gateway-deep-")
  afterAll(temp.remove)
  beforeAll(() => requireBuiltCli())

  it("leaves the tool out with a warning naming it, and serves the others (it hung)", async () => {
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    const servers = path.join(temp.dir, "servers.json")
    const script = path.resolve(import.meta.dirname, "../mcp/fixtures/deep.mjs")
    fs.writeFileSync(servers, JSON.stringify({ mcpServers: { deep: { command: process.execPath, args: [script] } } }))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--servers", servers, "--agent", "e2e"],
      env: { HOME: home, PATH: "/usr/bin:/bin" },
      cwd: home,
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const client = new Client({ name: "e2e-client", version: "1.0.0" })
    await client.connect(transport)
    try {
      expect(textOf(await client.callTool({ name: "tools_ls", arguments: { path: "/mcp/deep" } }))).toBe(
        ["/mcp/deep/", "      flat  ~23 tok  A plain tool."].join("\n")
      )
      expect(await client.callTool({ name: "mcp__deep__flat", arguments: {} })).toMatchObject({ content: [{ type: "text", text: "ran flat" }] })
    } finally {
      await client.close()
    }
    expect(stderr).toContain("MCP server deep: the tool deep nests deeper than 256 levels of arrays and objects; it is left out")
  }, 60_000)
})
