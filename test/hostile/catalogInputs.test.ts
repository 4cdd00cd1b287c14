/**
 * A generator of hostile catalog inputs, run through the built CLI (issue 11, the catalog
 * inputs family): schemas files whose tools nest deep (at the cap, past it, far past what
 * the stack allows), hold huge strings, are named `__proto__`, with controls, escapes, bidi
 * controls or lone surrogates, or given twice; files cut short; and in the data dir a FIFO, a
 * link to `/dev/zero`, garbage or a value nested past the cap where a state, definitions or
 * settings file belongs. Whatever the case, every command exits 0 or 6 (1 for a load of a name
 * that is not there), never 70, within its time bound; its `--json` is JSON that jq takes, and
 * its text holds no control, escape or bidi character.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli } from "../support/cli.js"

/** Cases tried per run of this file (see the README's hardening table). */
export const CATALOG_INPUT_CASES = 16

/** The longest any one command may take: a catalog command reads no network and runs no probe. */
const COMMAND_BOUND_MS = 10_000

/** Names a hostile server could give a tool. */
const nameArb = fc.oneof(
  fc.constantFrom(
    "bash",
    "mcp__gh__create_issue",
    "__proto__",
    "constructor",
    "toString",
    "mcp__evil__csi\u001b[2J\u001b[31mred",
    "mcp__evil__osc\u001b]0;pwned\u0007title",
    "mcp__evil__bidi\u202eexe.txt",
    "mcp__evil__nul\u0000x",
    "mcp__evil__line\nbreak",
    "mcp__evil__lone\ud800half",
    "mcp__evil__low\udc00half",
    "\u009b31mc1"
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
  fc.integer({ min: 200, max: 5000 }).map((length) => `mcp__long__${"n".repeat(length)}`)
)

/** How deep an input schema nests: shallow, at the cap, one past it, far past what JSON.stringify can write. */
const depthArb = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 0, max: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(254, 255, 256, 300, 20_000) }
)

/** The text of an input schema nested `depth` levels (objects or arrays), with an optional huge string inside. */
const schemaText = (depth: number, arrays: boolean, filler: string) => {
  const inner = filler === "" ? "{}" : `{"type":"string","description":${JSON.stringify(filler)}}`
  return arrays ? `${"[".repeat(depth)}${inner}${"]".repeat(depth)}` : `${"{\"items\":".repeat(depth)}${inner}${"}".repeat(depth)}`
}

interface Entry {
  readonly name: string | number
  readonly description: string
  readonly depth: number
  readonly arrays: boolean
  readonly filler: string
  readonly protoKey: boolean
}

const entryArb: fc.Arbitrary<Entry> = fc.record({
  name: fc.oneof({ weight: 40, arbitrary: nameArb }, { weight: 1, arbitrary: fc.integer() }),
  description: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("\u001b]8;;http://x\u0007link\u001b]8;;\u0007", "a\u202eb", "x".repeat(200_000))),
  depth: depthArb,
  arrays: fc.boolean(),
  filler: fc.constantFrom("", "", "y".repeat(1_000_000)),
  protoKey: fc.boolean()
})

const entryText = (entry: Entry) =>
  `{${entry.protoKey ? "\"__proto__\":{\"polluted\":true}," : ""}"name":${JSON.stringify(entry.name)},"description":${
    JSON.stringify(entry.description)
  },"inputSchema":${schemaText(entry.depth, entry.arrays, entry.filler)}}`

/** Something where a catalog data file belongs. */
type DataFault = "none" | "fifo" | "dev-zero" | "garbage" | "deep"
const DATA_FILES = ["state/cli.json", "definitions.json", "settings.json", "schemas.json"] as const

interface Case {
  readonly entries: ReadonlyArray<Entry>
  /** The same entry again, later: a duplicate name. */
  readonly repeat: boolean
  readonly wrapped: boolean
  /** Cut the text short at this fraction (1: whole). */
  readonly cut: number
  readonly fault: DataFault
  readonly faultAt: (typeof DATA_FILES)[number]
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  entries: fc.array(entryArb, { minLength: 1, maxLength: 6 }),
  repeat: fc.boolean(),
  wrapped: fc.boolean(),
  cut: fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 0.99, noNaN: true }) }),
  fault: fc.constantFrom<DataFault>("none", "fifo", "dev-zero", "garbage", "deep"),
  faultAt: fc.constantFrom(...DATA_FILES)
})

const schemasText = (c: Case) => {
  const entries = c.entries.map(entryText)
  if (c.repeat) entries.push(entries[0]!)
  const list = `[${entries.join(",")}]`
  const text = c.wrapped ? `{"tools":${list},"nextCursor":null}` : list
  return c.cut === 1 ? text : text.slice(0, Math.floor(text.length * c.cut))
}

