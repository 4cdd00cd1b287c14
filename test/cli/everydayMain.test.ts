import { describe, expect, it } from "vitest"
import { everydayRequest } from "../../src/cli/everydayMain.js"
import { commandTree } from "../../src/cli/main.js"
import { interpretArgs } from "../../src/cli/usage.js"

describe("the lines the everyday entry answers itself", () => {
  const accepted: ReadonlyArray<readonly [ReadonlyArray<string>, ReturnType<typeof everydayRequest>]> = [
    [["query", "which", "git"], { _tag: "Which", name: "git", json: false }],
    [["query", "which", "python3.12", "--json"], { _tag: "Which", name: "python3.12", json: true }],
    [["query", "which", "help"], { _tag: "Which", name: "help", json: false }],
    [["scan", "--if-stale"], { _tag: "IfStale", json: false, quiet: false }],
    [["scan", "--if-stale", "--quiet"], { _tag: "IfStale", json: false, quiet: true }],
    [["scan", "-q", "--if-stale"], { _tag: "IfStale", json: false, quiet: true }],
    [["scan", "--json", "--if-stale", "--no-probes"], { _tag: "IfStale", json: true, quiet: false }],
    [["scan", "--if-stale", "--json", "--quiet"], { _tag: "IfStale", json: true, quiet: true }]
  ]

  it.each(accepted)("%j", (args, request) => {
    expect(everydayRequest(args)).toEqual(request)
    // The whole CLI runs the same line as a command (no help, no usage error, no completion).
    expect(interpretArgs(commandTree(), args)._tag).toBe("Run")
  })

  const handedOver: ReadonlyArray<ReadonlyArray<string>> = [
    [],
    ["--version"],
    ["query", "which"],
    ["query", "which", "--json"],
    ["query", "which", "--help"],
    ["query", "which", "-h"],
    ["query", "which", ""],
    ["query", "which", "git", "node"],
    ["query", "which", "git", "--from", "inv.md"],
    ["query", "which", "--json", "git"],
    ["query", "which", "git", "--json", "--json"],
    ["query", "tools"],
    ["scan"],
    ["scan", "--force"],
    ["scan", "--if-stale", "--force"],
    ["scan", "--if-stale", "inv.md"],
    ["scan", "--if-stale", "--help"],
    ["scan", "--if-stale", "--if-stale"],
    ["scan", "--if-stale", "-q", "--quiet"],
    ["scan", "--if-stale", "--no-probe"],
    ["scan", "--if-stale", "--wizard"],
    ["scan", "--if-stale", "--log-level", "debug"],
    ["mcp"]
  ]

  it.each(handedOver)("%j is left to the whole CLI", (...args) => {
    expect(everydayRequest(args)).toBeNull()
  })
})
