import { describe, expect, it } from "vitest"
import { RootReport, Tool } from "../../../src/inventory/domain/inventory.js"
import { namedCopies, winningCopy } from "../../../src/inventory/domain/toolNames.js"

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

  it("compares names without extension and case on Windows", () => {
    const tools = [tool("C:/x/Git.EXE", 0)]
    const copies = namedCopies(tools, [dir("C:/x", 0)], "win32")
    expect(copies.get("git")?.map((copy) => copy.name)).toEqual(["Git.EXE"])
  })
})
