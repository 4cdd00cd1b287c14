import { describe, expect, it } from "@effect/vitest"
import * as NodePath from "node:path"
import { AgentHostRoot } from "../../../../src/inventory/domain/agentHosts.js"
import { combineFindings, emptyFindings, findingsBuilder, hasOwnRoot, inSharedDir } from "../../../../src/inventory/discover/agentHosts/findings.js"
import { booleanField, integerField, stringField, toolListField } from "../../../../src/inventory/discover/agentHosts/frontmatterFields.js"

const root = (path: string, status: AgentHostRoot["status"]) => new AgentHostRoot({ path, role: "skills", status, reason: null })

describe("findings: what a read found, without files", () => {
  it("a host is there only through a root outside the folders it shares", () => {
    const shared = ["/home/u/.agents/skills", "/home/u/.claude/skills"]
    expect(hasOwnRoot(NodePath.posix, [root("/home/u/.agents/skills", "ok"), root("/home/u/.claude/skills/a", "ok")], shared)).toBe(false)
    expect(hasOwnRoot(NodePath.posix, [root("/home/u/.agents/skills", "ok"), root("/home/u/.config/opencode/skills", "missing")], shared)).toBe(false)
    expect(hasOwnRoot(NodePath.posix, [root("/home/u/.agents/skills", "ok"), root("/home/u/.config/opencode/skills", "unreadable")], shared)).toBe(true)
    // A sibling whose name starts with a shared folder's is not inside it.
    expect(hasOwnRoot(NodePath.posix, [root("/home/u/.agents/skills-extra", "ok")], shared)).toBe(true)
    expect(inSharedDir(NodePath.posix, shared, "/home/u/.claude/skills")).toBe(true)
    expect(inSharedDir(NodePath.posix, shared, null)).toBe(false)
    expect(inSharedDir(NodePath.win32, ["C:\\Users\\u\\.agents\\skills"], "C:\\Users\\u\\.agents\\skills\\a\\SKILL.md")).toBe(true)
  })

  it("a builder keeps what it is told in order, each watched path once, and a root recorded anew replaces the old", () => {
    const b = findingsBuilder()
    b.watch("/a")
    b.root("/a/config.json", "config", "ok")
    b.problem("/a/x.md", 3, "bad")
    b.watch("/a")
    b.add({ roots: [root("/b", "missing")], problems: [{ path: null, line: null, message: "note" }], watched: ["/b", "/a"] })
    b.replaceRoot("/a/config.json", "config", "invalid", "invalid JSON")
    const done = b.done()
    expect(done.roots.map((known) => [known.path, known.role, known.status, known.reason])).toEqual([
      ["/b", "skills", "missing", null],
      ["/a/config.json", "config", "invalid", "invalid JSON"]
    ])
    expect(done.problems).toEqual([{ path: "/a/x.md", line: 3, message: "bad" }, { path: null, line: null, message: "note" }])
    expect(done.watched).toEqual(["/a", "/b"])
    expect(findingsBuilder().done()).toBe(emptyFindings)
  })

  it("combining keeps the first's findings before the second's; nothing found is the identity", () => {
    const first = { roots: [root("/1", "ok")], problems: [{ path: "/1", line: null, message: "one" }], watched: ["/1"] }
    const second = { roots: [root("/2", "ok")], problems: [], watched: ["/2"] }
    expect(combineFindings(first, second)).toEqual({ roots: [root("/1", "ok"), root("/2", "ok")], problems: first.problems, watched: ["/1", "/2"] })
    expect(combineFindings(first, emptyFindings)).toBe(first)
    expect(combineFindings(emptyFindings, second)).toBe(second)
  })

  it("frontmatter fields read as values or as the problem a diagnostic reports", () => {
    const fields = { name: "x", count: 3, flag: "true", list: ["Read", "Grep"], bad: { a: 1 }, text: "3" }
    expect(stringField(fields, "count")).toEqual({ value: "3", problem: null })
    expect(stringField(fields, "bad")).toEqual({ value: null, problem: "field `bad` is not a string; ignored" })
    expect(stringField(fields, "absent")).toEqual({ value: null, problem: null })
    expect(booleanField(fields, "flag")).toEqual({ value: true, problem: null })
    expect(booleanField(fields, "name")).toEqual({ value: null, problem: "field `name` is not a boolean; ignored" })
    expect(integerField(fields, "text")).toEqual({ value: 3, problem: null })
    expect(integerField(fields, "name")).toEqual({ value: null, problem: "field `name` is not a whole number; ignored" })
    expect(toolListField(fields, ["tools", "list"])).toEqual({ value: ["Read", "Grep"], problem: null })
    expect(toolListField(fields, ["bad"])).toEqual({ value: null, problem: "field `bad` is a mapping, not a list or a comma-separated string; treated as absent" })
  })
})
