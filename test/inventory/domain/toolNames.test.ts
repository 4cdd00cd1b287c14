import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { whichTool } from "../../../src/inventory/domain/which.js"
import { Walker } from "../../../src/inventory/discover/Walker.js"
import { HostInfo, Inventory, Root, RootReport, Tool } from "../../../src/inventory/domain/inventory.js"
import { copiesNamed, namedCopies, pathLookup, pathWinner, runsBefore, winningCopy } from "../../../src/inventory/domain/toolNames.js"
import { inventoryOf } from "../../support/inventory.js"

const tool = (path: string, pathIndex: number | null, alsoAt: Array<string> = []) =>
  new Tool({ name: path.split("/").at(-1)!, path, linkTarget: null, size: 1, mtime: "2026-01-01T00:00:00.000Z", root: path.slice(0, path.lastIndexOf("/")), rootKind: pathIndex === null ? "well-known" : "path", pathIndex, shadowedBy: null, alsoAt, category: "other" })
const dir = (path: string, pathIndex: number) =>
  new RootReport({ path, kind: "path", depth: "one-level", pathIndex, status: "ok", reason: null, toolCount: 0 })

describe("namedCopies", () => {
  it("answers for names that only exist as aliases of one file, in PATH order", () => {
    const tools = [tool("/a/python3.12", 0, ["/b/python3", "/c/python3"]), tool("/b/node", 1), tool("/home/u/.claude/bin/python3", null)]
    const copies = namedCopies(tools, [dir("/a", 0), dir("/b", 1), dir("/c", 2)], "linux")
    expect(copies.get("python3")?.map((copy) => [copy.path, copy.pathIndex, copy.tool.path])).toEqual([
      ["/b/python3", 1, "/a/python3.12"],
      ["/c/python3", 2, "/a/python3.12"],
      ["/home/u/.claude/bin/python3", null, "/home/u/.claude/bin/python3"]
    ])
    expect(winningCopy(copies.get("python3") ?? [])?.path).toBe("/b/python3")
    expect(winningCopy(copies.get("python3.12") ?? [])?.path).toBe("/a/python3.12")
    expect(copies.get("missing")).toBe(undefined)
  })

  it("places an alias in a PATH dir given with a trailing slash or a dot at that dir's index", () => {
    const tools = [tool("/a/python3.12", 0, ["/b/python3.12"])]
    const copies = namedCopies(tools, [dir("/a", 0), dir("/b/./", 1)], "linux")
    expect(copies.get("python3.12")?.map((copy) => [copy.path, copy.pathIndex])).toEqual([["/a/python3.12", 0], ["/b/python3.12", 1]])
  })

  it("compares names without extension and case on Windows", () => {
    const tools = [tool("C:/x/Git.EXE", 0)]
    const copies = namedCopies(tools, [dir("C:/x", 0)], "win32")
    expect(copies.get("git")?.map((copy) => copy.name)).toEqual(["Git.EXE"])
  })
})

describe("pathLookup", () => {
  it("compares names as they are on POSIX, and ranks every file alike", () => {
    const lookup = pathLookup("linux")
    expect(["git", "Git", "git.exe"].map(lookup.key)).toEqual(["git", "Git", "git.exe"])
    expect(["git", "git.exe"].map(lookup.rank)).toEqual([0, 0])
  })

  it("drops a PATHEXT extension on Windows, in any case, and ranks by the first place in PATHEXT", () => {
    const lookup = pathLookup("win32", [".CMD", ".exe", ".CMD", ".JS"])
    expect(["Git.EXE", "git.cmd", "tool.js", "python3.12", "notes.txt", ".exe"].map(lookup.key)).toEqual(
      ["git", "git", "tool", "python3.12", "notes.txt", ".exe"]
    )
    expect(["git.cmd", "GIT.EXE", "tool.js", "notes.txt"].map(lookup.rank)).toEqual([0, 1, 2, 3])
  })

  it("without the scan's PATHEXT, takes Windows' default order and the script kinds users type bare", () => {
    const lookup = pathLookup("win32")
    expect(["git.com", "git.exe", "git.bat", "git.cmd", "git.vbs", "git.msc", "git.ps1", "git.js"].map(lookup.rank)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7]
    )
    expect(["Tool.PS1", "tool.js"].map(lookup.key)).toEqual(["tool", "tool.js"])
  })
})

describe("runsBefore and pathWinner", () => {
  const copy = (path: string, pathIndex: number | null, rank = 0) => ({ path, pathIndex, rank })

  it("puts the earlier PATH dir first, then the OS's preference in one dir; a copy off PATH never runs first", () => {
    expect(runsBefore(copy("a", 0, 3), copy("b", 1, 0))).toBe(true)
    expect(runsBefore(copy("b", 1, 0), copy("a", 0, 3))).toBe(false)
    expect(runsBefore(copy("a", 2, 0), copy("b", 2, 1))).toBe(true)
    expect(runsBefore(copy("a", 2, 1), copy("b", 2, 1))).toBe(false)
    expect(runsBefore(copy("a", 5), copy("b", null))).toBe(true)
    expect(runsBefore(copy("a", null), copy("b", 0))).toBe(false)
    expect(runsBefore(copy("a", null), copy("b", null))).toBe(false)
  })

  it("picks the first of equals in walk order, and none when no copy is on PATH", () => {
    expect(pathWinner([copy("off", null), copy("late", 3), copy("cmd", 1, 3), copy("exe", 1, 1), copy("exe-again", 1, 1)])?.path).toBe("exe")
    expect(pathWinner([copy("off", null), copy("off-too", null)])).toBe(undefined)
    expect(pathWinner([])).toBe(undefined)
  })
})

