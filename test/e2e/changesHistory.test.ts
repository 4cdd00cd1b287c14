import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

/*
 * `query changes` keeps a history (issue 29, point 4), through the built CLI: four scans of a
 * PATH directory (a tool added, one removed, then `scan --force` with nothing changed), then the
 * answers with and without --since, the history file, a bundle from before the history, and a
 * corrupt history. TZ is UTC, so that a date names UTC midnight.
 */

interface Entry {
  readonly number: number
  readonly committedAt: string
  readonly digest: { readonly generation: string; readonly generatedAt: string }
}
interface History {
  readonly format: string
  readonly generation: string
  readonly generatedAt: string
  readonly number: number
  readonly committedAt: string
  readonly entries: ReadonlyArray<Entry>
}

const DAY = 24 * 60 * 60 * 1000

let temp: ReturnType<typeof makeTempDir>
let bin: string
let data: string
let env: Record<string, string>

const historyFile = () => path.join(data, "tools.history.json")
const readHistory = (): History => JSON.parse(fs.readFileSync(historyFile(), "utf8")) as History
const run = (...args: ReadonlyArray<string>) => runCli(args, env)
const scan = (...args: ReadonlyArray<string>) => {
  const result = run("scan", "--no-probes", "--quiet", ...args)
  expect([result.status, result.stderr]).toEqual([0, ""])
}
/** Changes the PATH directory, its mtime moved on so the change shows at any clock resolution. */
const touchBin = () => {
  const later = new Date(Date.now() + 5_000)
  fs.utimesSync(bin, later, later)
}
const ref = (entry: Entry) => ({ number: entry.number, generation: entry.digest.generation, generatedAt: entry.digest.generatedAt, committedAt: entry.committedAt })
const NO_OTHER_CHANGES = {
  mcpServers: { added: [], changed: [], removed: [] },
  items: { added: [], removed: [], enabled: [], disabled: [], contentChanged: [] }
}

