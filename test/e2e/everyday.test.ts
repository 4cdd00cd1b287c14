import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TOOL_MAP_VERSION } from "../../src/version.js"
import { BIN, makeTempDir, requireBuiltCli, writeExecutable } from "../support/cli.js"

/**
 * A preload that records every script the launcher compiles (its file name) and whether V8 took
 * the code cache given with it, one line each, in the file $COMPILED_LOG.
 */
const RECORDER = `
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")
const Original = vm.Script
vm.Script = class extends Original {
  constructor(source, options) {
    super(source, options)
    const cache = options.cachedData === undefined ? "no cache" : this.cachedDataRejected ? "cache rejected" : "cache accepted"
    fs.appendFileSync(process.env.COMPILED_LOG, path.basename(options.filename) + " " + cache + "\\n")
  }
}
`

describe("the launcher's entries (issues 15 and 10: the everyday commands, plain mcp and the gateway load no more than they need)", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let recorder: string
  let bin: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-everyday-")
    const home = path.join(temp.dir, "home")
    bin = path.join(temp.dir, "bin")
    fs.mkdirSync(home)
    writeExecutable(path.join(bin, "git"), "#!/bin/sh\necho 'git version 2.99.1'\n")
    recorder = path.join(temp.dir, "recorder.cjs")
    fs.writeFileSync(recorder, RECORDER)
    env = { HOME: home, PATH: bin, PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8", COMPILED_LOG: path.join(temp.dir, "compiled.log") }
  })
  afterAll(() => temp.remove())

  /** Runs the built CLI with the recorder: its exit code, output and the scripts it compiled. */
  const runWithInput = (input: string, ...args: ReadonlyArray<string>) => {
    fs.rmSync(env.COMPILED_LOG!, { force: true })
    const result = spawnSync(process.execPath, ["--require", recorder, BIN, ...args], { env, cwd: temp.dir, encoding: "utf8", timeout: 60_000, input })
    const compiled = fs.existsSync(env.COMPILED_LOG!) ? fs.readFileSync(env.COMPILED_LOG!, "utf8").trim().split("\n") : []
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, compiled }
  }
  const run = (...args: ReadonlyArray<string>) => runWithInput("", ...args)

  const everyday = "tool-map.everyday.cjs cache accepted"
  const whole = "tool-map.bundle.cjs cache accepted"
  const mcp = "tool-map.mcp.cjs cache accepted"
  const gateway = "tool-map.gateway.cjs cache accepted"
  /** The initialize request of an MCP client, as one line of stdin. */
  const initializeLine = `${JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "everyday-test", version: "1" } }
  })}\n`
  /** The id, protocol revision and server name of the first line of `stdout`, an initialize answer. */
  const initializeAnswer = (stdout: string) => {
    const answer = JSON.parse(stdout.split("\n")[0]!)
    return [answer.id, answer.result.protocolVersion, answer.result.serverInfo.name]
  }

  it("a query with no bundle yet is handed over to the whole CLI, which scans first", () => {
    const first = run("query", "which", "git", "--json")
    expect(first.stderr).toBe("")
    expect(first.status).toBe(0)
    expect(JSON.parse(first.stdout).winner).toBe(path.join(bin, "git"))
    expect(first.compiled).toEqual([everyday, whole])
  })

  it("query which and a no-op scan --if-stale compile only the everyday entry", () => {
    const which = run("query", "which", "git")
    expect(which.status).toBe(0)
    const git = path.join(bin, "git")
    expect(which.stdout).toBe([
      `   ${"path".padEnd(git.length)}  version  PATH #  note`,
      `-  ${"-".repeat(git.length)}  -------  ------  ----`,
      `*  ${git}  2.99.1   0       wins`,
      ""
    ].join("\n"))
    expect(which.compiled).toEqual([everyday])
    const missing = run("query", "which", "no-such-tool")
    expect(missing).toEqual({
      status: 1,
      stdout: "",
      stderr: "tool-map: No tool named no-such-tool is on PATH or in the scanned roots (run `tool-map scan --force` if it was just installed).\n",
      compiled: [everyday]
    })
    const noop = run("scan", "--if-stale", "--quiet")
    expect(noop).toEqual({ status: 0, stdout: "", stderr: "", compiled: [everyday] })
    const json = run("scan", "--if-stale", "--json")
    expect(JSON.parse(json.stdout)).toMatchObject({ skipped: true, reason: "no watched input changed since the last scan" })
    expect(json.compiled).toEqual([everyday])
  })

  it("query which and --if-stale answer from the bundle's which index exactly as from tools.json, which an index of other content never overrides", () => {
    const index = path.join(env.PLUGIN_DATA!, "tools.which.jsonl")
    const lines = [["query", "which", "git"], ["query", "which", "git", "--json"], ["query", "which", "no-such-tool"], ["scan", "--if-stale"]] as const
    // The no-op's line names how long it took: the rest of what it prints is compared.
    const answers = () => lines.map((line) => {
      const { compiled: _compiled, ...answer } = run(...line)
      return { ...answer, stdout: answer.stdout.replace(/checked in [\d.]+ s/, "checked in N s") }
    })
    const indexed = answers()
    expect(indexed[0]!.stdout).toContain(path.join(bin, "git"))
    const text = fs.readFileSync(index, "utf8")
    // An index whose lines were edited, one of another tools.json, one cut short, and none at all.
    const edited = text.replace(`"winner":"${path.join(bin, "git")}"`, "\"winner\":\"/elsewhere/git\"")
    expect(edited).not.toBe(text)
    const json = fs.readFileSync(path.join(env.PLUGIN_DATA!, "tools.json"), "utf8")
    const otherJson = text.replace(/"json":"[0-9a-f]{64}"/, `"json":"${"0".repeat(64)}"`)
    for (const replaced of [edited, otherJson, text.slice(0, text.length / 2), null]) {
      if (replaced === null) fs.rmSync(index)
      else fs.writeFileSync(index, replaced)
      expect(answers()).toEqual(indexed)
    }
    // The index is what answers: the edited line under a header naming its lines' new digest.
    const body = edited.slice(edited.indexOf("\n"))
    const digest = createHash("sha256").update(body).digest("hex")
    fs.writeFileSync(index, `${edited.slice(0, edited.indexOf("\n")).replace(/"lines":"[0-9a-f]{64}"/, `"lines":"${digest}"`)}${body}`)
    expect(JSON.parse(run("query", "which", "git", "--json").stdout).winner).toBe("/elsewhere/git")
    fs.writeFileSync(index, text)
    expect(fs.readFileSync(path.join(env.PLUGIN_DATA!, "tools.json"), "utf8")).toBe(json)
  })

  it("a stale bundle is handed over: the whole CLI rescans and says why", () => {
    writeExecutable(path.join(bin, "new-tool"))
    const stale = run("scan", "--if-stale", "--json", "--no-probes")
    expect(stale.status).toBe(0)
    expect(JSON.parse(stale.stdout)).toMatchObject({ skipped: false, rescanReason: `${bin} changed` })
    expect(stale.compiled).toEqual([everyday, whole])
  })

  it("plain mcp (what a host starts) compiles only the MCP entry, which answers initialize and holds no gateway code", () => {
    const served = runWithInput(initializeLine, "mcp")
    expect(served.status).toBe(0)
    expect(served.stderr).toBe("")
    expect(initializeAnswer(served.stdout)).toEqual([0, "2025-11-25", "tool-map"])
    expect(served.compiled).toEqual([mcp])
    // The gateway's provider names itself in errors; the inventory server's script never has it.
    const scripts = path.dirname(fs.realpathSync(BIN))
    expect(fs.readFileSync(path.join(scripts, "tool-map.gateway.cjs"), "latin1")).toContain("tool-map/gateway/GatewayServers")
    expect(fs.readFileSync(path.join(scripts, "tool-map.mcp.cjs"), "latin1")).not.toContain("tool-map/gateway/GatewayServers")
    const printed = run("mcp", "--print-config", "claude-code")
    expect(printed.status).toBe(0)
    expect(printed.compiled).toEqual([whole])
  })

  it("no shipped script holds Effect's test modules (a plain function imported from effect's index, such as `identity`, pulls them all in: 300 KB and its cache)", () => {
    const scripts = path.dirname(fs.realpathSync(BIN))
    const shipped = fs.readdirSync(scripts).filter((name) => name.endsWith(".cjs")).sort()
    expect(shipped).toEqual(["tool-map.bundle.cjs", "tool-map.cjs", "tool-map.everyday.cjs", "tool-map.gateway.cjs", "tool-map.mcp.cjs"])
    for (const name of shipped) {
      expect([name, fs.readFileSync(path.join(scripts, name), "latin1").match(/effect\/Test[A-Za-z]+|fast-check\//g)]).toEqual([name, null])
    }
  })

  it("a gateway line compiles only the gateway's entry (with its code cache), which answers initialize; an unusual one is handed over", () => {
    const servers = path.join(temp.dir, "servers.json")
    fs.writeFileSync(servers, JSON.stringify({ mcpServers: {} }))
    const served = runWithInput(initializeLine, "mcp", "--servers", servers, "--agent", "everyday")
    expect(served.status).toBe(0)
    expect(served.stderr).toBe("")
    expect(initializeAnswer(served.stdout)).toEqual([0, "2025-11-25", "tool-map"])
    expect(served.compiled).toEqual([gateway])
    expect(runWithInput(initializeLine, "mcp", "--gateway").compiled).toEqual([gateway])
    // --servers with --host: the whole CLI says what is wrong; so it does for a missing file.
    const conflicting = run("mcp", "--servers", servers, "--host", "codex")
    expect([conflicting.status, conflicting.compiled]).toEqual([2, [gateway, whole]])
    const missing = run("mcp", "--servers", path.join(temp.dir, "none.json"))
    expect([missing.status, missing.compiled]).toEqual([2, [gateway, whole]])
    expect(run("mcp", "--gateway", "--help").compiled).toEqual([whole])
  })

  it("--version alone is answered by the launcher, which compiles no script; with anything else it goes to the whole CLI", () => {
    expect(run("--version")).toMatchObject({ status: 0, stdout: `${TOOL_MAP_VERSION}\n`, compiled: [] })
    const full = fs.openSync("/dev/full", "w")
    try {
      // A write that fails is the whole CLI's to report, as for any output.
      const failed = spawnSync(process.execPath, ["--require", recorder, BIN, "--version"], { env, cwd: temp.dir, encoding: "utf8", stdio: ["ignore", full, "pipe"] })
      expect([failed.status, failed.stderr]).toEqual([74, "tool-map: cannot write to standard output (ENOSPC): ENOSPC: no space left on device, write\n"])
    } finally {
      fs.closeSync(full)
    }
    const versionAndMore = run("--version", "--log-level", "info")
    expect([versionAndMore.stdout, versionAndMore.compiled]).toEqual([`${TOOL_MAP_VERSION}\n`, [whole]])
  })

  it("every other line goes straight to the whole CLI", () => {
    expect(run("query", "tools", "--name", "git", "--json").compiled).toEqual([whole])
    expect(run("scan", "--force", "--quiet", "--no-probes").compiled).toEqual([whole])
  })
})