describe("winningCopy", () => {
  it("is the PATH winner, else the first copy anywhere", () => {
    const tools = [tool("/home/u/.claude/bin/ripgrep", null), tool("/opt/bin/ripgrep", null), tool("/b/fd", 1), tool("/a/fd", 0)]
    const copies = namedCopies(tools, [dir("/a", 0), dir("/b", 1)], "linux")
    expect(winningCopy(copies.get("ripgrep") ?? [])?.path).toBe("/home/u/.claude/bin/ripgrep")
    expect(winningCopy(copies.get("fd") ?? [])?.path).toBe("/a/fd")
    expect(pathWinner(copies.get("ripgrep") ?? [])).toBe(undefined)
  })

  it("prefers the PATHEXT order within a Windows dir, as the walker does, not the name order", () => {
    const winTool = (path: string, pathIndex: number) =>
      new Tool({ ...tool(path, pathIndex), name: path.split("\\").at(-1)!, root: path.slice(0, path.lastIndexOf("\\")) })
    const windowsDir = (path: string, pathIndex: number) => new RootReport({ ...dir(path, pathIndex), path })
    const tools = [winTool("C:\\x\\git.cmd", 0), winTool("C:\\x\\Git.EXE", 0), winTool("C:\\y\\git.bat", 1)]
    const copies = namedCopies(tools, [windowsDir("C:\\x", 0), windowsDir("C:\\y", 1)], "win32")
    expect(copiesNamed(copies, "GIT", "win32").map((copy) => [copy.name, copy.rank])).toEqual([["git.cmd", 3], ["Git.EXE", 1], ["git.bat", 2]])
    expect(winningCopy(copiesNamed(copies, "git.exe", "win32"))?.path).toBe("C:\\x\\Git.EXE")
  })
})

describe("the PATH winner on Windows", () => {
  it.effect("is the same for the walker's shadowedBy, `query which` and winningCopy under Windows' default PATHEXT", () =>
    Effect.gen(function*() {
      const walker = yield* Walker
      const roots = ["C:\\Tools", "C:\\Other", "D:\\More"].map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
      const result = yield* walker.walk(roots, { os: "win32", pathExt: [".COM", ".EXE", ".BAT", ".CMD"], recursiveDepthCap: 3, cwd: "C:\\" })
      const tools = result.tools.map((walked) => new Tool({ ...walked, category: "other" }))
      const inventory = new Inventory({ ...inventoryOf(tools), host: new HostInfo({ os: "win32", arch: "x64", node: "v20.20.2", toolMap: "0.1.0" }), path: result.roots })
      const copies = namedCopies(tools, result.roots, "win32")
      const winners = ["git", "node", "Python3.12", "make"].map((name) => {
        const winner = pathWinner(copiesNamed(copies, name, "win32"))?.path ?? null
        for (const walked of tools.filter((walked) => copiesNamed(copies, name, "win32").some((copy) => copy.path === walked.path))) {
          expect(walked.shadowedBy).toBe(walked.path === winner ? null : winner)
        }
        expect(whichTool(inventory, name).winner).toBe(winner)
        expect(winningCopy(copiesNamed(copies, name, "win32"))?.path).toBe(winner)
        return winner
      })
      expect(winners).toEqual(["C:\\Tools\\git.EXE", "C:\\Other\\node.com", "D:\\More\\python3.12.exe", "C:\\Other\\MAKE.bat"])
      expect(tools.map((walked) => [walked.path, walked.shadowedBy])).toEqual([
        ["C:\\Tools\\git.EXE", null],
        ["C:\\Tools\\git.cmd", "C:\\Tools\\git.EXE"],
        ["C:\\Other\\GIT.bat", "C:\\Tools\\git.EXE"],
        ["C:\\Other\\MAKE.bat", null],
        ["C:\\Other\\make.cmd", "C:\\Other\\MAKE.bat"],
        ["C:\\Other\\node.cmd", "C:\\Other\\node.com"],
        ["C:\\Other\\node.com", null],
        ["D:\\More\\node.exe", "C:\\Other\\node.com"],
        ["D:\\More\\python3.12.exe", null]
      ])
    }).pipe(Effect.provide(Walker.layerTest({
      style: "win32",
      user: null,
      nodes: {
        "C:\\Tools\\git.EXE": { type: "file", size: 1 },
        "C:\\Tools\\git.cmd": { type: "file", size: 2 },
        "C:\\Other\\GIT.bat": { type: "file", size: 3 },
        "C:\\Other\\node.cmd": { type: "file", size: 4 },
        "C:\\Other\\node.com": { type: "file", size: 5 },
        "C:\\Other\\MAKE.bat": { type: "file", size: 6 },
        "C:\\Other\\make.cmd": { type: "file", size: 7 },
        "D:\\More\\node.exe": { type: "file", size: 8 },
        "D:\\More\\python3.12.exe": { type: "file", size: 9 }
      }
    }))))
})