describe("query changes over the kept history", () => {
  let before: History

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-history-")
    bin = path.join(temp.dir, "bin")
    data = path.join(temp.dir, "data")
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    writeExecutable(path.join(bin, "aa"))
    writeExecutable(path.join(bin, "bb"))
    env = { HOME: home, PATH: bin, PLUGIN_DATA: data, LANG: "C.UTF-8", TZ: "UTC" }
    scan()
    writeExecutable(path.join(bin, "cc"))
    touchBin()
    scan()
    fs.rmSync(path.join(bin, "aa"))
    touchBin()
    scan()
    scan("--force")
    before = readHistory()
  })
  afterAll(() => temp?.remove())

  it("the no-op scan --force adds no entry: four generations, three kept, the bundle's own first", () => {
    expect(before.format).toBe("tool-map-history/1")
    expect([before.number, before.entries.map((entry) => entry.number)]).toEqual([4, [3, 2, 1]])
    expect(before.generation).toBe(JSON.parse(fs.readFileSync(path.join(data, "tools.json"), "utf8")).generation)
    expect(fs.readdirSync(data).sort()).toEqual(["tools.history.json", "tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
  })

  it("without --since: the last change, since the last kept generation that differs (not 0 changes)", () => {
    const [, second] = before.entries
    const text = run("query", "changes")
    expect([text.status, text.stdout, text.stderr]).toEqual([
      0,
      [
        `1 change since generation 2 (${second!.committedAt}); now generation 4 (${before.committedAt}).`,
        "Tools removed (1):",
        `  - aa ${bin}/aa`,
        ""
      ].join("\n"),
      ""
    ])
    const json = run("query", "changes", "--json")
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({
      stale: false,
      staleReason: null,
      since: ref(second!),
      current: { number: 4, generation: before.generation, generatedAt: before.generatedAt, committedAt: before.committedAt },
      asked: null,
      ...NO_OTHER_CHANGES,
      tools: { added: [], removed: [{ name: "aa", path: `${bin}/aa` }], moved: [], versionChanged: [] },
      count: 1
    })
  })

  it("--since a generation number: the newest kept at or before it", () => {
    const first = before.entries[2]!
    const text = run("query", "changes", "--since", "1")
    expect([text.status, text.stdout]).toEqual([
      0,
      [
        `2 changes since generation 1 (${first.committedAt}); now generation 4 (${before.committedAt}).`,
        "Generation 1 is the newest kept at or before --since 1.",
        "Tools added (1):",
        `  + cc ${bin}/cc`,
        "Tools removed (1):",
        `  - aa ${bin}/aa`,
        ""
      ].join("\n")
    ])
    // Generation 4 found what 3 found: the entry of 3 stands for both.
    expect(run("query", "changes", "--since", "4").stdout.split("\n").slice(0, 2)).toEqual([
      `0 changes since generation 3 (${before.entries[0]!.committedAt}); now generation 4 (${before.committedAt}).`,
      "Generation 3 is the newest kept at or before --since 4."
    ])
    const future = run("query", "changes", "--since", "5")
    expect([future.status, future.stdout, future.stderr]).toEqual([
      2,
      "",
      "tool-map: --since 5: there is no generation 5 yet; the bundle's is generation 4. See `tool-map query changes --help`.\n"
    ])
  })

  it("--since a duration or a date: the newest kept committed at or before that moment; before the oldest kept, a usage error naming it", () => {
    // The scans ran seconds ago: their commit times are moved back (generation 1 ten days, 2
    // three days), as if the history had been kept over days.
    const now = Date.now()
    const moved: History = {
      ...before,
      entries: before.entries.map((entry) =>
        entry.number === 1 ? { ...entry, committedAt: new Date(now - 10 * DAY).toISOString() }
        : entry.number === 2 ? { ...entry, committedAt: new Date(now - 3 * DAY).toISOString() }
        : entry)
    }
    fs.writeFileSync(historyFile(), JSON.stringify(moved))
    const [third, second, first] = moved.entries as [Entry, Entry, Entry]

    const askedAt = Date.now()
    const day = run("query", "changes", "--since", "1d")
    const [head, picked, ...rest] = day.stdout.split("\n")
    expect([day.status, head, rest]).toEqual([
      0,
      `1 change since generation 2 (${second.committedAt}); now generation 4 (${before.committedAt}).`,
      ["Tools removed (1):", `  - aa ${bin}/aa`, ""]
    ])
    const at = /^Generation 2 is the newest kept at or before --since 1d \((.+)\)\.$/.exec(picked!)
    expect(at).not.toBeNull()
    const point = Date.parse(at![1]!)
    expect(point >= askedAt - DAY - 60_000 && point <= Date.now() - DAY).toBe(true)
    // An hour ago: generation 3 was committed seconds ago, so 2 is the newest then; now: 3, which found what 4 found.
    expect(JSON.parse(run("query", "changes", "--since", "1h", "--json").stdout).since).toEqual(ref(second))
    const latest = JSON.parse(run("query", "changes", "--since", new Date().toISOString(), "--json").stdout)
    expect([latest.since, latest.count]).toEqual([ref(third), 0])

    const date = new Date(now - 5 * DAY).toISOString().slice(0, 10)
    const byDate = run("query", "changes", "--since", date)
    expect(byDate.stdout.split("\n").slice(0, 2)).toEqual([
      `2 changes since generation 1 (${first.committedAt}); now generation 4 (${before.committedAt}).`,
      `Generation 1 is the newest kept at or before --since ${date} (${date}T00:00:00.000Z).`
    ])
    const byTime = JSON.parse(run("query", "changes", "--since", second.committedAt, "--json").stdout)
    expect([byTime.since, byTime.asked, byTime.count]).toEqual([ref(second), { since: second.committedAt, at: second.committedAt }, 1])

    const tooOld = new Date(now - 20 * DAY).toISOString().slice(0, 10)
    const old = run("query", "changes", "--since", tooOld)
    expect([old.status, old.stdout, old.stderr]).toEqual([
      2,
      "",
      `tool-map: --since ${tooOld}: ${tooOld}T00:00:00.000Z is older than the kept history; its oldest generation is 1 (committed ${first.committedAt}). See \`tool-map query changes --help\`.\n`
    ])
    const bad = run("query", "changes", "--since", "yesterday-ish")
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([
      2,
      "",
      "tool-map: --since yesterday-ish: not a generation number, a duration, a date, a time or a generation id. Valid: a generation number (3), a duration back from now (30m, 12h, 1d, 2w, 1d12h), a date (2026-12-01: its midnight, local time), a time (2026-12-01T08:00, local, or 2026-12-01T08:00:00Z), a generation id (20261201T080000Z-1a2b3c4d). See `tool-map query changes --help`.\n"
    ])
    fs.writeFileSync(historyFile(), JSON.stringify(before))
  })

  it("a bundle from before the history (tools.previous.json) is read, and its next scan starts the history from it", () => {
    const second = before.entries[1]!
    // What an earlier tool-map left: the digest of the generation the bundle replaced, tagged with the bundle's.
    const digest = { ...JSON.parse(fs.readFileSync(historyFile(), "utf8")).entries[1].digest }
    fs.rmSync(historyFile())
    fs.writeFileSync(path.join(data, "tools.previous.json"), JSON.stringify({ generation: before.generation, previous: digest }, null, 1))
    const legacy = JSON.parse(run("query", "changes", "--json").stdout)
    expect([legacy.since, legacy.current.number, legacy.count]).toEqual([
      { number: 1, generation: second.digest.generation, generatedAt: second.digest.generatedAt, committedAt: second.digest.generatedAt },
      2,
      1
    ])
    scan()
    const migrated = readHistory()
    expect([migrated.number, migrated.entries.map((entry) => [entry.number, entry.digest.generation])]).toEqual([
      3,
      [[2, before.generation], [1, second.digest.generation]]
    ])
    expect(fs.existsSync(path.join(data, "tools.previous.json"))).toBe(false)
  })

  it("a corrupt history never stops a scan: it is replaced, with a warning; query changes names it (exit 4) until then", () => {
    fs.writeFileSync(historyFile(), "{\"format\": \"tool-map-history/1\", \"entries\": [")
    const query = run("query", "changes")
    expect([query.status, query.stdout, query.stderr]).toEqual([
      4,
      "",
      `tool-map: Cannot read the tool-map bundle at ${historyFile()}: it is not the history of a tool-map bundle (corrupt or from an incompatible version); the next \`tool-map scan\` starts a new one\n`
    ])
    const rescan = run("scan", "--no-probes", "--quiet")
    expect(rescan.status).toBe(0)
    expect(rescan.stderr).toContain(`tool-map: the history ${historyFile()} was not kept: it is not the history of a tool-map bundle (corrupt or from an incompatible version); it is replaced by a new one`)
    const fresh = readHistory()
    expect([fresh.number, fresh.entries.map((entry) => entry.number)]).toEqual([2, [1]])
    expect(run("query", "changes").stdout).toBe(
      "No changes to show: the history keeps no generation that differs from this one (it is the first scan here, every scan since found the same, or the bundle was written before tool-map kept a history); the next scan that finds a change will be compared with it.\n"
    )
  })
})