/** Plants the case's fault where a catalog data file belongs (after a first run made the dir). */
const plantFault = (catalogDir: string, c: Case) => {
  if (c.fault === "none") return
  const at = path.join(catalogDir, c.faultAt)
  fs.mkdirSync(path.dirname(at), { recursive: true })
  fs.rmSync(at, { force: true })
  switch (c.fault) {
    case "fifo":
      spawnSync("mkfifo", [at])
      return
    case "dev-zero":
      fs.symlinkSync("/dev/zero", at)
      return
    case "garbage":
      fs.writeFileSync(at, "\u001b[2J{not json")
      return
    case "deep":
      fs.writeFileSync(at, `{"version":1,"x":${"[".repeat(50_000)}${"]".repeat(50_000)}}`)
      return
  }
}

interface Run {
  readonly args: ReadonlyArray<string>
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Runs a process to its end (killed past `killAfterMs`), without blocking this one's event loop. */
const runProcess = (command: string, args: ReadonlyArray<string>, options: { readonly env?: Record<string, string>; readonly cwd?: string; readonly input?: string }, killAfterMs: number) =>
  new Promise<Omit<Run, "args">>((resolve) => {
    const started = performance.now()
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.stdin.end(options.input ?? "")
    const kill = setTimeout(() => child.kill("SIGKILL"), killAfterMs)
    child.on("close", (status) => {
      clearTimeout(kill)
      resolve({ status, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), ms: performance.now() - started })
    })
  })

const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe("hostile catalog inputs through the built CLI", () => {
  const temp = makeTempDir("tool-map-hostile-catalog-")
  afterAll(temp.remove)
  beforeAll(() => requireBuiltCli())
  let tried = 0
  const exits = new Map<number | null, number>()
  let slowest = 0
  afterAll(() => {
    expect(tried).toBe(CATALOG_INPUT_CASES)
    // The figures of the README's hardening table.
    const runs = [...exits.values()].reduce((sum, count) => sum + count, 0)
    console.log(`catalog inputs: ${tried} cases, ${runs} runs, exits ${JSON.stringify(Object.fromEntries(exits))}, slowest ${Math.round(slowest)} ms`)
  })

  it("every command exits 0, 1 or 6 within its bound, with JSON jq takes and text with nothing raw", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        tried += 1
        const home = path.join(temp.dir, `case-${tried}`)
        fs.mkdirSync(home, { recursive: true })
        const schemas = path.join(home, "tools.json")
        fs.writeFileSync(schemas, schemasText(c))
        const catalogDir = path.join(home, ".local", "share", "tool-map", "catalog")
        const run = async (...args: ReadonlyArray<string>): Promise<Run> => {
          const env = { HOME: home, PATH: "/usr/bin:/bin", LANG: "C" }
          return { args, ...(await runProcess(process.execPath, [BIN, "catalog", ...args], { env, cwd: home }, COMMAND_BOUND_MS * 3)) }
        }
        const first = await run("ls", "--json", "--schemas", schemas)
        plantFault(catalogDir, c)
        // A name as a command-line argument: argv holds no NUL, and a leading dash is an option.
        const target = c.entries.map((entry) => entry.name).find((name): name is string =>
          typeof name === "string" && !name.includes("\u0000") && !name.startsWith("-")
        ) ?? "nothing"
        const runs = [
          first,
          await run("ls", "--schemas", schemas),
          await run("load", target, "--schemas", schemas),
          await run("diff", "--json", "--schemas", schemas),
          // From what the first run kept (the snapshot, unless the fault took its place).
          ...(first.status === 0 ? [await run("ls", "--json")] : [])
        ]
        for (const result of runs) {
          exits.set(result.status, (exits.get(result.status) ?? 0) + 1)
          slowest = Math.max(slowest, result.ms)
          const where = `catalog ${result.args.join(" ").slice(0, 200)}: exit ${result.status}, ${Math.round(result.ms)} ms, ${result.stderr.slice(0, 300)}`
          expect([0, 1, 6], where).toContain(result.status)
          expect(result.status === 1 ? result.args[0] : "", where).toBe(result.status === 1 ? "load" : "")
          expect(result.ms, where).toBeLessThan(COMMAND_BOUND_MS)
          expect(result.stderr, where).not.toMatch(RAW)
          if (result.args.includes("--json") && result.status === 0) {
            expect((await runProcess("jq", ["-e", "."], { input: result.stdout }, COMMAND_BOUND_MS)).status, where).toBe(0)
          } else {
            expect(result.stdout, where).not.toMatch(RAW)
          }
        }
        fs.rmSync(home, { recursive: true, force: true })
      }),
      { numRuns: CATALOG_INPUT_CASES }
    )
  }, 600_000)
})
