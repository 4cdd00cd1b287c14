/**
 * What a downstream server started outside its process group (a `setsid` daemon) is stopped
 * with it, found by the marker in its environment (Linux); elsewhere only the group is stopped.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ChildMarker, ENVIRON_MAX_BYTES, GATEWAY_CHILD_ENV, markedPids } from "../../../src/mcp/gateway/processTree.js"
import { fixture, tempDir, textOf, withGateway } from "./harness.js"

let dir: string
let remove: () => void
/** Every pid a test started or had started: killed after it, whatever it found. */
let started: Array<number> = []
beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-process-tree-"))
  started = []
})
afterEach(() => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Gone, as it should be.
    }
  }
  remove()
})

/** A process that runs: a zombie (killed, not yet reaped) does not. */
const alive = (pid: number): boolean => {
  const stat = `/proc/${pid}/stat`
  if (!fs.existsSync(stat)) return false
  return fs.readFileSync(stat, "utf8").replace(/^.*\) /s, "")[0] !== "Z"
}

/** The pids still running after up to `ms` (a SIGKILLed daemon is reaped by init a moment later). */
const stillAlive = async (pids: ReadonlyArray<number>, ms = 2000): Promise<ReadonlyArray<number>> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline && pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 25))
  return pids.filter(alive)
}

const readPids = (file: string): ReadonlyArray<number> =>
  fs.readFileSync(file, "utf8").trim().split("\n").flatMap((line) => line.split(" ").map(Number))

describe("the gateway's stop", () => {
  it("stops the daemons a server started with setsid or detached, outside its process group", async () => {
    const pids = path.join(dir, "pids")
    await withGateway({ servers: [fixture("daemon", "daemon.mjs", [pids])], dataDir: dir }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["daemon"] } })
      expect(textOf(await client.callTool({ name: "mcp__daemon__ping", arguments: {} }))).toBe("pong")
      started = [...readPids(pids)]
      expect(started.length).toBe(3)
      expect(started.filter(alive)).toEqual(started)
    })
    started = [...readPids(pids)]
    expect(await stillAlive(started)).toEqual([])
  })

  it("ends, and stops the daemon, when the daemon holds the server's stderr pipe open", async () => {
    const pids = path.join(dir, "pids")
    const run = withGateway({ servers: [fixture("daemon", "daemon.mjs", [pids, "holds-stderr"])], dataDir: dir }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["daemon"] } })
      expect(textOf(await client.callTool({ name: "mcp__daemon__ping", arguments: {} }))).toBe("pong")
      started = [...readPids(pids)]
    }).then(() => "stopped")
    const limit = new Promise((resolve) => setTimeout(() => resolve("still stopping after 10 s"), 10_000).unref())
    expect(await Promise.race([run, limit])).toBe("stopped")
    expect(await stillAlive(started)).toEqual([])
  })
})

describe("markedPids", () => {
  const proc = (entries: Record<string, string | Buffer | null>) => {
    const root = path.join(dir, "proc")
    for (const [name, environ] of Object.entries(entries)) {
      fs.mkdirSync(path.join(root, name), { recursive: true })
      if (environ !== null) fs.writeFileSync(path.join(root, name, "environ"), environ)
    }
    return root
  }

  it("finds the processes whose environment holds the marker as a whole variable, within the bounded read", () => {
    const marker = `${GATEWAY_CHILD_ENV}=abc`
    const procDir = proc({
      "12": `HOME=/h\0${marker}\0PATH=/bin\0`,
      "7": `${marker}`,
      "13": `${marker}d\0`,
      "14": `X${marker}\0`,
      "15": null,
      "16": Buffer.concat([Buffer.alloc(ENVIRON_MAX_BYTES, "a"), Buffer.from(`\0${marker}\0`)]),
      "17": `${GATEWAY_CHILD_ENV}=other\0`,
      "18": Buffer.concat([Buffer.alloc(200 * 1024, "a"), Buffer.from(`\0${marker}\0`)]),
      "99": `${marker}\0`,
      self: `${marker}\0`
    })
    expect(markedPids(["abc"], { platform: "linux", procDir, selfPid: 99 })).toEqual([7, 12, 18])
    expect(markedPids(["abc", "other"], { platform: "linux", procDir, selfPid: 99 })).toEqual([7, 12, 17, 18])
  })

  it("finds nothing off Linux, or without a proc file system", () => {
    const procDir = proc({ "12": `${GATEWAY_CHILD_ENV}=abc\0` })
    expect(markedPids(["abc"], { platform: "darwin", procDir, selfPid: 1 })).toEqual([])
    expect(markedPids(["abc"], { platform: "win32", procDir, selfPid: 1 })).toEqual([])
    expect(markedPids(["abc"], { platform: "linux", procDir: path.join(dir, "none"), selfPid: 1 })).toEqual([])
  })
})

describe("ChildMarker", () => {
  const startMarked = (marker: ChildMarker, script: string) => {
    const child = spawn(process.execPath, ["-e", script], { env: { ...marker.env }, detached: true, stdio: "ignore" })
    child.unref()
    started.push(child.pid!)
    return new Promise<number>((resolve) => setTimeout(() => resolve(child.pid!), 300))
  }

  it("stops a marked process with SIGTERM, and one that ignores SIGTERM with SIGKILL after the grace", async () => {
    const marker = new ChildMarker()
    const polite = await startMarked(marker, "setInterval(() => {}, 1000)")
    const stubborn = await startMarked(marker, "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)")
    expect(await marker.stop(300)).toEqual([polite, stubborn].sort((a, b) => a - b))
    expect(await stillAlive([polite, stubborn])).toEqual([])
  })

  it("finds and stops nothing on macOS or Windows", async () => {
    const marker = new ChildMarker({ platform: "darwin", procDir: "/proc", selfPid: process.pid })
    const pid = await startMarked(marker, "setInterval(() => {}, 1000)")
    expect(await marker.stop(300)).toEqual([])
    expect(alive(pid)).toBe(true)
  })
})
