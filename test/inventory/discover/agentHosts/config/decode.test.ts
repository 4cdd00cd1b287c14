/**
 * Config files decoded as leniently as the hosts read them: a key of the wrong type is ignored
 * and named (file, key path, reason, never its value), the rest of the file is still read; a
 * top level of the wrong shape refuses the file.
 */
import { Either, Schema } from "effect"
import * as fc from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { ClaudeSettings } from "../../../../../src/inventory/discover/agentHosts/config/claudeSettings.js"
import { GeminiSettings } from "../../../../../src/inventory/discover/agentHosts/config/geminiSettings.js"
import { decodeMcpEntry } from "../../../../../src/inventory/discover/agentHosts/config/mcpEntry.js"
import { ClaudeHooksConfig, InstalledPlugins } from "../../../../../src/inventory/discover/agentHosts/config/claudePlugins.js"
import { decodeConfig, decodeEntry, keyPath, NamedMap } from "../../../../../src/inventory/discover/agentHosts/config/decode.js"

const ignoredOf = <A, I>(decoded: Either.Either<{ readonly value: A; readonly ignored: ReadonlyArray<{ readonly key: string; readonly reason: string }> }, unknown>) =>
  Either.getOrThrow(decoded).ignored.map((issue) => [issue.key, issue.reason])

describe("decodeConfig", () => {
  it("keeps what fits and names each key it ignores, with its path and no value", () => {
    const decoded = decodeConfig(ClaudeSettings, "/u/.claude/settings.json")({
      model: 42,
      enabledPlugins: { "a@m": true, "b@m": "yes", "c@m": false },
      deniedMcpServers: [{ serverName: "x" }, "sk-ant-api03-secretsecretsecretsecret", { serverCommand: ["npx", 1, "srv"] }],
      skillListingBudgetFraction: 0.02,
      unknownKey: { anything: true }
    })
    expect(Either.getOrThrow(decoded).value).toEqual({
      enabledPlugins: { "a@m": true, "c@m": false },
      deniedMcpServers: [{ serverName: "x" }, { serverCommand: ["npx", "srv"] }],
      skillListingBudgetFraction: 0.02
    })
    expect(ignoredOf(decoded)).toEqual([
      ["enabledPlugins.b@m", "is not a boolean: ignored"],
      ["deniedMcpServers[1]", "is not an object: ignored"],
      ["deniedMcpServers[2].serverCommand[1]", "is not a string: ignored"],
      ["model", "is not a string: ignored"]
    ])
    expect(JSON.stringify(Either.getOrThrow(decoded).ignored)).not.toContain("sk-ant")
    expect(Either.getOrThrow(decoded).ignored[0]?.message).toBe("/u/.claude/settings.json: enabledPlugins.b@m is not a boolean: ignored")
  })

  it("refuses a document whose top level is not an object, naming the file", () => {
    const decoded = decodeConfig(ClaudeSettings, "/p/.claude/settings.json")(["model"])
    expect(Either.getLeft(decoded).pipe((left) => left._tag === "Some" ? [left.value.file, left.value.key, left.value.reason, left.value.message] : null)).toEqual([
      "/p/.claude/settings.json",
      "",
      "is not an object",
      "/p/.claude/settings.json: the document is not an object"
    ])
  })

  it("reads a present key of another shape as empty where the host does (allowedMcpServers, mcpServers of settings)", () => {
    const decoded = decodeConfig(ClaudeSettings, "/etc/claude-code/managed-settings.json")({ allowedMcpServers: "all", mcpServers: null })
    expect(Either.getOrThrow(decoded)).toEqual({ value: { allowedMcpServers: [], mcpServers: {} }, ignored: [] })
  })

  it("reads an installation that is not an object as one without installPath, in a list or alone", () => {
    const decoded = decodeConfig(InstalledPlugins, "/u/.claude/plugins/installed_plugins.json")({ plugins: { "a@m": [{ installPath: "a", scope: 3 }, null], "b@m": 7 } })
    expect(Either.getOrThrow(decoded).value).toEqual({ plugins: { "a@m": [{ installPath: "a" }, {}], "b@m": {} } })
    expect(ignoredOf(decoded)).toEqual([["plugins.a@m[0].scope", "is not a string: ignored"]])
  })

  it("keeps __proto__ as a key like any other, in the original object's order", () => {
    const input = JSON.parse(`{"__proto__": true, "x@m": false}`) as unknown
    const decoded = Either.getOrThrow(decodeConfig(Schema.Struct({ enabledPlugins: NamedMap(Schema.Boolean) }), "f")({ enabledPlugins: input })).value.enabledPlugins
    expect(Object.keys(decoded)).toEqual(["__proto__", "x@m"])
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
    expect(Object.hasOwn(decoded, "__proto__") && decoded["__proto__"]).toBe(true)
  })

  it("drops the entry that holds a required key that is missing or of the wrong type", () => {
    const Entry = Schema.Struct({ name: Schema.String, note: Schema.optionalWith(Schema.String, { exact: true }) })
    const decoded = decodeConfig(Schema.Struct({ list: Schema.Array(Entry) }), "f")({ list: [{ name: "a" }, { note: "b" }, { name: 1 }, { name: "d", note: 2 }] })
    expect(Either.getOrThrow(decoded).value).toEqual({ list: [{ name: "a" }, { name: "d" }] })
    expect(ignoredOf(decoded)).toEqual([
      ["list[1].name", "is missing: list[1] is ignored"],
      ["list[2].name", "is not a string: list[2] is ignored"],
      ["list[3].note", "is not a string: ignored"]
    ])
  })

  it("leaves the parsed input as it was", () => {
    const input = { model: 1, enabledPlugins: { a: "x" } }
    decodeConfig(ClaudeSettings, "f")(input)
    expect(input).toEqual({ model: 1, enabledPlugins: { a: "x" } })
  })
})

