import { describe, expect, it } from "@effect/vitest"
import { assessRisk, destructiveVerbsIn, nameWords } from "../../../src/catalog/core/risk.js"

describe("risk", () => {
  it("splits names into words at separators and camelCase humps", () => {
    expect(nameWords("deleteFile")).toEqual(["delete", "file"])
    expect(nameWords("HTTPRequest-run.now")).toEqual(["http", "request", "run", "now"])
    expect(destructiveVerbsIn("git_push_and_deploy")).toEqual(["push", "deploy"])
    expect(destructiveVerbsIn("format_permissions")).toEqual([])
    expect(destructiveVerbsIn("executeCode")).toEqual(["execute"])
    // Lowercasing can turn a character beyond ASCII into an ASCII letter (the Kelvin sign).
    expect(nameWords("\u212Aill_it")).toEqual(["kill", "it"])
    expect(nameWords("plain_snake-case.name2")).toEqual(["plain", "snake", "case", "name2"])
  })

  it("marks a destructive verb in the short name as high risk", () => {
    expect(assessRisk({ shortName: "remove_user", listed: false })).toEqual({
      highRisk: true,
      evidence: ["name has the verb \"remove\""]
    })
    expect(assessRisk({ shortName: "list_users", listed: false })).toEqual({ highRisk: false, evidence: [] })
  })

  it("takes destructiveHint as evidence that raises risk", () => {
    expect(assessRisk({ shortName: "archive", listed: false, hints: { destructiveHint: true } })).toEqual({
      highRisk: true,
      evidence: ["MCP destructiveHint=true (untrusted hint)"]
    })
    expect(assessRisk({ shortName: "archive", listed: false, hints: { destructiveHint: false } })).toEqual({
      highRisk: false,
      evidence: []
    })
  })

  it("never lets readOnlyHint lower risk", () => {
    expect(assessRisk({ shortName: "delete_all", listed: false, hints: { readOnlyHint: true, destructiveHint: false } }))
      .toEqual({
        highRisk: true,
        evidence: ["name has the verb \"delete\"", "MCP readOnlyHint=true ignored: an untrusted hint never lowers risk"]
      })
    expect(assessRisk({ shortName: "peek", listed: true, hints: { readOnlyHint: true } })).toEqual({
      highRisk: true,
      evidence: ["listed in the highRisk config", "MCP readOnlyHint=true ignored: an untrusted hint never lowers risk"]
    })
  })

  it("lets an explicit annotation decide over heuristics, but never over the config list", () => {
    expect(assessRisk({ shortName: "delete_cache", listed: false, annotated: { value: false, layer: "user" } })).toEqual({
      highRisk: false,
      evidence: ["annotation (user): highRisk=false", "name has the verb \"delete\""]
    })
    expect(assessRisk({ shortName: "view", listed: false, annotated: { value: true, layer: "package" } })).toEqual({
      highRisk: true,
      evidence: ["annotation (package): highRisk=true"]
    })
    expect(assessRisk({ shortName: "view", listed: true, annotated: { value: false, layer: "user" } })).toEqual({
      highRisk: true,
      evidence: ["listed in the highRisk config", "annotation (user): highRisk=false"]
    })
  })
})