describe("decodeConfig on any JSON (property)", () => {
  // Values shaped like the keys the schemas read, and anything else, nested.
  const key = fc.constantFrom("model", "enabledPlugins", "mcpServers", "allowedMcpServers", "deniedMcpServers", "serverCommand", "mcp", "allowed", "context", "fileName", "security", "folderTrust", "enabled", "command", "args", "env", "__proto__", "x")
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.string(), fc.boolean(), fc.integer(), fc.constant(null), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(key, tie("value"), { maxKeys: 5 }))
  })).value
  const check = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown) => {
    const decoded = decodeConfig(schema, "f")(input)
    expect(Either.isRight(decoded)).toBe(typeof input === "object" && input !== null && !Array.isArray(input))
    if (Either.isRight(decoded)) expect(Schema.is(schema)(decoded.right.value)).toBe(true)
  }
  it("never throws; refuses only a top level that is not an object; what it keeps fits the schema", () => {
    fc.assert(fc.property(json, (input) => {
      check(ClaudeSettings, input)
      check(GeminiSettings, input)
      for (const dialect of ["claude", "codex", "gemini", "opencode"] as const) expect(typeof decodeMcpEntry(input, dialect).entry).toBe("object")
    }), { numRuns: 300 })
  })
})

describe("decodeEntry", () => {
  it("reads an entry that is not an object as the empty value", () => {
    const decode = decodeEntry(Schema.Struct({ a: Schema.optionalWith(Schema.String, { exact: true }) }), {})
    expect([decode("text"), decode({ a: 1 }), decode({ a: "x" })]).toEqual([{}, {}, { a: "x" }])
  })
})

describe("keyPath", () => {
  it("writes indexes in brackets, quotes keys that could be misread and cleans control characters", () => {
    expect(keyPath(["mcpServers", "my server", "args", 2])).toBe(`mcpServers."my server".args[2]`)
    expect(keyPath(["projects", "/home/u/p", "mcpServers"])).toBe("projects./home/u/p.mcpServers")
    expect(keyPath(["a.b", "x\u001b[31m"])).toBe(`"a.b"."x\\u001b[31m"`)
  })

  // Review finding: misfits were removed one at a time, each a copy of the list (32,000 took 15 s,
  // a 1 MiB file about 95,000): one walk now. The bound is far above one walk's time on a loaded machine.
  it("removes 100,000 misfits of one list in one walk", () => {
    const hooks = Array.from({ length: 100_000 }, (_, index) => (index % 2 === 0 ? { type: 1 } : { type: "command", command: `c${index}` }))
    const started = Date.now()
    const decoded = decodeConfig(ClaudeHooksConfig, "/p/hooks.json")({ hooks: { SessionStart: [{ hooks }] } })
    expect(Date.now() - started).toBeLessThan(20_000)
    const value = Either.getOrThrow(decoded)
    expect(value.ignored.length).toBe(50_000)
    expect(value.ignored[0]!.key).toBe("hooks.SessionStart[0].hooks[0].type")
    const kept = value.value.hooks?.SessionStart?.[0]?.hooks ?? []
    // A hook's wrongly typed `type` is ignored, the hook kept without it (as the host reads it).
    expect([kept.length, kept[0], kept[1], kept.at(-1)]).toEqual([100_000, {}, { type: "command", command: "c1" }, { type: "command", command: "c99999" }])
  }, 30_000)
})
